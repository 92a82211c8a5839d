"""Output folders of the command line: checked before computing, written whole or not at all.

Rules (``fsengine select|compare --out DIR``):

* DIR is checked *before* any computation: a path naming an existing file, a path below a file, a
  folder that cannot be created or written, and a non-empty folder that fsengine did not write
  (no :data:`MARKER` file) are refused with one line saying what to do (``--force`` allows the
  last one).
* Every output set is written into a fresh hidden folder next to DIR and moved into place only when
  complete. A previous fsengine folder is replaced as a whole, never merged with the new files, so
  an interrupted run (Ctrl-C, an error) leaves either the previous complete set or nothing new.
* Ctrl-C is held back during the two renames of the swap, so the swap itself is not cut in half.
* A run killed outright (SIGKILL, power loss) cannot clean up: its hidden staging folder, named
  with the writing process's id, is removed by the next run into the same DIR once that process is
  gone.
* DIR may be a symbolic link to a folder: the link is followed, so the new set replaces the folder
  it points to (the staging folder is made beside that folder) and the link keeps pointing to it.
  A link to nothing (dangling) or a link loop is refused before computing.
* The folder gets the permissions of an ordinary new folder (``0o777`` less the umask), so the
  results are as readable by others as the user's umask allows (the staging folder alone is private).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from fsengine import __version__
from fsengine.files import ordinary_folder_mode
from fsengine.jsonio import json_text

#: file written into every complete output folder; its presence means "fsengine wrote this"
MARKER = ".fsengine-output"


class OutputError(ValueError):
    """The output folder cannot be used; the message names it and says what to do."""


def _first_file_above(path: Path) -> Path | None:
    for parent in reversed(path.parents):
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(path.anchor or ".")


def is_fsengine_folder(path: Path) -> bool:
    return (Path(path) / MARKER).is_file()


def _protected(path: Path) -> bool:
    """The current folder, one of its parents, the home folder or a filesystem root."""
    resolved = path.resolve()
    cwd = Path.cwd().resolve()
    return resolved == cwd or resolved in cwd.parents or resolved == Path.home().resolve() \
        or resolved == Path(resolved.anchor)


def _link_target(out: Path, option: str) -> Path:
    """Where the link ``out`` leads (followed to the end); a link to nothing or a loop is refused."""
    try:
        target = out.resolve(strict=True)
    except FileNotFoundError:
        raise OutputError(f"{option} {out} is a link to {Path(os.path.realpath(out))}, which does not exist; create "
                          "that folder or remove the link.") from None
    except (OSError, RuntimeError):
        raise OutputError(f"{option} {out} is a link that loops (it never reaches a folder); remove the link or "
                          "name another folder.") from None
    return target


def real_target(out: Path) -> Path:
    """``out``, or the folder it links to when it is a symbolic link (the set is written there)."""
    out = Path(out).expanduser()
    return _link_target(out, "--out") if out.is_symlink() else out


def check_target(out: Path, *, force: bool = False, option: str = "--out") -> Path:
    """Refuse an unusable output folder before anything is computed; returns ``out`` as a Path."""
    out = Path(out).expanduser()
    for parent in reversed(out.absolute().parents):
        if parent.is_symlink() and not parent.exists():
            raise OutputError(f"{option} {out}: {parent} is a link to {Path(os.path.realpath(parent))}, which does "
                              "not exist; create that folder or remove the link.")
    if out.is_symlink():  # followed: the checks below apply to the folder it leads to
        target = _link_target(out, option)
        check_target(target, force=force, option=f"{option} {out} ->")
        return out
    blocker = _first_file_above(out.absolute())
    if blocker is not None:
        raise OutputError(f"{option} {out}: {blocker} is a file, not a folder; choose a folder path for {option}.")
    if out.exists() and not out.is_dir():
        raise OutputError(f"{option} {out} is an existing file; name a folder for the results (it is created).")
    if out.is_dir() and _protected(out):  # replacing it would pull the folder away under the user's shell
        raise OutputError(f"{option} {out} is the current, home or root folder; name a new subfolder for the "
                          "results.")
    if out.is_dir() and any(out.iterdir()):
        if not is_fsengine_folder(out) and not force:
            sample = sorted(p.name for p in out.iterdir())[:3]
            raise OutputError(f"{option} {out} already holds files fsengine did not write ({', '.join(sample)}); "
                              f"choose a new or empty folder, or add --force to replace the whole folder.")
    parent = _nearest_existing(out.absolute().parent)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {out}: cannot write in {parent} (permission denied); choose a folder "
                          "you can write to.")
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {out}: the folder is not writable (permission denied); choose a folder "
                          "you can write to.")
    return out


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Delay Ctrl-C until the block is done (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda *args: received.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received and callable(previous):
            previous(*received[0])
        elif received and previous != signal.SIG_IGN:
            raise KeyboardInterrupt


def _hidden_prefix(out: Path) -> str:
    """Prefix of the hidden staging (``.partial``) and swap (``.old``) folders of ``out`` written
    by this process: ``.NAME.PID.``."""
    return f".{out.name}.{os.getpid()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def remove_abandoned(out: Path) -> list[Path]:
    """Delete the hidden staging and swap folders next to ``out`` whose writing process no longer
    exists (a run killed before it could clean up); returns what was removed. Folders of live
    processes (a concurrent run) are left alone."""
    removed = []
    if not out.parent.is_dir():
        return removed
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(\d+)\.[^.]+\.(?:partial|old)")  # .NAME.PID.RANDOM.partial
    for p in out.parent.glob(f".{glob.escape(out.name)}.*"):
        match = pattern.fullmatch(p.name)
        if match is None or not p.is_dir():
            continue
        if not _alive(int(match.group(1))):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def _swap_into_place(new: Path, out: Path) -> None:
    with _sigint_held():
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=_hidden_prefix(out), suffix=".old"))
            os.rename(out, old / "set")
        try:
            os.rename(new, out)
        except OSError:
            if old is not None:
                os.rename(old / "set", out)
            raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def output_folder(out: Path, *, force: bool = False, command: str = "") -> Iterator[Path]:
    """Yield an empty staging folder next to ``out``; on success it becomes ``out`` (replacing a
    previous folder whole), on any exception or interrupt it is deleted and ``out`` is untouched."""
    out = real_target(check_target(out, force=force))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out {out}: cannot create {out.parent} ({exc.strerror}); choose another folder.") from exc
    remove_abandoned(out)
    stage = None
    try:
        with _sigint_held():  # a Ctrl-C right after the folder appears still finds it removed below
            stage = Path(tempfile.mkdtemp(dir=out.parent, prefix=_hidden_prefix(out), suffix=".partial"))
        yield stage
        (stage / MARKER).write_text(json_text({"written_by": f"fsengine {__version__}", "command": command}) + "\n")
        os.chmod(stage, ordinary_folder_mode())  # mkdtemp's 0700 would hide the results from others
        _swap_into_place(stage, out)
    except BaseException:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        raise
