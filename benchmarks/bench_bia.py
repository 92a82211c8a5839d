"""BIA benchmark (RESULTS.md section ``## BIA``): full path at n=1000, p=784 and p=5000, and the
numba kernels against a plain numpy implementation of the same math; and (``--part wide``, issue
32) a fit as wide as the memory budget allows.

    PYTHONPATH=. python benchmarks/bench_bia.py [--quick] [--part kernels|wide|all]

Stages timed (median of repeats, after a numba warm-up):
  expansion  standardisation, b and the Gram matrix G = Z'Z (BLAS)           fsengine.glm
  couplings  G -> J in place, fields alpha/beta (numba, one pass)           bia_kernels
  path       200 mean-field steps from eps = 0 (numba, one mat-vec a step)  bia_kernels
The numpy reference builds the couplings with the textbook array expressions (p x p temporaries)
and runs the same recursion as a Python loop over ``J @ m`` (BLAS mat-vec).

Wide (``--part wide``): ``BIASelector().fit`` at its defaults (200 path steps, the self-consistent
solve at Lambda = Lambda*, the 2,048 MB budget) on n = 200 rows of the AR(1) design
(``make_sparse_glm``, logistic, rho = 0.5) with p = 20,000 (``--quick``: 5,000), each fit in a
fresh process under ``/usr/bin/time -v``: wall and CPU seconds, peak resident memory, the
couplings' type; and at p = 5,000 the couplings built in blocks (float64, and float32 forced by a
budget float64 does not fit) against the whole Gram turned into couplings in place (the build
before issue 32), dense and sparse X: seconds and peak memory of each, in fresh processes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
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


#: a wide fit in a fresh process: "fit" (BIASelector at its defaults) or a build ("blocked", "blocked32",
#: "whole") of the couplings; prints seconds and the couplings' type
WIDE_CHILD = """
import json, sys, time
import numpy as np
import scipy.sparse as sp
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.glm import prior_mean_expansion
from fsengine.methods.bia import memory
from fsengine.methods.bia.model import build_bia_model, model_from_expansion
from fsengine.selectors import BIASelector

what, n, p, sparse = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "sparse"
ds = make_sparse_glm("logistic", n=n, p=p, k=10, rho=0.5, seed=0)
X = sp.csr_matrix(np.where(np.abs(ds.X) > 1.0, ds.X, 0.0)) if sparse else ds.X
y = ds.y
BIASelector(n_steps=3).fit(X[:, :50], y)  # numba compilation or cache loading, untimed
t0, c0 = time.perf_counter(), time.process_time()
if what == "fit":
    sel = BIASelector().fit(X, y)
    dtype, extra = sel.couplings_.dtype, {"n_iter": int(sel.n_iter_), "lambda_star": sel.lambda_star_}
elif what == "whole":
    model = model_from_expansion(prior_mean_expansion("logistic", X, y))
    dtype, extra = model.couplings.dtype, {}
else:
    budget = memory.DEFAULT_MAX_MEMORY_MB if what == "blocked" else 0.5 * sum(
        memory.fit_bytes(n, p, 200, size, dense=not sparse) for size in (4, 8)) / memory.MB
    model = build_bia_model(X, y, "logistic", max_memory_mb=budget)
    dtype, extra = model.couplings.dtype, {}
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "dtype": str(dtype), **extra}))
"""


def wide_run(what: str, n: int, p: int, sparse: bool = False) -> dict:
    """One wide run (WIDE_CHILD) under /usr/bin/time -v: its JSON plus the peak RSS (MB) and the
    load average before it."""
    load = "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", WIDE_CHILD, what, str(n), str(p),
                           "sparse" if sparse else "dense"], cwd=root, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(root)))
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["rss_mb"] = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1)) / 1024
    out["load"] = load
    return out


def wide(quick: bool) -> None:
    n, p = 200, 5000 if quick else 20_000
    print(f"\n### BIA as wide as memory allows: n = {n}, p = {p:,}\n")
    print("| run | p | X | couplings | wall s | CPU s | peak RSS MB | load before |")
    print("|---|---|---|---|---|---|---|---|")
    r = wide_run("fit", n, p)
    print(f"| BIASelector().fit (defaults) | {p:,} | dense | {r['dtype']} | {r['wall']:.1f} | {r['cpu']:.1f} | "
          f"{r['rss_mb']:,.0f} | {r['load']} |", flush=True)
    for sparse in (False, True):
        for what, label in (("whole", "whole Gram, in place (before)"), ("blocked", "in blocks"),
                            ("blocked32", "in blocks, float32 forced")):
            r = wide_run(what, n, 5000, sparse)
            print(f"| couplings: {label} | 5,000 | {'sparse' if sparse else 'dense'} | {r['dtype']} | "
                  f"{r['wall']:.1f} | {r['cpu']:.1f} | {r['rss_mb']:,.0f} | {r['load']} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    ap.add_argument("--part", choices=("all", "kernels", "wide"), default="all")
    args = ap.parse_args(argv)
    if args.part in ("all", "wide"):
        wide(args.quick)
    if args.part == "wide":
        return 0
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
