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
from fsengine.methods.custom import CustomMethodSpec, as_selector
from fsengine.methods.failures import MethodError, method_calls
from fsengine.methods.registry import MethodSpec, get_method
from fsengine.warm_start import WarmStart, can_warm_start

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
    warm_started  whether the fit started from an earlier fit (:mod:`fsengine.warm_start`)
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
    warm_started: bool = False

    def warm_start(self) -> WarmStart | None:
        """Where a fit of the same method on rows of the same data may start (give it their row
        indices with :meth:`WarmStart.for_rows`); None when the selector cannot warm start."""
        state = getattr(self.selector, "warm_state_", None)
        return None if state is None else WarmStart(state, None, self.data.columns)


def warm_startable(spec: MethodSpec, params: dict[str, Any]) -> bool:
    """Whether the selector of ``spec`` with ``params`` (resolved) can start a fit from an earlier
    one (:mod:`fsengine.warm_start`)."""
    return can_warm_start(as_selector(spec.make(**params)))


def _warning_notes(caught, label: str) -> tuple[str, ...]:
    messages = dict.fromkeys(f"{label}: {w.category.__name__}: {str(w.message).strip()}" for w in caught)
    return tuple(messages)


def check_values(spec: MethodSpec, values: dict[str, Any]) -> None:
    """Build ``spec``'s selector with ``values`` (resolved) and validate them as scikit-learn does at
    fit time (the ``_parameter_constraints`` of the selector and of a wrapped estimator), without
    fitting: a bad value fails here, before any fit, in one line naming the method."""
    with method_calls(spec.label, own=not isinstance(spec, CustomMethodSpec), doing="rejects its parameters"):
        selector = as_selector(spec.make(**values))
        for obj in (selector, getattr(selector, "estimator", None)):
            validate = getattr(obj, "_validate_params", None)
            if callable(validate) and isinstance(getattr(obj, "_parameter_constraints", None), dict):
                validate()


def _check_scores(scores: np.ndarray, names, label: str) -> tuple[str, ...]:
    """Scores that rank nothing are the method's failure, never a ranking by column index: a
    :class:`~fsengine.methods.failures.MethodError` when no score is finite. Some non-finite scores
    (a constant column's NaN F statistic, say) rank last, as the ranking contract says; a note
    counts them."""
    bad = ~np.isfinite(scores)
    if not bad.any():
        return ()
    kinds = ", ".join(f"{n:,} {what}" for n, what in ((int(np.isnan(scores).sum()), "NaN"),
                                                     (int(np.isinf(scores).sum()), "infinite")) if n)
    if bad.all():
        raise MethodError(label, f"it gave no finite score ({kinds} of {scores.size:,}), so it ranks nothing")
    shown = ", ".join(repr(str(names[j])) for j in np.flatnonzero(bad)[:3]) + (", ..." if bad.sum() > 3 else "")
    return (f"{label}: {kinds} of {scores.size:,} scores are not finite ({shown}); those features rank last",)


def fit_method(method: str | MethodSpec, params: dict[str, Any] | None, ds: Dataset,
               progress: Progress | None = None, *, warm_start: WarmStart | None = None) -> MethodFit:
    """Adapt ``ds`` to the method (:func:`fsengine.methods.adapt.adapt`), fit its selector and
    expand the result to every original feature. ``progress(fraction, message)`` hears the fit
    announced (``"fitting on 750 rows x 784 features"``) before it starts, then is passed to the
    selector (every selector takes it, :mod:`fsengine.progress`); an exception raised by it aborts
    the fit (cancellation). The caller names the method and the fit in front of these messages.

    A method with a ``task`` parameter left at "auto" is fitted for the dataset's own task (its
    class labels or real target, whatever the values of y look like). A factory that builds no
    fsengine selector (a scikit-learn selector or model) is wrapped by
    :class:`fsengine.methods.custom.EstimatorSelector`.

    ``warm_start`` (:meth:`MethodFit.warm_start` of an earlier fit, :meth:`WarmStart.for_rows`):
    the fit starts from it when the selector can warm start and the adapted columns are those of
    the earlier fit; otherwise it starts cold (the same answer, more iterations).

    Failures are one line (:mod:`fsengine.methods.failures`): building and fitting the selector run
    under :func:`~fsengine.methods.failures.method_calls`, and a fit whose scores are all NaN or
    infinite is a :class:`~fsengine.methods.failures.MethodError`, never a ranking by index."""
    spec = get_method(method) if isinstance(method, str) else method
    values = spec.resolve(params)
    data = adapt(spec, ds)
    auto_task = values.get("task") == "auto" and any(p.name == "task" and ds.task in p.choices for p in spec.params)
    built = {**values, "task": ds.task} if auto_task else values
    if progress is not None:
        progress(0.0, f"fitting on {data.ds.n_samples:,} rows x {data.ds.n_features:,} features")
    with method_calls(spec.label, own=not isinstance(spec, CustomMethodSpec)):
        selector = as_selector(spec.make(**built))
        warm = (warm_start is not None and can_warm_start(selector)
                and (warm_start.columns is None or np.array_equal(warm_start.columns, data.columns)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start, cpu_start = time.perf_counter(), time.process_time()
            selector.fit(data.ds.X, data.ds.y, progress=progress, **({"warm_start": warm_start} if warm else {}))
            seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        own_scores = np.asarray(selector.scores_, dtype=np.float64)
    score_notes = _check_scores(own_scores, data.ds.feature_names, spec.label)
    p = ds.n_features
    cols = data.columns
    scores = np.full(p, np.nan)
    scores[cols] = own_scores
    unseen = np.setdiff1d(np.arange(p), cols)
    order = np.concatenate([cols[selector.order_], unseen]).astype(np.intp)
    support = np.zeros(p, dtype=bool)
    support[cols] = selector.support_
    return MethodFit(spec=spec, params=values, scores=scores, order=order, support=support, seconds=seconds,
                     notes=data.notes + _warning_notes(caught, spec.label) + score_notes, trace=selector.trace_,
                     path=getattr(selector, "path_", None), selector=selector, data=data,
                     cpu_seconds=cpu_seconds, warm_started=warm)


def subset_rows(ds: Dataset, rows: np.ndarray) -> Dataset:
    """The rows ``rows`` of ``ds`` (texts too) as a fresh copy: arrays that arrive from another
    process can be aligned differently, and numpy's vectorised sums then round differently (1e-16
    in BIA's scores on a Dask worker), so every task fits on its own copy."""
    texts = tuple(ds.texts[i] for i in rows) if ds.texts is not None else None
    return replace(ds, X=ds.X[rows], y=ds.y[rows], texts=texts)


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
