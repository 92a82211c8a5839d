"""Results of finished tasks kept on disk, so that a long run that is interrupted resumes where it
stopped (``fsengine reproduce TARGET --keep-tasks DIR``).

While :func:`keeping_tasks` is active, :func:`fsengine.parallel.map_tasks` writes every task's
result to ``DIR/<key>.pkl`` as soon as it finishes and, before running a task, reads the result a
previous run left under the same key. The key is a hash of everything the result depends on:

* the task function (module and name) and its item,
* the shared data (hashed once per :func:`~fsengine.parallel.map_tasks` call),
* the source of the task function's module and of every fsengine module outside those that
  only present, schedule or store results (:data:`PRESENTATION`: the app, figures, commands,
  report writers, the task map and this store),
  and the versions of the numerical libraries: a change to the code that computes makes every
  kept result unreachable (never silently reused); a change to a page or a report does not.

Results are pickles: only point ``DIR`` at a folder you trust. A file that cannot be read (a
run killed while writing cannot leave one: files are written whole and renamed) is computed again.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import importlib.metadata
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: subpackages and modules that present, schedule or store results and compute none of a task's
#: numbers (their changes keep the results; the backends give identical results by test)
PRESENTATION = ("app", "plots", "commands", "reproduce", "__main__.py", "cli.py", "lecture.py", "notebook.py",
                "csv_export.py", "files.py", "task_store.py", "parallel.py", "progress.py")
#: libraries whose versions change numerical results
LIBRARIES = ("numpy", "scipy", "scikit-learn", "numba", "pandas", "joblib")

_active: contextvars.ContextVar[TaskStore | None] = contextvars.ContextVar("fsengine_task_store", default=None)


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of every ``.py`` file of the installed fsengine package outside :data:`PRESENTATION`
    (paths and contents, in sorted order) and of :data:`LIBRARIES`' versions."""
    return source_fingerprint(Path(__file__).resolve().parent)


def source_fingerprint(root: Path) -> str:
    """:func:`code_fingerprint` of the package at ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] in PRESENTATION:
            continue
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    for name in LIBRARIES:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{name}=={version}".encode())
    return digest.hexdigest()


class TaskStore:
    """A folder of task results, one pickle per key; ``reused`` and ``computed`` count the tasks
    of this process' runs read from it and written to it."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self.reused = 0
        self.computed = 0
        if self.directory.exists() and not self.directory.is_dir():
            raise ValueError(f"--keep-tasks {self.directory}: this is a file, not a folder. Give a folder "
                             "(it is created if missing).")
        self.directory.mkdir(parents=True, exist_ok=True)

    def context(self, func, shared: Any) -> str:
        """The part of every key shared by the tasks of one call."""
        import joblib

        module = sys.modules.get(func.__module__)
        source = Path(module.__file__).read_bytes() if getattr(module, "__file__", None) else b""
        return joblib.hash((code_fingerprint(), func.__module__, func.__qualname__, source, joblib.hash(shared)))

    def key(self, context: str, item: Any) -> str:
        import joblib

        return joblib.hash((context, item))

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.pkl"

    def load(self, key: str) -> tuple[bool, Any]:
        """(True, result) when this key's result is kept and readable, else (False, None)."""
        path = self._path(key)
        try:
            with path.open("rb") as fh:
                value = pickle.load(fh)
            self.reused += 1
            return True, value
        except FileNotFoundError:
            return False, None
        except Exception:  # unreadable: computed again (and rewritten)
            return False, None

    def save(self, key: str, value: Any) -> None:
        """Write ``value`` whole under ``key`` (a temporary file renamed into place)."""
        self.computed += 1
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self._path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("*.pkl"))


def reuse_note() -> str:
    """What a report adds to its run time when results were read from the active store ("" if none)."""
    store = active()
    if store is None or not store.reused:
        return ""
    return (f", after reading {store.reused:,} of {store.reused + store.computed:,} task results kept by a "
            "previous run of the same code (their time is not in it)")


def active() -> TaskStore | None:
    """The store :func:`fsengine.parallel.map_tasks` uses now, if any."""
    return _active.get()


@contextlib.contextmanager
def keeping_tasks(directory: str | os.PathLike | None) -> Iterator[TaskStore | None]:
    """Keep and reuse task results in ``directory`` inside the ``with`` block (None: do nothing)."""
    if directory is None:
        yield None
        return
    store = TaskStore(directory)
    token = _active.set(store)
    try:
        yield store
    finally:
        _active.reset(token)
