"""Fit one registered method on a Dataset and report its result over the original features."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from fsengine.data import Dataset
from fsengine.methods.adapt import Adapted, adapt
from fsengine.methods.custom import as_selector
from fsengine.methods.registry import MethodSpec, get_method

Progress = Callable[[float, str], None]


@dataclass
class MethodFit:
    """One fitted method, its attributes mapped back to the dataset's ``p`` original features.

    scores   (p,) float, higher = more relevant; NaN for features the method did not see
             (left out by the adaptation, see ``notes``)
    order    (p,) permutation, best first: the selector's ``order_``, then unseen features
    support  (p,) bool, what the method itself selected
    seconds  wall-clock time of ``fit`` (adaptation excluded)
    cpu_seconds  CPU time of the process during ``fit`` (``time.process_time``: every thread of this
             process, none of another's), the measure that a busy machine does not inflate
    notes    adaptations and warnings, one sentence each
    trace, path   the selector's ``trace_`` and ``path_`` (None for non-path methods)
    selector, data   the fitted selector and the data it saw
    """

    spec: MethodSpec
    params: dict[str, Any]
    scores: np.ndarray
    order: np.ndarray
    support: np.ndarray
    seconds: float
    notes: tuple[str, ...]
    trace: pd.DataFrame
    path: pd.DataFrame | None
    selector: Any
    data: Adapted
    cpu_seconds: float = 0.0


def _warning_notes(caught, label: str) -> tuple[str, ...]:
    messages = dict.fromkeys(f"{label}: {w.category.__name__}: {str(w.message).strip()}" for w in caught)
    return tuple(messages)


def fit_method(method: str | MethodSpec, params: dict[str, Any] | None, ds: Dataset,
               progress: Progress | None = None) -> MethodFit:
    """Adapt ``ds`` to the method (:func:`fsengine.methods.adapt.adapt`), fit its selector and
    expand the result to every original feature. ``progress(fraction, message)`` is passed to the
    selector (every selector takes it, :mod:`fsengine.progress`); an exception raised by it aborts
    the fit (cancellation).

    A method with a ``task`` parameter left at "auto" is fitted for the dataset's own task (its
    class labels or real target, whatever the values of y look like). A factory that builds no
    fsengine selector (a scikit-learn selector or model) is wrapped by
    :class:`fsengine.methods.custom.EstimatorSelector`."""
    spec = get_method(method) if isinstance(method, str) else method
    values = spec.resolve(params)
    data = adapt(spec, ds)
    auto_task = values.get("task") == "auto" and any(p.name == "task" and ds.task in p.choices for p in spec.params)
    built = {**values, "task": ds.task} if auto_task else values
    selector = as_selector(spec.make(**built))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start, cpu_start = time.perf_counter(), time.process_time()
        selector.fit(data.ds.X, data.ds.y, progress=progress)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    p = ds.n_features
    cols = data.columns
    scores = np.full(p, np.nan)
    scores[cols] = selector.scores_
    unseen = np.setdiff1d(np.arange(p), cols)
    order = np.concatenate([cols[selector.order_], unseen]).astype(np.intp)
    support = np.zeros(p, dtype=bool)
    support[cols] = selector.support_
    return MethodFit(spec=spec, params=values, scores=scores, order=order, support=support, seconds=seconds,
                     notes=data.notes + _warning_notes(caught, spec.label), trace=selector.trace_,
                     path=getattr(selector, "path_", None), selector=selector, data=data,
                     cpu_seconds=cpu_seconds)


def subset_rows(ds: Dataset, rows: np.ndarray) -> Dataset:
    """The rows ``rows`` of ``ds`` (texts too) as a fresh copy: arrays that arrive from another
    process can be aligned differently, and numpy's vectorised sums then round differently (1e-16
    in BIA's scores on a Dask worker), so every task fits on its own copy."""
    texts = tuple(ds.texts[i] for i in rows) if ds.texts is not None else None
    return replace(ds, X=ds.X[rows], y=ds.y[rows], texts=texts)


def failure_message(exc: Exception) -> str:
    """One line for a failed fit: a ValueError's own message, else the error's type and text."""
    text = " ".join(str(exc).split())
    return text if isinstance(exc, ValueError) and text else f"{type(exc).__name__}: {text}".rstrip(": ")


#: rows per class of the untimed warm-up fit
WARMUP_ROWS_PER_CLASS = 20


def warm_up(spec, values, train: Dataset) -> float:
    """Fit once, untimed, on the first rows of each class: compiles (or loads) the method's numba
    kernels so that the timed fit measures the method. Returns the warm-up's duration; a
    warm-up that fails on so few rows is skipped (the real fit reports its own errors)."""
    rows = np.sort(np.concatenate([np.flatnonzero(train.y == c)[:WARMUP_ROWS_PER_CLASS]
                                   for c in np.unique(train.y)]))
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence on 40 rows is not the point
            fit_method(spec, values, subset_rows(train, rows), None)
    except (ValueError, ArithmeticError):
        pass  # too few rows for this method: the timed fit then includes compilation, as before
    return time.perf_counter() - started
