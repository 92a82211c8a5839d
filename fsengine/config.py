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
FSENGINE_MAX_UPLOAD_MB  size limit for user uploads in the app (default 200).
FSENGINE_FETCH_BASE_URL optional mirror that replaces every public download address (tests use a
                      loopback server).
NLTK_DATA             extra folders (``os.pathsep`` separated) searched for NLTK-layout corpora.
"""

from __future__ import annotations

import os
from pathlib import Path

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


def max_upload_bytes() -> int:
    """Upload size limit in bytes (``FSENGINE_MAX_UPLOAD_MB``, default 200 MB)."""
    raw = os.environ.get("FSENGINE_MAX_UPLOAD_MB", "200")
    try:
        mb = float(raw)
    except ValueError as exc:
        raise ValueError(
            f"FSENGINE_MAX_UPLOAD_MB={raw!r} is not a number; set it to a size in megabytes"
        ) from exc
    return int(mb * 1024 * 1024)


def data_required() -> bool:
    """True when FSENGINE_DATA is set: tests needing a missing real file must fail, not skip."""
    return data_root() is not None
