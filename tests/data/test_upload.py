"""Upload validation: one specific error per problem, nothing dropped silently (property-based
tests with hypothesis for the CSV path)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsengine.data.upload import UploadError, dataset_from_table, load_upload, read_table


def _csv(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False).encode()


def _table(n=20, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "height": rng.normal(170, 10, n).round(2),
        "weight": rng.normal(70, 5, n).round(2),
        "city": rng.choice(["Oslo", "Lima"], n),
        "ones": np.ones(n),
        "label": np.tile(["cat", "dog"], n // 2),
    })


def test_mixed_table_keeps_numeric_and_says_what_was_excluded():
    ds = load_upload(_csv(_table()), "pets.csv", "label")
    assert ds.feature_names == ("height", "weight")
    assert ds.target_names == ("cat", "dog") and ds.task == "classification"
    assert ds.extras["excluded_columns"] == {
        "city": "non-numeric (e.g. 'Oslo' in data row 1)" if _table()["city"][0] == "Oslo"
        else "non-numeric (e.g. 'Lima' in data row 1)",
        "ones": "constant (every value is 1)"}
    notes = "\n".join(ds.provenance.notes)
    assert "excluded column 'city': non-numeric" in notes and "excluded column 'ones': constant" in notes
    np.testing.assert_array_equal(ds.X[:, 0], _table()["height"].to_numpy())


def test_parquet_round_trip():
    buf = io.BytesIO()
    _table().to_parquet(buf)
    ds = load_upload(buf.getvalue(), "pets.parquet", "label")
    assert ds.feature_names == ("height", "weight") and ds.n_samples == 20


@pytest.mark.parametrize("mutate, options, message", [
    (lambda df: df.assign(height=df.height.where(df.index != 4)), {}, r"'height': 1 missing \(NaN\) in data rows 5"),
    (lambda df: df.assign(weight=df.weight.where(df.index != 0, np.inf)), {}, r"'weight': 1 infinite in data rows 1"),
    (lambda df: df.assign(label="cat"), {}, r"single class \('cat'\)"),
    (lambda df: df.assign(label=["bird"] + ["cat"] * 19), {}, r"'bird' \(1 row\).*at least 2"),
    (lambda df: df.head(5), {}, r"5 data row\(s\); at least 10"),
    (lambda df: df, {"exclude_non_numeric": False}, r"Non-numeric column\(s\): 'city'"),
    (lambda df: df.drop(columns="city"), {"exclude_constant": False}, r"Constant column\(s\).*'ones'"),
    (lambda df: df[["city", "ones", "label"]], {}, r"No usable feature column: 'city' non-numeric.*'ones' constant"),
    (lambda df: df.assign(label=df.label.where(df.index != 2)), {}, r"Target column 'label' has 1 missing"),
    (lambda df: df.assign(label=1.5), {"task": "regression"}, r"Target column 'label' is constant"),
    (lambda df: df, {"task": "regression"}, r"not numeric .* regression target"),
])
def test_each_problem_gets_its_own_error(mutate, options, message):
    with pytest.raises(UploadError, match=message):
        load_upload(_csv(mutate(_table())), "pets.csv", "label", **options)


def test_unknown_target_and_file_problems():
    data = _csv(_table())
    with pytest.raises(UploadError, match=r"no column named 'species'; columns are: 'height'"):
        load_upload(data, "pets.csv", "species")
    with pytest.raises(UploadError, match=r"over the upload limit of 0.0 MB.*FSENGINE_MAX_UPLOAD_MB"):
        read_table(data, "pets.csv", max_bytes=100)
    with pytest.raises(UploadError, match="is empty"):
        read_table(b"  \n", "pets.csv")
    with pytest.raises(UploadError, match="unsupported file type .xlsx"):
        read_table(data, "pets.xlsx")
    with pytest.raises(UploadError, match="not a readable Parquet file"):
        read_table(b"PAR1 not really", "pets.parquet")
    with pytest.raises(UploadError, match="not UTF-8"):  # 0x81 is neither UTF-8 nor Windows-1252
        read_table(b"a,b\n\x81\x81,1\n", "pets.csv")
    with pytest.raises(UploadError, match="column name 'a' appears more than once"):
        read_table(b"a,b,a\n1,2,3\n", "pets.csv")


def test_size_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("FSENGINE_MAX_UPLOAD_MB", "0.001")
    with pytest.raises(UploadError, match="over the upload limit of 0.0 MB"):
        read_table(_csv(_table(n=200)), "big.csv")


def test_auto_task_choice():
    df = _table().drop(columns=["city", "ones"])
    assert dataset_from_table(df.assign(label=np.arange(20) % 3), "label").task == "classification"
    reg = dataset_from_table(df.assign(label=np.linspace(0, 1, 20)), "label")
    assert reg.task == "regression" and reg.target_names == ()


# ------------------------------------------------------------------------- property-based tests
_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
_finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def _tables(draw):
    """A table with a binary target and columns of every kind (numeric, constant, text, NaN)."""
    n = draw(st.integers(10, 30))
    names = draw(st.lists(_names, min_size=1, max_size=6, unique=True).filter(lambda v: "target" not in v))
    kinds = draw(st.lists(st.sampled_from(["numeric", "constant", "text", "nan"]),
                          min_size=len(names), max_size=len(names)))
    cols = {}
    for name, kind in zip(names, kinds):
        if kind == "text":
            cols[name] = draw(st.lists(st.sampled_from(["x", "yes", "a b", "1x"]), min_size=n, max_size=n))
        elif kind == "constant":
            cols[name] = [draw(_finite)] * n
        else:
            values = draw(st.lists(_finite, min_size=n, max_size=n, unique=True))
            if kind == "nan":
                values[draw(st.integers(0, n - 1))] = float("nan")
            cols[name] = values
    labels = draw(st.lists(st.sampled_from(["p", "q"]), min_size=n - 4, max_size=n - 4))
    cols["target"] = ["p", "p", "q", "q"] + labels
    return pd.DataFrame(cols), dict(zip(names, kinds))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_csv_every_column_is_kept_excluded_or_reported(table):
    df, kinds = table
    try:
        ds = load_upload(_csv(df), "t.csv", "target")
    except UploadError as exc:
        message = str(exc)
        nan_cols = [c for c, k in kinds.items() if k == "nan"]
        usable = [c for c, k in kinds.items() if k == "numeric"]
        if nan_cols:
            assert "Missing or infinite values" in message
            assert all(repr(c) in message for c in nan_cols)
        else:
            assert not usable and "No usable feature column" in message
        return
    assert not [c for c, k in kinds.items() if k == "nan"]
    kept = set(ds.feature_names)
    excluded = set(ds.extras["excluded_columns"])
    assert kept | excluded == set(kinds) and not kept & excluded          # nothing silently lost
    assert kept == {c for c, k in kinds.items() if k == "numeric"}
    for c in excluded:
        assert any(f"excluded column {c!r}" in note for note in ds.provenance.notes)
    for j, c in enumerate(ds.feature_names):                               # values survive exactly
        np.testing.assert_array_equal(ds.X[:, j], df[c].to_numpy(dtype=float))
    assert ds.target_names == ("p", "q")
    np.testing.assert_array_equal(ds.y, (df["target"] == "q").to_numpy().astype(int))


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_arbitrary_bytes_never_crash(data):
    """Any bytes give either a table or an UploadError (never another exception)."""
    try:
        df = read_table(data, "random.csv")
    except UploadError:
        return
    if len(df.columns):
        try:
            dataset_from_table(df, str(df.columns[0]))
        except UploadError:
            return  # a specific rejection is one of the two allowed outcomes
