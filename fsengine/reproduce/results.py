"""Machine-readable results of a reproduction: ``docs/results/TARGET/results.json``.

One schema for every target (:mod:`fsengine.records`: the schema, reading and validation),
written by the same command as its report::

    {"target": "sgc-vs-ifs", "command": "python -m fsengine reproduce sgc-vs-ifs", "quick": false,
     "inputs": {...},                       # data (public source, relative layout) and settings
     "rows": [{"quantity": str, "paper": number | null, "ours": number,
               "interval": [low, high] | null, "level": number | null, "method": str | null,
               "verdict": str}, ...]}

A row that reports an estimate (an F1, an accuracy, an AUC, a log-loss, a difference between two
methods, a time ratio) carries its interval, the interval's level and the method behind it
(:class:`fsengine.stats.Estimate`); exact quantities (counts, settings, exact checks) carry null.

Every verdict is computed by a stated rule, never typed: ``"<outcome>: <rule>"`` with the outcome
one of :data:`OUTCOMES`:

* ``consistent`` / ``above`` / ``below``: a paper's value or a target against our interval
  (:func:`versus`): inside it, or our whole interval above / below it;
* ``resolved`` / ``not resolved``: an ordering or a comparison from the interval of a paired
  difference (:func:`ordering`): the interval excludes 0 (the rule names the sign), or not;
* ``holds`` / ``fails``: an exact check against a tolerance derived from the mathematics
  (:func:`exact`), e.g. an expansion's stated order;
* ``recorded``: a measured number without a rule (the report explains it).

The rule text does not depend on the run's size, so a quick run and the full run can be compared
row by row (``tests/reproduce/test_results_schema.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from fsengine.formatting import percent
from fsengine.jsonio import json_text

# the file's schema, reading and validation sit below the reproductions (pages read records too);
# the reproductions use them from here
from fsengine.records import FILENAME, INTERVAL_OUTCOMES, OUTCOMES, ROW_KEYS, outcome, read, validate  # noqa: F401
from fsengine.stats import Estimate, ordering_verdict, versus_value


@dataclass(frozen=True)
class Row:
    """One headline number: what it is, the paper's value (None when the paper prints none), ours
    with its interval, level and method (None for exact quantities) and the computed verdict."""

    quantity: str
    paper: float | None
    ours: float
    verdict: str
    interval: list[float] | None = None
    level: float | None = None
    method: str | None = None

    def as_json(self) -> dict:
        """The row with its keys in the file's order (:data:`ROW_KEYS`)."""
        values = asdict(self)
        return {key: values[key] for key in ROW_KEYS}

    @property
    def estimate(self) -> Estimate | None:
        """The row's :class:`~fsengine.stats.Estimate` (None for an exact quantity)."""
        if self.interval is None:
            return None
        return Estimate(self.ours, self.interval[0], self.interval[1], self.level, self.method)


def _row(quantity: str, paper: float | None, value: float | Estimate, verdict: str) -> Row:
    if isinstance(value, Estimate):
        return Row(quantity, paper, float(value.value), verdict, [float(value.low), float(value.high)],
                   float(value.level), value.method)
    return Row(quantity, paper, float(value), verdict)


def versus(quantity: str, estimate: Estimate, value: float, *, paper: float | None = None,
           what: str = "the paper's value") -> Row:
    """A row judging ``value`` (the paper's number or a target) against our interval: the verdict
    is ``consistent`` (inside), ``above`` or ``below`` (our whole interval above / below it); the
    rule names the value and the interval's level. ``paper`` defaults to ``value``.

    >>> versus("F1", Estimate(93.01, 92.68, 93.33, 0.95, "bootstrap"), 92.9993).verdict
    "consistent: the paper's value 92.9993 against our 95% interval"
    """
    verdict = versus_value(estimate, value)
    rule_text = f"{what} {value:g} against our {percent(estimate.level)} interval"
    return _row(quantity, value if paper is None else paper, estimate, f"{verdict}: {rule_text}")


def ordering(quantity: str, difference: Estimate, first: str, second: str, *, paper: float | None = None) -> Row:
    """A row judging the ordering ``first > second`` from the interval of the paired difference
    (first - second): ``resolved`` when it excludes 0 (the rule says which way), ``not resolved``
    otherwise."""
    words = ordering_verdict(difference, first, second)
    level = f"{percent(difference.level)} interval of the paired difference"
    if words.startswith("resolved"):
        verdict = f"resolved: {words.split(': ', 1)[1]} ({level} excludes 0)"
    else:
        verdict = f"not resolved: {first} vs {second} ({level} holds 0)"
    return _row(quantity, paper, difference, verdict)


def exact(quantity: str, ours: float, tolerance: float, derivation: str, *, paper: float | None = None,
          reference: float = 0.0) -> Row:
    """An exact check: ``|ours - reference| <= tolerance``, the tolerance derived from the
    mathematics (``derivation`` says how, e.g. "O(eps^2) of the expansion at Lambda*")."""
    holds = abs(ours - reference) <= tolerance
    return _row(quantity, paper, ours, f"{'holds' if holds else 'fails'}: |ours - {reference:g}| <= {tolerance:.3g} "
                                       f"({derivation})")


def judge(holds: bool, rule: str) -> str:
    """``"holds: RULE"`` or ``"fails: RULE"`` (``holds`` must be computed from the numbers)."""
    return f"{'holds' if holds else 'fails'}: {rule}"


def recorded(quantity: str, ours: float | Estimate, paper: float | None = None, note: str = "no rule") -> Row:
    """A measured number (with its interval when it is an Estimate) without a rule; the report
    explains it."""
    return _row(quantity, paper, ours, f"recorded: {note}")


def rule(verdict: str) -> str:
    """The rule text of a verdict."""
    return verdict.split(":", 1)[1].strip()


def rule_of_judgement(verdict: str) -> str:
    """The rule a verdict applies, without what it found: for an ordering, the rule is the paired
    difference's interval against 0, whichever way it came out (``resolved: A > B (95% interval
    ... excludes 0)`` and ``not resolved: A vs B (95% interval ... holds 0)`` apply the same rule),
    so a quick run and a full run can be held to the same rules although their findings differ.

    >>> rule_of_judgement("resolved: EM > EP (95% interval of the paired difference excludes 0)")
    '95% interval of the paired difference against 0'
    """
    if outcome(verdict) in ("resolved", "not resolved") and "(" in verdict:
        inner = verdict[verdict.rindex("(") + 1:].rstrip(")")
        return inner.replace(" excludes 0", " against 0").replace(" holds 0", " against 0")
    return rule(verdict)


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
            "quick": bool(quick), "inputs": inputs, "rows": [r.as_json() for r in rows]}
    validate(data)
    path = Path(out_dir) / FILENAME
    path.write_text(json_text(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


_NUMBER = r"(-?[\d.]+(?:e[-+]?\d+)?)"
#: the rule of :func:`exact`: ``|ours - REFERENCE| <= TOLERANCE``
_EXACT_RULE = re.compile(rf"^\|ours - {_NUMBER}\| <= {_NUMBER}")


def shown(value: float, verdict: str = "", precision: int = 4, style: str = "g") -> str:
    """``value`` formatted with ``precision`` (``style`` ``g``: significant digits, ``f``: decimals),
    with more digits where fewer would contradict an exact check's verdict: 1.70004e-4 under
    ``|ours - 0| <= 0.00017`` (fails) is shown as 0.000170004, never as 0.00017."""
    match = _EXACT_RULE.match(rule(verdict)) if outcome(verdict) in ("holds", "fails") else None
    text = f"{value:,.{precision}{style}}"
    if match is None:
        return text
    reference, tolerance = float(match.group(1)), float(match.group(2))
    holds = outcome(verdict) == "holds"
    for extra in range(1, 12):
        if (abs(float(text.replace(",", "")) - reference) <= tolerance) == holds:
            break
        text = f"{value:,.{precision + extra}{style}}"
    return text


def with_interval(row: Row, precision: int = 4) -> str:
    """``ours [low, high]`` with the same number of significant digits for all three (``ours``
    alone for an exact quantity), never rounded across its rule's threshold."""
    if abs(row.ours) >= 1e4 and row.interval is None:
        return f"{row.ours:,.0f}"
    text = shown(row.ours, row.verdict, precision)
    if row.interval is None:
        return text
    low, high = (f"{v:,.{precision}g}" for v in row.interval)
    return f"{text} [{low}, {high}]"


def markdown(rows: list[Row]) -> list[str]:
    """The rows as a markdown table (the report's headline section): ``ours`` with its interval
    (never rounded across its rule's threshold, :func:`shown`), the interval's level and method,
    and the verdict."""
    def cell(text):
        return text.replace("|", "\\|")

    def paper(v):
        return "-" if v is None else f"{v:,.6g}"

    def how(r):
        return "exact" if r.interval is None else f"{percent(r.level)}: {r.method}"

    return ["| quantity | paper | ours [interval] | interval | verdict (computed) |", "|---|---|---|---|---|",
            *[f"| {cell(r.quantity)} | {paper(r.paper)} | {with_interval(r)} | {cell(how(r))} | {cell(r.verdict)} |"
              for r in rows]]


def write_figure(fig, path: Path) -> None:
    """A record's figure as a standalone HTML page (plotly.js from the CDN) whose plot has a fixed
    id, the file's stem (plotly draws a random one): a run that gives the same numbers writes the
    same bytes, so a record's diff shows only what changed."""
    fig.write_html(path, include_plotlyjs="cdn", full_html=True, div_id=Path(path).stem)


#: what a run measured that is not a table (durations, sizes, notes): beside ``results.json``, read
#: by the reproductions that render their record from its raw files
RUN_FILE = "run.json"


def write_run_facts(out_dir: Path, facts: dict) -> None:
    """Write ``run.json`` (:data:`RUN_FILE`): the run's facts a record is rendered from."""
    (Path(out_dir) / RUN_FILE).write_text(json_text(facts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def read_run_facts(out_dir: Path) -> dict:
    """The facts :func:`write_run_facts` wrote."""
    return json.loads((Path(out_dir) / RUN_FILE).read_text(encoding="utf-8"))
