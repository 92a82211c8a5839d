"""Permutation importance from arrays (fsengine.methods.toolbox.permutation) against scikit-learn's
``permutation_importance``, in one run (results: ``## Permutation importance from arrays`` in
benchmarks/RESULTS.md).

For each dataset and model, the PermutationSelector's model is fitted once on its training part;
then on its held-out part, with its 5 shuffles per feature:

* ours: the selector's scoring step (``linear_permutation_scores`` / ``forest_permutation_scores``),
  best of 3 after an untimed call (numba cache loading);
* scikit-learn: ``permutation_importance`` on the same model, rows and seed. Where it would take
  minutes (``--sklearn-columns N``, default 100 on tables wider than 1,000 features) it is timed on
  the first N columns with the same per-column work it does (copy the held-out rows, shuffle one
  column in place ``n_repeats`` times, ``model.score`` each copy) and scaled by p / N; on notMNIST
  both the full call and the scaled subset are timed, so the scaling is checked in the same run.

Every run checks that the importances equal scikit-learn's (exactly for accuracy).

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_permutation.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp
from sklearn.inspection import permutation_importance
from timing import timed

from fsengine.data import load_dataset
from fsengine.methods.toolbox.permutation import (
    forest_permutation_scores,
    linear_permutation_scores,
    sklearn_shuffles,
)
from fsengine.selectors import PermutationSelector

N_REPEATS = 5


def _sklearn_per_column_seconds(model, X, y, columns: int, seed: int) -> float:
    """Seconds of scikit-learn's per-column work for the first ``columns`` columns, scaled to all."""
    orders = sklearn_shuffles(len(y), N_REPEATS, seed)
    t0 = time.perf_counter()
    for j in range(columns):
        shuffled = X.copy()
        for r in range(N_REPEATS):
            shuffled[:, j] = X[orders[r], j]
            model.score(shuffled, y)
    return (time.perf_counter() - t0) * X.shape[1] / columns


def run(spec: str, model: str, sklearn_columns: int, full_sklearn: bool) -> dict:
    ds = load_dataset(spec)
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=np.float64)
    y = np.asarray(ds.y)
    sel = PermutationSelector(model=model, n_repeats=N_REPEATS)
    sel.task_ = "classification"
    train, test = sel.held_out_split(y)
    fitted = sel._make_model().fit(X[train], y[train])
    Xt, yt = X[test], y[test]
    orders = sklearn_shuffles(len(yt), N_REPEATS, sel.random_state)
    scorer = forest_permutation_scores if model == "forest" else linear_permutation_scores
    scorer(fitted, Xt[:20], yt[:20], sklearn_shuffles(20, 1, 0), classification=True)  # numba cache
    ours_s, scores = timed(lambda: scorer(fitted, Xt, yt, orders, classification=True), 3, stat="min")
    ours = fitted.score(Xt, yt) - scores.T
    row = {"data": spec, "model": model, "features": X.shape[1], "held-out rows": len(yt), "ours s": ours_s}
    if full_sklearn:
        t0 = time.perf_counter()
        ref = permutation_importance(fitted, Xt, yt, n_repeats=N_REPEATS, random_state=sel.random_state)
        row["sklearn s"] = time.perf_counter() - t0
        row["equal"] = bool(np.array_equal(ours, ref.importances))
    columns = min(sklearn_columns, X.shape[1])
    row[f"sklearn s (scaled from {columns} columns)"] = _sklearn_per_column_seconds(
        fitted, Xt, yt, columns, sel.random_state)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="notMNIST B/D only, scikit-learn on 20 columns")
    parser.add_argument("--sklearn-columns", type=int, default=100)
    parser.add_argument("--only", default="", help="run only the cases whose 'data/model' contains this text")
    args = parser.parse_args()
    cases = [("notmnist:letters=BD", "linear", True), ("notmnist:letters=BD", "forest", True)]
    if not args.quick:
        cases += [("movie_reviews", "linear", False), ("movie_reviews", "forest", False)]
    cases = [case for case in cases if args.only in f"{case[0]}/{case[1]}"]
    columns = 20 if args.quick else args.sklearn_columns
    print(f"load average {os.getloadavg()[0]:.2f}; {N_REPEATS} shuffles per feature")
    for spec, model, full in cases:
        row = run(spec, model, columns, full)
        sklearn_key = next(k for k in row if k.startswith("sklearn s (scaled"))
        ratio = row[sklearn_key] / row["ours s"]
        extra = (f"; sklearn full {row['sklearn s']:.2f} s ({row['sklearn s'] / row['ours s']:.0f}x), "
                 f"equal: {row['equal']}") if full else ""
        print(f"{spec:22s} {model:7s} p={row['features']:5d}  ours {row['ours s']:.3f} s  "
              f"{sklearn_key} {row[sklearn_key]:.1f} s  ratio {ratio:.0f}x{extra}  "
              f"(load {os.getloadavg()[0]:.2f})", flush=True)


if __name__ == "__main__":
    main()
