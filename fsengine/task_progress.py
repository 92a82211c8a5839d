"""Progress of a task map (:func:`fsengine.parallel.map_tasks`): the overall bar, and how a task
running in another process reports to it.

The bar
-------
:class:`TaskBar` turns what the tasks say into the caller's ``progress(fraction, message)``
(:mod:`fsengine.progress`). A finished task counts 1, a running task its own fraction, and the
overall fraction never steps back. Every task is announced when it starts (the message is its name,
e.g. ``"RTM: bootstrap fit 3 of 5"``), a report from inside it reads ``"<name>, <its message>"``
(``"RTM: bootstrap fit 3 of 5, Power EP sweep 120 of at most 300"``) and its end
``"<name> done (k of n)"``. So the message always names a task that is running or has just ended.

Workers
-------
A task in another process reports through a picklable reporter that the parent hands it
(:meth:`TaskChannel.reporter`): it announces its start (with its process id) and then passes on
the task's own ``progress`` calls, at most one every :data:`REPORT_EVERY` seconds (each is a
message between processes).

* local worker processes (joblib): one ``multiprocessing.connection`` listener per parent process,
  authenticated by a random key, started on first use (:class:`LocalChannel`);
* a Dask cluster: the cluster's structured events, ``log_event`` on the worker and
  ``subscribe_topic`` in the client (:class:`DaskChannel`).

Both put the events on a queue that the parent's main thread reads: that thread alone calls
``progress`` (the app's bar and its stop button live there) and ``cancel``.
"""

from __future__ import annotations

import os
import queue
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from multiprocessing.connection import Client, Listener

from fsengine.progress import Progress

#: seconds between two reports a task in another process sends the parent (the first goes at once)
REPORT_EVERY = 0.25


class TaskBar:
    """The overall progress of ``total`` tasks named ``names``, ``done`` of them finished before the
    run (kept results); reports to ``progress`` (None: nowhere)."""

    def __init__(self, names: Sequence[str], total: int, done: int, progress: Progress | None):
        self.names, self.total, self.done, self.progress = names, total, done, progress
        self.running: dict[int, float] = {}
        self.finished: set[int] = set()
        self.shown = 0.0

    def _report(self, message: str) -> None:
        if self.progress is None:
            return
        fraction = (self.done + sum(self.running.values())) / max(self.total, 1)
        self.shown = max(self.shown, min(fraction, 1.0))
        self.progress(self.shown, message)

    def start(self, index: int) -> None:
        """Task ``index`` starts: announce it by name (a start heard after its end is ignored)."""
        if index in self.finished or index in self.running:
            return
        self.running[index] = 0.0
        self._report(self.names[index])

    def report(self, index: int, fraction: float, message: str = "") -> None:
        """What task ``index`` says of itself: its own fraction 0..1 and message."""
        if index in self.finished:
            return
        self.running[index] = min(max(float(fraction), 0.0), 1.0)
        self._report(f"{self.names[index]}, {message}" if message else self.names[index])

    def finish(self, index: int) -> None:
        self.running.pop(index, None)
        self.finished.add(index)
        self.done += 1
        self._report(f"{self.names[index]} done ({self.done} of {self.total})")

    def handle(self, event: tuple) -> None:
        """An event from a channel: ``("start", index, pid)`` or ``("report", index, fraction, message)``."""
        if event[0] == "start":
            self.start(event[1])
        elif event[0] == "report":
            self.report(event[1], event[2], event[3])


class _Throttle(ABC):
    """Sends a task's events through ``send``: the start at once, its reports at most one every
    :data:`REPORT_EVERY` seconds. Picklable (it travels to the worker with the task)."""

    def __init__(self, index: int, reports: bool = True):
        self.index, self.reports = index, reports
        self._last = float("-inf")

    def start(self) -> None:
        self.send(("start", self.index, os.getpid()))

    def __call__(self, fraction: float, message: str = "") -> None:
        now = time.monotonic()
        if self.reports and now - self._last >= REPORT_EVERY:
            self._last = now
            self.send(("report", self.index, float(fraction), str(message)))

    @abstractmethod
    def send(self, event: tuple) -> None:
        """Deliver one event to the parent (the local socket, or dask's event log)."""

    def close(self) -> None:  # noqa: B027 - a no-op unless the reporter holds a connection
        """The task ended (its result goes back by the backend's own route)."""


class _LocalReporter(_Throttle):
    def __init__(self, address, key: bytes, run: str, index: int, reports: bool):
        super().__init__(index, reports)
        self.address, self.key, self.run = address, key, run
        self._conn = None
        self._broken = False

    def __getstate__(self):
        return {**self.__dict__, "_conn": None}

    def send(self, event: tuple) -> None:
        if self._broken:
            return
        try:
            if self._conn is None:
                self._conn = Client(self.address, authkey=self.key)
            self._conn.send((self.run, *event))
        except (OSError, EOFError):  # the parent has gone: the task goes on, reporting nowhere
            self._broken = True

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class TaskChannel(ABC):
    """Where the reports of one task map's workers arrive: :attr:`events`, a queue read by the
    parent's main thread."""

    def __init__(self):
        self.events: queue.Queue = queue.Queue()

    @abstractmethod
    def reporter(self, index: int, reports: bool = True) -> _Throttle:
        """What task ``index`` reports through in its worker: its start, then (``reports``) what it
        says of itself."""

    def close(self) -> None:  # noqa: B027 - a no-op unless the channel holds a listener
        """Stop listening (events still queued stay readable)."""


class _Listener:
    """This process's one listener for local workers: accepts every connection and reads it on a
    thread of its own, routing each event to the queue of its run."""

    def __init__(self):
        self.pid = os.getpid()  # a forked child starts its own (the thread below is not copied)
        self.key = os.urandom(32)
        self.listener = Listener(authkey=self.key)
        self.address = self.listener.address
        self.runs: dict[str, queue.Queue] = {}
        threading.Thread(target=self._accept, name="fsengine-task-reports", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn = self.listener.accept()
            except OSError:  # out of file descriptors, say: try again a little later
                time.sleep(0.1)
                continue
            except Exception:  # a failed handshake (a stranger)
                continue
            threading.Thread(target=self._read, args=(conn,), name="fsengine-task-report", daemon=True).start()

    def _read(self, conn) -> None:
        with conn:
            while True:
                try:
                    run, *event = conn.recv()
                except (EOFError, OSError):
                    return
                target = self.runs.get(run)
                if target is not None:
                    target.put(tuple(event))


_LISTENER: _Listener | None = None
_LISTENER_LOCK = threading.Lock()


class LocalChannel(TaskChannel):
    """Reports of tasks on local worker processes (joblib/loky), through this process's listener."""

    def __init__(self):
        global _LISTENER
        super().__init__()
        with _LISTENER_LOCK:
            if _LISTENER is None or _LISTENER.pid != os.getpid():
                _LISTENER = _Listener()
        self._listener = _LISTENER
        self.run = uuid.uuid4().hex
        self._listener.runs[self.run] = self.events

    def reporter(self, index: int, reports: bool = True) -> _LocalReporter:
        return _LocalReporter(self._listener.address, self._listener.key, self.run, index, reports)

    def close(self) -> None:
        self._listener.runs.pop(self.run, None)


class _DaskReporter(_Throttle):
    def __init__(self, topic: str, index: int, reports: bool):
        super().__init__(index, reports)
        self.topic = topic

    def send(self, event: tuple) -> None:
        from distributed import get_worker

        try:
            get_worker().log_event(self.topic, list(event))
        except ValueError:  # not on a worker (a task run by hand): report nowhere
            pass


class DaskChannel(TaskChannel):
    """Reports of tasks on a Dask cluster, through its structured events (a topic per run)."""

    def __init__(self, client):
        super().__init__()
        self.client = client
        self.topic = f"fsengine-progress-{uuid.uuid4().hex}"
        client.subscribe_topic(self.topic, lambda event: self.events.put(tuple(event[1])))

    def reporter(self, index: int, reports: bool = True) -> _DaskReporter:
        return _DaskReporter(self.topic, index, reports)

    def close(self) -> None:
        try:
            self.client.unsubscribe_topic(self.topic)
        except Exception:  # the client is closing: nothing left to stop
            pass
