"""The benchmark's tasks and the per-fold table they give.

One task is one (dataset, outer fold, method): fit the method on the fold's training part
(:func:`fsengine.methods.run.fit_method`), then train the protocol's classifier on the first k
features of its ranking for every k of the dataset's grid and predict the fold's held-out rows.
A second kind of task per (dataset, fold) fits the classifier on all features (the reference
line of the drill-down). Tasks run through :func:`fsengine.parallel.map_tasks`, serially, on local
processes or on a Dask cluster, with identical results (every task is deterministic and BLAS runs
one thread), and are kept by :func:`fsengine.task_store.keeping_tasks` (``--keep-tasks``), so an
interrupted run resumes.

:func:`run_benchmark` returns a :class:`Run`: the per-fold table (one row per dataset, repeat,
fold, method and k: the held-out metric with the counts it is made of, recall of the truth, fit
seconds), the top-k sets of every fit (stability and similarity are computed from them) and the
status of every (dataset, method) pair: ``ok``, ``not applicable: ...`` or ``failed: ...``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from fsengine.benchmark.protocol import Settings, classifier, fingerprint, metric_name
from fsengine.benchmark.suite import Entry
from fsengine.data import Dataset
from fsengine.methods.failures import failure_message
from fsengine.methods.registry import METHODS, MethodSpec
from fsengine.methods.run import fit_method, subset_rows, warm_up
from fsengine.parallel import map_tasks
from fsengine.progress import report_to

Progress = Callable[[float, str], None]
#: the method index of the all-features task
ALL_FEATURES = -1


def applicability(spec: MethodSpec, ds: Dataset) -> str | None:
    """Why ``spec`` cannot run on ``ds`` as the protocol keeps it (every class, every feature), or
    None when it can (perhaps adapted: binarised, rescaled, densified)."""
    from fsengine.methods.adapt import MAX_DENSE_BYTES

    needs = spec.needs
    if ds.task not in needs.tasks:
        return f"needs a {' or '.join(needs.tasks)} target; this dataset has a {ds.task} target"
    if ds.task == "classification" and needs.two_classes and ds.classes.size != 2:
        return f"needs exactly two classes; this dataset has {ds.classes.size} (the benchmark keeps every class)"
    if needs.max_features is not None and ds.n_features > needs.max_features:
        return f"handles at most {needs.max_features:,} features; this dataset has {ds.n_features:,}"
    if not needs.sparse_ok and ds.is_sparse and ds.n_samples * ds.n_features * 8 > MAX_DENSE_BYTES:
        return "needs dense data, which would take more than the memory bound for this sparse matrix"
    return None


def default_methods(datasets: list[Dataset]) -> list[str]:
    """Every registered method that applies to at least one of ``datasets`` (registry order)."""
    return [key for key, spec in METHODS.items() if any(applicability(spec, ds) is None for ds in datasets)]


@dataclass(frozen=True)
class Job:
    """What every task shares: the datasets, their outer folds ((train rows, test rows) per split,
    repeat-major), the methods (spec, resolved parameters), each dataset's resolved k (sorted,
    unique) and the classifier's name."""

    datasets: tuple[Dataset, ...]
    folds: tuple[tuple[tuple[np.ndarray, np.ndarray], ...], ...]
    methods: tuple[tuple[MethodSpec, dict], ...]
    ks: tuple[tuple[int, ...], ...]
    classifier: str


@dataclass(frozen=True)
class FoldFit:
    """What a task returns (small, no selector): the first ``max k`` features of the ranking
    (``top``), the held-out predictions at each k (``predictions`` (G, n_test)), the fit's wall and
    CPU seconds (0 for the all-features task), the method's own selection size and its notes."""

    top: np.ndarray
    predictions: np.ndarray
    seconds: float
    cpu_seconds: float
    n_selected: int
    notes: tuple[str, ...]


#: (method key, parameters) already warmed up in this process (a warm-up compiles numba kernels)
_WARM: set = set()


def benchmark_task(job: Job, item: tuple[int, int, int], progress: Progress | None = None) -> FoldFit | str:
    """Task (dataset ``d``, split ``s``, method ``m``; ``m = ALL_FEATURES``: the classifier on all
    features): see the module docstring. A method's error comes back as one line (a failure).
    ``progress`` hears the warm-up and the selector's own reports (the task's name, method first,
    is put before them by :func:`fsengine.parallel.map_tasks`)."""
    d, s, m = item
    ds = job.datasets[d]
    train_rows, test_rows = job.folds[d][s]
    train, test = subset_rows(ds, train_rows), subset_rows(ds, test_rows)
    with threadpool_limits(1):
        if m == ALL_FEATURES:
            columns = [np.arange(ds.n_features)]
            top, seconds, cpu, selected, notes = np.zeros(0, dtype=np.int32), 0.0, 0.0, ds.n_features, ()
        else:
            spec, values = job.methods[m]
            key = (spec.key, tuple(sorted((k, repr(v)) for k, v in values.items())), os.getpid())
            try:
                if key not in _WARM:  # an error here is the method's (the timed fit would raise it too)
                    report_to(progress)(0.0, "warm-up (an untimed first fit on a few rows compiles its kernels)")
                    warm_up(spec, values, train)
                    _WARM.add(key)
                fit = fit_method(spec, values, train, progress)
            except Exception as exc:  # the method's failure; cancellation (BaseException) passes through
                return failure_message(exc)
            ks = job.ks[d]
            top = np.asarray(fit.order[:max(ks)], dtype=np.int32)
            columns = [top[:k] for k in ks]
            seconds, cpu, selected, notes = fit.seconds, fit.cpu_seconds, int(fit.support.sum()), fit.notes
        predictions = []
        for cols in columns:
            model = classifier(job.classifier, ds.is_sparse).fit(train.X[:, cols], train.y)
            predictions.append(model.predict(test.X[:, cols]))
    return FoldFit(top=top, predictions=np.asarray(predictions, dtype=np.int64), seconds=seconds, cpu_seconds=cpu,
                   n_selected=selected, notes=notes)


def outer_folds(y: np.ndarray, settings: Settings) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Repeated stratified k-fold splits of ``y`` (repeat-major), seeded by the settings."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    splitter = RepeatedStratifiedKFold(n_splits=settings.folds, n_repeats=settings.repeats,
                                       random_state=settings.seed)
    return tuple((np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp))
                 for a, b in splitter.split(np.zeros(y.size), y))


@dataclass
class Run:
    """A finished benchmark (everything the aggregate and the report read).

    entries, datasets (their shapes, metric, truth size, class counts as ``info`` rows), methods
    (key, label, parameters), settings, ``ks`` per dataset slug: {grid label: k}, ``folds``:
    the per-fold table, ``tops``: {(slug, method key, split): top features}, ``status``:
    {(slug, key): "ok" | "not applicable: ..." | "failed: ..."}, notes per (slug, key), seconds
    (wall of the run, CPU of this process) and where the tasks ran."""

    entries: tuple[Entry, ...]
    info: pd.DataFrame
    methods: pd.DataFrame
    settings: Settings
    ks: dict[str, dict[str, int]]
    folds: pd.DataFrame
    tops: dict[tuple[str, str, int], np.ndarray]
    status: dict[tuple[str, str], str]
    notes: dict[tuple[str, str], tuple[str, ...]]
    seconds: dict[str, float] = field(default_factory=dict)
    where: str = "1 process"
    fingerprint: str = ""


def _labels(ks: dict[str, int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for label, k in ks.items():
        out.setdefault(k, []).append(label)
    return out


def _fold_rows(entry: Entry, ds: Dataset, metric: str, split: int, settings: Settings, method: str,
               fit: FoldFit, test_y: np.ndarray, ks: dict[str, int]) -> list[dict[str, Any]]:
    """The per-fold rows of one task's result: one per grid label (labels that resolve to the same
    k share the same predictions)."""
    from sklearn.metrics import balanced_accuracy_score

    resolved = sorted(set(ks.values()))
    by_k = _labels(ks)
    truth = None if ds.truth is None else np.flatnonzero(ds.truth)
    rows = []
    for g, k in enumerate([None] if method == "all features" else resolved):
        pred = fit.predictions[g]
        correct = int(np.sum(pred == test_y))
        balanced = float(balanced_accuracy_score(test_y, pred))
        base = {"dataset": entry.slug, "repeat": split // settings.folds + 1, "fold": split % settings.folds + 1,
                "method": method, "n_test": int(test_y.size), "correct": correct, "accuracy": correct / test_y.size,
                "balanced_accuracy": balanced, "metric": balanced if metric == "balanced accuracy" else
                correct / test_y.size, "fit_seconds": fit.seconds, "fit_cpu_seconds": fit.cpu_seconds,
                "n_selected_by_method": fit.n_selected}
        if k is None:
            rows.append({**base, "k_label": "all", "k": ds.n_features, "recall": np.nan})
            continue
        recall = np.nan if truth is None or truth.size == 0 else float(np.isin(truth, fit.top[:k]).mean())
        rows += [{**base, "k_label": label, "k": k, "recall": recall} for label in by_k[k]]
    return rows


def check_classes(entry: Entry, ds: Dataset, folds: int) -> None:
    """Refuse a dataset the outer folds cannot split so that every training fold sees every class
    (protocol point 1): fewer than two classes, or a class with fewer rows than folds."""
    counts = ds.class_counts()
    if len(counts) < 2:
        raise ValueError(f"{entry.slug}: {ds.name} has a single class ({', '.join(map(str, counts))}); the benchmark "
                         "scores classifiers and needs at least two.")
    small = {c: n for c, n in counts.items() if n < folds}
    if small:
        listed = ", ".join(f"{c!r} has {n:,} row{'s' if n != 1 else ''}" for c, n in small.items())
        fewest = min(small.values())
        remedy = "drop that class from the data" if fewest < 2 else \
            f"drop that class from the data or choose --folds {fewest} or fewer"
        raise ValueError(f"{entry.slug}: class {listed}, fewer than the {folds} outer folds, so some folds would "
                         f"train or test without it; {remedy}.")


def _note_kind(note: str) -> str:
    """What a fit's note says without its fold's particulars (counts, the features it lists), so that
    the same adaptation or warning on every fold is reported once."""
    import re

    return re.sub(r"\d[\d,.]*", "#", re.sub(r"\(.*?\)", "(...)", note))


def run_benchmark(entries: tuple[Entry, ...], methods: list | None, settings: Settings, *,
                  progress: Progress | None = None, n_jobs: int | None = None, scheduler=None,
                  datasets: list[Dataset] | None = None) -> Run:
    """Run the benchmark of ``entries`` (loaded here unless ``datasets`` are given) with
    ``methods`` ((method, parameters) pairs, the method a registered key, a :class:`MethodSpec`
    such as a ``MODULE:CLASS`` of :func:`fsengine.methods.custom.class_method`, or an estimator
    object, as :func:`fsengine.methods.custom.resolve_methods` takes them; None: every registered
    method that applies to one of the datasets, :func:`default_methods`), as the protocol says
    (:mod:`fsengine.benchmark.protocol`). Parameters not given are the registry's defaults (what the
    app and the CLI use). Every dataset and parameter is checked before the first fit."""
    from fsengine.methods.custom import resolve_methods
    from fsengine.parallel import backend_for, describe

    started, cpu_started = time.perf_counter(), time.process_time()
    backend_for(n_jobs, scheduler)  # a wrong setting fails before any work
    report = progress or (lambda f, m: None)
    if datasets is None:
        datasets = []
        for i, entry in enumerate(entries):
            report(0.0, f"loading {entry.title} ({i + 1} of {len(entries)})")
            datasets.append(entry.load())
    for entry, ds in zip(entries, datasets):
        if ds.task != "classification":
            raise ValueError(f"{entry.slug}: {ds.name} has a {ds.task} target; the benchmark scores held-out "
                             "accuracy and needs class labels.")
        check_classes(entry, ds, settings.folds)
    chosen = resolve_methods(methods if methods is not None else default_methods(datasets))
    if not chosen:
        raise ValueError("No registered method applies to these datasets.")
    specs = [spec for spec, _ in chosen]
    if len({s.key for s in specs}) != len(specs):
        raise ValueError("Each method can be chosen once per benchmark.")
    params = [spec.resolve({**settings.params.get(spec.key, {}), **values}) for spec, values in chosen]
    grid = settings.ks
    ks = {e.slug: {k.label: k.resolve(ds.n_features) for k in grid if k.resolve(ds.n_features) is not None}
          for e, ds in zip(entries, datasets)}
    for e, ds in zip(entries, datasets):
        if not ks[e.slug]:
            raise ValueError(f"{e.slug}: no k of the grid {settings.k_grid} is below its {ds.n_features} features")
    folds = tuple(outer_folds(ds.y, settings) for ds in datasets)
    job = Job(datasets=tuple(datasets), folds=folds, methods=tuple(zip(specs, params)),
              ks=tuple(tuple(sorted(set(ks[e.slug].values()))) for e in entries), classifier=settings.classifier)
    status: dict[tuple[str, str], str] = {}
    items, names = [], []
    n_splits = settings.folds * settings.repeats
    for d, (entry, ds) in enumerate(zip(entries, datasets)):
        for s in range(n_splits):
            where = f"{entry.title}, repeat {s // settings.folds + 1} fold {s % settings.folds + 1}"
            items.append((d, s, ALL_FEATURES))
            names.append(f"all features: {where}")
            for m, spec in enumerate(specs):
                why = applicability(spec, ds)
                if why is not None:
                    status[(entry.slug, spec.key)] = f"not applicable: {spec.label} {why}"
                    continue
                items.append((d, s, m))
                names.append(f"{spec.label}: {where}")
    outcomes = map_tasks(benchmark_task, items, shared=job, names=names, progress=progress, n_jobs=n_jobs,
                         scheduler=scheduler, task_progress=True)
    rows, tops, notes = [], {}, {}
    metrics = {e.slug: metric_name(ds.class_counts().values()) for e, ds in zip(entries, datasets)}
    for (d, s, m), outcome in zip(items, outcomes):
        entry, ds = entries[d], datasets[d]
        key = "all features" if m == ALL_FEATURES else specs[m].key
        if isinstance(outcome, str):
            status.setdefault((entry.slug, key), f"failed: {specs[m].label} on repeat {s // settings.folds + 1} "
                                                 f"fold {s % settings.folds + 1}: {outcome}")
            continue
        test_y = ds.y[folds[d][s][1]]
        rows += _fold_rows(entry, ds, metrics[entry.slug], s, settings, key, outcome, test_y, ks[entry.slug])
        if m != ALL_FEATURES:
            tops[(entry.slug, key, s)] = outcome.top
            for note in dict.fromkeys(outcome.notes):
                kinds = notes.setdefault((entry.slug, key), {})
                first, count = kinds.get(_note_kind(note), (note, 0))
                kinds[_note_kind(note)] = (first, count + 1)
    notes = {pair: tuple(note.rstrip(".") + ("" if count == n_splits else f" (on {count} of {n_splits} fold fits)")
                         for note, count in kinds.values()) for pair, kinds in notes.items()}
    for entry in entries:
        for spec in specs:
            status.setdefault((entry.slug, spec.key), "ok")
    table = pd.DataFrame(rows)
    failed = {k for k, v in status.items() if v.startswith("failed")}
    if failed and len(table):  # a method that failed on one fold has no result on that dataset at all
        keep = [(r.dataset, r.method) not in failed for r in table[["dataset", "method"]].itertuples()]
        table = table[keep].reset_index(drop=True)
        tops = {k: v for k, v in tops.items() if (k[0], k[1]) not in failed}
    info = pd.DataFrame([{"dataset": e.slug, "title": e.title, "spec": e.spec,
                          "classes": ",".join(e.classes) if e.classes else "", "rows": ds.n_samples,
                          "features": ds.n_features, "n_classes": int(ds.classes.size), "metric": metrics[e.slug],
                          "class_counts": "; ".join(f"{k}: {v}" for k, v in ds.class_counts().items()),
                          "truth": int(ds.truth.sum()) if ds.truth is not None else 0,
                          "sparse": ds.is_sparse, "why": e.why} for e, ds in zip(entries, datasets)])
    method_table = pd.DataFrame([{"key": spec.key, "label": spec.label, "summary": spec.summary,
                                  "needs": spec.needs.describe(),
                                  "parameters": ", ".join(f"{k}={v}" for k, v in values.items())}
                                 for spec, values in zip(specs, params)])
    seconds = {"wall": time.perf_counter() - started, "cpu_main_process": time.process_time() - cpu_started}
    return Run(entries=tuple(entries), info=info, methods=method_table, settings=settings, ks=ks, folds=table,
               tops=tops, status=status, notes=notes, seconds=seconds, where=describe(n_jobs, scheduler),
               fingerprint=fingerprint(settings))
