"""Machine-readable results of a reproduction: ``docs/results/TARGET/results.json``.

One schema for every target, written by the same command as its report::

    {"target": "sgc-vs-ifs", "command": "python -m fsengine reproduce sgc-vs-ifs", "quick": false,
     "inputs": {...},                       # data (public source, relative layout) and settings
     "rows": [{"quantity": str, "paper": number | null, "ours": number, "verdict": str}, ...]}

Every verdict is computed from the number it judges by a stated rule (:func:`judge`), never typed:
``"<outcome>: <rule>"`` with the outcome one of :data:`OUTCOMES`. The rule text does not depend on
the run's size, so a quick run and the full run can be compared row by row
(``tests/reproduce/test_results_schema.py``).
"""

from __future__ import annotations

import json
import math
import operator
import re
from dataclasses import asdict, dataclass
from pathlib import Path

FILENAME = "results.json"
#: the outcome words a verdict starts with
OUTCOMES = ("holds", "fails", "recorded")
ROW_KEYS = ("quantity", "paper", "ours", "verdict")


@dataclass(frozen=True)
class Row:
    """One headline number: what it is, the paper's value (None when the paper prints none), ours
    and the computed verdict."""

    quantity: str
    paper: float | None
    ours: float
    verdict: str


def judge(holds: bool, rule: str) -> str:
    """``"holds: RULE"`` or ``"fails: RULE"`` (``holds`` must be computed from the numbers)."""
    return f"{'holds' if holds else 'fails'}: {rule}"


def at_least(quantity: str, ours: float, threshold: float, paper: float | None = None,
             rule: str | None = None) -> Row:
    """A row whose verdict is ``ours >= threshold`` (rule stated with the threshold)."""
    return Row(quantity, paper, float(ours), judge(ours >= threshold, rule or f"ours >= {threshold:g}"))


def within(quantity: str, ours: float, paper: float, tol: float, rule: str | None = None) -> Row:
    """A row whose verdict is ``|ours - paper| <= tol``."""
    return Row(quantity, paper, float(ours),
               judge(abs(ours - paper) <= tol, rule or f"|ours - paper| <= {tol:g}"))


def recorded(quantity: str, ours: float, paper: float | None = None, note: str = "no rule") -> Row:
    """A measured number without a pass/fail rule (the report explains it)."""
    return Row(quantity, paper, float(ours), f"recorded: {note}")


def outcome(verdict: str) -> str:
    """The outcome word of a verdict (``holds``, ``fails`` or ``recorded``)."""
    return verdict.split(":", 1)[0]


def rule(verdict: str) -> str:
    """The rule text of a verdict."""
    return verdict.split(":", 1)[1].strip()


def public(text: str) -> str:
    """``text`` with the machine's data folder (``FSENGINE_DATA``) written as ``$FSENGINE_DATA``:
    reports name data by public source and relative layout, never by this machine's paths."""
    from fsengine.config import data_root

    root = data_root()
    return text.replace(str(root.resolve()), "$FSENGINE_DATA").replace(str(root), "$FSENGINE_DATA") if root else text


def write(out_dir: Path, target: str, quick: bool, inputs: dict, rows: list[Row]) -> Path:
    """Validate and write ``results.json``; returns its path."""
    data = {"target": target,
            "command": f"python -m fsengine reproduce {target}" + (" --quick" if quick else ""),
            "quick": bool(quick), "inputs": inputs, "rows": [asdict(r) for r in rows]}
    validate(data)
    path = Path(out_dir) / FILENAME
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


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


_COMPARISONS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
_THRESHOLD_RULE = re.compile(r"^ours (>=|>|<=|<) (-?[\d.]+(?:e-?\d+)?)")


def shown(value: float, verdict: str = "", precision: int = 4, style: str = "g") -> str:
    """``value`` formatted with ``precision`` (``style`` ``g``: significant digits, ``f``: decimals),
    with more digits where fewer would contradict the verdict's threshold rule (92.998 under
    ``ours >= 93.0`` is shown as 92.998, never as 93 or 93.00)."""
    match = _THRESHOLD_RULE.match(rule(verdict)) if outcome(verdict) in ("holds", "fails") else None
    text = f"{value:,.{precision}{style}}"
    if match is None:
        return text
    compare, threshold = _COMPARISONS[match.group(1)], float(match.group(2))
    for extra in range(1, 12):
        if compare(float(text.replace(",", "")), threshold) == compare(value, threshold):
            break
        text = f"{value:,.{precision + extra}{style}}"
    return text


def markdown(rows: list[Row]) -> list[str]:
    """The rows as a markdown table (the report's headline section); ``ours`` never rounded across
    its rule's threshold (:func:`shown`)."""
    def num(v, verdict=""):
        return "-" if v is None else shown(v, verdict) if abs(v) < 1e4 else f"{v:,.0f}"

    def cell(text):
        return text.replace("|", "\\|")

    return ["| quantity | paper | ours | verdict (computed) |", "|---|---|---|---|",
            *[f"| {cell(r.quantity)} | {num(r.paper)} | {num(r.ours, r.verdict)} | {cell(r.verdict)} |" for r in rows]]
