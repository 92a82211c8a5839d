"""Locating data files: FSENGINE_DATA, the project's ``datasets/`` folder, NLTK_DATA and NLTK's
standard folders, in that order."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from fsengine import config


class DataNotFoundError(FileNotFoundError):
    """A data file is not where the product looks; the message says where it looked and how to
    get it (``python -m fsengine datasets fetch NAME``).

    Examples
    --------
    It is a ``FileNotFoundError``, so code that handles missing files handles it too:

    >>> from fsengine.data import DataNotFoundError
    >>> issubclass(DataNotFoundError, FileNotFoundError)
    True
    """


def _nltk_standard_dirs() -> list[Path]:
    home = Path.home()
    dirs = [home / "nltk_data", Path(sys.prefix) / "nltk_data", Path(sys.prefix) / "share" / "nltk_data",
            Path(sys.prefix) / "lib" / "nltk_data"]
    if os.name == "nt":  # pragma: no cover
        dirs += [Path("C:/nltk_data"), Path("D:/nltk_data"), Path("E:/nltk_data")]
    else:
        dirs += [Path("/usr/share/nltk_data"), Path("/usr/local/share/nltk_data"),
                 Path("/usr/lib/nltk_data"), Path("/usr/local/lib/nltk_data")]
    return dirs


def search_roots() -> list[Path]:
    """Folders that may hold the shared layout (``notmnist/``, ``nltk_data/``), best first."""
    roots = []
    if config.data_root() is not None:
        roots.append(config.data_root())
    roots.append(config.datasets_dir())
    return roots


def nltk_dirs() -> list[Path]:
    """Folders that may hold NLTK's ``corpora/`` layout, best first."""
    dirs = [root / "nltk_data" for root in search_roots()]
    dirs += [root for root in search_roots()]
    extra = os.environ.get("NLTK_DATA", "")
    dirs += [Path(p).expanduser() for p in extra.split(os.pathsep) if p.strip()]
    dirs += _nltk_standard_dirs()
    seen, out = set(), []
    for d in dirs:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def find_file(relative: str, *, fetch_name: str | None = None) -> Path:
    """First existing ``root/relative`` over :func:`search_roots`; else DataNotFoundError."""
    tried = [root / relative for root in search_roots()]
    for path in tried:
        if path.exists():
            return path
    raise DataNotFoundError(_not_found_message(relative, tried, fetch_name))


def find_corpus(name: str) -> Path:
    """Path of an NLTK-layout corpus: ``corpora/NAME.zip`` or the unpacked ``corpora/NAME/``."""
    tried = []
    for base in nltk_dirs():
        for candidate in (base / "corpora" / name, base / "corpora" / f"{name}.zip"):
            tried.append(candidate)
            if candidate.exists():
                return candidate
    raise DataNotFoundError(_not_found_message(f"corpora/{name}(.zip)", tried, name))


def corpus_present(name: str) -> bool:
    """True when the NLTK-layout corpus ``name`` is found (zip or folder): the catalogue's check."""
    try:
        find_corpus(name)
    except DataNotFoundError:
        return False
    return True


def _not_found_message(what: str, tried: list[Path], fetch_name: str | None) -> str:
    shown = "\n  ".join(str(p) for p in tried[:8])
    more = f"\n  ... and {len(tried) - 8} more" if len(tried) > 8 else ""
    hint = (
        f"Run `python -m fsengine datasets fetch {fetch_name}` (needs internet) or place the file "
        f"under {config.datasets_dir()} or a folder named by FSENGINE_DATA."
        if fetch_name
        else f"Place it under {config.datasets_dir()} or a folder named by FSENGINE_DATA."
    )
    return f"Could not find {what}. Looked in:\n  {shown}{more}\n{hint}"
