"""Bayes-factor selection benchmark (RESULTS.md section ``## Bayes-factor selection``).

    FSENGINE_DATA=/work/shared/data PYTHONPATH=. python benchmarks/bench_bayes_factor.py [--quick]

A full APPROXBFFS run (Daume III Fig. 1, Laplace sign, uniform model prior, sigma^2 = 1) on
CoNLL-2000 Base-NP (all 24 templates, count cutoff 1; WSJ 15-18 train, section 20 tokens as
held-out with gold previous tags) until beta_0 beats every candidate. Reported from the run's
trace: seconds per round split into OptMAP (L-BFGS MAP fit of the active pairs plus train and
held-out accuracy) and candidate scoring (proposals from misclassified tokens, OptSingle Newton
of every proposal, the Eq. (14) re-scoring loop), and candidates scored per second.

Then, on the round-0 model (bias only: the largest proposal set), the numba OptSingle + Eq. (12)
(:func:`fsengine.methods.bayes_factor.model.score_candidates`) against a plain numpy implementation of
the same Newton iteration (vectorised over all candidates with ``np.bincount``), checked equal
before timing; and SGC (Zhou et al.) re-fitted with the same MAP at the same number of pairs.
``--quick``: the first 2,000 training sentences.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed

from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.maxent import MaxentData, MaxentState, fit_map
from fsengine.methods.bayes_factor.model import (
    add_bias_column,
    approx_bayes_factor_selection,
    bias_features,
    misclassified_proposals,
    score_candidates,
)
from fsengine.methods.bayes_factor.study import at_stop_row, heldout_task, prefix_curve
from fsengine.methods.gain.model import select_features

MAP_TOL = 1e-5


def numpy_score(state: MaxentState, pred, cls, var, max_iter=50, tol=1e-10):
    """OptSingle (Newton on the penalised gain, Eq. 17 + prior) and the Laplace margin of Eq. (12)
    for every candidate at once with numpy (plain Newton with |mu| <= 20, no bracketing)."""
    data = state.data
    starts = data.col_ptr[pred]
    lens = data.col_ptr[pred + 1] - starts
    offsets = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
    rows, x = data.col_rows[offsets], data.col_vals[offsets]
    seg = np.repeat(np.arange(pred.size), lens)
    p = state.sum[rows, np.repeat(cls, lens)] / state.z[rows]
    count = data.feature_sums()[pred, cls]
    prec = 1.0 / var
    mu = np.zeros(pred.size)
    for _ in range(max_iter):
        e = np.exp(mu[seg] * x)
        q = p * e / (1.0 - p + p * e)
        d1 = count - np.bincount(seg, x * q, pred.size) - prec * mu
        d2 = -np.bincount(seg, x * x * q * (1.0 - q), pred.size) - prec
        step = -d1 / d2
        mu = np.clip(mu + step, -20.0, 20.0)
        if np.max(np.abs(step)) < tol:
            break
    e = np.exp(mu[seg] * x)
    q = p * e / (1.0 - p + p * e)
    gain = mu * count - np.bincount(seg, np.log1p(p * (e - 1.0)), pred.size) - 0.5 * prec * mu**2
    curv = np.bincount(seg, x * x * q * (1.0 - q), pred.size) + prec
    return mu, gain - 0.5 * np.log(var * curv)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="first 2,000 training sentences")
    parser.add_argument("--per-round", type=int, default=100, help="S, pairs added per round")
    args = parser.parse_args()
    S = args.per_round
    t0 = time.perf_counter()
    ds = load_conll2000_maxent(task="np", n_sentences=2000 if args.quick else 0)
    task = heldout_task(ds)
    print(f"# {platform.node()} python {platform.python_version()}; CoNLL-2000 Base-NP: "
          f"{task.X.shape[0]:,} training tokens, {task.X.shape[1]:,} predicates, "
          f"{task.X_val.shape[0]:,} held-out tokens (loaded in {time.perf_counter() - t0:.1f} s)")

    # warm-up (numba caches, L-BFGS) on a slice, then the full run
    approx_bayes_factor_selection(task.X[:2000], task.y[:2000], n_classes=task.n_classes,
                                  per_round=S, max_pairs=2 * S)
    t0 = time.perf_counter()
    run = approx_bayes_factor_selection(task.X, task.y, n_classes=task.n_classes, per_round=S,
                                        prior_variance=1.0, X_val=task.X_val, y_val=task.y_val,
                                        map_tol=MAP_TOL)
    wall = time.perf_counter() - t0
    tr = run.trace
    at_stop = at_stop_row(run)
    print(f"\nFull run, S = {S}, sigma^2 = 1, Laplace sign, uniform model prior: {wall:.1f} s, "
          f"{len(tr)} rounds, stop: {run.stop_reason} with {run.n_at_stop:,} pairs "
          f"({len(set(run.predicates.tolist())):,} predicates); train accuracy "
          f"{at_stop['train_accuracy']:.4f}, held-out token accuracy {at_stop['heldout_accuracy']:.4f}")
    newton = tr["seconds_newton"]
    rescore = tr["seconds_scoring"] - newton
    print("\n| rounds | pairs at stop | total s | OptMAP s (sum) | scoring s (sum) | of which OptSingle s "
          "| median OptMAP s/round | median scoring s/round | max OptMAP s/round | proposals (sum) "
          "| candidates scored / s (OptSingle) | Eq. 14 re-scorings (sum) |")
    print("|" + "---|" * 12)
    print(f"| {len(tr)} | {run.n_at_stop:,} | {wall:.1f} | {tr['seconds_optmap'].sum():.1f} | "
          f"{tr['seconds_scoring'].sum():.1f} | {newton.sum():.1f} | "
          f"{tr['seconds_optmap'].median():.2f} | {tr['seconds_scoring'].median():.2f} | "
          f"{tr['seconds_optmap'].max():.2f} | {int(tr['n_proposals'].sum()):,} | "
          f"{tr['n_proposals'].sum() / max(newton.sum(), 1e-12):,.0f} | {int(tr['n_rescored'].sum()):,} |")
    print("\nPer round (every round for short runs, else a sample):")
    print("| round | pairs | proposals | best beta_g - beta_0 | OptMAP s | L-BFGS iterations | "
          "scoring s | OptSingle s | Eq. 14 s | held-out accuracy |")
    print("|" + "---|" * 10)
    pick = tr.index if len(tr) <= 12 else np.unique(np.linspace(0, len(tr) - 1, 12).astype(int))
    for i in pick:
        r = tr.loc[i]
        print(f"| {int(r['round'])} | {int(r['n_selected'])} | {int(r['n_proposals']):,} | "
              f"{r['best_margin']:.2f} | {r['seconds_optmap']:.2f} | {int(r['map_iterations'])} | "
              f"{r['seconds_scoring']:.2f} | {r['seconds_newton']:.3f} | "
              f"{rescore.loc[i]:.3f} | {r['heldout_accuracy']:.4f} |")

    # numba vs numpy OptSingle on the bias-only model
    data = MaxentData(add_bias_column(task.X), task.y, task.n_classes)
    bp, bc, bv = bias_features(task.X.shape[1], task.n_classes)
    fit = fit_map(data, bp, bc, prior_variance=bv, tol=MAP_TOL)
    state = MaxentState.from_weights(data, bp, bc, fit.model.weights)
    pred, cls = misclassified_proposals(data, state.predict(), bp * task.n_classes + bc,
                                        task.X.shape[1])
    var = np.ones(pred.size)
    t_numba, ours = timed(lambda: score_candidates(state, pred, cls, var))
    t_numpy, (mu_np, margin_np) = timed(lambda: numpy_score(state, pred, cls, var))
    inside = np.abs(ours.mu) < 19.9
    err_mu = float(np.max(np.abs(ours.mu - mu_np)[inside]))
    err_margin = float(np.max(np.abs(ours.margin - margin_np)[inside]))
    print(f"\nOptSingle + Eq. (12) on the bias-only model, {pred.size:,} candidates "
          f"({int((data.col_ptr[pred + 1] - data.col_ptr[pred]).sum()):,} incidences), median of 3:")
    print("| candidates | numba s | numpy s | numpy / numba | candidates / s (numba) | max abs diff mu | "
          "max abs diff margin |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {pred.size:,} | {t_numba:.3f} | {t_numpy:.3f} | {t_numpy / t_numba:.1f}x | "
          f"{pred.size / t_numba:,.0f} | {err_mu:.1e} | {err_margin:.1e} |")

    # SGC at the same number of pairs, re-fitted by the same MAP
    k = run.n_at_stop
    t0 = time.perf_counter()
    sgc = select_features(MaxentData(task.X, task.y, task.n_classes), "sgc", n_features=k)
    t_sgc = time.perf_counter() - t0
    sp_, sc_ = sgc.selected_pairs()
    bf_curve = prefix_curve(task, run.predicates, run.classes, [k], prior_variance=1.0)
    sgc_curve = prefix_curve(task, sp_, sc_, [k], prior_variance=1.0)
    print(f"\nSame MAP (sigma^2 = 1, unpenalised bias) on the first {k:,} pairs of each order:")
    print("| order | pairs | train accuracy | held-out token accuracy | selection s |")
    print("|---|---|---|---|---|")
    print(f"| Bayes factor (automatic stop) | {k:,} | {bf_curve['train_accuracy'].iloc[0]:.4f} | "
          f"{bf_curve['heldout_accuracy'].iloc[0]:.4f} | {wall:.1f} |")
    print(f"| SGC (Zhou et al.) | {k:,} | {sgc_curve['train_accuracy'].iloc[0]:.4f} | "
          f"{sgc_curve['heldout_accuracy'].iloc[0]:.4f} | {t_sgc:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
