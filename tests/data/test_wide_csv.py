"""The linear-time reader of wide tables gives exactly what pandas' own reader gives."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsengine.csv_export import EXACT_FLOATS
from fsengine.data.upload import load_upload
from fsengine.data.wide_csv import read_wide

_cells = st.one_of(st.integers(-10**20, 10**20).map(str), st.floats(allow_nan=False, width=64).map(repr),
                   st.sampled_from(["", "NA", "nan", "inf", "-inf", "True", "False", "1.0", "1e3", " 7", "007",
                                    "x", "1,5", '"q"', "+3", "-0"]),
                   st.text(alphabet="ab1.-e ", max_size=4))


@st.composite
def _tables(draw):
    n_cols = draw(st.integers(1, 6))
    rows = draw(st.lists(st.lists(_cells, min_size=n_cols, max_size=n_cols), min_size=1, max_size=6))
    sep = draw(st.sampled_from([",", ";", "\t"]))
    header = sep.join(f"c{j}" for j in range(n_cols))
    quote = lambda cell: f'"{cell}"' if sep in cell else cell
    return header + "\n" + "\n".join(sep.join(map(quote, row)) for row in rows) + "\n", sep


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(), st.sampled_from([".", ","]))
def test_equals_pandas_on_random_tables(table, decimal):
    text, sep = table
    if decimal == sep:
        return
    fast = read_wide(text, sep, decimal, min_columns=1)
    if fast is None:
        return
    pd.testing.assert_frame_equal(fast, pd.read_csv(io.StringIO(text), sep=sep, decimal=decimal,
                                                       **EXACT_FLOATS))


def test_a_wide_upload_equals_the_narrow_reading():
    rng = np.random.default_rng(0)
    X = np.ones((12, 3000))
    X[:, :40] = rng.normal(size=(12, 40)).round(3)
    X[:, 40:60] = rng.integers(0, 5, size=(12, 20))
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(3000)]).assign(label=["a", "b"] * 6, note="x")
    ds = load_upload(df.to_csv(index=False).encode(), "wide.csv", "label")
    assert ds.n_features == 60 and len(ds.extras["excluded_columns"]) == 2941
    np.testing.assert_array_equal(ds.X, X[:, :60])
    assert ds.extras["excluded_columns"]["note"].startswith("non-numeric")
