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

Each file holds a header line, the SHA-256 of the key and the pickled result, and the pickle
(:data:`MAGIC`). A file is unpickled only after its checksum holds: one that fails it (a flipped
bit, a truncated copy, a result copied under another key's name, a file of another format) is
computed again and rewritten, and :attr:`TaskStore.rejected` names it (``fsengine reproduce``
prints a warning naming the folder and the files). A run killed while writing cannot leave a
half file: files are written whole and renamed.

Loading a pickle runs code from it, and a checksum does not stop a file written on purpose: the
folder must be one that only this user can write. A folder that other users may write (or that
another user owns) is refused.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import importlib.metadata
import os
import pickle
import stat
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


#: the first line of every kept result (the format's name and version)
MAGIC = b"fsengine task result 1\n"
#: the checksum line after it: the hex SHA-256 of the key and the pickle, and a newline
DIGEST_LENGTH = 65


def checksum(key: str, payload: bytes) -> bytes:
    """The hex SHA-256 of ``key`` and the pickled result (binding the result to its key)."""
    return hashlib.sha256(key.encode() + b"\0" + payload).hexdigest().encode()


class TaskStore:
    """A folder of task results, one checksummed pickle per key; ``reused`` and ``computed`` count
    the tasks of this process' runs read from it and written to it, ``rejected`` lists the files that
    failed their check (and were computed again) with the reason."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self.reused = 0
        self.computed = 0
        self.rejected: list[tuple[Path, str]] = []
        if self.directory.exists() and not self.directory.is_dir():
            raise ValueError(f"--keep-tasks {self.directory}: this is a file, not a folder. Give a folder "
                             "(it is created if missing).")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"--keep-tasks {self.directory}: cannot create the folder ({exc.strerror or exc}); "
                             "choose a folder you can write to.") from None
        if not os.access(self.directory, os.W_OK | os.X_OK):
            raise ValueError(f"--keep-tasks {self.directory}: the folder is not writable (permission denied); "
                             "choose a folder you can write to.")
        _check_private(self.directory)

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
        """(True, result) when this key's result is kept and passes its checksum, else (False, None);
        a file that fails the check, or cannot be unpickled, is listed in :attr:`rejected`."""
        path = self._path(key)
        try:
            if not stat.S_ISREG(path.stat().st_mode):  # a link to a device (/dev/zero) would never end
                return self._reject(path, "not a regular file")
            data = path.read_bytes()
        except FileNotFoundError:
            return False, None
        except OSError as exc:
            return self._reject(path, f"unreadable: {exc.strerror or exc}")
        if not data.startswith(MAGIC):
            return self._reject(path, "not a checksummed fsengine task result")
        digest, payload = data[len(MAGIC):len(MAGIC) + DIGEST_LENGTH], data[len(MAGIC) + DIGEST_LENGTH:]
        if digest != checksum(key, payload) + b"\n":
            return self._reject(path, "checksum mismatch")
        try:
            value = pickle.loads(payload)
        except Exception as exc:  # e.g. a class that no longer exists: computed again
            return self._reject(path, f"cannot be unpickled ({type(exc).__name__})")
        self.reused += 1
        return True, value

    def _reject(self, path: Path, reason: str) -> tuple[bool, None]:
        self.rejected.append((path, reason))
        return False, None

    def rejection_note(self) -> str:
        """One line naming the folder and the files that failed their check ("" when none did)."""
        if not self.rejected:
            return ""
        shown = "; ".join(f"{path.name} ({reason})" for path, reason in self.rejected[:3])
        more = f"; and {len(self.rejected) - 3:,} more" if len(self.rejected) > 3 else ""
        return (f"--keep-tasks {self.directory}: {len(self.rejected):,} kept result(s) failed their check and were "
                f"computed again: {shown}{more}")

    def save(self, key: str, value: Any) -> None:
        """Write ``value`` whole under ``key`` with its checksum (a temporary file renamed into place)."""
        self.computed += 1
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + checksum(key, payload) + b"\n" + payload)
            os.replace(tmp, self._path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("*.pkl"))


def _check_private(directory: Path) -> None:
    """Refuse a folder that another user owns or may write: a result planted there would run its
    code when unpickled (POSIX; elsewhere nothing is checked)."""
    if not hasattr(os, "getuid"):  # pragma: no cover - not POSIX
        return
    info = directory.stat()
    if info.st_uid != os.getuid() or info.st_mode & stat.S_IWOTH:
        who = "belongs to another user" if info.st_uid != os.getuid() else "may be written by every user"
        raise ValueError(f"--keep-tasks {directory}: the folder {who}, and loading a kept result (a pickle) runs "
                         "code from it; keep tasks in a folder only you can write.")


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
