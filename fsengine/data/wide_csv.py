"""Wide CSV text (thousands of columns, few rows) read in linear time.

pandas' C reader builds one array and one block per column and then consolidates them, which
makes a 100k-column table of ten rows take tens of seconds. Here the cells are split once by the
``csv`` module, every column is converted to numbers in one vectorised ``pd.to_numeric`` call,
and the columns that convert completely become two blocks (int64 for integer literals, float64
otherwise). Columns with anything else (text, empty cells, ``NA``, booleans) are handed to
``pd.read_csv`` itself (``usecols``), so they get pandas' own parsing. The result equals
``pd.read_csv(text, sep=sep, decimal=decimal)`` (a test compares them on random tables); ``None``
means "not a plain wide table, use pandas" (ragged rows, unnamed columns, no data rows).
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from fsengine.csv_export import EXACT_FLOATS

#: tables with fewer columns than this go to pandas directly (it is fast there)
WIDE_COLUMNS = 1000
#: integers beyond this are not all exact as float64; columns holding such magnitudes go to pandas
_EXACT_INT = 2**53
#: a character that cannot occur in cells pandas reads as int64 (digits, signs, spaces)
_NOT_AN_INTEGER_LITERAL = re.compile(r"[^0-9+\- ]")


def read_wide(text: str, sep: str, decimal: str = ".", *, min_columns: int = WIDE_COLUMNS) -> pd.DataFrame | None:
    """``text`` parsed like ``pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal)``, or None."""
    # pandas skips blank lines, also one holding only spaces
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=sep, quotechar='"')
            if row and not (len(row) == 1 and not row[0].strip())]
    if len(rows) < 2 or len(rows[0]) < min_columns:
        return None
    header, body = rows[0], rows[1:]
    p, n = len(header), len(body)
    if any(len(row) != p for row in body) or "" in header:
        return None
    flat = pd.Series(np.array(body, dtype=object).ravel(order="F"), dtype=object)  # column after column
    if decimal != ".":  # with a decimal comma "1.5" is text to pandas: the NUL makes it fail here too
        flat = flat.str.replace(".", "\0", regex=False).str.replace(decimal, ".", regex=False)
    values = pd.to_numeric(flat, errors="coerce").to_numpy(dtype=np.float64).reshape(p, n).T
    plain = ~np.isnan(values).any(axis=0)
    with np.errstate(invalid="ignore"):  # inf
        integer = plain & (np.mod(values, 1) == 0).all(axis=0)
    columns = list(zip(*body))
    for j in np.flatnonzero(integer):  # integral values written as 1.0 or 1e3 stay float64, as in pandas
        integer[j] = _NOT_AN_INTEGER_LITERAL.search("".join(columns[j])) is None
    exact = (np.abs(values) < _EXACT_INT).all(axis=0)
    # integer literals beyond 2**53: pandas keeps them exact as int64, or reads the column as text
    # beyond 2**64 (even next to 0.0): every column holding such magnitudes goes to pandas
    plain &= exact
    integer &= plain
    floats = plain & ~integer
    names = np.array(header, dtype=object)
    parts = [pd.DataFrame(values[:, floats], columns=pd.Index(names[floats], dtype=object)),
             pd.DataFrame(values[:, integer].astype(np.int64), columns=pd.Index(names[integer], dtype=object))]
    other = np.flatnonzero(~plain)
    if other.size:
        parts.append(pd.read_csv(io.StringIO(text), sep=sep, quotechar='"', decimal=decimal, usecols=other.tolist(),
                                 **EXACT_FLOATS))
    order = np.concatenate([np.flatnonzero(floats), np.flatnonzero(integer), other])
    df = pd.concat(parts, axis=1)
    df = df.iloc[:, np.argsort(order, kind="stable")]
    df.columns = pd.Index(header)
    return df
