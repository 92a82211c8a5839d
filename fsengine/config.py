"""Environment variables and project paths, read in one place.

Two layouts: a *checkout* (the package next to ``pyproject.toml``, ``app.py`` and ``pages/``) keeps
downloads and caches in its own ``datasets/`` folder; an *installed* package (``pip install``)
uses per-user folders from platformdirs (e.g. ``~/.local/share/fsengine`` and
``~/.cache/fsengine`` on Linux), never its own site-packages folder. The variables override both.

FSENGINE_DATA         folder holding real data in the shared layout (``notmnist/``, ``nltk_data/``).
FSENGINE_CACHE        folder for generated files (checkout: ``<project>/datasets/cache``;
                      installed: the per-user cache folder).
FSENGINE_DATASETS     folder that ``fetch`` downloads into (checkout: ``<project>/datasets``;
                      installed: ``datasets`` in the per-user data folder).
FSENGINE_MAX_UPLOAD_MB  size limit for user uploads in the app (default 200): a positive, finite
                      number of megabytes.
FSENGINE_FETCH_BASE_URL optional mirror that replaces every public download address (an http(s) or
                      file address; tests use a loopback server).
NLTK_DATA             extra folders (``os.pathsep`` separated) searched for NLTK-layout corpora.
FSENGINE_PREPARE      ``0`` (or false, no, off) turns off the app's server-start preparation of the
                      pages' first visits (default on; read by ``fsengine.app.prepare``).

Every variable is checked at start (:func:`check_environment`: the command line, the app's sidebar):
a value fsengine cannot use is one line naming the variable, never a traceback later.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def in_checkout() -> bool:
    """True when the package runs from a source checkout (not from site-packages)."""
    return all((PROJECT_ROOT / name).exists() for name in ("pyproject.toml", "app.py", "pages"))


def _user_dirs():
    import platformdirs

    return platformdirs.PlatformDirs("fsengine", appauthor=False)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def data_root() -> Path | None:
    """The folder named by ``FSENGINE_DATA`` or None when unset."""
    return _env_path("FSENGINE_DATA")


def datasets_dir() -> Path:
    """Where ``fetch`` stores downloads: ``FSENGINE_DATASETS``, else ``<project>/datasets`` in a
    checkout, else ``datasets`` in the per-user data folder."""
    explicit = _env_path("FSENGINE_DATASETS")
    if explicit is not None:
        return explicit
    return PROJECT_ROOT / "datasets" if in_checkout() else _user_dirs().user_data_path / "datasets"


def cache_dir() -> Path:
    """Folder for generated files (``FSENGINE_CACHE``, else ``datasets/cache`` in a checkout,
    else the per-user cache folder); created on first use."""
    path = _env_path("FSENGINE_CACHE")
    if path is None:
        path = datasets_dir() / "cache" if in_checkout() else _user_dirs().user_cache_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_dir() -> Path:
    """Recorded paper reproductions (``docs/results`` of a checkout, or the copy shipped in the
    package as ``fsengine/recorded``); pages read their recorded tables from here."""
    return PROJECT_ROOT / "docs" / "results" if in_checkout() else Path(__file__).resolve().parent / "recorded"


def lessons_dir() -> Path:
    """The teaching notebooks (``notebooks/`` of a checkout, or the copy shipped in the package as
    ``fsengine/lessons``); ``fsengine notebooks`` copies them to a folder of the user's."""
    return PROJECT_ROOT / "notebooks" if in_checkout() else Path(__file__).resolve().parent / "lessons"


#: the largest upload limit taken (10 TB): beyond it a value is a typing slip, not a size
MAX_UPLOAD_MB = 10**7


def max_upload_bytes() -> int:
    """Upload size limit in bytes (``FSENGINE_MAX_UPLOAD_MB``, default 200 MB): a positive, finite
    number of megabytes (a server needs a limit: ``inf`` is refused, as are ``nan``, 0 and
    negative sizes), else a ValueError naming the variable."""
    raw = os.environ.get("FSENGINE_MAX_UPLOAD_MB", "").strip() or "200"
    try:
        mb = float(raw)
    except ValueError as exc:
        raise ValueError(
            f"FSENGINE_MAX_UPLOAD_MB={raw!r} is not a number; set it to a size in megabytes, e.g. 200"
        ) from exc
    if not math.isfinite(mb) or mb * 1024 * 1024 < 1 or mb > MAX_UPLOAD_MB:
        raise ValueError(f"FSENGINE_MAX_UPLOAD_MB={raw!r} is not a usable size; set it to a positive, finite number "
                         "of megabytes, e.g. 200 (the app's server needs a limit; unset it for the default of 200)")
    return int(mb * 1024 * 1024)


def _folder_problem(name: str, *, must_exist: bool) -> str | None:
    path = _env_path(name)
    if path is None:
        return None
    if path.exists() and not path.is_dir():
        return f"{name}={path} is a file, not a folder; point it at a folder or unset it"
    if must_exist and not path.exists():
        return f"{name}={path}: no such folder; point it at the folder holding the shared data or unset it"
    return None


def environment_problems() -> list[str]:
    """One line per environment variable of the module docstring that is set to something fsengine
    cannot use, naming the variable, its value and what to do (empty when all are fine)."""
    problems = [_folder_problem("FSENGINE_DATA", must_exist=True),
                _folder_problem("FSENGINE_CACHE", must_exist=False),
                _folder_problem("FSENGINE_DATASETS", must_exist=False)]
    try:
        max_upload_bytes()
    except ValueError as exc:
        problems.append(str(exc))
    base = os.environ.get("FSENGINE_FETCH_BASE_URL", "").strip()
    if base:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
            problems.append(f"FSENGINE_FETCH_BASE_URL={base!r} is not an http(s) or file address; set it to a mirror "
                            "such as https://example.org/fsengine-data or unset it")
    for entry in os.environ.get("NLTK_DATA", "").split(os.pathsep):
        folder = Path(entry.strip()).expanduser() if entry.strip() else None
        if folder is not None and folder.exists() and not folder.is_dir():
            problems.append(f"NLTK_DATA names {folder}, a file, not a folder; list folders (separated by "
                            f"{os.pathsep!r}) or unset it")
    return [p for p in problems if p]


def check_environment() -> None:
    """Raise a ValueError with the first of :func:`environment_problems` (the command line calls this
    at start, so a bad setting is one line before any work)."""
    problems = environment_problems()
    if problems:
        raise ValueError(problems[0])


def data_required() -> bool:
    """True when FSENGINE_DATA is set: tests needing a missing real file must fail, not skip."""
    return data_root() is not None
