"""How a page runs a computation: one progress bar, one dataset token, one server-wide store.

Every view uses these three instead of writing its own:

:func:`progress_bar`   a ``st.progress`` bar that implements the engine's progress protocol
                       (:mod:`fsengine.progress`) for one computation and disappears afterwards;
:func:`dataset_token`  the hashable name of the picked dataset (catalogue key and parameters, or
                       the upload), the part of a cache key that stands for the data;
:func:`computed_once`  a result computed once per key for the whole server (every session and
                       every rerun after it gets it at once), with a progress bar while it runs
                       and the oldest results dropped beyond ``max_entries``.

Use ``st.cache_data``/``st.cache_resource`` at module level for results whose arguments hash
cheaply; use :func:`computed_once` when a bar must show while the result is computed the first
time (Streamlit's spinner cannot show a fraction).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import streamlit as st

from fsengine.progress import Progress


@contextlib.contextmanager
def progress_bar(text: str) -> Iterator[Progress]:
    """A progress bar for one computation; yields ``report(fraction, message)`` (fractions are
    clipped to [0, 1]) and removes the bar when the computation ends, also on an error."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda fraction, message="": bar.progress(min(max(float(fraction), 0.0), 1.0), text=message or text)
    finally:
        bar.empty()


def dataset_token(key: str, params: dict, ds) -> tuple:
    """The picked dataset's name in cache keys: the catalogue key and parameters (or ``upload``),
    the dataset's name and its shape. Two datasets with equal tokens are the same data."""
    frozen = tuple(sorted((str(k), repr(v)) for k, v in params.items()))
    return (key, frozen, ds.name, ds.n_samples, ds.n_features)


class _Store:
    """An insertion-ordered dict with a lock (pages of several sessions run in threads)."""

    def __init__(self) -> None:
        self.items: OrderedDict[Hashable, Any] = OrderedDict()
        self.lock = threading.Lock()


@st.cache_resource(show_spinner=False)
def _store(name: str) -> _Store:
    return _Store()


def computed_once(store: str, key: Hashable, compute: Callable[[Progress], Any], *, text: str,
                  max_entries: int = 8) -> Any:
    """``compute(progress)``'s result for ``key``, computed once for the whole server.

    ``store`` names the table (one per kind of result, e.g. ``"bia_exact_check"``); the first
    caller for a key sees a progress bar labelled ``text`` while ``compute`` runs; later callers
    get the stored result at once. Beyond ``max_entries`` results the oldest is dropped. An error
    in ``compute`` stores nothing.
    """
    table = _store(store)
    with table.lock:
        if key in table.items:
            table.items.move_to_end(key)
            return table.items[key]
    with progress_bar(text) as report:
        result = compute(report)
    with table.lock:
        table.items[key] = result
        while len(table.items) > max_entries:
            table.items.popitem(last=False)
    return result
