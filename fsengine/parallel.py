"""One way to run independent tasks: in this process, on local worker processes (joblib) or on
the workers of a Dask distributed cluster.

:func:`map_tasks` calls ``func(item)`` (or ``func(shared, item)``) for every item and returns the
results **in submission order**, whatever order the workers finish in, so a caller that makes
each task deterministic (its own seed, no global state) gets the same results from every
backend. ``progress(fraction, message)`` is called once per finished task; ``cancel()`` is
polled between tasks. Any exception that leaves the waiting loop (``cancel()``, an exception
raised by ``progress``, Ctrl-C, a failed task) stops the tasks not yet finished before it
propagates. A task that raises is reported as :class:`TaskError` naming the task. Inside
:func:`fsengine.task_store.keeping_tasks`, finished results are kept on disk and a rerun reuses
them (an interrupted long run resumes).

Backends (:func:`backend_for`):

* ``n_jobs`` None or 1 and no ``scheduler``: serial, in this process.
* ``n_jobs`` N > 1 or -1 (all cores): joblib's process pool (loky), kept alive between calls.
* ``scheduler``: the address of a running Dask scheduler (``tcp://host:8786``) or a
  ``distributed.Client``; ``shared`` is scattered to the workers once (again if a dying worker
  took every copy with it). Needs ``fsengine[dask]``, and the workers need fsengine installed.
"""

from __future__ import annotations

import importlib
import os
import threading
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from fsengine import task_store

Progress = Callable[[float, str], None]
#: seconds to wait for a Dask scheduler before giving up
CONNECT_TIMEOUT = 10


class TaskError(RuntimeError):
    """A task raised; ``task`` is its name and ``__cause__`` the original exception."""

    def __init__(self, task: str, message: str):
        super().__init__(f"task {task!r} failed: {message}")
        self.task = task


class TasksCancelled(Exception):
    """``cancel()`` returned True; the tasks not yet finished were stopped."""


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def backend_for(n_jobs: int | None = None, scheduler: Any = None) -> str:
    """"serial", "joblib" or "dask" for these settings; a ValueError says what is wrong."""
    if n_jobs is not None and (n_jobs == 0 or n_jobs < -1):
        raise ValueError(f"n_jobs={n_jobs}: use 1 (serial), N > 1 local processes or -1 for all cores")
    if scheduler is not None:
        if n_jobs not in (None, 1):
            raise ValueError("Choose either n_jobs (local processes) or scheduler (a Dask cluster), not both.")
        return "dask"
    if n_jobs is None or n_jobs == 1 or (n_jobs == -1 and available_cores() == 1):
        return "serial"
    return "joblib"


def describe(n_jobs: int | None = None, scheduler: Any = None) -> str:
    """A short phrase for progress messages and reports: where the tasks run."""
    backend = backend_for(n_jobs, scheduler)
    if backend == "serial":
        return "1 process"
    if backend == "joblib":
        return f"{available_cores() if n_jobs == -1 else n_jobs} local processes"
    return f"Dask cluster {scheduler}" if isinstance(scheduler, str) else "Dask cluster"


_warming = threading.Lock()


def _import(modules: tuple[str, ...]) -> int:
    for name in modules:
        importlib.import_module(name)
    return os.getpid()


def start_workers(n_jobs: int = -1, modules: tuple[str, ...] = ("fsengine.compare.runner",)) -> threading.Thread | None:
    """Start joblib's local worker processes in the background and import ``modules`` in them, so
    the first parallel run does not wait for them (the app's Compare page calls this when it is
    drawn). Returns the thread, or None when the settings are serial or a warm-up is under way."""
    if backend_for(n_jobs) != "joblib" or not _warming.acquire(blocking=False):
        return None

    def run() -> None:
        from joblib import Parallel, delayed

        try:
            n = available_cores() if n_jobs == -1 else n_jobs
            Parallel(n_jobs=n_jobs)(delayed(_import)(modules) for _ in range(2 * n))
        except Exception:  # a failed warm-up only means that the first run starts the workers itself
            pass
        finally:
            _warming.release()

    thread = threading.Thread(target=run, name="fsengine-warm-up", daemon=True)
    thread.start()
    return thread


def _call(func: Callable, index: int, shared: Any, item: Any, use_shared: bool):
    """Run one task where it lands; (index, None, result) or (index, exception, traceback text)."""
    try:
        return index, None, func(shared, item) if use_shared else func(item)
    except Exception as exc:
        return index, exc, traceback.format_exc()


class _Stop(BaseException):
    """Carries an exception raised by ``progress`` or ``cancel`` out of a serial task, past the
    task's own error handling (it stops the run; it is not the task's failure)."""


def _within(index: int, name: str, total: int, done: Callable[[], int], progress: Progress | None,
            check: Callable[[], None]) -> Progress:
    """Progress inside serial task ``index``: overall fraction and the task's name; polls ``check``."""
    def report(fraction: float, message: str = "") -> None:
        try:
            check()
            if progress is not None:
                progress((done() + min(max(fraction, 0.0), 1.0)) / total, f"{name}: {message}")
        except Exception as exc:
            raise _Stop(exc) from exc
    return report


def _names(names: Sequence[str] | None, n: int) -> list[str]:
    names = [f"task {i + 1}" for i in range(n)] if names is None else [str(s) for s in names]
    if len(names) != n:
        raise ValueError(f"{len(names)} names for {n} tasks")
    return names


def map_tasks(func: Callable, items: Iterable, *, shared: Any = None, names: Sequence[str] | None = None,
              n_jobs: int | None = None, scheduler: Any = None, progress: Progress | None = None,
              cancel: Callable[[], bool] | None = None, task_progress: bool = False) -> list:
    """``[func(item) for item in items]`` (``func(shared, item)`` when ``shared`` is given) on the
    backend chosen by ``n_jobs`` / ``scheduler`` (see the module docstring). ``func`` must be a
    module-level function and items and results picklable for the parallel backends.

    ``task_progress``: ``func`` takes a ``progress`` keyword; on the serial backend it receives
    one that reports progress within the running task (and can stop it by raising), elsewhere
    None."""
    items = list(items)
    names = _names(names, len(items))
    backend = backend_for(n_jobs, scheduler)
    use_shared = shared is not None
    results: list = [None] * len(items)
    done = 0
    store = task_store.active()
    keys: list[str] = []
    pending = list(range(len(items)))
    if store is not None and items:
        context = store.context(func, shared)
        keys = [store.key(context, item) for item in items]
        pending = []
        for i, key in enumerate(keys):
            found, value = store.load(key)
            if found:
                results[i] = value
                done += 1
            else:
                pending.append(i)
        if done and progress is not None:
            progress(done / len(items), f"{done} of {len(items)} tasks kept from {store.directory}")

    def finished(index: int, exc, value) -> None:
        nonlocal done
        if exc is not None:
            raise TaskError(names[index], f"{type(exc).__name__}: {exc}") from exc
        results[index] = value
        if store is not None:
            store.save(keys[index], value)
        done += 1
        if progress is not None:
            progress(done / max(len(items), 1), f"{names[index]} done ({done} of {len(items)})")

    def check() -> None:
        if cancel is not None and cancel():
            raise TasksCancelled(f"Cancelled after {done} of {len(items)} tasks.")

    if not pending:
        return results
    check()
    if backend == "serial":
        for i in pending:
            call = partial(func, progress=_within(i, names[i], len(items), lambda: done, progress, check)) \
                if task_progress else func
            try:
                outcome = _call(call, i, shared, items[i], use_shared)
            except _Stop as stop:
                raise stop.args[0] from None
            finished(*outcome)
            check()
        return results
    if task_progress:
        func = partial(func, progress=None)
    if backend == "joblib":
        _run_joblib(func, items, pending, shared, use_shared, n_jobs, finished, check)
    else:
        _run_dask(func, items, pending, names, shared, use_shared, scheduler, finished, check)
    return results


def _run_joblib(func, items, pending, shared, use_shared, n_jobs, finished, check) -> None:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    outputs = parallel(delayed(_call)(func, i, shared, items[i], use_shared) for i in pending)
    try:
        for index, exc, value in outputs:
            finished(index, exc, value)
            check()
    finally:
        with warnings.catch_warnings():  # joblib warns that cancelled tasks were wasted: that is the point
            warnings.simplefilter("ignore", UserWarning)
            outputs.close()  # stops the tasks not yet started and the workers running them


def connect(scheduler):
    """A ``distributed.Client`` for an address (or the Client given); a clear error when dask is
    not installed or the scheduler does not answer."""
    try:
        from distributed import Client
    except ImportError as exc:
        raise ValueError("Running on a Dask cluster needs dask[distributed]: pip install 'fsengine[dask]'.") from exc
    if isinstance(scheduler, Client):
        return scheduler
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except OSError as exc:
        raise ValueError(f"Could not reach the Dask scheduler at {scheduler} within {CONNECT_TIMEOUT} s ({exc}). "
                         "Check the address (tcp://HOST:8786) and that 'dask scheduler' and its workers "
                         "are running.") from exc


#: times the shared data is scattered again after a dead worker took the only copy with it
MAX_RESCATTERS = 3


def _run_dask(func, items, pending, names, shared, use_shared, scheduler, finished, check) -> None:
    """Submit every item; gather as they finish. Scattered data has no recipe to recompute it: when
    the only worker holding ``shared`` dies, the scheduler cancels the tasks that need it ("already
    forgotten"). Then ``shared`` is scattered again and the unfinished tasks are resubmitted (at most
    :data:`MAX_RESCATTERS` times); a task that keeps killing its workers fails as ``KilledWorker``."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker
    from distributed.utils import CancelledError

    client = connect(scheduler)
    own = client is not scheduler
    run = uuid.uuid4().hex[:8]
    remaining = set(pending)
    futures: dict = {}
    try:
        for attempt in range(MAX_RESCATTERS + 1):
            handle = client.scatter(shared, broadcast=True, hash=False) if use_shared else None
            futures = {client.submit(_call, func, i, handle, items[i], use_shared, key=f"fsengine-{run}-{attempt}-{i}",
                                     pure=False): i for i in sorted(remaining)}
            lost = None
            for future in as_completed(list(futures), loop=client.loop):
                i = futures[future]
                try:
                    outcome = future.result()
                except KilledWorker as exc:
                    raise TaskError(names[i], "the Dask workers running it died (killed or out of memory) "
                                    f"too often; no result was kept ({exc}).") from exc
                except CancelledError as exc:
                    if not use_shared:
                        raise TaskError(names[i], f"the Dask cluster cancelled it ({exc}).") from exc
                    lost = (i, exc)
                    break
                remaining.discard(i)
                finished(*outcome)
                check()
            if lost is None:
                return
            client.cancel([f for f in futures if not f.done()])
        raise TaskError(names[lost[0]], f"the Dask workers holding its shared data died {MAX_RESCATTERS + 1} "
                        f"times; no result was kept ({lost[1]}).")
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        if own:
            client.close()
