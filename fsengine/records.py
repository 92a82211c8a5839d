"""The record of a run: the schema of ``results.json``, reading it and validating it.

A reproduction writes one per target (:mod:`fsengine.reproduce.results` builds its rows and its
verdicts); pages and reports read the committed records (e.g. the RTM page's recorded
cross-validation table). This module sits below both, so a page reads a record without importing
the reproductions. The schema::

    {"target": "sgc-vs-ifs", "command": "python -m fsengine reproduce sgc-vs-ifs", "quick": false,
     "inputs": {...},
     "rows": [{"quantity": str, "paper": number | null, "ours": number,
               "interval": [low, high] | null, "level": number | null, "method": str | null,
               "verdict": str}, ...]}

A verdict reads ``"<outcome>: <rule>"`` with the outcome one of :data:`OUTCOMES`; rows judged
from an interval (:data:`INTERVAL_OUTCOMES`) carry it, with its level and method.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

FILENAME = "results.json"
#: the outcome words a verdict starts with
OUTCOMES = ("consistent", "above", "below", "resolved", "not resolved", "holds", "fails", "recorded")
#: outcomes judged from an interval (their rows must carry one)
INTERVAL_OUTCOMES = ("consistent", "above", "below", "resolved", "not resolved")
ROW_KEYS = ("quantity", "paper", "ours", "interval", "level", "method", "verdict")


def outcome(verdict: str) -> str:
    """The outcome word of a verdict (``holds``, ``fails`` or ``recorded``).

    >>> outcome("consistent: the paper's value 92.9993 against our 95% interval")
    'consistent'
    """
    return verdict.split(":", 1)[0]


def read(path: Path) -> dict:
    """Load and validate a ``results.json``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    validate(data)
    return data


def validate(data: dict) -> None:
    """Raise ValueError naming the first row or key that breaks the schema."""
    missing = {"target", "command", "quick", "inputs", "rows"} - set(data)
    if missing:
        raise ValueError(f"results.json lacks {sorted(missing)}")
    seen = set()
    for i, row in enumerate(data["rows"]):
        if tuple(row) != ROW_KEYS:
            raise ValueError(f"row {i}: keys {list(row)}, expected {list(ROW_KEYS)}")
        if row["quantity"] in seen:
            raise ValueError(f"row {i}: quantity {row['quantity']!r} appears twice")
        seen.add(row["quantity"])
        ours, paper = row["ours"], row["paper"]
        if not isinstance(ours, int | float) or isinstance(ours, bool) or not math.isfinite(ours):
            raise ValueError(f"row {i} ({row['quantity']}): ours must be a finite number, got {ours!r}")
        if paper is not None and not isinstance(paper, int | float):
            raise ValueError(f"row {i} ({row['quantity']}): paper must be a number or null, got {paper!r}")
        if outcome(row["verdict"]) not in OUTCOMES or ":" not in row["verdict"]:
            raise ValueError(f"row {i} ({row['quantity']}): verdict {row['verdict']!r} must read "
                             f"'<{'|'.join(OUTCOMES)}>: <rule>'")
        interval, level, method = row["interval"], row["level"], row["method"]
        if interval is None:
            if level is not None or method is not None:
                raise ValueError(f"row {i} ({row['quantity']}): level and method go with an interval")
            if outcome(row["verdict"]) in INTERVAL_OUTCOMES:
                raise ValueError(f"row {i} ({row['quantity']}): a '{outcome(row['verdict'])}' verdict is judged "
                                 "from an interval; the row has none")
        else:
            if (not isinstance(interval, list) or len(interval) != 2
                    or not all(isinstance(v, int | float) and math.isfinite(v) for v in interval)
                    or interval[0] > interval[1]):
                raise ValueError(f"row {i} ({row['quantity']}): interval must be [low, high] with low <= high, "
                                 f"got {interval!r}")
            if not isinstance(level, int | float) or not 0 < level < 1:
                raise ValueError(f"row {i} ({row['quantity']}): level must lie in (0, 1), got {level!r}")
            if not isinstance(method, str) or not method.strip():
                raise ValueError(f"row {i} ({row['quantity']}): an interval names its method")
