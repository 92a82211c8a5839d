"""Fit one registered method on a Dataset and report its result over the original features."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fsengine.data import Dataset
from fsengine.methods.adapt import Adapted, adapt
from fsengine.methods.custom import as_selector
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


def fit_method(method: str | MethodSpec, params: dict[str, Any] | None, ds: Dataset,
               progress: Progress | None = None, *, warm_start: WarmStart | None = None) -> MethodFit:
    """Adapt ``ds`` to the method (:func:`fsengine.methods.adapt.adapt`), fit its selector and
    expand the result to every original feature. ``progress(fraction, message)`` is passed to the
    selector (every selector takes it, :mod:`fsengine.progress`); an exception raised by it aborts
    the fit (cancellation).

    A method with a ``task`` parameter left at "auto" is fitted for the dataset's own task (its
    class labels or real target, whatever the values of y look like). A factory that builds no
    fsengine selector (a scikit-learn selector or model) is wrapped by
    :class:`fsengine.methods.custom.EstimatorSelector`.

    ``warm_start`` (:meth:`MethodFit.warm_start` of an earlier fit, :meth:`WarmStart.for_rows`):
    the fit starts from it when the selector can warm start and the adapted columns are those of
    the earlier fit; otherwise it starts cold (the same answer, more iterations)."""
    spec = get_method(method) if isinstance(method, str) else method
    values = spec.resolve(params)
    data = adapt(spec, ds)
    auto_task = values.get("task") == "auto" and any(p.name == "task" and ds.task in p.choices for p in spec.params)
    built = {**values, "task": ds.task} if auto_task else values
    selector = as_selector(spec.make(**built))
    warm = (warm_start is not None and can_warm_start(selector)
            and (warm_start.columns is None or np.array_equal(warm_start.columns, data.columns)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start, cpu_start = time.perf_counter(), time.process_time()
        selector.fit(data.ds.X, data.ds.y, progress=progress, **({"warm_start": warm_start} if warm else {}))
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
                     cpu_seconds=cpu_seconds, warm_started=warm)
