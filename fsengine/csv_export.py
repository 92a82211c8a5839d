"""CSV files that are safe to open in a spreadsheet (OWASP "CSV injection"), and read back exactly.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a formula
by Excel, LibreOffice and Google Sheets, so a feature named ``=cmd|' /C calc'!A0`` could execute
code on the reader's machine. Every CSV the product writes goes through :func:`to_csv`, which
prefixes such text cells (and column names) with a single quote, as OWASP recommends; numbers
such as ``-1.5`` are left alone. :func:`unescape_cell` undoes it exactly: a text that already
starts with quotes followed by a dangerous character gets one more quote, so the round trip
``unescape_cell(escape_cell(v)) == v`` holds for every string.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

#: pandas < 3.1 parses floats with its "high" parser by default, which can be one unit in the last
#: place off; "round_trip" reads every number back exactly as written (3.1 does so by default and
#: deprecates the option)
EXACT_FLOATS = ({} if tuple(int(part) for part in pd.__version__.split(".")[:2]) >= (3, 1)
                else {"float_precision": "round_trip"})

#: first characters that make a spreadsheet cell a formula
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _needs_quote(text: str) -> bool:
    body = text.lstrip("'")
    return bool(body) and body[0] in DANGEROUS and not (body[0] in "+-" and _is_number(body))


def escape_cell(value):
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and _needs_quote(value):
        return "'" + value
    return value


def unescape_cell(value):
    """Inverse of :func:`escape_cell` (for reading an exported file back)."""
    if isinstance(value, str) and value.startswith("'") and _needs_quote(value[1:]):
        return value[1:]
    return value


def escape_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with text cells, column names and index labels escaped."""
    out = df.copy()
    for j in range(out.shape[1]):
        if _may_hold_text(out.iloc[:, j]):
            out.isetitem(j, out.iloc[:, j].map(escape_cell))
    for axis in ("columns", "index"):
        labels = getattr(out, axis)
        if not isinstance(labels, pd.MultiIndex) and _may_hold_text(labels):
            setattr(out, axis, labels.map(escape_cell))
    return out


def _may_hold_text(values) -> bool:
    return values.dtype == object or pd.api.types.is_string_dtype(values.dtype)


def to_csv(df: pd.DataFrame, path: Path | None = None, **options) -> str | None:
    """``df.to_csv(path, **options)`` with every formula-like text cell escaped; returns the text
    when ``path`` is None."""
    return escape_frame(df).to_csv(path, **options)


def csv_bytes(df: pd.DataFrame, **options) -> bytes:
    """The escaped CSV as UTF-8 bytes (for download buttons and zip members)."""
    return to_csv(df, **options).encode("utf-8")


def read_csv(path, **kwargs) -> pd.DataFrame:
    """``pd.read_csv(path, **kwargs)`` with every float read back exactly as :func:`to_csv` wrote it,
    on every supported pandas (:data:`EXACT_FLOATS`): a record re-rendered from its raw files
    recomputes its intervals from the very numbers the run wrote."""
    return pd.read_csv(path, **EXACT_FLOATS, **kwargs)
