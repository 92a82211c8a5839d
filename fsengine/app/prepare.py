"""The server-start preparation: what any visitor will need, computed before the first one asks.

``fsengine app`` (and ``make app``) serve through :mod:`fsengine.app.serve`, which imports the
engine (:func:`preload`) and starts :func:`start` in the server process before the server
listens; a server started otherwise (``streamlit run app.py``) starts it at its first script run
(:func:`fsengine.app.shell.run_app`).
One background thread (at the normal CPU priority: a visitor may be waiting for its result, and an
unprivileged process cannot raise a priority it lowered; it steps aside for pages instead, below):

1. loads the default dataset (every page reads it), imports the page with the heaviest first visit
   (BIA) and runs its ``first_visit(report)``: the default fit and the figures a first visitor
   sees, as prepared JSON (:mod:`fsengine.app.figures`);
2. imports every other page (so a first visit to it does not wait for the engine to load) and runs
   the ``first_visit`` of those that have one.

``fsengine app`` computes in a worker process (``start(process=True)``, forked before the server
starts): a computation in a thread of the server holds its interpreter in slices (numba loading its
kernels, plotly building a figure, scipy's optimiser for the exact check), and every request of a
browser opening the page then waits its turn; in a process of its own it only shares the cores. The
server's stores mirror the worker's (:func:`fsengine.app.compute.follow`): each of its computations
shows in the server as running, with its progress, until its result arrives; the server's own
thread meanwhile imports the pages (imports have to happen in the server).

Everything goes into the same server-wide stores the pages read (:mod:`fsengine.app.compute`), so
it never blocks a visitor: one who asks for a result while it is being prepared sees that
computation's progress and gets its result; one who asks for something else computes it at once,
while the preparation steps aside between its steps (:func:`fsengine.app.compute.yield_to_pages`:
it sleeps while any page is being drawn, except pages waiting for it).
A failure is logged (logger ``fsengine.app.prepare``) and leaves the page to compute on demand.
``FSENGINE_PREPARE=0`` turns the preparation off (the test suite's servers do).
"""

from __future__ import annotations

import functools
import importlib
import logging
import multiprocessing
import os
import sys
import threading
import time

from fsengine.app import compute
from fsengine.app.compute import yield_to_pages

LOG = logging.getLogger(__name__)
ENV = "FSENGINE_PREPARE"
#: pages whose first visit is prepared first, in this order; the other pages follow in navigation order (in
#: the worker process only these are prepared, and the server imports the others)
FIRST = ("bia",)

_lock = threading.Lock()
_thread: threading.Thread | None = None
#: page key -> "prepared" | "imported" | "failed: <error>"; ``"running"`` while the thread works
status: dict[str, str] = {}
progress: dict[str, object] = {"fraction": 0.0, "message": "", "started": None, "finished": None}


def enabled() -> bool:
    """False when ``FSENGINE_PREPARE`` is 0, false, no or off."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def start(*, process: bool = False) -> threading.Thread | None:
    """Start the preparation in the background, once per process (later calls return the same
    thread); None when it is turned off. ``process``: compute in a worker process forked now (call
    it before the server starts a thread, as :mod:`fsengine.app.serve` does), with a thread here that
    mirrors its results and imports the pages; otherwise one thread here does everything."""
    global _thread
    if not enabled():
        return None
    with _lock:
        if _thread is None:
            forks = "fork" in multiprocessing.get_all_start_methods()  # not on Windows: the thread does it all
            target = functools.partial(follow_worker, *_fork_worker()) if process and forks else run
            _thread = threading.Thread(target=target, name="fsengine-prepare", daemon=True)
            _thread.start()
        return _thread


def _fork_worker() -> tuple[multiprocessing.Process, object]:
    """The worker process running :func:`run` with its jobs told through a pipe: (process, the
    pipe's receiving end)."""
    context = multiprocessing.get_context("fork")  # the engine is imported: a forked worker starts at once
    receiver, sender = context.Pipe(duplex=False)
    worker = context.Process(target=_work, args=(sender,), name="fsengine-prepare", daemon=True)
    worker.start()
    sender.close()
    return worker, receiver


def _work(sender) -> None:
    """In the worker: :func:`run`, every job's events sent to the server, then the status."""
    compute.mirror = _Teller(sender)
    compute.mirror("finished", run(only=FIRST))


class _Teller:
    """The worker's :data:`fsengine.app.compute.mirror`: sends each event to the server, except that
    a finished job's result waits for the next event, and goes after it when that starts the next
    job. A page waiting for one job asks for the next the moment it has the result; told in this
    order, the server already shows the next job as running, so the page follows it instead of
    computing it a second time."""

    def __init__(self, sender) -> None:
        self.sender = sender
        self.held: tuple | None = None

    def __call__(self, *event) -> None:
        held, self.held = self.held, None
        if event[0] == "start":
            self.sender.send(event)
        if held is not None:
            self.sender.send(held)
        if event[0] == "done":
            self.held = event
        elif event[0] != "start":
            self.sender.send(event)


def _events(receiver):
    """The worker's job events until it has finished (its status then goes to :data:`status`) or died."""
    while True:
        try:
            event = receiver.recv()
        except (EOFError, OSError):
            status.setdefault("worker", "ended without finishing")
            return
        if event[0] == "finished":
            status.update(event[1])
            return
        yield event


def follow_worker(worker: multiprocessing.Process, receiver) -> dict[str, str]:
    """In the server: mirror the worker's results until it has finished, then import the pages
    (stepping aside for pages between imports); returns :data:`status`."""
    progress["started"] = time.monotonic()
    status["running"] = "yes"
    compute.follow(_events(receiver))
    worker.join(timeout=5)
    for spec in _order():
        _import_page(spec)  # the FIRST pages: imported by preload already
    status.pop("running", None)
    progress["finished"] = time.monotonic()
    progress["fraction"] = 1.0
    return status


def _import_page(spec) -> None:
    try:
        _import(spec.module)
    except Exception as exc:  # the page imports it on demand and shows the error there
        status[spec.key] = f"failed: {exc}"
        LOG.exception("importing the page %s failed", spec.key)


def preload() -> None:
    """Import the engine's libraries, the app's shell and the :data:`FIRST` pages in this thread,
    before the server listens: a first visitor's script run then imports nothing, and the
    preparation imports nothing in the server while a browser fetches Streamlit's files (an import
    holds the interpreter, so each file would wait its turn and the page would stay empty;
    benchmarks/RESULTS.md, issue 32 item 6). A worker forked after this inherits them."""
    from fsengine.app.shell import ENGINE_MODULES

    for module in (*ENGINE_MODULES, "fsengine.app.shell", *(_page(key).module for key in FIRST)):
        importlib.import_module(module)


def _page(key: str):
    from fsengine.app.registry import get_page

    return get_page(key)


def _order() -> list:
    from fsengine.app.registry import PAGES

    first = [p for key in FIRST for p in PAGES if p.key == key]
    return first + [p for p in PAGES if p not in first]


def _import(name: str) -> None:
    """Import ``name`` after the engine libraries, one at a time, stepping aside for pages between."""
    from fsengine.app.shell import ENGINE_MODULES

    for module in (*ENGINE_MODULES, name):
        yield_to_pages()
        importlib.import_module(module)


def run(only: tuple[str, ...] | None = None) -> dict[str, str]:
    """Prepare every page's first visit (see the module docstring), in this thread; returns
    :data:`status`. The default dataset comes first: every page reads it. ``only``: these pages'
    keys (the worker process prepares :data:`FIRST`; importing the others is the server's part)."""
    progress["started"] = time.monotonic()
    status["running"] = "yes"
    try:
        from fsengine.app.picker import default_selection, load_cached

        load_cached(*default_selection(), background=lambda fraction, message="": yield_to_pages())
        status["dataset"] = "prepared"
    except Exception as exc:  # a page loads it on demand
        status["dataset"] = f"failed: {exc}"
        LOG.exception("loading the default dataset failed; pages load it on demand")
    pages = [spec for spec in _order() if only is None or spec.key in only]
    for i, spec in enumerate(pages):
        def report(fraction, message: str = "", i=i, spec=spec) -> None:
            progress["fraction"] = (i + min(max(float(fraction), 0.0), 1.0)) / len(pages)
            progress["message"] = f"{spec.title}: {message}" if message else spec.title
            yield_to_pages()  # a page being drawn goes first

        report(0.0)
        try:
            _import(spec.module)
            module = sys.modules[spec.module]
            visit = getattr(module, "first_visit", None)
            if visit is None:
                status[spec.key] = "imported"
                continue
            t0 = time.perf_counter()
            visit(report)
            status[spec.key] = "prepared"
            LOG.info("prepared the first visit of %s in %.1f s", spec.key, time.perf_counter() - t0)
        except Exception as exc:  # a failed preparation leaves the page to compute on demand
            status[spec.key] = f"failed: {exc}"
            LOG.exception("preparing the page %s failed; it computes on demand", spec.key)
    status.pop("running", None)
    progress["finished"] = time.monotonic()
    progress["fraction"] = 1.0
    return status
