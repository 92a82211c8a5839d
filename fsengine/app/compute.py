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

The stores are plain process-wide tables, usable without a page: :func:`prepare` fills one from
any thread (the server-start preparation, :mod:`fsengine.app.prepare`). A result being computed
is computed once: a page that asks for it meanwhile (a second visitor, a visitor arriving while the
server prepares it) shows the running computation's progress and gets its result; if that
computation fails, the page computes the result itself.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
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


@dataclass
class _Job:
    """A result being computed: its latest progress, and whether it ended and how."""

    fraction: float = 0.0
    message: str = ""
    done: threading.Event = field(default_factory=threading.Event)
    failed: bool = False

    def report(self, fraction, message: str = "") -> None:
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        if message:
            self.message = message


class _Store:
    """An insertion-ordered dict with a lock (pages of several sessions run in threads) and the
    computations in progress by key."""

    def __init__(self) -> None:
        self.items: OrderedDict[Hashable, Any] = OrderedDict()
        self.running: dict[Hashable, _Job] = {}
        self.lock = threading.Lock()


_STORES: dict[str, _Store] = {}
_STORES_LOCK = threading.Lock()
#: how often a page waiting for another's computation redraws its bar (seconds)
WAIT_POLL_S = 0.25
_MISSING = object()


#: script runs drawing a page now, not counting those waiting for another's computation
_serving = 0
#: script runs waiting for another's computation (the server-start preparation's, another session's)
_waiting_pages = 0
_serving_lock = threading.Lock()
#: how long background work sleeps while a page is being drawn, before it looks again (seconds)
YIELD_POLL_S = 0.02
#: background work also steps aside this long after a browser last fetched a file of Streamlit's
#: bundle (a first visit's ~130 requests: the page has no title until they have arrived)
BROWSER_LOADING_S = 0.5
#: ``time.monotonic()`` of the last bundle request (:func:`browser_loading`)
_bundle_request = -float("inf")


def _count(step: int, waiting: int = 0) -> None:
    global _serving, _waiting_pages
    with _serving_lock:
        _serving += step
        _waiting_pages += waiting


@contextlib.contextmanager
def serving() -> Iterator[None]:
    """Around a page's script run: background work (:func:`yield_to_pages`) steps aside meanwhile."""
    _count(1)
    try:
        yield
    finally:
        _count(-1)


@contextlib.contextmanager
def _waiting() -> Iterator[None]:
    """A page waiting for another's computation does not hold background work up."""
    _count(-1, 1)
    try:
        yield
    finally:
        _count(1, -1)


def browser_loading() -> None:
    """Called for every request of Streamlit's browser bundle
    (:class:`fsengine.app.static_assets.StaticBundle`): a browser is opening a page."""
    global _bundle_request
    _bundle_request = time.monotonic()


def yield_to_pages() -> None:
    """Called by background work between its steps: sleep (releasing the interpreter) while any
    page is being drawn or a browser is fetching Streamlit's bundle (within
    :data:`BROWSER_LOADING_S` of its last request), so that a visitor never waits for the server's
    preparation; pages waiting for that very work do not count, and while a page waits for it a
    loading browser does not stop it either (that visitor's page has arrived: its figures wait for
    this work, benchmarks/RESULTS.md, issue 32 item 6)."""
    while _serving > 0 or (_waiting_pages == 0 and time.monotonic() - _bundle_request < BROWSER_LOADING_S):
        time.sleep(YIELD_POLL_S)


def _store(name: str) -> _Store:
    """The process-wide table ``name`` (made on first use)."""
    with _STORES_LOCK:
        return _STORES.setdefault(name, _Store())


def stored(store: str, key: Hashable, default=None) -> Any:
    """The result kept under ``key`` in ``store``, or ``default`` (nothing is computed)."""
    table = _store(store)
    with table.lock:
        if key in table.items:
            table.items.move_to_end(key)
            return table.items[key]
        return default


def _serving_thread() -> bool:
    """True in a page's script run (which :func:`serving` counts)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True) is not None


def _claim(table: _Store, key: Hashable) -> tuple[Any, _Job | None, bool]:
    """(stored result or _MISSING, the job computing it, whether the caller must compute it)."""
    with table.lock:
        if key in table.items:
            table.items.move_to_end(key)
            return table.items[key], None, False
        job = table.running.get(key)
        if job is not None:
            return _MISSING, job, False
        job = table.running[key] = _Job()
        return _MISSING, job, True


#: set in a worker process that computes for a server (:func:`fsengine.app.prepare.start`): called
#: with every job's events, ``("start", store, key, max_entries)``, ``("progress", store, key,
#: fraction, message)``, ``("done", store, key, result)`` and ``("failed", store, key)``, which the
#: server's :func:`follow` mirrors into its own stores
mirror: Callable[..., None] | None = None


def _finish(table: _Store, key: Hashable, job: _Job, result: Any, max_entries: int) -> None:
    """End ``job``: store ``result`` under ``key`` (nothing, and the job failed, when it is _MISSING)."""
    with table.lock:
        if result is not _MISSING:
            table.items[key] = result
            while len(table.items) > max_entries:
                table.items.popitem(last=False)
        table.running.pop(key, None)
    job.failed = result is _MISSING
    job.done.set()


def _run(store: str, key: Hashable, job: _Job, compute: Callable[[Progress], Any], report: Progress | None,
         max_entries: int) -> Any:
    """Run ``compute`` for ``key`` (claimed as ``job`` in ``store``), store the result and end the
    job; an error stores nothing, marks the job failed and propagates. Each step is also told to
    :data:`mirror` when one is set."""
    tell = mirror or (lambda *event: None)

    def both(fraction, message: str = "") -> None:
        job.report(fraction, message)
        tell("progress", store, key, job.fraction, job.message)
        if report is not None:
            report(fraction, message)

    tell("start", store, key, max_entries)
    result = _MISSING
    try:
        result = compute(both)
        return result
    finally:
        _finish(_store(store), key, job, result, max_entries)
        if result is _MISSING:
            tell("failed", store, key)
        else:
            tell("done", store, key, result)


def follow(events) -> None:
    """Mirror another process's jobs (the events :data:`mirror` sends there) into this process's
    stores until ``events`` ends: each of its jobs shows here as running (a page that asks for the
    result follows its progress instead of computing it again) until its result is stored here. A
    job that this process has already stored or is computing is left alone; a job still running when
    the events end (the other process died) fails, and a page waiting for it computes it itself."""
    jobs: dict[tuple[str, Hashable], tuple[_Job, int]] = {}
    try:
        for kind, store, key, *rest in events:
            if kind == "start":
                _, job, mine = _claim(_store(store), key)
                if mine:
                    jobs[store, key] = (job, rest[0])
            elif kind == "progress":
                if (store, key) in jobs:
                    jobs[store, key][0].report(*rest)
            elif (store, key) in jobs:
                job, max_entries = jobs.pop((store, key))
                _finish(_store(store), key, job, rest[0] if kind == "done" else _MISSING, max_entries)
    finally:
        for (store, key), (job, max_entries) in jobs.items():
            _finish(_store(store), key, job, _MISSING, max_entries)


def prepare(store: str, key: Hashable, compute: Callable[[Progress], Any], *, max_entries: int = 8,
            report: Progress | None = None) -> Any:
    """:func:`computed_once` without a page (any thread, no Streamlit element): ``compute``'s result
    for ``key``, stored, or the stored one; while another computes it, wait for that one."""
    table = _store(store)
    while True:
        value, job, mine = _claim(table, key)
        if value is not _MISSING:
            return value
        if mine:
            return _run(store, key, job, compute, report, max_entries)
        with _waiting() if _serving_thread() else contextlib.nullcontext():
            job.done.wait()


def computed_once(store: str, key: Hashable, compute: Callable[[Progress], Any], *, text: str,
                  max_entries: int = 8, background: Progress | None = None) -> Any:
    """``compute(progress)``'s result for ``key``, computed once for the whole server.

    ``store`` names the table (one per kind of result, e.g. ``"bia_exact_check"``); the first
    caller for a key sees a progress bar labelled ``text`` while ``compute`` runs; later callers
    get the stored result at once, and callers while it runs see its progress (a bar following
    the running computation, in another session or the server's preparation) and then its result.
    Beyond ``max_entries`` results the oldest is dropped. An error in ``compute`` stores nothing
    (a caller waiting for it then computes the result itself). ``background``: no page is
    drawing (the server-start preparation): no bar, progress goes to ``background``.
    """
    if background is not None:
        return prepare(store, key, compute, max_entries=max_entries, report=background)
    table = _store(store)
    while True:
        value = stored(store, key, _MISSING)
        if value is not _MISSING:
            return value
        with progress_bar(text) as report:  # drawn before claiming: a stopped run leaves no job behind
            value, job, mine = _claim(table, key)
            if value is not _MISSING:
                return value
            if mine:
                return _run(store, key, job, compute, report, max_entries)
            report(job.fraction, job.message or text)
            with _waiting():
                while not job.done.wait(WAIT_POLL_S):
                    report(job.fraction, job.message or text)
