"""The comparison run: :func:`run_comparison` fits every method and scores its rankings on
held-out rows; what the outcomes say (intervals, differences, stability, ROC, runtimes, tables) is
:mod:`fsengine.compare.analyses`. No Streamlit here.

Protocol:

1. Rows: two classes are kept when a chosen method needs them (or a class pair is given), so every
   method sees the same rows (:func:`fsengine.methods.adapt.restrict_classes`).
2. A stratified train/test split (``fsengine.data.transforms.split``). Every method is fitted on
   the training part only (:func:`fsengine.methods.run.fit_method`, which adapts columns and says so).
   With ``n_repeats >= 2`` there are further splits (seeds ``seed + 1, ...``) and every method is
   fitted once more on each of their training parts (with ``warm_start``, a method that can warm
   start starts these fits from its fit on the first training part, as in step 4).
3. Held-out accuracy: for each k of a grid (:func:`k_grid`), one downstream classifier
   (standardised logistic regression) is trained on the first k features of each method's ranking
   and scored on the test part. Baselines: all features, the same classifier on k random features
   (mean of :data:`N_RANDOM_DRAWS` draws), and the majority class. Whether each held-out row was
   classified right is kept (:class:`~fsengine.compare.analyses.HeldOut`, which makes the intervals).
4. Stability: every method is refitted on ``n_bootstrap`` stratified bootstrap resamples of the
   training part (:func:`stratified_bootstrap`: the same resamples for every method; with
   ``warm_start``, the default, a method that can warm start, such as the RTM without ARD, starts
   them from its fit on the training part, :mod:`fsengine.warm_start`, and the report's notes say
   so: :func:`_fit_waves`); the first
   ``max_k + 1`` features of every bootstrap ranking and their fit times are kept
   (:class:`~fsengine.compare.analyses.MethodRun`).

Scale-out: the fits of steps 2 and 4 (methods x (n_repeats + resamples)) and the accuracy curves
of step 3 are independent tasks (:func:`fsengine.parallel.map_tasks`), run in this process, on local
worker processes (``n_jobs``) or on a Dask cluster (``scheduler``) with identical results.
Progress names the method and the fit that runs (:func:`fit_names`, :mod:`fsengine.task_progress`).
Cancellation: ``cancel()`` is polled after every finished task; any exception raised by
``progress`` also stops the remaining tasks (Streamlit uses this when
the user stops the script).
"""

from __future__ import annotations

import time
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

from fsengine.compare.analyses import RANDOM, ComparisonResult, HeldOut, MethodRun
from fsengine.compare.settings import CompareSettings
from fsengine.data import Dataset
from fsengine.data.transforms import class_names, split, split_rows
from fsengine.formatting import percent
from fsengine.methods.adapt import restrict_classes
from fsengine.methods.custom import resolve_methods
from fsengine.methods.failures import failure_message
from fsengine.methods.registry import MethodSpec
from fsengine.methods.run import check_values, fit_method, warm_startable
from fsengine.methods.run import subset_rows as _subset
from fsengine.methods.run import warm_up as _untimed_first_call
from fsengine.parallel import TasksCancelled, backend_for, map_tasks
from fsengine.progress import Progress, report_to, scaled
from fsengine.validation import check_magnitude
from fsengine.warm_start import WarmStart

#: random k-subsets averaged for the "random features" baseline
N_RANDOM_DRAWS = 5
#: points of the accuracy-vs-k grid
N_GRID = 14


class ComparisonCancelled(Exception):
    """Raised when ``cancel()`` returned True; nothing of the run is kept.

    Examples
    --------
    >>> from fsengine.compare import ComparisonCancelled, run_comparison
    >>> from fsengine.data import load_dataset
    >>> try:
    ...     run_comparison(load_dataset("synthetic_glm:n=100,p=8,k=2"), ["anova"], cancel=lambda: True)
    ... except ComparisonCancelled:
    ...     print("cancelled, nothing kept")
    cancelled, nothing kept
    """



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


def held_out_correct(train: Dataset, test: Dataset, columns) -> np.ndarray:
    """Per row of ``test``: whether standardised logistic regression trained on
    ``train[:, columns]`` classifies it right (bool, shape (n_test,))."""
    columns = np.asarray(columns, dtype=np.intp)
    clf = _classifier(train.X).fit(train.X[:, columns], train.y)
    return np.asarray(clf.predict(test.X[:, columns]) == test.y, dtype=bool)


def held_out_accuracy(train: Dataset, test: Dataset, columns) -> float:
    """Accuracy on ``test`` of standardised logistic regression trained on ``train[:, columns]``."""
    return float(np.mean(held_out_correct(train, test, columns)))


@dataclass(frozen=True)
class _FitJob:
    """What every fit task shares: the training part of every split (the first is the one the
    bootstrap resamples and every view but the accuracy intervals use), the methods (spec,
    resolved parameters; the spec travels with the task, so workers also fit registered and
    user-given methods) and how many of the first ranked features a bootstrap fit keeps."""

    trains: tuple[Dataset, ...]
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
    cpu_seconds: float = 0.0
    #: the fit on the first split's training part: where its bootstrap fits may start (None when
    #: the method cannot warm start)
    warm: WarmStart | None = None


def _fit_task(job: _FitJob, item: tuple, progress: Progress | None = None) -> _Fitted | str:
    """Fit method ``item[0]`` on the training part of split ``item[1]`` (``item[2]`` None) or on
    the bootstrap rows ``item[2]`` of the first split's, from the warm start ``item[3]`` when the
    item has one; an error of the method comes back as one line (a failure, not a crash).
    ``progress`` hears the warm-up and the selector's own reports (:func:`fsengine.parallel.map_tasks`
    puts the task's name, method and fit, before them)."""
    m, s, rows, *warm = item
    spec, values = job.methods[m]
    train = job.trains[s]
    # always a fresh copy: arrays that arrive from another process can be aligned differently, and
    # numpy's vectorised sums then round differently (1e-16 in BIA's scores on a Dask worker)
    ds = _subset(train, np.arange(train.n_samples) if rows is None else rows)
    try:
        warmup = 0.0
        if rows is None and s == 0:  # the first full fit compiles (or loads) the kernels untimed, where it fits
            report_to(progress)(0.0, "warm-up (an untimed first fit on a few rows compiles its kernels)")
            warmup = _untimed_first_call(spec, values, ds)
        fit = fit_method(spec, values, ds, progress, warm_start=warm[0] if warm else None)
    except Exception as exc:  # the method's failure; cancellation (BaseException here) passes through
        return failure_message(exc)
    return _Fitted(scores=fit.scores, order=fit.order, support=fit.support, seconds=fit.seconds, notes=fit.notes,
                   warmup_seconds=warmup, cpu_seconds=fit.cpu_seconds,
                   warm=fit.warm_start() if rows is None and s == 0 else None)


def _fit_waves(job: _FitJob, items: list, names: list[str], progress: Progress | None, where: dict,
               warm_start: bool, split_sources: list[np.ndarray]) -> list:
    """The fit tasks' results in the order of ``items``. With ``warm_start``, the bootstrap fits of a
    method that can warm start (:mod:`fsengine.warm_start`) and its fits on the further splits run
    in a second wave, each started from the method's fit on the first split's training part (the
    same stopping rule, fewer iterations; named ``"RTM: bootstrap fit 3 of 5 (warm start)"``);
    every other fit runs in the first. ``split_sources[s]``: for each training row of split s, its
    row in the first split's training part, -1 where that part does not hold it.

    Warm-starting the fits on further splits is sound for the same reason as for the resamples:
    such a method (the RTM without ARD) has no random initialisation whose spread the repeated
    splits would measure; a fit's answer is its fixed point on its training rows, and the start
    only decides how many sweeps reach the stopping rule (tested against cold fits). The repeated
    splits measure the training rows' variability, which a warm start leaves in place."""
    warm = {m for m, (spec, values) in enumerate(job.methods) if warm_start and warm_startable(spec, values)}
    later = [i for i, (m, s, rows) in enumerate(items) if m in warm and (rows is not None or s > 0)]
    first = sorted(set(range(len(items))) - set(later))
    share = 0.9 * len(first) / max(len(items), 1)
    results: list = [None] * len(items)
    done = map_tasks(_fit_task, [items[i] for i in first], shared=job, names=[names[i] for i in first],
                     progress=_stage(progress, 0.0, share), task_progress=True, **where)
    for i, fit in zip(first, done):
        results[i] = fit
    if later:
        start = {items[i][0]: results[i].warm for i in first
                 if items[i][1] == 0 and items[i][2] is None and isinstance(results[i], _Fitted)}
        second = [(*items[i], None if start.get(items[i][0]) is None else start[items[i][0]].for_rows(
            items[i][2] if items[i][1] == 0 else split_sources[items[i][1]])) for i in later]
        done = map_tasks(_fit_task, second, shared=job, names=[names[i] + " (warm start)" for i in later],
                         progress=_stage(progress, share, 0.9), task_progress=True, **where)
        for i, fit in zip(later, done):
            results[i] = fit
        for i in first:  # say so beside the method's fit on the training part
            m = items[i][0]
            if m in start and items[i][2] is None and items[i][1] == 0 and start[m] is not None:
                which = "the bootstrap fits" + (" and the fits on the further splits" if len(job.trains) > 1 else "")
                results[i] = replace(results[i], notes=results[i].notes + (
                    f"{job.methods[m][0].label}: {which} started from the fit on the training part "
                    "(warm start, same stopping rule).",))
    return results


def _rows_in(first: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows`` (sorted row indices), its position in ``first`` (sorted), -1 where absent."""
    at = np.minimum(np.searchsorted(first, rows), first.size - 1)
    return np.where(first[at] == rows, at, -1).astype(np.intp)


def fit_names(labels: list[str], n_resamples: int, n_splits: int) -> list[str]:
    """The names of the fit tasks, in :func:`run_comparison`'s order (per method its fit on the
    training part, then its bootstrap fits; then the fits on the further splits, split-major). A
    name starts with the method's label and says which fit it is: the progress messages read
    ``"RTM: bootstrap fit 3 of 5, Power EP sweep 120 ..."``."""
    names = [f"{label}: " + ("fit on the training part" if b == 0 else f"bootstrap fit {b} of {n_resamples}")
             for label in labels for b in range(1 + n_resamples)]
    return names + [f"{label}: fit on split {s + 1} of {n_splits}" for s in range(1, n_splits) for label in labels]


def _accuracy_task(parts: tuple[tuple[Dataset, Dataset], ...], item: tuple[int, list[np.ndarray]]) -> np.ndarray:
    """Right or wrong per held-out row of split ``item[0]`` for each column set of ``item[1]``:
    bool (len(column sets), n_test). One BLAS thread (many tiny solver calls: oversubscribed BLAS
    threads made each fit >10x slower on a busy 2-core machine, and one thread gives the same
    numbers in every worker)."""
    s, columns = item
    train, test = (_subset(ds, np.arange(ds.n_samples)) for ds in parts[s])  # fresh copies, see _fit_task
    with threadpool_limits(1):
        return np.stack([held_out_correct(train, test, cols) for cols in columns])


def _stage(progress: Progress | None, start: float, end: float) -> Progress | None:
    return None if progress is None else scaled(progress, start, end)


def _method_runs(specs, params, fits: list, n_resamples: int, keep: int) -> tuple[list[MethodRun], dict[str, str]]:
    """MethodRun per method from the fit tasks' results on the first split (method-major: the
    full fit, then every resample). A failed fit on the training part makes the method a
    failure; a failed bootstrap fit empties its stability data and records the first error in
    resample order."""
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
            warmup_seconds=fit.warmup_seconds, cpu_seconds=fit.cpu_seconds,
            boot_cpu_seconds=np.array([b.cpu_seconds for b in boots], dtype=np.float64)))
    return runs, failures


def _split_orders(runs: list[MethodRun], specs, later: list, failures: dict[str, str]) -> list[MethodRun]:
    """Each method's ranking on every split (``later``: the fits on splits 2, 3, ..., split-major);
    a method whose fit fails on a further split becomes a failure (its accuracy would be
    missing there)."""
    if not later:
        for r in runs:
            r.split_orders = (r.order,)
        return runs
    by_label = {spec.label: m for m, spec in enumerate(specs)}
    kept = []
    for r in runs:
        m = by_label[r.label]
        fits = later[m::len(specs)]
        bad = [(s, f) for s, f in enumerate(fits, start=2) if isinstance(f, str)]
        if bad:
            failures[r.label] = f"split {bad[0][0]} of {len(fits) + 1}: {bad[0][1]}"
            continue
        r.split_orders = (r.order, *(f.order for f in fits))
        kept.append(r)
    return kept


def _accuracy_items(runs: list[MethodRun], grid: np.ndarray, draws: list, n_features: int, n_splits: int):
    """The accuracy tasks (split, column sets) and their names: per split, one per method (its
    first k features at each k of the grid), one per k for the random draws, one for all features."""
    items, names = [], []
    for s in range(n_splits):
        where = "" if n_splits == 1 else f", split {s + 1} of {n_splits}"
        items += [(s, [r.split_orders[s][:k] for k in grid]) for r in runs]
        names += [f"{r.label}: held-out accuracy{where}" for r in runs]
        items += [(s, ks) for ks in draws] + [(s, [np.arange(n_features)])]
        names += [f"{RANDOM}: held-out accuracy, k={k}{where}" for k in grid]
        names.append(f"all features: held-out accuracy{where}")
    return items, names


def _held_out(outcomes: list[np.ndarray], runs, grid: np.ndarray, n_splits: int, ratio: float, seed: int) -> HeldOut:
    """The accuracy tasks' outcomes (split-major, in :func:`_accuracy_items`' order) as a HeldOut."""
    per = len(runs) + grid.size + 1
    rows, accuracies, all_accuracies, all_rows = None, [], [], None
    for s in range(n_splits):
        part = outcomes[s * per:(s + 1) * per]
        methods = np.stack(part[:len(runs)]).astype(np.float32)  # (M, G, n_test)
        random = np.stack([draws.mean(axis=0) for draws in part[len(runs):-1]]).astype(np.float32)  # (G, n_test)
        split_rows = np.concatenate([methods, random[None]])
        accuracies.append(split_rows.mean(axis=-1, dtype=np.float64))
        all_accuracies.append(float(np.mean(part[-1][0])))
        if s == 0:
            rows, all_rows = split_rows, part[-1][0].astype(np.float32)
    return HeldOut(grid=grid, curves=(*(r.label for r in runs), RANDOM), rows=rows, repeats=np.stack(accuracies),
                   all_rows=all_rows, all_repeats=np.array(all_accuracies), test_train_ratio=ratio, seed=seed)


def _accuracy_table(held: HeldOut) -> pd.DataFrame:
    """Columns curve, k, accuracy, low, high, method: every curve's accuracy with its interval."""
    return pd.DataFrame([{"curve": curve, "k": int(k), "accuracy": e.value, "low": e.low, "high": e.high,
                          "method": f"{percent(e.level)} {e.method}"}
                         for curve, estimates in held.curve_estimates().items()
                         for k, e in zip(held.grid, estimates)])


def run_comparison(ds: Dataset, methods, settings: CompareSettings = CompareSettings(), *,
                   progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
                   n_jobs: int | None = None, scheduler=None) -> ComparisonResult:
    """Run ``methods`` on ``ds`` as described in the module docstring. Each is a registered key, a
    :class:`~fsengine.methods.registry.MethodSpec`, any scikit-learn-style selector or model object
    (scores from ``scores_``, ``feature_importances_``, ``|coef_|``, ``ranking_`` or ``get_support()``,
    :class:`fsengine.methods.custom.EstimatorSelector`), or a (one of these, params) pair
    (:func:`fsengine.methods.custom.resolve_methods`).

    Every method's parameter values are validated before any fit
    (:func:`fsengine.methods.run.check_values`): a bad value is a ValueError, not a failed method. A
    method whose fit raises (a ValueError such as too many features, any other error of the method,
    its warm-up included, or scores that are all NaN or infinite) is reported in ``failures`` and
    the others go on; the run fails only when no method succeeds. Cancellation and interrupts are
    never swallowed.

    The fits (methods x (n_repeats + resamples)) and the accuracy curves are independent tasks run
    by :func:`fsengine.parallel.map_tasks`: ``n_jobs`` local processes (-1: every core) or the
    workers of the Dask scheduler at ``scheduler``. Results are identical to the serial run:
    every task is deterministic (splits, resamples and random baselines are drawn here from
    ``seed``) and results are assembled in submission order. ``progress`` hears of every task as it
    starts (``"RTM: bootstrap fit 3 of 5"``: :func:`fit_names`), what the selector reports from
    inside the fit (``"RTM: bootstrap fit 3 of 5, Power EP sweep 120 ..."``, also from worker processes)
    and every finished task (:mod:`fsengine.task_progress`).

    Examples
    --------
    Two registered methods and a scikit-learn selector on a planted GLM (the truth is known, so each
    method's ROC against it is part of the result):

    >>> from sklearn.feature_selection import SelectKBest
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")
    >>> result = run_comparison(ds, ["anova", "mi", SelectKBest(k=3)], CompareSettings(max_k=6, n_bootstrap=3))
    >>> result.labels
    ['ANOVA F', 'MI', 'SelectKBest']
    >>> differences = result.differences("ANOVA F")
    >>> differences.columns[:7].tolist()
    ['method', 'reference', 'k', 'difference', 'low', 'high', 'verdict']
    >>> sorted(result.auc().index)
    ['ANOVA F', 'MI', 'SelectKBest']
    """
    started = time.perf_counter()
    choices = resolve_methods(methods)
    if not choices:
        raise ValueError("Choose at least one method to compare.")
    specs = [spec for spec, _ in choices]
    if len({s.key for s in specs}) != len(specs):
        raise ValueError("Each method can be chosen once per comparison.")
    params = [spec.resolve(values) for spec, (_, values) in zip(specs, choices)]
    for spec, values in zip(specs, params):  # a bad value fails the run here, never one method mid-run
        check_values(spec, values)
    backend_for(n_jobs, scheduler)  # a wrong n_jobs / scheduler fails before any work
    if ds.task != "classification":
        raise ValueError(f"{ds.name} has a {ds.task} target; the comparison scores held-out accuracy and "
                         "needs class labels. Pick a classification dataset.")
    check_magnitude(ds.X, ds.name)
    ds, notes = restrict_classes(ds, specs, settings.classes)
    splits = [split(ds, test_size=settings.test_size, seed=settings.seed + s) for s in range(settings.n_repeats)]
    train, test = splits[0]
    first_rows = split_rows(ds, settings.test_size, settings.seed)[0]
    split_sources = [_rows_in(first_rows, split_rows(ds, settings.test_size, settings.seed + s)[0])
                     for s in range(settings.n_repeats)]
    resamples = stratified_bootstrap(train.y, settings.n_bootstrap, settings.seed)
    keep = min(settings.max_k + 1, ds.n_features)
    where = dict(n_jobs=n_jobs, scheduler=scheduler, cancel=cancel)

    job = _FitJob(trains=tuple(t for t, _ in splits), methods=tuple(zip(specs, params)), keep=keep)
    items = [(m, 0, rows) for m in range(len(specs)) for rows in [None, *resamples]]
    items += [(m, s, None) for s in range(1, len(splits)) for m in range(len(specs))]
    names = fit_names([spec.label for spec in specs], len(resamples), len(splits))
    try:
        fits = _fit_waves(job, items, names, progress, where, settings.warm_start, split_sources)
        first = len(specs) * (1 + len(resamples))
        runs, failures = _method_runs(specs, params, fits[:first], len(resamples), keep)
        runs = _split_orders(runs, specs, fits[first:], failures)
        if not runs:
            raise ValueError("No method could run on this data: "
                             + " ".join(f"{label}: {msg}" for label, msg in failures.items()))

        grid = k_grid(settings.max_k, ds.n_features)
        rng = np.random.default_rng(settings.seed)
        draws = [[rng.choice(ds.n_features, size=k, replace=False) for _ in range(N_RANDOM_DRAWS)] for k in grid]
        tasks, task_names = _accuracy_items(runs, grid, draws, ds.n_features, len(splits))
        outcomes = map_tasks(_accuracy_task, tasks, shared=tuple(splits), names=task_names,
                             progress=_stage(progress, 0.9, 1.0), **where)
    except TasksCancelled as exc:
        raise ComparisonCancelled("The comparison was cancelled.") from exc
    held = _held_out(outcomes, runs, grid, len(splits), test.n_samples / train.n_samples, settings.seed)
    majority = []
    for tr, te in splits:
        labels, counts = np.unique(tr.y, return_counts=True)
        majority.append(float(np.mean(te.y == labels[np.argmax(counts)])))
    all_features = held.all_features()
    if progress is not None:
        progress(1.0, "done")
    return ComparisonResult(
        dataset=ds.name, feature_names=tuple(ds.feature_names), image_shape=ds.image_shape,
        truth=None if ds.truth is None else np.asarray(ds.truth, dtype=bool), classes=tuple(class_names(ds)),
        n_train=train.n_samples, n_test=test.n_samples, settings=settings, notes=notes, runs=runs,
        failures=failures, accuracy=_accuracy_table(held), all_features_accuracy=all_features.value,
        majority_accuracy=float(np.mean(majority)), seconds=time.perf_counter() - started, held_out=held,
        all_features_interval=all_features)
