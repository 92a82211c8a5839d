"""Files written whole: a temporary file beside the destination, renamed into place, with the
permissions an ordinary file of this user gets (not the 0600 of a temporary file), so lessons,
downloads and caches in a shared folder are readable by others as the user's umask allows."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def ordinary_mode() -> int:
    """``0o666`` less the process umask: the mode ``open(path, "w")`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def ordinary_folder_mode() -> int:
    """``0o777`` less the process umask: the mode ``mkdir`` gives a new folder (a ``mkdtemp`` folder is
    0700 whatever the umask; a folder of results meant for others gets this instead)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o777 & ~umask


def write_whole(dest: Path, write: Callable[[BinaryIO], None] | bytes, *, suffix: str = ".part") -> None:
    """Write ``dest`` whole: ``write(fh)`` (or the bytes) goes to a temporary file in the same
    folder, which gets an ordinary file's mode and is then renamed over ``dest``; on any error
    the temporary file is removed and ``dest`` is left as it was."""
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(write, bytes | bytearray):
                fh.write(write)
            else:
                write(fh)
        os.chmod(tmp, ordinary_mode())
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
