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


# ------------------------------------------------------------- compressed tables and svmlight files
def _packed(raw: bytes, suffix: str) -> bytes:
    import bz2
    import gzip
    import lzma
    import zipfile

    if suffix == ".zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("inner.csv", raw)
        return buffer.getvalue()
    return {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix](raw)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zip"])
def test_compressed_csv_is_read_and_checked_as_the_plain_file(suffix):
    df = _table()
    plain = load_upload(_csv(df), "t.csv", "label")
    packed = load_upload(_packed(_csv(df), suffix), f"t.csv{suffix}", "label")
    np.testing.assert_array_equal(packed.X, plain.X)
    np.testing.assert_array_equal(packed.y, plain.y)
    assert packed.extras["excluded_columns"] == plain.extras["excluded_columns"]
    assert f"decompressed ({suffix})" in packed.provenance.notes
    # the same checks: a missing value in the packed file is the plain file's error
    bad = df.copy()
    bad.loc[3, "height"] = np.nan
    with pytest.raises(UploadError, match=r"'height': 1 missing \(NaN\) in data rows 4"):
        load_upload(_packed(_csv(bad), suffix), f"t.csv{suffix}", "label")


def test_tsv_and_compressed_tsv_are_tab_separated():
    df = _table()
    raw = df.to_csv(index=False, sep="\t").encode()
    for name, data in (("t.tsv", raw), ("t.tsv.gz", _packed(raw, ".gz"))):
        table = read_table(data, name)
        assert list(table.columns) == list(df.columns) and "tab-separated" in table.attrs["read_notes"]


def test_compressed_problems_get_their_own_errors():
    with pytest.raises(UploadError, match=r"^t\.csv\.xz is not a readable \.xz file"):
        read_table(b"not xz data", "t.csv.xz")
    with pytest.raises(UploadError, match=r"^t\.csv\.gz unpacks to more than 0\.0 MB, over the upload limit"):
        read_table(_packed(b"a,b\n" + b"1,2\n" * 5000, ".gz"), "t.csv.gz", max_bytes=1000)   # a small bomb
    buffer = io.BytesIO()
    import zipfile

    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.csv", "a,b\n1,2\n")
        archive.writestr("b.csv", "a,b\n1,2\n")
    with pytest.raises(UploadError, match=r"^t\.csv\.zip holds 2 files; put exactly one"):
        read_table(buffer.getvalue(), "t.csv.zip")
    with pytest.raises(UploadError, match=r"^t\.csv\.gz is empty once decompressed"):
        read_table(_packed(b"   \n", ".gz"), "t.csv.gz")
    with pytest.raises(UploadError, match=r"t\.parquet\.gz: unsupported file type \.parquet\.gz; fsengine reads"):
        read_table(b"x", "t.parquet.gz")


def _svm_bytes(X, y, zero_based=False) -> bytes:
    from sklearn.datasets import dump_svmlight_file

    buffer = io.BytesIO()
    dump_svmlight_file(X, y, buffer, zero_based=zero_based)
    return buffer.getvalue()


def test_svmlight_is_sparse_with_its_own_labels():
    import scipy.sparse as sp

    from fsengine.data.upload import load_svmlight

    rng = np.random.default_rng(0)
    X = sp.random(30, 6, density=0.5, random_state=1, format="lil")
    X[:, 4] = 0.0                                                        # an all-zero feature
    X = X.tocsr()
    X.eliminate_zeros()
    y = rng.integers(0, 3, 30) * 2 - 1                                   # labels -1, 1, 3
    ds = load_svmlight(_svm_bytes(X, y), "t.libsvm")
    assert ds.is_sparse and ds.task == "classification" and ds.target_names == ("-1", "1", "3")
    np.testing.assert_allclose(ds.X.toarray(), np.delete(X.toarray(), 4, axis=1), rtol=1e-15)  # %.16g text
    # index 5 never occurs: an all-zero column, counted in a note (only the indices that occur are features)
    assert ds.feature_names == ("f1", "f2", "f3", "f4", "f6") and ds.extras["excluded_columns"] == {}
    assert "feature indices counted from 1" in ds.provenance.notes
    assert "1 feature index between 1 and 6 never occurs (all-zero, left out); 5 occur" \
        in ds.provenance.notes and ds.provenance.counts["absent_indices"] == 1
    zero = load_svmlight(_svm_bytes(X, y, zero_based=True), "t.svm")
    assert zero.feature_names == ("f0", "f1", "f2", "f3", "f5")
    target = rng.normal(size=30)
    assert load_svmlight(_svm_bytes(X, target), "r.svm").task == "regression"
    with pytest.raises(UploadError, match=r"^t\.svm is not a readable svmlight/libsvm file"):
        load_svmlight(b"this is not svmlight\n" * 20, "t.svm")
    with pytest.raises(UploadError, match=r"^t\.svm has 3 row\(s\); at least 10"):
        load_svmlight(_svm_bytes(X[:3], y[:3]), "t.svm")
    with pytest.raises(UploadError, match=r"^t\.svm is an svmlight/libsvm file: it has its own labels"):
        read_table(_svm_bytes(X, y), "t.svm")
