"""BIA benchmark (RESULTS.md section ``## BIA``): full path at n=1000, p=784 and p=5000, and the
numba kernels against a plain numpy implementation of the same math; and (``--part wide``, issue
32) a fit as wide as the memory budget allows.

    PYTHONPATH=. python benchmarks/bench_bia.py [--quick] [--part kernels|wide|words|all]

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

Words (``--part words``, issue 32 item 3): A/B in one process, before vs after, of
``BIASelector().fit`` at its defaults on the 75% training split (seed 0) of the movie reviews
(1,500 x 4,752 word presences, sparse) and of notMNIST B vs D (dense), the fits alternated, CPU
seconds of each. "before" is the fit with the kernels this change replaced, kept below
(:func:`old_matvec`, a full-row product; the sparse couplings from scipy's product X'X per
block): the same fit otherwise. Also the stages of the "after" fit (couplings, path, solve), and
the fit with float32 couplings forced by a budget (the memory-bound path reads half the bytes
again) with its largest posterior difference: the numbers behind keeping float64.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np
import scipy.sparse as sp
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.glm import prior_mean_expansion
from fsengine.methods.bia import kernels as bia_kernels
from fsengine.methods.bia import memory
from fsengine.methods.bia import model as bia_model
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


# --- before issue 32 item 3: the kernels the words A/B compares against ------------------------------

@njit(cache=True, fastmath=True)
def old_matvec(J, m, out):
    """out = J m over every row in full (before: both triangles read)."""
    p = m.size
    for i in range(p):
        acc = 0.0
        for j in range(p):
            acc += J[i, j] * m[j]
        out[i] = acc


@njit(cache=True)
def _old_residual(alpha, beta, eps, scale, m, u):
    worst = 0.0
    for i in range(m.size):
        worst = max(worst, abs(m[i] - np.tanh(eps * alpha[i] + eps * eps * beta[i] + scale * u[i])))
    return worst


@njit(cache=True)
def old_mean_field_path_residuals(alpha, beta, J_ref, eps_ref, eps_grid, m0, eps0):
    """bia_kernels.mean_field_path_residuals with :func:`old_matvec`."""
    n_steps, p = eps_grid.size, alpha.size
    M, max_dm, before = np.empty((n_steps, p)), np.empty(n_steps), np.empty(n_steps)
    m, u, prev = m0.copy(), np.empty(p), eps0
    for k in range(n_steps):
        eps = eps_grid[k]
        scale = (eps / eps_ref) ** 2
        old_matvec(J_ref, m, u)
        before[k] = _old_residual(alpha, beta, prev, (prev / eps_ref) ** 2, m, u) if prev > 0.0 else np.nan
        dm = 0.0
        for i in range(p):
            new = np.tanh(eps * alpha[i] + eps * eps * beta[i] + scale * u[i])
            dm = max(dm, abs(new - m[i]))
            M[k, i] = new
        m = M[k].copy()
        max_dm[k] = dm
        prev = eps
    return M, max_dm, before


@njit(cache=True)
def old_fixed_point_residuals(alpha, beta, J_ref, eps_ref, eps, M):
    out, u = np.empty(M.shape[0]), np.empty(alpha.size)
    for k in range(M.shape[0]):
        old_matvec(J_ref, M[k], u)
        out[k] = _old_residual(alpha, beta, eps[k], (eps[k] / eps_ref) ** 2, M[k], u)
    return out


@njit(cache=True)
def old_damped_mean_field(h, J, scale, m0, damping, tol, max_iter):
    m, p = m0.copy(), m0.size
    residual, it, u = np.inf, 0, np.empty(p)
    while it < max_iter:
        old_matvec(J, m, u)
        residual = 0.0
        for i in range(p):
            target = np.tanh(h[i] + scale * u[i])
            residual = max(residual, abs(target - m[i]))
            m[i] = (1.0 - damping) * m[i] + damping * target
        it += 1
        if residual < tol:
            break
    return m, it, residual


def old_couplings_in_blocks(X, exp, dtype, report):
    """model._couplings_in_blocks before: a sparse X's Gram blocks from scipy's product X'X."""
    if not sp.issparse(X):
        return NEW_COUPLINGS(X, exp, dtype, report)
    n, p = X.shape
    stdz = exp.standardization
    J = np.empty((p, p), dtype=dtype)
    alpha, beta = np.zeros(p), np.zeros(p)
    Xc = sp.csc_matrix(X)
    squares = 0.0
    for c0 in range(0, p, memory.GRAM_BLOCK):
        c1 = min(p, c0 + memory.GRAM_BLOCK)
        G = (Xc[:, :c1].T @ Xc[:, c0:c1]).toarray()
        G -= n * np.outer(stdz.mean[:c1], stdz.mean[c0:c1])
        G /= stdz.scale[:c1, None]
        G /= stdz.scale[None, c0:c1]
        squares += bia_kernels.couplings_from_gram_block(np.ascontiguousarray(G), c0, exp.b, exp.curvature,
                                                         float(n), J, alpha, beta)
    return J, alpha, beta, float(np.sqrt(2.0 * squares / (p * (p - 1.0))))


NEW_COUPLINGS = bia_model._couplings_in_blocks


def before_issue_32_item_3():
    """Patches that make BIASelector fit with the kernels before this change."""
    return mock.patch.multiple(bia_kernels, mean_field_path_residuals=old_mean_field_path_residuals,
                               fixed_point_residuals=old_fixed_point_residuals,
                               damped_mean_field=old_damped_mean_field)


def words(quick: bool) -> None:
    """A/B (module docstring, "Words")."""
    from fsengine.data import load_dataset
    from fsengine.data.transforms import split
    from fsengine.selectors import BIASelector

    repeats = 2 if quick else 3
    print("\n### BIA on the words: before vs after issue 32 item 3, one run, fits alternated\n")
    print(f"Command: `PYTHONPATH=. FSENGINE_DATA=... python benchmarks/bench_bia.py --part words"
          f"{' --quick' if quick else ''}`; load average before: {'{:.1f} {:.1f} {:.1f}'.format(*os.getloadavg())}; "
          f"CPU seconds of one `BIASelector().fit` (defaults) on the 75% split, median of {repeats} "
          "(each run's CPU seconds in brackets).\n")
    print("| data | n x p | before s | after s | before / after | after: couplings / path / solve s | "
          "max abs posterior difference | same order_ | after, float32 couplings s | float32: max abs posterior "
          "difference |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, label in (("movie_reviews", "movie reviews (sparse)"), ("notmnist:letters=BD", "notMNIST B vs D")):
        train, _ = split(load_dataset(key), test_size=0.25, seed=0)
        X, y = train.X, np.asarray(train.y)
        n, p = X.shape
        budget32 = 0.5 * sum(memory.fit_bytes(n, p, 200, size, dense=not sp.issparse(X)) for size in (4, 8)) / memory.MB

        def _before():
            stack = contextlib.ExitStack()
            stack.enter_context(before_issue_32_item_3())
            stack.enter_context(mock.patch.object(bia_model, "_couplings_in_blocks", old_couplings_in_blocks))
            return stack

        for ctx in (contextlib.nullcontext, _before):  # numba compilation or cache loading, untimed
            with ctx():
                BIASelector(n_steps=3).fit(X[:, :60], y)
        times, fits = {"before": [], "after": [], "float32": []}, {}
        for _ in range(repeats):
            for which, ctx, kwargs in (("before", _before, {}), ("after", contextlib.nullcontext, {}),
                                       ("float32", contextlib.nullcontext, {"max_memory_mb": budget32})):
                with ctx():
                    t0 = time.process_time()
                    fits[which] = BIASelector(**kwargs).fit(X, y)
                    times[which].append(time.process_time() - t0)
        t0 = time.process_time()
        model = build_bia_model(X, y, "logistic")
        t1 = time.process_time()
        path = model.path()
        t2 = time.process_time()
        model.solve(1.0, m0=path.m[19])
        t3 = time.process_time()
        med = {k: float(np.median(v)) for k, v in times.items()}
        diff = np.abs(fits["before"].scores_ - fits["after"].scores_).max()
        diff32 = np.abs(fits["float32"].scores_ - fits["after"].scores_).max()
        assert fits["float32"].couplings_.dtype == np.float32
        runs = {k: " ".join(f"{t:.2f}" for t in v) for k, v in times.items()}
        print(f"| {label} | {n:,} x {p:,} | {med['before']:.2f} [{runs['before']}] | {med['after']:.2f} "
              f"[{runs['after']}] | {med['before'] / med['after']:.2f} | {t1 - t0:.2f} / {t2 - t1:.2f} / "
              f"{t3 - t2:.2f} | {diff:.1e} | {np.array_equal(fits['before'].order_, fits['after'].order_)} | "
              f"{med['float32']:.2f} [{runs['float32']}] | {diff32:.1e} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    ap.add_argument("--part", choices=("all", "kernels", "wide", "words"), default="all")
    args = ap.parse_args(argv)
    if args.part in ("all", "wide"):
        wide(args.quick)
    if args.part in ("all", "words"):
        words(args.quick)
    if args.part in ("wide", "words"):
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
