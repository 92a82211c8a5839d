"""BIA benchmark (RESULTS.md section ``## BIA``): full path at n=1000, p=784 and p=5000, and the
numba kernels against a plain numpy implementation of the same math.

    PYTHONPATH=. python benchmarks/bench_bia.py [--quick]

Stages timed (median of repeats, after a numba warm-up):
  expansion  standardisation, b and the Gram matrix G = Z'Z (BLAS)           fsengine.glm
  couplings  G -> J in place, fields alpha/beta (numba, one pass)           bia_kernels
  path       200 mean-field steps from eps = 0 (numba, one mat-vec a step)  bia_kernels
The numpy reference builds the couplings with the textbook array expressions (p x p temporaries)
and runs the same recursion as a Python loop over ``J @ m`` (BLAS mat-vec).
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.glm import prior_mean_expansion
from fsengine.methods.bia import kernels as bia_kernels
from fsengine.methods.bia.model import build_bia_model, lambda_star


def numpy_couplings(G, b, w, eps_ref):
    """The same fields/couplings as ising_from_gram_inplace, with plain array expressions."""
    H = -w * G
    K = (H**2 + 2.0 * np.outer(b, b) * H) / 8.0
    alpha = (np.diag(H) + b**2) / 4.0
    beta = K.sum(axis=1)
    J = eps_ref**2 * K
    np.fill_diagonal(J, 0.0)
    return alpha, beta, J


def numpy_path(alpha, beta, J_ref, eps_ref, eps_grid):
    M = np.empty((eps_grid.size, alpha.size))
    m = np.zeros(alpha.size)
    for k, eps in enumerate(eps_grid):
        m = np.tanh(eps * alpha + eps * eps * beta + (eps / eps_ref) ** 2 * (J_ref @ m))
        M[k] = m
    return M


def bench_size(n, p, repeats, numpy_ref=True):
    ds = make_sparse_glm("logistic", n=n, p=p, k=10, rho=0.5, seed=0)
    X, y = ds.X, ds.y.astype(float)
    t_exp, exp = timed(lambda: prior_mean_expansion("logistic", X, y), repeats)
    G = exp.gram
    r = bia_kernels.rms_offdiag_correlation(G, float(n))
    eps_ref = 1.0 / lambda_star(n, p, r)
    eps = eps_ref * 0.05 * np.arange(1, 201)

    def numba_couplings():
        Gc = G.copy()
        return (*bia_kernels.ising_from_gram_inplace(Gc, exp.b, exp.curvature, eps_ref), Gc)

    t_copy, _ = timed(lambda: G.copy(), repeats)
    t_cpl, (alpha, beta, J) = timed(numba_couplings, repeats)
    t_cpl = max(t_cpl - t_copy, 0.0)  # the copy only exists to re-run the in-place kernel
    t_path, (M, _) = timed(lambda: bia_kernels.mean_field_path(alpha, beta, J, eps_ref, eps, np.zeros(p)), repeats)
    t_total, _ = timed(lambda: build_bia_model(X, y, "logistic").path(), repeats)
    row = dict(n=n, p=p, expansion=t_exp, couplings=t_cpl, path=t_path, total=t_total)
    if numpy_ref:
        t_np_cpl, (a2, b2, J2) = timed(lambda: numpy_couplings(G, exp.b, exp.curvature, eps_ref), repeats)
        t_np_path, M2 = timed(lambda: numpy_path(alpha, beta, J, eps_ref, eps), repeats)
        assert np.allclose(a2, alpha) and np.allclose(b2, beta, rtol=1e-9, atol=1e-12)
        assert np.allclose(J2, J, rtol=1e-9, atol=1e-300) and np.allclose(M2, M, atol=1e-10)
        row.update(numpy_couplings=t_np_cpl, numpy_path=t_np_path)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    args = ap.parse_args(argv)
    repeats = 3 if args.quick else 7
    sizes = [(1000, 784), (1000, 2000 if args.quick else 5000)]
    bench_size(200, 50, 1)  # numba warm-up (cache load or compile)
    rows = [bench_size(n, p, repeats if p <= 1000 else max(2, repeats // 3)) for n, p in sizes]
    print(f"\n## BIA\n\nCommand: `PYTHONPATH=. python benchmarks/bench_bia.py{' --quick' if args.quick else ''}` "
          f"({platform.processor() or platform.machine()}, numpy {np.__version__}); median seconds.\n")
    print("| n | p | expansion (Gram, BLAS) | couplings (numba) | path, 200 steps (numba) | "
          "full build + path | couplings numpy | path numpy | numpy/numba couplings | numpy/numba path |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']} | {r['p']} | {r['expansion']:.3f} | {r['couplings']:.4f} | {r['path']:.3f} | "
              f"{r['total']:.3f} | {r['numpy_couplings']:.4f} | {r['numpy_path']:.3f} | "
              f"{r['numpy_couplings'] / max(r['couplings'], 1e-9):.1f}x | "
              f"{r['numpy_path'] / max(r['path'], 1e-9):.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
