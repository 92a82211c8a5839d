"""How numbers are written in reports, pages and figure captions: one module for every report.

Every estimate is printed with its interval, and the digits are chosen so that the text never says
less than the numbers (an interval that excludes 0 never reads ``[0.000, 0.005]``, a level of
99.96% never reads ``100%``):

:func:`percent`         an interval's level with the digits it needs (``95%``, ``99.71%``, ``99.957%``).
:func:`interval_digits` decimals for an estimate and its interval, more where a bound would print as 0.
:func:`number`          a value with fixed decimals, in e-notation where they would print a nonzero value as 0.
:func:`estimate`        ``value [low, high]`` (optionally signed) with :func:`interval_digits`.
:func:`points`          a proportion's estimate as percentage points: ``95.80 [95.49, 96.10] %``.
:func:`markdown_table`  a DataFrame as a markdown table, floats to fixed decimals.
"""

from __future__ import annotations

import math

import pandas as pd


def percent(level: float) -> str:
    """An interval's level as a percentage with the digits it needs: exact when a few decimals hold
    it (``0.95`` -> ``95%``, ``0.975`` -> ``97.5%``, ``0.9375`` -> ``93.75%``), else with its
    complement ``1 - level`` to two significant digits, so that a Bonferroni or Holm level never
    prints as ``100%``.

    >>> percent(0.95), percent(0.9375), percent(1 - 0.05 / 17), percent(1 - 0.05 / 117), percent(0.5)
    ('95%', '93.75%', '99.71%', '99.957%', '50%')
    """
    x = 100.0 * float(level)
    for digits in range(7):
        text = f"{x:.{digits}f}"
        if abs(float(text) - x) <= 1e-12 * max(1.0, abs(x)):
            return f"{text}%"
    alpha = 100.0 - x
    digits = 1 if alpha <= 0 else min(6, max(0, 1 - math.floor(math.log10(alpha))))
    return f"{x:.{digits}f}%"


def interval_digits(*bounds: float, digits: int = 3, most: int = 6) -> int:
    """Decimals for an estimate and its interval: ``digits``, or more (up to ``most``) until no
    nonzero bound prints as zero, so an interval that excludes 0 never reads ``[+0.000, +0.005]``.

    >>> interval_digits(0.0003, 0.0046), interval_digits(0.012, 0.03), interval_digits(0.0, 0.02)
    (4, 3, 3)
    """
    while digits < most and any(b != 0 and math.isfinite(b) and round(b, digits) == 0 for b in bounds):
        digits += 1
    return digits


def number(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` decimals, or in e-notation when that would print a nonzero value as 0
    (an interval that excludes 0 must not look as if it touched it).

    >>> number(0.12345), number(2.8e-05)
    ('0.1235', '2.8e-05')
    """
    text = f"{x:.{digits}f}"
    return f"{x:.1e}" if x != 0 and float(text) == 0 else text


def estimate(value: float, low: float, high: float, digits: int = 3, *, signed: bool = False,
             widen: bool = True) -> str:
    """``value [low, high]`` with ``digits`` decimals, more where a bound needs them
    (:func:`interval_digits`, also over the value when ``widen``); ``signed`` prints the signs of a
    difference; ``-`` for a missing value, the value alone for a missing interval.

    >>> estimate(0.0024, 0.0001, 0.0047, signed=True), estimate(0.931, 0.916, 0.947)
    ('+0.0024 [+0.0001, +0.0047]', '0.931 [0.916, 0.947]')
    """
    if not math.isfinite(value):
        return "-"
    sign = "+" if signed else ""
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{value:{sign}.{digits}f}"
    if widen:
        digits = interval_digits(low, high, digits=digits)
    return f"{value:{sign}.{digits}f} [{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"


def points(value: float, low: float | None = None, high: float | None = None, digits: int = 2, *,
           unit: str = " %") -> str:
    """A proportion as percentage points with its interval: ``95.80 [95.49, 96.10] %`` (the value
    alone, ``96.81 %``, without one; ``unit=""`` where a label says it).

    >>> points(0.958, 0.9549, 0.961), points(0.9681), points(0.958, 0.9549, 0.961, 1, unit="")
    ('95.80 [95.49, 96.10] %', '96.81 %', '95.8 [95.5, 96.1]')
    """
    if low is None or high is None:
        return f"{100 * value:.{digits}f}{unit}"
    return f"{100 * value:.{digits}f} [{100 * low:.{digits}f}, {100 * high:.{digits}f}]{unit}"


def markdown_table(df: pd.DataFrame, digits: int = 4) -> str:
    """A markdown table of ``df`` with its index as the first column (a MultiIndex joined by
    `` / ``), floats to ``digits`` decimals.

    >>> print(markdown_table(pd.DataFrame({"AUC": [0.88881]}, index=["EP"])))
    |  | AUC |
    |---|---|
    | EP | 0.8888 |
    """
    def cell(v):
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        return str(v)

    index_name = " / ".join(str(n) for n in df.index.names if n is not None)
    head = [index_name] + [str(c) for c in df.columns]
    rows = [[cell(i) if not isinstance(i, tuple) else " / ".join(map(str, i))] + [cell(v) for v in row]
            for i, row in zip(df.index, df.itertuples(index=False))]
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in rows])
