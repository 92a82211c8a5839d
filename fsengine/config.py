"""Environment variables and project paths, read in one place.

FSENGINE_DATA         folder holding real data in the shared layout (``notmnist/``, ``nltk_data/``).
FSENGINE_CACHE        folder for generated and downloaded files (default ``<project>/datasets/cache``).
FSENGINE_DATASETS     folder that ``fetch`` downloads into (default ``<project>/datasets``).
FSENGINE_MAX_UPLOAD_MB  size limit for user uploads in the app (default 200).
FSENGINE_FETCH_BASE_URL optional mirror that replaces every public download address (tests use a
                      loopback server).
NLTK_DATA             extra folders (``os.pathsep`` separated) searched for NLTK-layout corpora.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def data_root() -> Path | None:
    """The folder named by ``FSENGINE_DATA`` or None when unset."""
    return _env_path("FSENGINE_DATA")


def datasets_dir() -> Path:
    """Where ``fetch`` stores downloads (``FSENGINE_DATASETS`` or ``<project>/datasets``)."""
    return _env_path("FSENGINE_DATASETS") or PROJECT_ROOT / "datasets"


def cache_dir() -> Path:
    """Folder for generated files; created on first use."""
    path = _env_path("FSENGINE_CACHE") or datasets_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


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
