"""What a file declares (dimensions, sizes, counts) is checked before memory follows it.

A few bytes can declare gigabytes: an IDX header's dimensions, a zip member's unpacked size, a
Parquet file's row count, a CSV header over rows that hold almost nothing. Every loader compares
what is declared with its limit *before* allocating and refuses what exceeds it in one line:

* an upload in the app: the upload limit (``FSENGINE_MAX_UPLOAD_MB``), which also bounds what a
  compressed upload unpacks to;
* a file named on the command line, the catalogue's data files and generated datasets: this
  machine's memory (:func:`memory_budget`): a declaration beyond it can never load.
"""

from __future__ import annotations

import math
import os
from pathlib import Path


class DeclaredSizeError(ValueError):
    """A file (or a generator's parameters) declares more than can be loaded; the message says how
    much and what the limit is."""


def _cgroup_limit() -> int | None:
    """The memory limit of this process' control group (containers), if one is set."""
    for path in (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")):
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**62:
            return int(text)
    return None


def memory_budget() -> int:
    """Bytes this machine can hold: its physical memory, or its control group's limit when lower
    (2**40 when neither can be read)."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        physical = 2**40
    limit = _cgroup_limit()
    return min(physical, limit) if limit else physical


def size_text(nbytes: float) -> str:
    """A byte count for people: ``'512 bytes'``, ``'3.2 MB'``, ``'14.9 GB'``, ``'1.2e+06 TB'``.

    >>> size_text(512), size_text(3.2 * 2**20), size_text(16e9)
    ('512 bytes', '3.2 MB', '14.9 GB')
    """
    if nbytes < 1024:
        return f"{int(nbytes)} bytes"
    for unit, power in (("kB", 1), ("MB", 2), ("GB", 3)):
        if nbytes < 1024 ** (power + 1):
            return f"{nbytes / 1024 ** power:.1f} {unit}"
    terabytes = nbytes / 1024**4
    return f"{terabytes:.1f} TB" if terabytes < 1e4 else f"{terabytes:.1e} TB"


def limit_text(limit: float | None) -> str:
    """What the limit is, for a message: the upload limit or this machine's memory."""
    if limit is None or math.isinf(limit):
        return f"this machine's memory ({size_text(memory_budget())})"
    return f"the upload limit of {size_text(limit)} (FSENGINE_MAX_UPLOAD_MB)"


def check_declared(nbytes: int, subject: str, limit: float | None = None, *, remedy: str = "",
                   error: type[ValueError] = DeclaredSizeError) -> None:
    """Refuse ``subject`` (what declares ``nbytes``, e.g. ``"t.idx: the header's (10**9, 28, 28)
    array"``) when ``nbytes`` exceeds ``limit`` (None or inf: :func:`memory_budget`): one line,
    raised as ``error``, naming the size, the limit and ``remedy``."""
    budget = memory_budget() if limit is None or math.isinf(limit) else limit
    if nbytes > budget:
        raise error(f"{subject} would take {size_text(nbytes)} in memory, more than {limit_text(limit)}"
                    + (f"; {remedy}" if remedy else "") + ".")


def check_npz(path: Path, *, error: type[ValueError] = DeclaredSizeError) -> None:
    """Check every array an ``.npz`` file declares (the ``.npy`` headers of its members) against
    this machine's memory before ``np.load`` allocates it (numpy allocates the declared shape
    before it reads a member's data). A damaged archive or header is left to ``np.load``'s own
    error."""
    import zipfile

    import numpy as np

    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile):
        return
    with archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                continue
            try:
                with archive.open(info) as fh:
                    version = np.lib.format.read_magic(fh)
                    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) \
                        else np.lib.format.read_array_header_2_0
                    shape, _, dtype = reader(fh)
            except (OSError, ValueError, EOFError, zipfile.BadZipFile):
                continue  # np.load reports it
            check_declared(math.prod(shape) * dtype.itemsize,
                           f"{path}: member {info.filename} declares a {shape} {dtype} array that", error=error,
                           remedy="the file is damaged or not this data set")
