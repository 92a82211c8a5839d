"""Benchmarks of the classic criteria (results: ``## Classic criteria`` in benchmarks/RESULTS.md).

1. Naive Bayes mutual information (Eq. 2) over the movie-review vocabulary (word-presence tags)
   and over CoNLL-2000 context predicates: ours (binary check, numba counts, entropies, p-values)
   vs scikit-learn's ``mutual_info_classif(discrete_features=True)``; the numba count kernel alone
   vs the same counts by a scipy sparse product X^T one-hot(y).
2. Stump search per boosting round: our sorted-column numba search vs a vectorised numpy search
   (dense data) and vs scikit-learn's ``AdaBoostClassifier`` with depth-1 trees (per round).
3. MDL forward selection: seconds per added feature.
4. L1-logistic path (Eq. 18): liblinear from scratch at each C vs saga warm-started from the
   previous C vs saga from scratch; optimality (Eq. 19) of the result and its non-zero count.
   ``l1ab``: one run of our warm-started coordinate descent (``solver="cd"``, the default) vs
   liblinear from scratch at each C vs saga warm-started, on notMNIST B vs D and the movie reviews:
   the L1 selector's whole path at its defaults, and one stability-selection fit at its defaults
   (its per-half-sample fits by cd or by liblinear; saga's 500 fits are left out); max |coefficient
   difference| and active-set (stable-set) agreement with cd.
5. Where our weighted-error stumps and scikit-learn's Gini stumps differ (not a timing).
6. ``mdlab`` (issue 32 item 3): MDLSelector at its defaults on the 75% training split (seed 0) of
   the movie reviews and of notMNIST B vs D, before vs after in one run, fits alternated: CPU
   seconds, the selected sequence and DL-data compared, and where the rankings part (only among
   features whose gain is zero to round-off). "before" is the step kernel this change replaced,
   kept below (:func:`old_candidate_data_lengths`: an exp and a log1p per row and candidate).
7. ``l1stall`` (issue 32): the cd solver before (commit ``L1_BEFORE``, loaded from git: sweeps only)
   vs after (the orthant-subspace CG step), alternated in one run, CPU seconds: the L1 selector's
   path (``binary_l1_logistic_path`` on the selector's scaled columns and grid) on the three
   bootstrap draws of sentence polarity's 75% split (``min_df=10``; the third stalled), on
   notMNIST B vs D and on the movie reviews (not with --quick); and ``fit_method("l1", defaults)``
   on each draw.
   Newton iterations summed over the path, worst Eq. (19) violation, max |coef| difference.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_classic.py [--quick] [--sections l1ab,l1stall]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import os
import subprocess
import tempfile
import time
import warnings
from collections import Counter
from unittest import mock

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.ensemble import AdaBoostClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from timing import timed

from fsengine.data import load_dataset
from fsengine.data.corpora import read_conll2000, read_movie_reviews
from fsengine.data.features import word_presence_tags
from fsengine.data.transforms import binarize_input, split
from fsengine.methods.classic import l1_path, mdl
from fsengine.methods.classic.binary import binary_indicator, class_codes, csc01
from fsengine.methods.classic.boosting import adaboost_stumps
from fsengine.methods.classic.l1_path import eq19_violation, l1_logistic_path, path_grid
from fsengine.methods.classic.l1_solver import binary_l1_logistic_path
from fsengine.methods.classic.mdl import _row_loss, mdl_forward_selection
from fsengine.methods.classic.mutual_info import mutual_information, ones_per_class
from fsengine.methods.classic.study import same_weights, side_by_side
from fsengine.methods.registry import METHODS
from fsengine.methods.run import fit_method
from fsengine.methods.toolbox import stability
from fsengine.selectors import L1PathSelector, MDLSelector, StabilitySelector


def best_time(fn, repeat: int = 3) -> float:
    return timed(fn, repeat, stat="min")[0]


def conll_predicates(sentences, min_count: int = 1):
    """Binary context predicates per token: the word, its POS, and the neighbouring words and POS
    (w-1, w+1, p-1, p+1); label = the IOB chunk tag. Predicates seen fewer than ``min_count``
    times are dropped."""
    rows = []
    labels = []
    for sent in sentences:
        words = ["<s>"] + [w.lower() for w, _, _ in sent] + ["</s>"]
        tags = ["<s>"] + [p for _, p, _ in sent] + ["</s>"]
        for i, (_, _, chunk) in enumerate(sent, start=1):
            rows.append((f"w0={words[i]}", f"p0={tags[i]}", f"w-1={words[i - 1]}", f"w+1={words[i + 1]}",
                         f"p-1={tags[i - 1]}", f"p+1={tags[i + 1]}"))
            labels.append(chunk)
    counts = Counter(p for row in rows for p in row)
    names = sorted(p for p, c in counts.items() if c >= min_count)
    index = {p: j for j, p in enumerate(names)}
    indices = [index[p] for row in rows for p in row if p in index]
    indptr = np.concatenate([[0], np.cumsum([sum(p in index for p in row) for row in rows])])
    X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(rows), len(names)))
    X.sum_duplicates()
    X.data[:] = 1.0
    return X, np.asarray(labels), names


def counts_by_matrix_product(X01, codes, K):
    """Reference for the count kernel: per-class ones counts as X^T @ one-hot(y) (scipy)."""
    onehot = sp.csr_matrix((np.ones(codes.size), (np.arange(codes.size), codes)), shape=(codes.size, K))
    return np.asarray((X01.T @ onehot).todense())


def bench_mi(name, X, y, sk_columns: int | None, rows: list):
    X01 = binary_indicator(X)
    mutual_information(X01, y)  # compile
    ours = best_time(lambda: mutual_information(binary_indicator(X), y))
    codes, classes = class_codes(y)
    indptr, indices = X01.indptr.astype(np.int64), X01.indices.astype(np.int64)
    kernel = best_time(lambda: ones_per_class(indptr, indices, codes, classes.size))
    product = best_time(lambda: counts_by_matrix_product(X01, codes, classes.size))
    np.testing.assert_array_equal(ones_per_class(indptr, indices, codes, classes.size),
                                  counts_by_matrix_product(X01, codes, classes.size))
    cols = np.arange(X.shape[1]) if sk_columns is None or sk_columns >= X.shape[1] else \
        np.random.default_rng(0).choice(X.shape[1], sk_columns, replace=False)
    Xsub = sp.csc_matrix(X)[:, cols]
    sk = best_time(lambda: mutual_info_classif(Xsub, y, discrete_features=True), repeat=1)
    sk_full = sk * X.shape[1] / cols.size
    agree = np.abs(mutual_information(X01, y).mi[cols] - mutual_info_classif(Xsub, y, discrete_features=True)).max()
    rows.append((name, f"{X.shape[0]:,} x {X.shape[1]:,}", f"{X.nnz:,}", f"{len(np.unique(y))}",
                 f"{ours * 1e3:.1f}", f"{kernel * 1e3:.2f}", f"{product * 1e3:.2f}",
                 f"{sk_full:.1f}" + ("" if cols.size == X.shape[1] else f" (timed on {cols.size:,} columns)"),
                 f"{sk_full / ours:,.0f}x", f"{agree:.1e}"))


def numpy_stump_search(order, sorted_x, codes, w):
    """Vectorised two-class reference: cumulative class weights over pre-sorted columns (n, d)."""
    w_pos = np.where(codes == 1, w, 0.0)[order]
    w_neg = np.where(codes == 0, w, 0.0)[order]
    left_pos, left_neg = np.cumsum(w_pos, axis=0), np.cumsum(w_neg, axis=0)
    tot_pos, tot_neg = left_pos[-1], left_neg[-1]
    err_a = left_pos + (tot_neg - left_neg)       # left predicts 0, right predicts 1
    err_b = left_neg + (tot_pos - left_pos)       # left predicts 1, right predicts 0
    err = np.minimum(err_a, err_b)[:-1]
    valid = sorted_x[1:] != sorted_x[:-1]         # thresholds only between distinct values
    err = np.where(valid, err, np.inf)
    k, j = np.unravel_index(np.argmin(err), err.shape)
    return j, 0.5 * (sorted_x[k, j] + sorted_x[k + 1, j]), err[k, j]


def bench_stumps(name, X, y, rounds: int, rows: list):
    codes, _ = class_codes(y)
    adaboost_stumps(X[:50], y[:50], n_estimators=2)  # compile
    ours = best_time(lambda: adaboost_stumps(X, y, n_estimators=rounds), repeat=1) / rounds
    sk = best_time(lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=rounds)
                   .fit(X, y), repeat=1) / rounds
    numpy_cell = "-"
    if not sp.issparse(X) and codes.max() == 1:
        order = np.argsort(X, axis=0, kind="stable")
        sorted_x = np.take_along_axis(X, order, axis=0)
        w = np.full(codes.size, 1.0 / codes.size)
        numpy_round = best_time(lambda: numpy_stump_search(order, sorted_x, codes, w))
        run = adaboost_stumps(X, y, n_estimators=1)
        assert abs(numpy_stump_search(order, sorted_x, codes, w)[2] - run.trace["weighted_error"][0]) < 1e-12
        numpy_cell = f"{numpy_round * 1e3:.1f}"
    rows.append((name, f"{X.shape[0]:,} x {X.shape[1]:,}", "sparse" if sp.issparse(X) else "dense",
                 str(rounds), f"{ours * 1e3:.1f}", numpy_cell, f"{sk * 1e3:.1f}", f"{sk / ours:.1f}x"))


def bench_mdl(name, X, y, steps: int, rows: list):
    X01 = csc01(binarize_input(X, "auto")[0])
    mdl_forward_selection(X01[:, :5], y, max_features=1)  # compile
    start = time.perf_counter()
    path = mdl_forward_selection(X01, y, max_features=steps)
    per_step = (time.perf_counter() - start) / steps
    rows.append((name, f"{X.shape[0]:,} x {X.shape[1]:,}", str(steps), f"{per_step * 1e3:.1f}",
                 str(path.best_size)))


def bench_l1(name, X, y, n_Cs: int, rows: list):
    """One binary path three ways; Eq. (19) violation = worst over the path."""
    Xs = StandardScaler().fit_transform(X)
    Cs = path_grid(Xs, y, n_Cs=n_Cs, C_span=1e3)
    target = y == np.unique(y)[1]
    for label, solver, warm in (("liblinear, each C from scratch", "liblinear", None),
                                ("saga, warm-started", "saga", True), ("saga, from scratch", "saga", False)):
        kwargs = dict(solver=solver) if warm is None else dict(solver=solver, tol=1e-4, warm_start=warm)
        start = time.perf_counter()
        path = l1_logistic_path(Xs, y, Cs, **kwargs)
        seconds = time.perf_counter() - start
        worst = max(eq19_violation(Xs, target, path.coefs[i, 0], path.intercepts[i, 0], C)
                    for i, C in enumerate(Cs))
        rows.append((name, f"{X.shape[0]:,} x {X.shape[1]:,}", label, f"{seconds:.2f}",
                     str(int(path.active[-1].sum())), f"{worst:.3f}", str(int(path.converged.all()))))


def l1_selector_path(Xs, y, solver):
    """The L1 selector's path at its defaults (grid, tol, max_iter) with ``solver`` (saga
    warm-started, as ``l1_logistic_path`` runs it)."""
    defaults = L1PathSelector().get_params()
    Cs = path_grid(Xs, y, defaults["n_Cs"], defaults["C_span"])
    return l1_logistic_path(Xs, y, Cs, solver=solver, tol=defaults["tol"], max_iter=defaults["max_iter"])


def sklearn_supports(solver):
    """Stability selection's per-half-sample supports as fitted before the cd path: scikit-learn's
    L1 logistic regression at every C (liblinear from scratch, tol 1e-4, intercept_scaling 1;
    saga warm-started from the previous C, tol 1e-4)."""
    def supports(X, codes, n_classes, Cs):
        model = LogisticRegression(l1_ratio=1.0, solver=solver, tol=1e-4, max_iter=1000, random_state=0,
                                   warm_start=solver == "saga")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return np.array([model.set_params(C=float(C)).fit(X, codes).coef_[0] != 0 for C in Cs])
    return supports


def bench_l1_ab(name, X, y, rows_path, rows_stability, quick):
    """One run per solver: the selector's path and one stability fit, both at their defaults."""
    codes, _ = class_codes(y)
    Xs = StandardScaler(with_mean=not sp.issparse(X)).fit_transform(X)
    paths, seconds = {}, {}
    for solver in ("cd", "liblinear") if quick else ("cd", "liblinear", "saga"):
        start = time.perf_counter()
        paths[solver] = l1_selector_path(Xs, codes, solver)
        seconds[solver] = time.perf_counter() - start
    for solver, path in paths.items():
        worst = max(eq19_violation(Xs, codes, path.coefs[i, 0], path.intercepts[i, 0], C)
                    for i, C in enumerate(path.Cs))
        diff = np.abs(path.coefs - paths["cd"].coefs).max()
        agree = (path.active == paths["cd"].active).mean()
        rows_path.append((name, f"{X.shape[0]:,} x {X.shape[1]:,}", solver, f"{seconds[solver]:.2f}",
                          f"{seconds[solver] / seconds['cd']:.1f}", f"{worst:.1e}", str(int(path.converged.all())),
                          f"{diff:.1e}", f"{agree:.4f}", str(int((path.active != paths['cd'].active).sum()))))
    scores, seconds = {}, {}
    for solver in ("cd", "liblinear"):  # saga's 500 fits per stability fit: beyond this benchmark's budget
        patch = (contextlib.nullcontext() if solver == "cd"
                 else mock.patch.object(stability, "_logistic_supports", sklearn_supports(solver)))
        with patch:
            start = time.perf_counter()
            scores[solver] = StabilitySelector().fit(X, y).scores_
            seconds[solver] = time.perf_counter() - start
    threshold = StabilitySelector().pi_threshold
    for solver, score in scores.items():
        stable, stable_cd = score >= threshold, scores["cd"] >= threshold
        rows_stability.append((name, solver, f"{seconds[solver]:.2f}", f"{seconds[solver] / seconds['cd']:.1f}",
                               f"{np.abs(score - scores['cd']).max():.2f}", str(int(stable.sum())),
                               str(int((stable != stable_cd).sum()))))


def l1_ab_section(quick):
    rows_path, rows_stability = [], []
    for X in (np.eye(4), sp.csr_matrix(np.eye(4))):  # load the numba kernels before timing
        binary_l1_logistic_path(X, [0, 1, 0, 1], [1.0])
    nm = load_dataset("notmnist:letters=BD,n_per_class=150" if quick else "notmnist:letters=BD")
    bench_l1_ab("notMNIST B vs D", nm.X, np.asarray(nm.y), rows_path, rows_stability, quick)
    if not quick:
        reviews = load_dataset("movie_reviews")
        bench_l1_ab("movie reviews", reviews.X, np.asarray(reviews.y), rows_path, rows_stability, quick)
    print("### L1 path and stability selection: cd (warm-started) vs liblinear (from scratch) vs saga, one run\n")
    table(["data", "n x d", "solver", "path seconds", "/ cd", "worst Eq. 19 violation (relative to lambda)",
           "all converged", "max abs coef difference vs cd", "active-set agreement with cd (C x feature)",
           "(C, feature) pairs active in one only"], rows_path)
    table(["data", "solver of the half-sample fits", "stability fit seconds", "/ cd",
           "max abs selection-probability difference vs cd", "stable features (pi >= 0.75)",
           "stable-set disagreements with cd"], rows_stability)


def compare_section(nm, rounds: int):
    rows = []
    digits = load_dataset("digits")
    bc = load_dataset("breast_cancer")
    for name, X, y in (("breast cancer", bc.X, bc.y), ("digits (10 classes)", digits.X, digits.y),
                       ("notMNIST B vs D", nm.X, nm.y)):
        run = adaboost_stumps(X, y, n_estimators=rounds)
        same = same_weights(X, y, run)
        differ = same.loc[~same["same_feature"]]
        other_threshold = same.loc[same["same_feature"] & ~np.isclose(same["threshold"], same["gini_threshold"],
                                                                          rtol=0, atol=1e-6)]
        gap = (differ["gini_weighted_error"] - differ["weighted_error"]).to_numpy()
        table_sbs = side_by_side(X, y, run)
        first = table_sbs.loc[~table_sbs["same_stump"], "round"]
        rows.append((name, str(len(run.stumps)), f"{len(differ)}",
                     ", ".join(map(str, differ["round"].tolist()[:12])) + (" ..." if len(differ) > 12 else ""),
                     str(len(other_threshold)), f"{gap.mean():.4f}" if gap.size else "-",
                     f"{gap.max():.4f}" if gap.size else "-",
                     str(int(first.iloc[0])) if len(first) else "never"))
    print("### Weighted-error stumps (ours) vs scikit-learn's Gini stumps\n")
    table(["data", "rounds", "rounds where the Gini stump (same weights) uses another feature",
           "those rounds", "same feature, other threshold", "mean error gap (Gini - ours)",
           "max error gap", "first round where AdaBoostClassifier's own run differs"], rows)


# --- MDL's forward step before issue 32 item 3 (the mdlab section's "before"; its per-row loss is
# mdl._row_loss, unchanged for the two-class data benchmarked) -----------------------------------

@njit(cache=True)
def _old_lengths(F, codes, indptr, indices, log_p0, log_p1, candidate, group, n_groups):
    """mdl.candidate_data_lengths before: shared group terms, every row's loss by exp and log1p,
    a feature alone in its group summed over all rows."""
    n, K = F.shape
    p = log_p0.shape[0]
    out = np.full(p, np.inf)
    buf = np.empty(K)
    members = np.zeros(n_groups, dtype=np.int64)
    first = np.full(n_groups, -1, dtype=np.int64)
    for j in range(p):
        if candidate[j] and np.all(np.isfinite(log_p0[j])):
            members[group[j]] += 1
            if first[group[j]] < 0:
                first[group[j]] = j
    base = np.full(n_groups, np.nan)
    for g in range(n_groups):
        if members[g] > 1:
            s = 0.0
            for t in range(n):
                s += _row_loss(F, t, log_p0[first[g]], codes[t], buf)
            base[g] = s
    on = np.zeros(n, dtype=np.bool_)
    for j in range(p):
        if not candidate[j]:
            continue
        if members[group[j]] > 1 and np.all(np.isfinite(log_p0[j])):
            total = base[group[j]]
            for k in range(indptr[j], indptr[j + 1]):
                t = indices[k]
                total += _row_loss(F, t, log_p1[j], codes[t], buf) - _row_loss(F, t, log_p0[j], codes[t], buf)
        else:
            for k in range(indptr[j], indptr[j + 1]):
                on[indices[k]] = True
            total = 0.0
            for t in range(n):
                total += _row_loss(F, t, log_p1[j] if on[t] else log_p0[j], codes[t], buf)
            for k in range(indptr[j], indptr[j + 1]):
                on[indices[k]] = False
        out[j] = total
    return out


def old_candidate_data_lengths(F, codes, indptr, indices, log_p0, log_p1, p0, p1, candidate, group, n_groups):
    """The step kernel before, under today's signature."""
    return _old_lengths(F, codes, indptr, indices, log_p0, log_p1, candidate, group, n_groups)


def mdl_ab_section(quick):
    repeats = 2 if quick else 3
    rows = []
    load = "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    for key, label in (("movie_reviews", "movie reviews"), ("notmnist:letters=BD", "notMNIST B vs D (x > median)")):
        train, _ = split(load_dataset(key), test_size=0.25, seed=0)
        X, y = train.X, np.asarray(train.y)
        before = mock.patch.object(mdl, "candidate_data_lengths", old_candidate_data_lengths)
        for ctx in (contextlib.nullcontext(), before):  # numba compilation or cache loading, untimed
            with ctx:
                MDLSelector(max_features=2).fit(X[:, :40], y)
        times, fits = {"before": [], "after": []}, {}
        for _ in range(repeats):
            for which in ("before", "after"):
                with before if which == "before" else contextlib.nullcontext():
                    t0 = time.process_time()
                    fits[which] = MDLSelector().fit(X, y)
                    times[which].append(time.process_time() - t0)
        a, b = fits["before"], fits["after"]
        dl_a, dl_b = a.trace_["dl_data"].to_numpy(), b.trace_["dl_data"].to_numpy()
        parted = np.flatnonzero(a.order_ != b.order_)
        med = {k: float(np.median(v)) for k, v in times.items()}
        runs = {k: " ".join(f"{t:.2f}" for t in v) for k, v in times.items()}
        rows.append((label, f"{X.shape[0]:,} x {X.shape[1]:,}", f"{med['before']:.2f} [{runs['before']}]",
                     f"{med['after']:.3f} [{runs['after']}]", f"{med['before'] / med['after']:.1f}",
                     str(a.trace_["feature"].tolist() == b.trace_["feature"].tolist()),
                     f"{np.abs(dl_a - dl_b).max() / np.abs(dl_a).min():.1e}",
                     f"{np.nanmax(np.abs(a.scores_ - b.scores_)):.1e}",
                     str(int(parted[0])) if parted.size else "never",
                     f"{np.abs(a.scores_[a.order_[parted]]).max():.1e}" if parted.size else "-"))
    print("### MDL forward selection: before vs after issue 32 item 3, one run, fits alternated\n")
    print(f"Command: `PYTHONPATH=. FSENGINE_DATA=... python benchmarks/bench_classic.py --sections mdlab"
          f"{' --quick' if quick else ''}`; load average before: {load}; CPU seconds of one `MDLSelector().fit` "
          f"(defaults: 30 forward steps) on the 75% split, median of {repeats} (each run in brackets).\n")
    table(["data", "n x d", "before s", "after s", "before / after", "same selected sequence",
           "max relative DL-data difference", "max abs score (gain) difference",
           "first rank where order_ parts", "largest |gain| among the parted ranks"], rows)


L1_BEFORE = "1a5564b"  # main before the orthant-subspace step of the cd solver


def l1_solver_before():
    """The cd solver module as of ``L1_BEFORE`` (git show), imported from a temporary file."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = subprocess.run(["git", "show", f"{L1_BEFORE}:fsengine/methods/classic/l1_solver.py"], cwd=root,
                            check=True, capture_output=True, text=True).stdout
    path = os.path.join(tempfile.mkdtemp(prefix="l1_before"), "l1_solver_before.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("l1_solver_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def l1_stall_section(quick):
    before = l1_solver_before()
    solvers = {"before": before.binary_l1_logistic_path, "after": binary_l1_logistic_path}
    for solve in solvers.values():  # load the numba kernels before timing
        for X in (np.eye(4), sp.csc_matrix(np.eye(4))):
            solve(X, [0, 1, 0, 1], [1.0])
    defaults = L1PathSelector().get_params()
    sentences = load_dataset("sentence_polarity", min_df=10)
    train, _ = split(sentences, test_size=0.25, seed=0)
    rng = np.random.default_rng(0)
    draws = [rng.integers(0, train.n_samples, train.n_samples) for _ in range(3)]
    cases = [(f"sentence polarity, bootstrap draw {i + 1}", dataclasses.replace(train, X=train.X[rows], y=train.y[rows],
                                                                                 texts=None))
             for i, rows in enumerate(draws)]
    if not quick:
        cases.append(("notMNIST B vs D", load_dataset("notmnist:letters=BD")))
        cases.append(("movie reviews", load_dataset("movie_reviews")))
    path_rows, selector_rows = [], []
    for name, ds in cases:
        codes, _ = class_codes(np.asarray(ds.y))
        target = codes == 1
        Xs = StandardScaler(with_mean=not sp.issparse(ds.X)).fit_transform(ds.X)
        Cs = path_grid(Xs, codes, defaults["n_Cs"], defaults["C_span"])
        fits, seconds = {}, {}
        for label, solve in solvers.items():
            fits[label], seconds[label] = cpu(lambda: solve(Xs, target, Cs, tol=defaults["tol"],
                                                           max_iter=defaults["max_iter"]))
        for label, fit in fits.items():
            worst = max(eq19_violation(Xs, target, fit.coefs[i], fit.intercepts[i], C) for i, C in enumerate(Cs))
            slowest = int(np.argmax(fit.n_iter))
            path_rows.append((name, f"{ds.n_samples:,} x {ds.n_features:,}", label, f"{seconds[label]:.2f}",
                              f"{seconds[label] / seconds['after']:.1f}", str(int(fit.n_iter.sum())),
                              f"{fit.n_iter[slowest]} (C {slowest + 1})", str(int(fit.converged.all())),
                              f"{worst:.1e}", f"{np.abs(fit.coefs - fits['after'].coefs).max():.1e}",
                              str(int(((fit.coefs != 0) != (fits["after"].coefs != 0)).sum()))))
        if not name.startswith("sentence"):
            continue
        spec = METHODS["l1"]
        for label, solve in solvers.items():
            with mock.patch.object(l1_path, "binary_l1_logistic_path", solve):
                _, seconds[label] = cpu(lambda: fit_method(spec, spec.resolve({}), ds))
            selector_rows.append((name, label, f"{seconds[label]:.2f}"))
    print(f"### L1 cd solver before ({L1_BEFORE}, sweeps only) vs after (orthant-subspace CG step), one run\n")
    table(["data", "n x d", "solver", "path CPU s", "/ after", "Newton iterations (sum over C)",
           "most at one C", "all converged", "worst Eq. 19 violation", "max abs coef difference vs after",
           "(C, feature) pairs active in one only"], path_rows)
    table(["data", "solver", "fit_method('l1', defaults) CPU s"], selector_rows)


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def mi_section(X_rev, y_rev, X_con, y_con, quick):
    mi_rows = []
    bench_mi("movie reviews, word presence", X_rev, y_rev, 2000 if quick else None, mi_rows)
    bench_mi("CoNLL-2000 train, context predicates", X_con, y_con, 200 if quick else 1000, mi_rows)
    print("### Mutual information (Eq. 2), all features\n")
    table(["data", "n x d", "non-zeros", "classes", "ours, all of Eq. 2 + p-values [ms]",
           "numba count kernel [ms]", "scipy X^T one-hot(y) counts [ms]", "sklearn [s]",
           "sklearn / ours", "max abs. difference vs sklearn"], mi_rows)


def stumps_section(nm, X_rev, y_rev, quick):
    stump_rows = []
    rounds = 10 if quick else 50
    bench_stumps("notMNIST B vs D", nm.X, nm.y, rounds, stump_rows)
    digits = load_dataset("digits")
    bench_stumps("digits (10 classes)", digits.X, digits.y, rounds, stump_rows)
    bench_stumps("movie reviews, word presence", X_rev, y_rev, 5 if quick else 20, stump_rows)
    print("### Stump search, milliseconds per boosting round\n")
    table(["data", "n x d", "storage", "rounds", "numba [ms/round]", "numpy reference [ms/round]",
           "sklearn AdaBoost depth-1 [ms/round]", "sklearn / numba"], stump_rows)


def mdl_section(nm, X_rev, y_rev, quick):
    mdl_rows = []
    bench_mdl("notMNIST B vs D (x > 0.5)", nm.X, nm.y, 10 if quick else 30, mdl_rows)
    bench_mdl("movie reviews, word presence", X_rev, y_rev, 3 if quick else 20, mdl_rows)
    print("### MDL forward selection (Eq. 10-15), milliseconds per added feature\n")
    table(["data", "n x d", "steps", "ms / step", "chosen size"], mdl_rows)


def l1_section(quick):
    l1_rows = []
    bc = load_dataset("breast_cancer")
    bench_l1("breast cancer", bc.X, bc.y, 20, l1_rows)
    if not quick:  # saga needs minutes here
        small = load_dataset("notmnist", n_per_class=500)
        bench_l1("notMNIST B vs D", small.X, small.y, 20, l1_rows)
    print("### L1-logistic path (Eq. 18): solvers, seconds per path\n")
    table(["data", "n x d", "solver", "seconds", "non-zeros at largest C",
           "worst Eq. 19 violation (relative to lambda)", "all converged"], l1_rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (one to two minutes)")
    parser.add_argument("--sections", default="mi,stumps,mdl,l1,l1ab,compare,mdlab,l1stall",
                        help="comma-separated subset of mi, stumps, mdl, l1, l1ab, compare, mdlab, l1stall "
                             "(default: all)")
    args = parser.parse_args(argv)
    quick = args.quick
    sections = set(args.sections.split(","))
    nm = load_dataset("notmnist", n_per_class=500 if quick else 1000)

    if sections & {"mi", "stumps", "mdl"}:
        reviews = read_movie_reviews()
        X_rev, _ = word_presence_tags(reviews.texts, min_df=2 if quick else 1)
        y_rev = np.asarray(reviews.labels)
    if "mi" in sections:
        sentences = read_conll2000("train")
        X_con, y_con, _ = conll_predicates(sentences[:2000] if quick else sentences)
        mi_section(X_rev, y_rev, X_con, y_con, quick)
    if "stumps" in sections:
        stumps_section(nm, X_rev, y_rev, quick)
    if "mdl" in sections:
        mdl_section(nm, X_rev, y_rev, quick)
    if "l1" in sections:
        l1_section(quick)
    if "l1ab" in sections:
        l1_ab_section(quick)
    if "compare" in sections:
        compare_section(nm, 20 if quick else 50)
    if "mdlab" in sections:
        mdl_ab_section(quick)
    if "l1stall" in sections:
        l1_stall_section(quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
