"""One way to run independent tasks: in this process, on local worker processes (joblib) or on
the workers of a Dask distributed cluster.

:func:`map_tasks` calls ``func(item)`` (or ``func(shared, item)``) for every item and returns the
results **in submission order**, whatever order the workers finish in, so a caller that makes
each task deterministic (its own seed, no global state) gets the same results from every
backend. ``progress(fraction, message)`` hears of every task as it starts and ends, and of what
a task says of itself (``task_progress``), from every backend (:mod:`fsengine.task_progress`);
``cancel()`` is polled between tasks. Any exception that leaves the waiting loop (``cancel()``,
an exception raised by ``progress``, Ctrl-C, a failed task) stops the tasks not yet finished
before it propagates. A task that raises is reported as :class:`TaskError` naming the task. Inside
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
import queue
import signal
import threading
import time
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from fsengine import task_store
from fsengine.task_progress import DaskChannel, LocalChannel, TaskBar

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


def _call(func: Callable, index: int, shared: Any, item: Any, use_shared: bool, reporter=None,
          task_progress: bool = False):
    """Run one task where it lands; (index, None, result) or (index, exception, traceback text).
    ``reporter`` (a task on another process, :mod:`fsengine.task_progress`) announces the start
    and, with ``task_progress``, is the task's ``progress``."""
    try:
        if reporter is not None:
            reporter.start()
        if task_progress:
            func = partial(func, progress=reporter)
        return index, None, func(shared, item) if use_shared else func(item)
    except Exception as exc:
        return index, exc, traceback.format_exc()
    finally:
        if reporter is not None:
            reporter.close()


class _Stop(BaseException):
    """Carries an exception raised by ``progress`` or ``cancel`` out of a serial task, past the
    task's own error handling (it stops the run; it is not the task's failure)."""


def _within(index: int, bar: TaskBar, check: Callable[[], None]) -> Progress:
    """Progress inside serial task ``index``: to the overall bar; polls ``check``."""
    def report(fraction: float, message: str = "") -> None:
        try:
            check()
            bar.report(index, fraction, message)
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

    ``progress`` hears of every task when it starts (its name), and when it ends
    (:class:`fsengine.task_progress.TaskBar`), on every backend. ``task_progress``: ``func`` takes
    a ``progress`` keyword; what the task reports through it reaches ``progress`` as
    ``"<name>, <message>"`` with the overall fraction: directly on the serial backend (where it
    can also stop the task by raising), from worker processes through
    :mod:`fsengine.task_progress` (at most every :data:`~fsengine.task_progress.REPORT_EVERY`
    seconds). Without a ``progress`` it receives None."""
    items = list(items)
    names = _names(names, len(items))
    backend = backend_for(n_jobs, scheduler)
    use_shared = shared is not None
    results: list = [None] * len(items)
    store = task_store.active()
    keys: list[str] = []
    pending = list(range(len(items)))
    kept = 0
    if store is not None and items:
        context = store.context(func, shared)
        keys = [store.key(context, item) for item in items]
        pending = []
        for i, key in enumerate(keys):
            found, value = store.load(key)
            if found:
                results[i] = value
                kept += 1
            else:
                pending.append(i)
        if kept and progress is not None:
            progress(kept / len(items), f"{kept} of {len(items)} tasks kept from {store.directory}")
    bar = TaskBar(names, len(items), kept, progress)

    def finished(index: int, exc, value) -> None:
        if exc is not None:
            raise TaskError(names[index], f"{type(exc).__name__}: {exc}") from exc
        results[index] = value
        if store is not None:
            store.save(keys[index], value)
        bar.finish(index)

    def check() -> None:
        if cancel is not None and cancel():
            raise TasksCancelled(f"Cancelled after {bar.done} of {len(items)} tasks.")

    if not pending:
        return results
    check()
    if backend == "serial":
        for i in pending:
            bar.start(i)
            call = partial(func, progress=_within(i, bar, check) if progress is not None else None) \
                if task_progress else func
            try:
                outcome = _call(call, i, shared, items[i], use_shared)
            except _Stop as stop:
                raise stop.args[0] from None
            finished(*outcome)
            check()
        return results
    calls = dict(func=func, items=items, pending=pending, shared=shared, use_shared=use_shared,
                 task_progress=task_progress, reports=progress is not None)
    if backend == "joblib":
        _run_joblib(calls, n_jobs, bar, finished, check)
    else:
        _run_dask(calls, names, scheduler, bar, finished, check)
    return results


#: seconds an aborted local run waits for its tasks to end (their workers are stopped meanwhile)
STOP_WAIT = 30.0


def _run_joblib(calls: dict, n_jobs, bar: TaskBar, finished, check) -> None:
    """The tasks on joblib's local processes. A thread consumes joblib's results; this (the main)
    thread handles them and the workers' reports (:class:`~fsengine.task_progress.LocalChannel`)
    as they come, so ``progress`` and ``cancel`` are called here only. When the run stops early
    (cancel, a failed task, an exception raised by ``progress``, Ctrl-C), the workers running its
    tasks are stopped, as joblib stops them when its results are abandoned."""
    from joblib import Parallel, delayed

    channel = LocalChannel()
    events, stopping = channel.events, threading.Event()
    tasks = [delayed(_call)(calls["func"], i, calls["shared"], calls["items"][i], calls["use_shared"],
                            channel.reporter(i, calls["reports"]), calls["task_progress"]) for i in calls["pending"]]

    def consume() -> None:
        try:
            outputs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)
            try:
                for outcome in outputs:
                    events.put(("done", *outcome))
                    if stopping.is_set():
                        break
            finally:
                with warnings.catch_warnings():  # joblib warns that cancelled tasks were wasted: that is the point
                    warnings.simplefilter("ignore", UserWarning)
                    outputs.close()  # stops the tasks not yet started and the workers running them
        except BaseException as exc:  # a worker died or joblib failed: the main thread raises it
            events.put(("failed", exc))
        events.put(("end",))

    consumer = threading.Thread(target=consume, name="fsengine-joblib-results", daemon=True)
    pids: dict[int, int] = {}
    consumer.start()
    try:
        while True:
            event = events.get()
            if event[0] == "done":
                pids.pop(event[1], None)
                finished(*event[1:])
                check()
            elif event[0] == "start":
                pids[event[1]] = event[2]
                bar.start(event[1])
            elif event[0] == "report":
                bar.handle(event)
            elif event[0] == "failed":
                raise event[1]
            else:
                break
    except BaseException:
        stopping.set()
        _stop_local_workers(consumer, events, pids)
        raise
    finally:
        channel.close()


def _stop_local_workers(consumer: threading.Thread, events, pids: dict[int, int]) -> None:
    """Stop the worker processes that run this map's tasks until the result thread has ended (it
    closes joblib's results, which stops the tasks not yet started), at most :data:`STOP_WAIT` s."""
    deadline = time.monotonic() + STOP_WAIT
    while consumer.is_alive() and time.monotonic() < deadline:
        for pid in pids.values():
            try:
                os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
            except OSError:  # already gone
                pass
        pids.clear()
        try:
            event = events.get(timeout=0.1)
        except queue.Empty:
            continue
        if event[0] == "start":
            pids[event[1]] = event[2]
        elif event[0] == "done":
            pids.pop(event[1], None)


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


def _run_dask(calls: dict, names, scheduler, bar: TaskBar, finished, check) -> None:
    """Submit every item; handle results as they finish, and the workers' reports
    (:class:`~fsengine.task_progress.DaskChannel`) as they come. Scattered data has no recipe to
    recompute it: when the only worker holding ``shared`` dies, the scheduler cancels the tasks
    that need it ("already forgotten"). Then ``shared`` is scattered again and the unfinished tasks
    are resubmitted (at most :data:`MAX_RESCATTERS` times); a task that keeps killing its workers
    fails as ``KilledWorker``."""
    from distributed.scheduler import KilledWorker
    from distributed.utils import CancelledError

    client = connect(scheduler)
    own = client is not scheduler
    run = uuid.uuid4().hex[:8]
    items, shared, use_shared = calls["items"], calls["shared"], calls["use_shared"]
    remaining = set(calls["pending"])
    futures: dict = {}
    channel = DaskChannel(client) if calls["reports"] else None
    events = channel.events if channel is not None else queue.Queue()
    try:
        for attempt in range(MAX_RESCATTERS + 1):
            handle = client.scatter(shared, broadcast=True, hash=False) if use_shared else None
            futures = {client.submit(_call, calls["func"], i, handle, items[i], use_shared,
                                     None if channel is None else channel.reporter(i), calls["task_progress"],
                                     key=f"fsengine-{run}-{attempt}-{i}", pure=False): i for i in sorted(remaining)}
            for future in futures:
                future.add_done_callback(lambda done, attempt=attempt: events.put(("done", attempt, done)))
            waiting, lost = set(futures), None
            while waiting:
                event = events.get()
                if event[0] != "done":
                    bar.handle(event)
                    continue
                if event[1] != attempt or event[2] not in waiting:
                    continue  # a future of an earlier attempt, cancelled
                future = event[2]
                waiting.discard(future)
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
        if channel is not None:
            channel.close()
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        if own:
            client.close()
