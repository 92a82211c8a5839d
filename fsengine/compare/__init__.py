"""The side-by-side comparison of feature-selection methods.

``settings``  what a comparison is asked to do (:class:`CompareSettings`), importable without the engine
``engine``    :func:`run_comparison`: fits, held-out accuracy with intervals, paired differences, overlap,
              stability, ROC
``report``    its figures, CSV tables and the self-contained HTML report

The public names are importable from here (``from fsengine.compare import run_comparison``); they
are loaded on first use, so that ``fsengine.compare.settings`` stays light for the command line.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "CompareSettings": "settings",
    "RANDOM": "engine",
    "ComparisonCancelled": "engine",
    "ComparisonResult": "engine",
    "HeldOut": "engine",
    "MethodRun": "engine",
    "run_comparison": "engine",
    "comparison_figures": "report",
    "html_report": "report",
    "tables_zip": "report",
    "write_tables": "report",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'fsengine.compare' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
