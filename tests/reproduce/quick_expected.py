"""The committed quick results of a reproduce target (``tests/reproduce/expected/<target>.json``)
against a fresh quick run, row by row.

The quick runs compared here are deterministic (fixed seeds, fixed folds, no timings in their
rows), so ``ours`` and both ends of every interval must agree to a relative 1e-9 (absolute 1e-12
near 0), and the quantity, paper value, level, method and verdict exactly. To refresh a file
after a deliberate change: run the target with ``--quick`` and copy its ``results.json`` here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from fsengine.reproduce import results

EXPECTED = Path(__file__).parent / "expected"
REL, ABS = 1e-9, 1e-12


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def assert_matches_expected(target: str, results_path: Path) -> None:
    """Every row of the fresh quick ``results.json`` equals the committed one (numbers to rel 1e-9)."""
    fresh = results.read(results_path)
    expected = json.loads((EXPECTED / f"{target}.json").read_text(encoding="utf-8"))
    assert fresh["quick"] and expected["quick"] and fresh["inputs"] == expected["inputs"]
    assert [r["quantity"] for r in fresh["rows"]] == [r["quantity"] for r in expected["rows"]]
    for got, want in zip(fresh["rows"], expected["rows"]):
        q = want["quantity"]
        assert _close(got["ours"], want["ours"]), (q, got["ours"], want["ours"])
        assert (got["interval"] is None) == (want["interval"] is None), q
        if want["interval"] is not None:
            assert all(_close(g, w) for g, w in zip(got["interval"], want["interval"])), (q, got["interval"])
        for key in ("paper", "level", "method", "verdict"):
            assert got[key] == want[key], (q, key, got[key], want[key])


def assert_rerender_gives_back(folder: Path, tmp_path: Path, rerender, rendered: tuple[str, ...]) -> None:
    """``rerender`` of a copy of ``folder`` without its ``rendered`` files writes them back byte for
    byte (every other file is left as it was): the record is what its raw files make of it."""
    import shutil

    copy = tmp_path / "record"
    shutil.copytree(folder, copy)
    for name in rendered:
        (copy / name).unlink()
    rerender(copy)
    for path in sorted(Path(folder).iterdir()):
        assert (copy / path.name).read_bytes() == path.read_bytes(), path.name


def holm_by_definition(pvalues, alpha: float = 0.05) -> list[tuple[float, bool]]:
    """Holm (1979) by its definition, as an independent reference for the records' families: per
    hypothesis (the level it is tested at, whether it is rejected). Sorted ascending, the j-th (from 0)
    is tested at alpha / (m - j) while every smaller one was rejected; from the first that is not, every
    later one is tested at that step's level and is not rejected."""
    import numpy as np

    m = len(pvalues)
    out, stop = [None] * m, None
    for j, i in enumerate(np.argsort(pvalues, kind="stable")):
        step = alpha / (m - j) if stop is None else stop
        rejected = stop is None and pvalues[i] <= step
        if stop is None and not rejected:
            stop = step
        out[i] = (1 - step, rejected)
    return out
