"""Side-by-side comparison of feature-selection methods on one Dataset (no Streamlit here).

Protocol of :func:`run_comparison`:

1. Rows: two classes are kept when a chosen method needs them (or a class pair is given), so every
   method sees the same rows (:func:`fsengine.methods.adapt.restrict_classes`).
2. A stratified train/test split (``fsengine.data.transforms.split``). Every method is fitted on
   the training part only (:func:`fsengine.methods.run.fit_method`, which adapts columns and says so).
3. Held-out accuracy: for each k of a grid, one downstream classifier (standardised logistic
   regression) is trained on the first k features of each method's ranking and scored on the test
   part. Baselines: all features, the same classifier on k random features (mean of 5 draws), and
   the majority class.
4. Stability: every method is refitted on ``n_bootstrap`` stratified bootstrap resamples of the
   training part (the same resamples for every method); Kuncheva's index of the top-k sets is
   averaged over all pairs of resamples (:mod:`fsengine.selection_metrics`).
5. Overlap: pairwise Jaccard of the methods' top-k sets from step 2. ROC / AUC of each method's
   scores against ``Dataset.truth`` when the data are synthetic.

``k`` for overlap and stability is chosen after the run (any k up to ``max_k``), so a page can
move it without refitting.

Scale-out: the fits of steps 2 and 4 (methods x (1 + resamples)) and the accuracy curves of
step 3 are independent tasks (:func:`fsengine.parallel.map_tasks`), run in this process, on local
worker processes (``n_jobs``) or on a Dask cluster (``scheduler``) with identical results.
Cancellation: ``cancel()`` is polled after every finished task; any exception raised by
``progress`` (called per finished task) also stops the remaining tasks (Streamlit uses this when
the user stops the script).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from fsengine.compare.settings import CompareSettings
from fsengine.data import Dataset
from fsengine.data.transforms import class_names, split
from fsengine.methods.adapt import restrict_classes
from fsengine.methods.custom import resolve_methods
from fsengine.methods.registry import MethodSpec
from fsengine.methods.run import fit_method
from fsengine.parallel import TasksCancelled, backend_for, map_tasks
from fsengine.ranking import ranks_from_order
from fsengine.selection_metrics import jaccard_matrix, kuncheva_stability, roc_auc, roc_curve
from fsengine.validation import check_magnitude

Progress = Callable[[float, str], None]
#: random k-subsets averaged for the "random features" baseline
N_RANDOM_DRAWS = 5
#: points of the accuracy-vs-k grid
N_GRID = 14
#: curve names of the baselines in ``ComparisonResult.accuracy``
RANDOM = "random features"


class ComparisonCancelled(Exception):
    """Raised when ``cancel()`` returned True; nothing of the run is kept."""


@dataclass
class MethodRun:
    """What the comparison keeps of one method (picklable, no selector).

    scores, order, support over all features (see :class:`fsengine.methods.run.MethodFit`);
    boot_top (B, max_k + 1) the first ranked features of every bootstrap fit and boot_top_scores
    their scores (for ties at the cut); boot_seconds (B,).
    """

    key: str
    label: str
    params: dict[str, Any]
    scores: np.ndarray
    order: np.ndarray
    support: np.ndarray
    seconds: float
    notes: tuple[str, ...]
    boot_top: np.ndarray
    boot_top_scores: np.ndarray
    boot_seconds: np.ndarray
    boot_error: str | None = None
    #: the untimed first fit on a few rows before the timed one (numba compilation or loading
    #: compiled kernels happens there, so ``seconds`` measures the method, not the compiler)
    warmup_seconds: float = 0.0


@dataclass
class ComparisonResult:
    dataset: str
    feature_names: tuple[str, ...]
    image_shape: tuple[int, int] | None
    truth: np.ndarray | None
    classes: tuple[str, ...]
    n_train: int
    n_test: int
    settings: CompareSettings
    notes: tuple[str, ...]
    runs: list[MethodRun]
    failures: dict[str, str]
    accuracy: pd.DataFrame
    all_features_accuracy: float
    majority_accuracy: float
    seconds: float

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.runs]

    def run(self, label: str) -> MethodRun:
        for r in self.runs:
            if r.label == label:
                return r
        raise ValueError(f"No method {label!r} in this comparison; it has: {', '.join(self.labels)}")

    def k_range(self) -> tuple[int, int]:
        """Smallest and largest k for overlap and stability (Kuncheva's index needs k < p)."""
        return 1, max(1, min(self.settings.max_k, self.n_features - 1))

    def _check_k(self, k: int) -> int:
        lo, hi = self.k_range()
        if not lo <= int(k) <= hi:
            raise ValueError(f"k={k}: choose k between {lo} and {hi}")
        return int(k)

    def top_k(self, k: int) -> dict[str, np.ndarray]:
        k = self._check_k(k)
        return {r.label: r.order[:k] for r in self.runs}

    def jaccard(self, k: int) -> pd.DataFrame:
        """Pairwise Jaccard overlap of the methods' top-k sets (fits on the training part)."""
        sets = self.top_k(k)
        return pd.DataFrame(jaccard_matrix(sets), index=list(sets), columns=list(sets))

    def stability(self, k: int) -> pd.DataFrame:
        """Per method: Kuncheva stability of the top-k sets over the bootstrap fits, the number of
        pairs it averages, and in how many fits the k-th and (k+1)-th scores tie (the cut is
        then decided by feature index, not by the method)."""
        k = self._check_k(k)
        rows = []
        for r in self.runs:
            B = r.boot_top.shape[0]
            if B >= 2 and k < self.n_features:
                value = kuncheva_stability(list(r.boot_top[:, :k]), self.n_features)
                ties = int(np.sum(r.boot_top_scores[:, k - 1] == r.boot_top_scores[:, k]))
            else:
                value, ties = np.nan, 0
            rows.append({"method": r.label, "kuncheva": value, "pairs": B * (B - 1) // 2,
                         "ties_at_cut": ties, "resamples": B, "error": r.boot_error or ""})
        return pd.DataFrame(rows)

    def roc(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Method -> (fpr, tpr) of its scores against the known relevant features (synthetic data)."""
        if self.truth is None:
            return {}
        return {r.label: roc_curve(self.truth, finite_scores(r.scores))[:2] for r in self.runs}

    def auc(self) -> pd.Series:
        if self.truth is None:
            return pd.Series(dtype=float, name="auc")
        return pd.Series({r.label: roc_auc(self.truth, finite_scores(r.scores)) for r in self.runs}, name="auc")

    def runtime(self) -> pd.DataFrame:
        """Per method: fit time on the training part, mean and spread over the bootstrap fits,
        how many features the method itself selected, its parameters and notes."""
        return pd.DataFrame([{
            "method": r.label,
            "fit_seconds": r.seconds,
            "warmup_seconds": r.warmup_seconds,
            "bootstrap_mean_seconds": float(np.mean(r.boot_seconds)) if r.boot_seconds.size else np.nan,
            "bootstrap_std_seconds": float(np.std(r.boot_seconds)) if r.boot_seconds.size else np.nan,
            "selected_by_method": int(r.support.sum()),
            "parameters": ", ".join(f"{k}={v}" for k, v in r.params.items()),
            "notes": " ".join(r.notes),
        } for r in self.runs])

    def summary(self, k: int) -> pd.DataFrame:
        """One row per method: runtime, own selection size, stability at k, held-out accuracy at
        the accuracy-grid point nearest k (``grid_k``) and the best over the grid, AUC on
        synthetic data."""
        k = self._check_k(k)
        table = self.runtime()[["method", "fit_seconds", "bootstrap_mean_seconds", "selected_by_method"]]
        stab = self.stability(k).set_index("method")
        table["kuncheva_at_k"] = table["method"].map(stab["kuncheva"])
        acc = self.accuracy
        ks = acc["k"].unique()
        at = int(ks[np.argmin(np.abs(ks - k))])
        table.insert(1, "k", k)
        table["grid_k"] = at
        table["accuracy_at_grid_k"] = table["method"].map(acc[acc["k"] == at].set_index("curve")["accuracy"])
        best = acc.loc[acc.groupby("curve")["accuracy"].idxmax()].set_index("curve")
        table["best_accuracy"] = table["method"].map(best["accuracy"])
        table["best_k"] = table["method"].map(best["k"]).astype("Int64")
        if self.truth is not None:
            table["auc"] = table["method"].map(self.auc())
        return table

    def scores_table(self) -> pd.DataFrame:
        """One row per feature: name, truth (synthetic data), and each method's score and rank."""
        table = pd.DataFrame({"feature": np.arange(self.n_features), "name": list(self.feature_names)})
        if self.truth is not None:
            table["relevant"] = self.truth
        for r in self.runs:
            table[f"score_{r.key}"] = r.scores
            table[f"rank_{r.key}"] = ranks_from_order(r.order)
            table[f"selected_{r.key}"] = r.support
        return table

    def tables(self, k: int) -> dict[str, pd.DataFrame]:
        """Every table of the comparison by file stem (what the CSV exports hold)."""
        out = {
            "summary": self.summary(k),
            "accuracy": self.accuracy,
            "jaccard": self.jaccard(k).rename_axis("method").reset_index(),
            "stability": self.stability(k),
            "runtime": self.runtime(),
            "scores": self.scores_table(),
        }
        if self.truth is not None:
            out["roc"] = pd.concat([pd.DataFrame({"method": label, "fpr": fpr, "tpr": tpr})
                                    for label, (fpr, tpr) in self.roc().items()], ignore_index=True)
        if self.failures:
            out["failures"] = pd.DataFrame({"method": list(self.failures), "error": list(self.failures.values())})
        return out


def failure_message(exc: Exception) -> str:
    """One line for a failed fit: a ValueError's own message, else the error's type and text."""
    text = " ".join(str(exc).split())
    return text if isinstance(exc, ValueError) and text else f"{type(exc).__name__}: {text}".rstrip(": ")


def finite_scores(scores: np.ndarray) -> np.ndarray:
    """Scores for ROC: features a method gave no score (NaN, -inf) rank below every scored one
    (they become min - 1), +inf above every one (max + 1)."""
    s = np.asarray(scores, dtype=np.float64).copy()
    finite = np.isfinite(s)
    lo, hi = (s[finite].min(), s[finite].max()) if finite.any() else (0.0, 0.0)
    s[np.isnan(s) | (s == -np.inf)] = lo - 1.0
    s[s == np.inf] = hi + 1.0
    return s


def k_grid(max_k: int, n_features: int, n_points: int = N_GRID) -> np.ndarray:
    """Roughly geometric grid 1..min(max_k, p) of feature counts."""
    top = max(1, min(int(max_k), n_features))
    return np.unique(np.round(np.geomspace(1, top, n_points)).astype(int))


def stratified_bootstrap(y: np.ndarray, n_resamples: int, seed: int) -> list[np.ndarray]:
    """Row indices of ``n_resamples`` bootstrap resamples drawn within each class (class counts kept)."""
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(y == c) for c in np.unique(y)]
    return [np.sort(np.concatenate([rng.choice(g, size=g.size, replace=True) for g in groups]))
            for _ in range(n_resamples)]


def _classifier(X):
    return make_pipeline(StandardScaler(with_mean=not sp.issparse(X)), LogisticRegression(max_iter=2000))


def held_out_accuracy(train: Dataset, test: Dataset, columns) -> float:
    """Accuracy on ``test`` of standardised logistic regression trained on ``train[:, columns]``."""
    columns = np.asarray(columns, dtype=np.intp)
    clf = _classifier(train.X).fit(train.X[:, columns], train.y)
    return float(np.mean(clf.predict(test.X[:, columns]) == test.y))


def _subset(ds: Dataset, rows: np.ndarray) -> Dataset:
    texts = tuple(ds.texts[i] for i in rows) if ds.texts is not None else None
    return replace(ds, X=ds.X[rows], y=ds.y[rows], texts=texts)


@dataclass(frozen=True)
class _FitJob:
    """What every fit task shares: the training part, the methods (spec, resolved parameters; the
    spec travels with the task, so workers also fit registered and user-given methods) and how many
    of the first ranked features a bootstrap fit keeps."""

    train: Dataset
    methods: tuple[tuple[MethodSpec, dict[str, Any]], ...]
    keep: int


@dataclass(frozen=True)
class _Fitted:
    """One fit as a task returns it (no selector, so it pickles small)."""

    scores: np.ndarray
    order: np.ndarray
    support: np.ndarray
    seconds: float
    notes: tuple[str, ...]
    warmup_seconds: float = 0.0


def _fit_task(job: _FitJob, item: tuple[int, np.ndarray | None], progress: Progress | None = None) -> _Fitted | str:
    """Fit method ``item[0]`` on the training part (``item[1]`` None) or on the bootstrap rows
    ``item[1]``; an error of the method comes back as one line (a failure, not a crash)."""
    m, rows = item
    spec, values = job.methods[m]
    # always a fresh copy: arrays that arrive from another process can be aligned differently, and
    # numpy's vectorised sums then round differently (1e-16 in BIA's scores on a Dask worker)
    ds = _subset(job.train, np.arange(job.train.n_samples) if rows is None else rows)
    # the full fit first compiles (or loads) the method's kernels untimed, in the process that fits
    warmup = _untimed_first_call(spec, values, ds) if rows is None else 0.0
    try:
        fit = fit_method(spec, values, ds, progress)
    except Exception as exc:  # the method's failure; cancellation (BaseException here) passes through
        return failure_message(exc)
    return _Fitted(scores=fit.scores, order=fit.order, support=fit.support, seconds=fit.seconds, notes=fit.notes,
                   warmup_seconds=warmup)


def _accuracy_task(parts: tuple[Dataset, Dataset], columns: list[np.ndarray]) -> list[float]:
    """Held-out accuracy for each column set; one BLAS thread (many tiny solver calls: oversubscribed
    BLAS threads made each fit >10x slower on a busy 2-core machine, and one thread gives the same
    numbers in every worker)."""
    train, test = (_subset(ds, np.arange(ds.n_samples)) for ds in parts)  # fresh copies, see _fit_task
    with threadpool_limits(1):
        return [held_out_accuracy(train, test, cols) for cols in columns]


def _phase(progress: Progress | None, lo: float, hi: float, what: str) -> Progress | None:
    if progress is None:
        return None
    return lambda fraction, message: progress(lo + (hi - lo) * fraction, f"{what}: {message}")


def _method_runs(specs, params, fits: list, n_resamples: int, keep: int) -> tuple[list[MethodRun], dict[str, str]]:
    """MethodRun per method from the fit tasks' results (method-major: the full fit, then every
    resample). A failed fit on the training part makes the method a failure; a failed bootstrap
    fit empties its stability data and records the first error in resample order."""
    runs, failures = [], {}
    per = 1 + n_resamples
    for i, (spec, values) in enumerate(zip(specs, params)):
        fit, boots = fits[i * per], fits[i * per + 1:(i + 1) * per]
        if isinstance(fit, str):
            failures[spec.label] = fit
            continue
        errors = [b for b in boots if isinstance(b, str)]
        boot_error = f"bootstrap fit failed: {errors[0]}" if errors else None
        boots = [] if errors else boots
        runs.append(MethodRun(
            key=spec.key, label=spec.label, params=values, scores=fit.scores, order=fit.order,
            support=fit.support, seconds=fit.seconds, notes=fit.notes,
            boot_top=np.array([b.order[:keep] for b in boots], dtype=np.intp).reshape(len(boots), keep),
            boot_top_scores=np.array([b.scores[b.order[:keep]] for b in boots],
                                     dtype=np.float64).reshape(len(boots), keep),
            boot_seconds=np.array([b.seconds for b in boots]), boot_error=boot_error,
            warmup_seconds=fit.warmup_seconds))
    return runs, failures


#: rows per class of the untimed warm-up fit
WARMUP_ROWS_PER_CLASS = 20


def _untimed_first_call(spec, values, train: Dataset) -> float:
    """Fit once, untimed, on the first rows of each class: compiles (or loads) the method's numba
    kernels so that the timed fit measures the method. Returns the warm-up's duration; a
    warm-up that fails on so few rows is skipped (the real fit reports its own errors)."""
    rows = np.sort(np.concatenate([np.flatnonzero(train.y == c)[:WARMUP_ROWS_PER_CLASS]
                                   for c in np.unique(train.y)]))
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence on 40 rows is not the point
            fit_method(spec, values, _subset(train, rows), None)
    except (ValueError, ArithmeticError):
        pass  # too few rows for this method: the timed fit then includes compilation, as before
    return time.perf_counter() - started


def run_comparison(ds: Dataset, methods, settings: CompareSettings = CompareSettings(), *,
                   progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
                   n_jobs: int | None = None, scheduler=None) -> ComparisonResult:
    """Run ``methods`` on ``ds`` as described in the module docstring. Each is a registered key, a
    :class:`~fsengine.methods.registry.MethodSpec`, any scikit-learn-style selector or model object
    (scores from ``scores_``, ``feature_importances_``, ``|coef_|``, ``ranking_`` or ``get_support()``,
    :class:`fsengine.methods.custom.EstimatorSelector`), or a (one of these, params) pair
    (:func:`fsengine.methods.custom.resolve_methods`).

    A method whose fit raises (a ValueError such as too many features, or any other error of the
    method) is reported in ``failures`` and the others go on; the run fails only when no method
    succeeds. Cancellation and interrupts are never swallowed.

    The fits (methods x (1 + resamples)) and the accuracy curves are independent tasks run by
    :func:`fsengine.parallel.map_tasks`: ``n_jobs`` local processes (-1: every core) or the
    workers of the Dask scheduler at ``scheduler``. Results are identical to the serial run:
    every task is deterministic (resamples and random baselines are drawn here from ``seed``)
    and results are assembled in submission order. ``progress`` advances per finished task.
    """
    started = time.perf_counter()
    choices = resolve_methods(methods)
    if not choices:
        raise ValueError("Choose at least one method to compare.")
    specs = [spec for spec, _ in choices]
    if len({s.key for s in specs}) != len(specs):
        raise ValueError("Each method can be chosen once per comparison.")
    params = [spec.resolve(values) for spec, (_, values) in zip(specs, choices)]
    backend_for(n_jobs, scheduler)  # a wrong n_jobs / scheduler fails before any work
    if ds.task != "classification":
        raise ValueError(f"{ds.name} has a {ds.task} target; the comparison scores held-out accuracy and "
                         "needs class labels. Pick a classification dataset.")
    check_magnitude(ds.X, ds.name)
    ds, notes = restrict_classes(ds, specs, settings.classes)
    train, test = split(ds, test_size=settings.test_size, seed=settings.seed)
    resamples = stratified_bootstrap(train.y, settings.n_bootstrap, settings.seed)
    keep = min(settings.max_k + 1, ds.n_features)
    where = dict(n_jobs=n_jobs, scheduler=scheduler, cancel=cancel)

    job = _FitJob(train=train, methods=tuple(zip(specs, params)), keep=keep)
    items = [(m, rows) for m in range(len(specs)) for rows in [None, *resamples]]
    names = [specs[m].label + ("" if rows is None else f" bootstrap {b} of {len(resamples)}")
             for m in range(len(specs)) for b, rows in enumerate([None, *resamples])]
    try:
        fits = map_tasks(_fit_task, items, shared=job, names=names, progress=_phase(progress, 0.0, 0.9, "fits"),
                         task_progress=True, **where)
        runs, failures = _method_runs(specs, params, fits, len(resamples), keep)
        if not runs:
            raise ValueError("No method could run on this data: "
                             + " ".join(f"{label}: {msg}" for label, msg in failures.items()))

        grid = k_grid(settings.max_k, ds.n_features)
        rng = np.random.default_rng(settings.seed)
        draws = [[rng.choice(ds.n_features, size=k, replace=False) for _ in range(N_RANDOM_DRAWS)] for k in grid]
        curves = [[r.order[:k] for k in grid] for r in runs] + draws + [[np.arange(ds.n_features)]]
        curve_names = ([f"held-out accuracy: {r.label}" for r in runs]
                       + [f"held-out accuracy: {RANDOM}, k={k}" for k in grid] + ["held-out accuracy: all features"])
        accuracies = map_tasks(_accuracy_task, curves, shared=(train, test), names=curve_names,
                               progress=_phase(progress, 0.9, 1.0, "accuracy"), **where)
    except TasksCancelled as exc:
        raise ComparisonCancelled("The comparison was cancelled.") from exc
    rows = [{"curve": r.label, "k": int(k), "accuracy": a}
            for r, values in zip(runs, accuracies) for k, a in zip(grid, values)]
    rows += [{"curve": RANDOM, "k": int(k), "accuracy": float(np.mean(values))}
             for k, values in zip(grid, accuracies[len(runs):-1])]
    all_features = accuracies[-1][0]
    labels, counts = np.unique(train.y, return_counts=True)
    majority = float(np.mean(test.y == labels[np.argmax(counts)]))
    if progress is not None:
        progress(1.0, "done")
    return ComparisonResult(
        dataset=ds.name, feature_names=tuple(ds.feature_names), image_shape=ds.image_shape,
        truth=None if ds.truth is None else np.asarray(ds.truth, dtype=bool), classes=tuple(class_names(ds)),
        n_train=train.n_samples, n_test=test.n_samples, settings=settings, notes=notes, runs=runs,
        failures=failures, accuracy=pd.DataFrame(rows), all_features_accuracy=all_features,
        majority_accuracy=majority, seconds=time.perf_counter() - started)
