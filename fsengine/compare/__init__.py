"""The side-by-side comparison of feature-selection methods.

============  ======================================================================================
``settings``  what a comparison is asked to do (:class:`CompareSettings`), importable without the
              runner
``runner``    :func:`run_comparison`: the fits (training part, bootstrap resamples, repeated splits)
              and the held-out outcomes, as tasks through :mod:`fsengine.parallel`
``analyses``  :class:`ComparisonResult`: held-out accuracy with intervals, paired differences, overlap,
              stability (Kuncheva, Nogueira), ROC, runtimes and the tables
``report``    its figures, CSV tables and the self-contained HTML report
============  ======================================================================================

The public names are importable from here (``from fsengine.compare import run_comparison``); they
are loaded on first use, so that ``fsengine.compare.settings`` stays light for the command line.
Your own method joins a comparison (and the Compare page, ``fsengine select|compare``) through
:func:`register_method`: a :class:`MethodSpec` with its :class:`Param` objects and :class:`Needs`.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "CompareSettings": "fsengine.compare.settings",
    "RANDOM": "fsengine.compare.analyses",
    "ComparisonCancelled": "fsengine.compare.runner",
    "ComparisonResult": "fsengine.compare.analyses",
    "HeldOut": "fsengine.compare.analyses",
    "MethodRun": "fsengine.compare.analyses",
    "run_comparison": "fsengine.compare.runner",
    "comparison_figures": "fsengine.compare.report",
    "html_report": "fsengine.compare.report",
    "tables_zip": "fsengine.compare.report",
    "write_tables": "fsengine.compare.report",
    # your own method in a comparison: the registry's types
    "MethodSpec": "fsengine.methods.registry",
    "Needs": "fsengine.methods.registry",
    "register_method": "fsengine.methods.registry",
    "Param": "fsengine.params",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'fsengine.compare' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name]), name)
