"""Maxent (IFS/SGC) benchmarks on the full CoNLL-2000 Base-NP candidate space.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_maxent.py [--quick]

Prints a markdown report for the ``## Maxent (IFS/SGC)`` section of benchmarks/RESULTS.md:
IFS seconds per stage next to a memory-bound estimate (incidences touched per stage x measured
seconds per gather), SGC / SGC-LA vs IFS at N features (gain computations, wall time, summed gain,
test F1, overlap), the numba gain kernel vs a plain numpy reference, MAP training vs
scikit-learn. ``--quick``: 100 features, a smaller MAP problem.

``--sections pixels`` (issue 32): real-valued predicates, notMNIST B vs D's training part (784 grey
levels in [0, 1], 70% non-zero): the gains of every candidate pair after 20 IFS stages, computed by
the gain kernel of this checkout and of ``KERNELS_BEFORE`` (loaded from git: one log per incidence),
alternating, with their largest difference; then one IFS fit at its defaults with this checkout.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import tempfile
import time

import numpy as np
from numba import njit
from sklearn.linear_model import LogisticRegression
from timing import timed

from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.maxent import MapObjective, MaxentData, MaxentState, fit_map
from fsengine.maxent.kernels import ALPHA_CAP
from fsengine.methods.gain.model import select_features
from fsengine.methods.gain.study import FIT_TOL, evaluate


@njit(cache=True)
def _gather_pass(cand_pred, cand_cls, col_ptr, col_rows, s, z):
    """Touch every incidence once (s[i, c] / z[i]): the memory-bound floor of one gain pass."""
    acc = 0.0
    for t in range(cand_pred.size):
        j, c = cand_pred[t], cand_cls[t]
        for a in range(col_ptr[j], col_ptr[j + 1]):
            i = col_rows[a]
            acc += s[i, c] / z[i]
    return acc


def numpy_gains(state: MaxentState, pred, cls, alpha0, tol=1e-6, max_iter=60):
    """Plain numpy reference of the gain kernel (binary predicates): the same bracketed Newton
    from the same starting points, vectorised over all candidates (np.add.reduceat sums)."""
    d = state.data
    starts, lengths = d.col_ptr[pred], d.col_ptr[pred + 1] - d.col_ptr[pred]
    seg = np.r_[0, np.cumsum(lengths)[:-1]]
    idx = np.repeat(starts - seg, lengths) + np.arange(lengths.sum())
    rows = d.col_rows[idx]
    p = state.sum[rows, np.repeat(cls, lengths)] / state.z[rows]
    count = d.feature_sums()[pred, cls]
    lo, hi = np.full(pred.size, -ALPHA_CAP), np.full(pred.size, ALPHA_CAP)
    alpha = np.clip(np.asarray(alpha0, dtype=float), -ALPHA_CAP, ALPHA_CAP)
    for _ in range(max_iter):
        tp = np.repeat(np.exp(alpha), lengths) * p
        q = tp / (1 - p + tp)
        d1 = count - np.add.reduceat(q, seg)
        d2 = -np.add.reduceat(q * (1 - q), seg)
        lo = np.where(d1 > 0, alpha, lo)
        hi = np.where(d1 < 0, alpha, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = alpha - d1 / d2
        outside = ~np.isfinite(new) | (new < lo) | (new > hi)
        new = np.where(outside, 0.5 * (lo + hi), new)
        done = np.abs(new - alpha) <= tol * (1 + np.abs(alpha))
        alpha = new
        if done.all():
            break
    tp = np.repeat(np.exp(alpha), lengths) * p
    return alpha, alpha * count - np.add.reduceat(np.log(1 - p + tp), seg)


def _cpu_time(fn):
    """(wall seconds, CPU seconds of this process, result): CPU time is robust to other jobs."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def bench_ifs_stage(data, pred, cls, incid, stages):
    """IFS seconds per stage next to one gather pass over every incidence; returns the IFS run."""
    ifs_short = select_features(data, "ifs", cutoff=2, n_features=stages)
    per_stage = np.diff(ifs_short.trace["seconds"].to_numpy()).mean()
    state = ifs_short.state
    t_gather, _ = timed(lambda: _gather_pass(pred, cls, data.col_ptr, data.col_rows, state.sum, state.z),
                        stat="min")
    warm = ifs_short.candidates["alpha"].to_numpy()
    passes = state.gains(pred[:20000], cls[:20000], alpha0=warm[:20000], tol=1e-6).passes / 20000
    print("\n## IFS stage cost (full candidate space)\n")
    print("| quantity | value |\n|---|---|")
    print(f"| seconds per IFS stage (mean of stages 2-{stages}) | {per_stage:.3f} |")
    print(f"| incidences touched per stage | {int(incid.sum()):,} |")
    print(f"| measured seconds per gather (one pass) | {t_gather / incid.sum() * 1e9:.2f} ns |")
    print(f"| memory-bound estimate: one gather pass per stage | {t_gather:.3f} s |")
    print(f"| passes over a column per gain computation (gather + fused Newton passes, warm start) "
          f"| {passes:.2f} |")
    return ifs_short


def bench_sgc_vs_ifs(ds, data, n_feat):
    """SGC and SGC look-ahead 500 against IFS at n_feat features: cost, gain, test scores, overlap."""
    runs = {}
    for name, kw in (("SGC", {"method": "sgc"}), ("SGC-LA 500", {"method": "sgc", "lookahead": 500}),
                     ("IFS", {"method": "ifs"})):
        runs[name] = select_features(data, cutoff=2, n_features=n_feat, **kw)
    scores = {}
    for name, res in runs.items():
        p_, c_ = res.selected_pairs()
        scores[name] = evaluate(ds, fit_map(data, p_, c_, prior_variance=1.0, tol=FIT_TOL * data.n).model)
    ifs = runs["IFS"]
    ifs_comp = ifs.trace["gain_computations"].iloc[1:].sum()
    ifs_sec = ifs.trace["seconds"].iloc[-1] - ifs.trace["seconds"].iloc[0]
    print(f"\n## SGC vs IFS at {n_feat} features (Base-NP)\n")
    print("| method | seconds | gain computations / stage (after stage 0) | IFS/method computations | "
          "IFS/method time | summed gain G (nats/token) | vs IFS | test P / R / F1 | overlap with IFS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, res in runs.items():
        tr = res.trace
        comp = tr["gain_computations"].iloc[1:].sum()
        sec = tr["seconds"].iloc[-1] - tr["seconds"].iloc[0]
        gsum, ifs_gsum = tr["gain"].sum(), ifs.trace["gain"].sum()
        overlap = len(set(res.selected) & set(ifs.selected)) / n_feat
        s = scores[name]
        print(f"| {name} | {tr['seconds'].iloc[-1]:.2f} | {comp / (len(tr) - 1):,.1f} | "
              f"{ifs_comp / comp:,.0f}x | {ifs_sec / sec:,.0f}x | {gsum:.4f} | "
              f"{100 * (gsum / ifs_gsum - 1):+.2f}% | {s['precision']:.2f} / {s['recall']:.2f} / "
              f"{s['f1']:.2f} | {overlap:.0%} |")
    print("\n(seconds include the closed-form stage 0; ratios exclude it, as the paper excludes the "
          "common part.)")


def bench_kernel(pred, cls, incid, ifs_short):
    """numba gain kernel against the plain numpy reference on the same state and warm starts."""
    state = ifs_short.state
    sub = slice(0, 30000)
    warm = ifs_short.candidates["alpha"].to_numpy()[sub]
    t_numba, res_nb = timed(lambda: state.gains(pred[sub], cls[sub], alpha0=warm, tol=1e-6), stat="min")
    t_numpy, (_, g_np) = timed(lambda: numpy_gains(state, pred[sub], cls[sub], warm), 1)
    err = np.max(np.abs(g_np - res_nb.gain) / np.maximum(1.0, np.abs(res_nb.gain)))
    print(f"\n## Gain kernel: numba vs numpy ({pred[sub].size:,} candidates, "
          f"{int(incid[sub].sum()):,} incidences)\n")
    print("| implementation | seconds | ratio |\n|---|---|---|")
    print(f"| numba bracketed Newton | {t_numba:.3f} | 1x |")
    print(f"| numpy bracketed Newton (same warm start, reduceat) | {t_numpy:.3f} | {t_numpy / t_numba:.1f}x |")
    print(f"\nmax relative gain difference: {err:.1e}")


def bench_map(n_sent):
    """fit_map against scikit-learn on the same objective (every predicate x class pair)."""
    small = load_conll2000_maxent(task="np", n_sentences=n_sent, cutoff=2)
    sd = MaxentData(small.X, small.y)
    P, Y = sd.n_predicates, sd.n_classes
    ap_, ac_ = np.repeat(np.arange(P), Y), np.tile(np.arange(Y), P)
    C = 1.0
    # sklearn's lbfgs stops at max|grad| <= tol of the *mean* loss scaled by 1/C; ours is the sum:
    # the same stopping rule is tol * n * C on our scale
    fit_map(sd, ap_[:Y], ac_[:Y], prior_variance=C)  # load the kernel
    w_ours, c_ours, fit = _cpu_time(lambda: fit_map(sd, ap_, ac_, prior_variance=C, tol=1e-6 * sd.n * C))
    sk = LogisticRegression(C=C, fit_intercept=False, tol=1e-6, max_iter=5000)
    w_sk, c_sk, _ = _cpu_time(lambda: sk.fit(small.X, small.y))
    J = MapObjective(sd, ap_, ac_, prior_variance=C)
    j_sk, _ = J(sk.coef_.T[ap_, ac_])
    print(f"\n## MAP training vs scikit-learn ({sd.n:,} tokens x {P:,} predicates x {Y} classes = "
          f"{P * Y:,} weights, C = sigma^2 = {C})\n")
    print("| solver | wall s | CPU s | iterations | objective J | CPU time relative to fsengine |")
    print("|---|---|---|---|---|---|")
    print(f"| fsengine fit_map (L-BFGS, numba gradient) | {w_ours:.2f} | {c_ours:.2f} | {fit.n_iter} | "
          f"{fit.objective:.4f} | 1x |")
    print(f"| sklearn LogisticRegression(lbfgs) | {w_sk:.2f} | {c_sk:.2f} | {int(np.max(sk.n_iter_))} | "
          f"{j_sk:.4f} | {c_sk / c_ours:.1f}x |")


KERNELS_BEFORE = "bb423e7"  # main before the real-valued pass took its logs of running products


def kernels_before():
    """fsengine.maxent.kernels as of ``KERNELS_BEFORE`` (git show), imported from a temporary file."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = subprocess.run(["git", "show", f"{KERNELS_BEFORE}:fsengine/maxent/kernels.py"], cwd=root,
                            check=True, capture_output=True, text=True).stdout
    path = os.path.join(tempfile.mkdtemp(prefix="kernels_before"), "maxent_kernels_before.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("maxent_kernels_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_pixels(repeats: int = 5):
    import numba

    from fsengine.data import load_dataset
    from fsengine.data.transforms import split
    from fsengine.maxent import kernels as after
    from fsengine.methods.gain.model import NEWTON_MAX_ITER, NEWTON_TOL
    from fsengine.methods.registry import METHODS
    from fsengine.methods.run import fit_method

    numba.set_num_threads(1)
    train, _ = split(load_dataset("notmnist:letters=BD"), test_size=0.25, seed=0)
    data = MaxentData(np.asarray(train.X, dtype=np.float64), train.y)
    result = select_features(data, "ifs", n_features=20)
    state = result.state
    pred, cls = data.candidate_pairs(1)
    count = data.feature_sums()[pred, cls]
    n = pred.size
    before = kernels_before()
    gains, times = {}, {"before": [], "after": []}
    for _ in range(repeats):
        for side, module in (("before", before), ("after", after)):
            out = np.empty(n), np.empty(n), np.empty(n)
            start = time.process_time()
            module.gains_kernel(pred, cls, count, np.zeros(n), np.zeros(n), data.col_ptr, data.col_rows,
                                data.col_vals, state.sum, state.z, data.binary, ALPHA_CAP, NEWTON_TOL,
                                NEWTON_MAX_ITER, *out)
            times[side].append(time.process_time() - start)
            gains[side] = out[1]
    rel = np.max(np.abs(gains["after"] - gains["before"]) / np.maximum(np.abs(gains["before"]), 1e-12))
    b, a = min(times["before"]), min(times["after"])
    print(f"\n## Real-valued gains: notMNIST B vs D, {data.n:,} rows x {data.n_predicates} predicates, "
          f"{n:,} candidate pairs after 20 IFS stages (one thread, CPU s, best of {repeats} alternating)\n")
    print("| kernel | CPU s per pass over every candidate | ratio |")
    print("|---|---|---|")
    print(f"| before ({KERNELS_BEFORE}: one log per incidence) | {b:.3f} | 1x |")
    print(f"| after (logs of running products) | {a:.3f} | {b / a:.2f}x |")
    best = {side: int(np.argmax(g)) for side, g in gains.items()}
    print(f"\nlargest relative difference of a gain: {rel:.1e}; best pair before: predicate {pred[best['before']]} "
          f"class {cls[best['before']]}, after: predicate {pred[best['after']]} class {cls[best['after']]} "
          f"(two classes: (j, B) with alpha and (j, D) with -alpha are the same model, their gains equal up "
          f"to rounding)")
    spec = METHODS["ifs"]
    fit_method(spec, spec.resolve({}), train)
    start = time.process_time()
    fit_method(spec, spec.resolve({}), train)
    print(f"one IFS fit at its defaults on the training part (this checkout, one thread): "
          f"{time.process_time() - start:.2f} CPU s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sections", default="ifs,sgc,kernel,map",
                    help="comma-separated subset of: ifs, sgc, kernel, map, pixels")
    args = ap.parse_args()
    sections = set(args.sections.split(","))
    n_feat = 100 if args.quick else 1000
    if sections & {"ifs", "sgc", "kernel"}:
        t0 = time.perf_counter()
        ds = load_conll2000_maxent(task="np")
        data = MaxentData(ds.X, ds.y)
        pred, cls = data.candidate_pairs(2)
        incid = data.predicate_frequency()[pred]
        print(f"# data: {data.n:,} training tokens, {data.n_predicates:,} predicates, {pred.size:,} "
              f"candidates (cutoff 2), {int(incid.sum()):,} incidences; load {time.perf_counter() - t0:.1f} s")
        select_features(data, "ifs", cutoff=2, n_features=2)  # load the kernels once
        select_features(data, "sgc", cutoff=2, n_features=2, lookahead=2)
        if sections & {"ifs", "kernel"}:
            ifs_short = bench_ifs_stage(data, pred, cls, incid, 5 if args.quick else 20)
        if "sgc" in sections:
            bench_sgc_vs_ifs(ds, data, n_feat)
        if "kernel" in sections:
            bench_kernel(pred, cls, incid, ifs_short)
    if "map" in sections:
        bench_map(300 if args.quick else 1500)
    if "pixels" in sections:
        bench_pixels()


if __name__ == "__main__":
    main()
