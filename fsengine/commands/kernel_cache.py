"""The numba kernel cache of ``fsengine warmup`` and ``fsengine app``: compile every numba kernel
once, so that the first real run does not pay for it.

numba compiles a kernel on its first call and, with ``cache=True``, stores the machine code on
disk (next to the source, or in the per-user cache when the package folder is read-only). Fitting
every registered method once on tiny data calls all of their kernels. ``fsengine warmup`` runs
this; ``make app`` runs it before serving, ``fsengine app`` in the background. A stamp file
records for which sources the cache was warmed, so a warm cache is recognised at once.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from pathlib import Path

from fsengine import __version__, config
from fsengine.jsonio import json_text

#: tiny data per method (catalogue spec strings); methods not listed use the first one
TINY_DATA = {
    "default": "synthetic_glm:n=80,p=6,k=2",
    "maxent": "planted_maxent:n_samples=300,n_predicates=30,n_classes=3",
    "rtm": "synthetic_rtm:n_samples=60,n_tags=20,n_relevant=3",
}
MAXENT_METHODS = ("ifs", "sgc", "count", "bayes")
#: methods with separate dense and sparse kernels: fitted on the (sparse) maxent data as well
SPARSE_TOO = ("relieff", "multisurf")
#: parameters that keep each fit short (applied where the method has them)
SMALL_PARAMS = {"n_steps": 20, "max_features": 3, "n_estimators": 3, "n_features_to_select": 5,
                "max_iter": 20, "n_Cs": 4}


def _stamp_path() -> Path:
    return config.cache_dir() / "numba-warmup.json"


def _fingerprint() -> dict:
    """What the compiled cache depends on: versions and the newest source file."""
    import numba

    package = Path(__file__).resolve().parents[1]  # the whole fsengine package
    newest = max(p.stat().st_mtime for p in package.rglob("*.py"))
    return {"fsengine": __version__, "numba": numba.__version__, "python": platform.python_version(),
            "sources": round(newest, 3), "package": str(package)}


def is_warm() -> bool:
    """True when this installation's kernels were compiled by a previous warm-up."""
    path = _stamp_path()
    try:
        return json.loads(path.read_text())["fingerprint"] == _fingerprint()
    except (OSError, ValueError, KeyError):
        return False


def compile_kernels(progress: Callable[[float, str], None] | None = None) -> dict[str, float]:
    """Fit every registered method once on tiny data; returns seconds per method (compile time
    on a cold cache, load time on a warm one) and writes the stamp."""
    import warnings

    from fsengine.data import load_dataset
    from fsengine.methods.adapt import restrict_classes
    from fsengine.methods.registry import METHODS
    from fsengine.methods.run import fit_method

    data = {name: load_dataset(spec) for name, spec in TINY_DATA.items()}
    seconds = {}
    for i, spec in enumerate(METHODS.values()):
        if progress:
            progress(i / len(METHODS), f"compiling {spec.label}")
        kind = "maxent" if spec.key in MAXENT_METHODS else spec.key if spec.key in data else "default"
        params = {p.name: SMALL_PARAMS[p.name] for p in spec.params if p.name in SMALL_PARAMS}
        start = time.perf_counter()
        for name in (kind, "maxent") if spec.key in SPARSE_TOO else (kind,):
            ds, _ = restrict_classes(data[name], [spec])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # tiny data: convergence and selection warnings are expected
                fit_method(spec, params, ds)
        seconds[spec.key] = time.perf_counter() - start
    _stamp_path().write_text(json_text({"fingerprint": _fingerprint(), "seconds": seconds}, indent=2))
    if progress:
        progress(1.0, "done")
    return seconds
