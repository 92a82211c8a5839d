"""Repeated wall-clock timing shared by the ``bench_*.py`` scripts (importable because Python puts
a script's own folder on ``sys.path``)."""

from __future__ import annotations

import statistics
import time


def timed(fn, repeats: int = 3, *, stat: str = "median"):
    """Call ``fn()`` ``repeats`` times; return (the median or the min of the wall seconds, the last
    result). The minimum ("best of") is the better estimate on a shared machine; the median
    shows the typical run."""
    if stat not in ("median", "min"):
        raise ValueError(f"stat must be 'median' or 'min', not {stat!r}")
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return (statistics.median(times) if stat == "median" else min(times)), out
