"""The bad-input matrix: every way a user (or a hostile file) can go wrong gives one specific line
(exit status 2 and ``fsengine COMMAND: error: ...`` on the command line, an ``UploadError`` or
``ValueError`` in the API, an ``st.error`` in the app), and the files on disk are what they were.

Cases: the command line (arguments, --data FILE, --out folders, corrupt corpus zips), the upload
reader (API), odd but valid files read as people write them (values checked exactly), estimators
on values beyond 1e100, a comparison with a failing method, and uploads in the app (AppTest).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsengine.app.safe_text import md_escape
from fsengine.cli import main
from fsengine.commands.output import MARKER
from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.upload import UploadError, dataset_from_table, load_file, load_upload, read_table
from tests.commands.test_output import write_table
from tests.conftest import app_test, require_file_uploader

SHARED_CORPORA = Path("nltk_data") / "corpora"


def _frame(n: int = 30, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 3)).round(4), columns=["f0", "f1", "f2"])
    df["city"] = rng.choice(["Oslo", "Lima"], n)
    df["ones"] = 1.0
    df["label"] = np.tile(["cat", "dog"], n // 2)
    return df


def _csv(df: pd.DataFrame, **options) -> bytes:
    return df.to_csv(index=False, **options).encode()


def _with(df: pd.DataFrame, column: str, row: int, value) -> pd.DataFrame:
    out = df.copy()
    out[column] = out[column].astype(object if isinstance(value, str) else out[column].dtype)
    out.loc[row, column] = value
    return out


BASE = _frame()

# ------------------------------------------------------------------------- uploads: API errors
#: id -> (call, pattern the one-line message must match)
UPLOAD_ERRORS = {
    "empty": (lambda: read_table(b"", "t.csv"), r"^t\.csv is empty\.$"),
    "blank-lines": (lambda: read_table(b"  \n\r\n", "t.csv"), r"^t\.csv is empty\.$"),
    "over-limit": (lambda: read_table(_csv(BASE), "t.csv", max_bytes=100),
                   r"^t\.csv is 0\.0 MB, over the upload limit of 0\.0 MB\. .*FSENGINE_MAX_UPLOAD_MB\.$"),
    "xlsx": (lambda: read_table(b"PK\x03\x04", "t.xlsx"),
             r"^t\.xlsx: unsupported file type \.xlsx; fsengine reads CSV/TSV"),
    "no-suffix": (lambda: read_table(b"a,b\n1,2\n", "table"), r"^table: unsupported file type \(none\)"),
    "bad-parquet": (lambda: read_table(b"PAR1 not really", "t.parquet"), r"^t\.parquet is not a readable Parquet file"),
    "nul-bytes": (lambda: read_table(b"a,b\n1,\x00\x01\n", "t.csv"), r"^t\.csv holds binary data \(NUL bytes\)"),
    "not-utf8": (lambda: read_table(b"a,b\n\x81\x81,1\n", "t.csv"),
                 r"^t\.csv is not UTF-8 text \(byte 0x81 at position 4\); save it as UTF-8 CSV\.$"),
    "bad-utf16": (lambda: read_table(b"\xff\xfe\x00\xd8", "t.csv"), r"UTF-16 byte-order mark but is not UTF-16 text"),
    "one-column": (lambda: read_table(b"a b c\n1 2 3\n4 5 6\n", "t.csv"),
                   r"^t\.csv: found a single column; .*commas, semicolons, tabs or \|"),
    "ragged-rows": (lambda: read_table(b"a,b,c\n1,2,3\n1,2,3,4\n", "t.csv"),
                    r"^t\.csv is not a readable CSV file \(separator ','\): Error tokenizing data"),
    "open-quote": (lambda: read_table(b'a,b\n"1,2\n3,4\n', "t.csv"), r"^t\.csv is not a readable CSV file"),
    "duplicate-names": (lambda: read_table(b"a,b,a\n1,2,3\n", "t.csv"), r"column name 'a' appears more than once"),
    "unknown-target": (lambda: load_upload(_csv(BASE), "t.csv", "species"),
                       r"^There is no column named 'species'; columns are: 'f0', 'f1'"),
    "too-few-rows": (lambda: load_upload(_csv(BASE.head(6)), "t.csv", "label"),
                     r"^t\.csv has 6 data row\(s\); at least 10 are needed\.$"),
    "header-only": (lambda: load_upload(b"f0,label\n", "t.csv", "label"), r"^t\.csv has 0 data row\(s\)"),
    "target-missing": (lambda: load_upload(_csv(_with(BASE, "label", 4, np.nan)), "t.csv", "label"),
                       r"^Target column 'label' has 1 missing value\(s\) \(data rows 5\)"),
    "single-class": (lambda: load_upload(_csv(BASE.assign(label="cat")), "t.csv", "label"),
                     r"^Target column 'label' has a single class \('cat'\)"),
    "lonely-class": (lambda: load_upload(_csv(_with(BASE, "label", 0, "eel")), "t.csv", "label"),
                     r"^Target column 'label': class\(es\) 'eel' \(1 row\) have fewer than 2 rows"),
    "feature-nan": (lambda: load_upload(_csv(_with(BASE, "f1", 2, np.nan)), "t.csv", "label"),
                    r"^Missing or infinite values: 'f1': 1 missing \(NaN\) in data rows 3\. Fill or remove"),
    "feature-inf": (lambda: load_upload(_csv(_with(BASE, "f2", 7, np.inf)), "t.csv", "label"),
                    r"^Missing or infinite values: 'f2': 1 infinite in data rows 8\."),
    "feature-1e300": (lambda: load_upload(_csv(_with(BASE, "f2", 3, 1e300)), "t.csv", "label"),
                      r"^Column 'f2' has a value of 1e\+300 \(data row 4\); values beyond 1e\+100 in magnitude "
                      r"overflow the computations\. Rescale the column"),
    "feature-scaled": (lambda: load_upload(_csv(BASE.assign(f0=BASE.f0 * 1e300)), "t.csv", "label"),
                       r"^Column 'f0' has a value of .*e\+299 \(data row 1\); values beyond 1e\+100"),
    "feature-minus-1e150": (lambda: load_upload(_csv(_with(BASE, "f0", 9, -1e150)), "t.csv", "label"),
                            r"^Column 'f0' has a value of -1e\+150 \(data row 10\)"),
    "target-1e200": (lambda: load_upload(_csv(BASE.assign(y=np.linspace(0, 1, 30) * 1e200)), "t.csv", "y",
                                         task="regression"), r"^Column 'y' has a value of 3\.45e\+198 \(data row 2\)"),
    "target-inf": (lambda: load_upload(_csv(_with(BASE.assign(y=np.linspace(0, 1, 30)), "y", 5, np.inf)), "t.csv",
                                       "y"), r"^Target column 'y' has infinite values \(data rows 6\)\.$"),
    "regression-text": (lambda: load_upload(_csv(BASE), "t.csv", "label", task="regression"),
                        r"^Target column 'label' is not numeric \(e\.g\. 'cat' in data row 1\)"),
    "regression-constant": (lambda: load_upload(_csv(BASE.assign(y=2.5)), "t.csv", "y", task="regression"),
                            r"^Target column 'y' is constant \(2\.5\); nothing to predict\.$"),
    "bad-task": (lambda: load_upload(_csv(BASE), "t.csv", "label", task="ranking"),
                 r"^task must be one of auto, classification, regression, not 'ranking'$"),
    "only-text": (lambda: load_upload(_csv(BASE[["city", "label"]]), "t.csv", "label"),
                  r"^No usable feature column: 'city' non-numeric"),
    "only-constant": (lambda: load_upload(_csv(BASE[["ones", "label"]]), "t.csv", "label"),
                      r"^No usable feature column: 'ones' constant \(every value is 1\)\.$"),
    "text-not-allowed": (lambda: load_upload(_csv(BASE), "t.csv", "label", exclude_non_numeric=False),
                         r"^Non-numeric column\(s\): 'city' non-numeric .* Encode them as numbers"),
    "constant-not-allowed": (lambda: load_upload(_csv(BASE), "t.csv", "label", exclude_constant=False),
                             r"^Constant column\(s\) carry no information: 'ones'\. Remove them"),
    "missing-file": (lambda: load_file(Path("/nonexistent/t.csv"), "label"),
                     r"^/nonexistent/t\.csv: cannot read the file \(No such file or directory\)\.$"),
}


@pytest.mark.parametrize("case", list(UPLOAD_ERRORS))
def test_upload_error(case):
    call, pattern = UPLOAD_ERRORS[case]
    with pytest.raises(UploadError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and re.search(pattern, message), message


@pytest.mark.parametrize("value,pattern", [("abc", r"^FSENGINE_MAX_UPLOAD_MB='abc' is not a number"),
                                           ("0.0001", r"^t\.csv is 0\.0 MB, over the upload limit")])
def test_upload_limit_from_the_environment(monkeypatch, value, pattern):
    monkeypatch.setenv("FSENGINE_MAX_UPLOAD_MB", value)
    with pytest.raises(ValueError, match=pattern):
        read_table(_csv(BASE), "t.csv")


# ----------------------------------------------------------- odd but valid files, read exactly
NUMERIC = BASE[["f0", "f1", "f2"]].to_numpy()
ODD_FILES = {
    "semicolon-decimal-comma": (_csv(BASE, sep=";", decimal=","), "t.csv", ["separator ';'", "decimal comma"]),
    "semicolon": (_csv(BASE.assign(f0=np.arange(30), f1=np.arange(30) % 7, f2=np.arange(30) ** 2), sep=";"),
                  "t.csv", ["separator ';'"]),
    "tab-in-csv": (_csv(BASE, sep="\t"), "t.csv", ["tab-separated"]),
    "tsv": (_csv(BASE, sep="\t"), "t.tsv", []),
    "pipe": (_csv(BASE, sep="|"), "t.txt", ["separator '|'"]),
    "bom": (b"\xef\xbb\xbf" + _csv(BASE), "t.csv", []),
    "crlf": (_csv(BASE).replace(b"\n", b"\r\n"), "t.csv", []),
    "utf16": (BASE.to_csv(index=False).encode("utf-16"), "t.csv", ["UTF-16"]),
    "quoted-all": (BASE.to_csv(index=False, quoting=1).encode(), "t.csv", []),
}


@pytest.mark.parametrize("case", list(ODD_FILES))
def test_odd_files_are_read_as_written(case):
    data, name, notes = ODD_FILES[case]
    ds = load_upload(data, name, "label")
    assert ds.feature_names == ("f0", "f1", "f2") and ds.target_names == ("cat", "dog")
    expected = NUMERIC if case != "semicolon" else np.column_stack([np.arange(30), np.arange(30) % 7,
                                                                     np.arange(30) ** 2])
    np.testing.assert_array_equal(ds.X, expected)
    assert all(any(n in note for note in ds.provenance.notes) for n in notes), ds.provenance.notes


HOSTILE = ["=cmd|' /C calc'!A0", "x` [click me](https://example.invalid) `y", "![px](http://127.0.0.1:8765/p.png)",
           'a "quoted", name', "@SUM(1+1)", "café", "-2+3"]


def test_hostile_and_quoted_names_and_windows_1252_survive_exactly():
    df = pd.DataFrame(np.arange(60.0).reshape(20, 3), columns=HOSTILE[:3]).assign(label=["a", "b"] * 10)
    for name in HOSTILE[3:]:
        df[name] = np.arange(20) % (len(name) + 1)
    ds = load_upload(df.to_csv(index=False).encode("cp1252"), "t.csv", "label")
    assert ds.feature_names == tuple(c for c in df.columns if c != "label")
    assert any("Windows-1252" in note for note in ds.provenance.notes)
    parquet = io.BytesIO()
    df.to_parquet(parquet)
    assert load_upload(parquet.getvalue(), "t.parquet", "label").feature_names == ds.feature_names


# ---------------------------------------------------------------- the command line: one line, exit 2
def _run(capsys, argv) -> tuple[int, list[str]]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err.strip().splitlines()


def _corrupt_corpus(root: Path, how: str, shared: Path) -> None:
    data = bytearray((shared / SHARED_CORPORA / "subjectivity.zip").read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "bad-crc":  # the central directory's CRC of one member
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
            info = archive.getinfo("subjectivity/plot.tok.gt9.5000")
        at = data.find(b"PK\x01\x02")
        while data[at + 46: at + 46 + len(info.filename)] != info.filename.encode():
            at = data.find(b"PK\x01\x02", at + 4)
        data[at + 16] ^= 0xFF
    else:  # damaged deflate stream
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
            offset = archive.getinfo("subjectivity/plot.tok.gt9.5000").header_offset
        for k in range(offset + 2100, offset + 2200):
            data[k] ^= 0x5A
    (root / SHARED_CORPORA).mkdir(parents=True)
    (root / SHARED_CORPORA / "subjectivity.zip").write_bytes(bytes(data))


CLI_CASES = {
    # id: (argv after the command, setup name, expected stderr pattern)
    "out-is-a-file": (["--out", "{tmp}/taken.txt"], "file", r"--out .*taken\.txt is an existing file; name a folder"),
    "out-below-a-file": (["--out", "{tmp}/taken.txt/res"], "file", r"taken\.txt is a file, not a folder"),
    "out-foreign-folder": (["--out", "{tmp}/mine"], "foreign",
                           r"--out .*mine already holds files fsengine did not write \(scores\.csv\); .*--force"),
    "out-current-folder": (["--out", ".", "--force"], "cwd", r"--out \. is the current, home or root folder"),
    "data-missing-file": (["--data", "{tmp}/nope.csv", "--target", "label"], None, r"--data .*nope\.csv: no such file"),
    "data-folder": (["--data", "{tmp}/dir.csv", "--target", "label"], "dir", r"--data .*dir\.csv is a folder"),
    "data-without-target": (["--data", "{tmp}/t.csv"], "table", r"--data .*t\.csv: name the column to predict"),
    "target-with-catalogue": (["--data", "digits", "--target", "label"], None,
                              r"--target goes with a table file \(--data FILE\.csv\|\.tsv\|\.parquet, also "
                              r"compressed\); 'digits' is a catalogue"),
    "target-unknown": (["--data", "{tmp}/t.csv", "--target", "species"], "table",
                       r"There is no column named 'species'"),
    "data-huge-values": (["--data", "{tmp}/huge.csv", "--target", "label"], "huge",
                         r"Column 'f1' has a value of 1e\+300 \(data row 3\)"),
    "data-nan": (["--data", "{tmp}/nan.csv", "--target", "label"], "nan", r"'f2': 1 missing \(NaN\) in data rows 5"),
    "data-binary": (["--data", "{tmp}/bin.csv", "--target", "label"], "binary", r"bin\.csv holds binary data"),
    "data-bad-parquet": (["--data", "{tmp}/t.parquet", "--target", "label"], "parquet",
                         r"t\.parquet is not a readable Parquet file"),
    "data-unknown-spec": (["--data", "nosuchdata"], None, r"Unknown dataset 'nosuchdata'"),
    "corpus-truncated": (["--data", "subjectivity"], "zip:truncated", r"subjectivity\.zip: not a valid zip archive"),
    "corpus-bad-crc": (["--data", "subjectivity"], "zip:bad-crc",
                       r"subjectivity\.zip is damaged \(BadZipFile: Bad CRC-32 .*download it again"),
    "corpus-bad-deflate": (["--data", "subjectivity"], "zip:deflate", r"subjectivity\.zip is damaged \((error|BadZip)"),
}
#: added when a case does not give its own
DEFAULTS = {"--data": "{tmp}/t.csv", "--target": "label", "--out": "{tmp}/res"}


@pytest.mark.parametrize("command", ["select", "compare"])
@pytest.mark.parametrize("case", list(CLI_CASES))
def test_cli_error(case, command, tmp_path, capsys, monkeypatch, request):
    args, setup, pattern = CLI_CASES[case]
    write_table(tmp_path / "t.csv", n=40)
    if setup == "file":
        (tmp_path / "taken.txt").write_text("mine")
    elif setup == "foreign":
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "scores.csv").write_text("my own scores")
    elif setup == "cwd":
        monkeypatch.chdir(tmp_path)
    elif setup == "dir":
        (tmp_path / "dir.csv").mkdir()
    elif setup in ("huge", "nan"):
        df = pd.read_csv(tmp_path / "t.csv")
        df.loc[2 if setup == "huge" else 4, "f1" if setup == "huge" else "f2"] = 1e300 if setup == "huge" else np.nan
        df.to_csv(tmp_path / f"{setup}.csv", index=False)
    elif setup == "binary":
        (tmp_path / "bin.csv").write_bytes(bytes(range(256)) * 4)
    elif setup == "parquet":
        (tmp_path / "t.parquet").write_bytes(b"PAR1 truncated")
    elif setup and setup.startswith("zip:"):
        _corrupt_corpus(tmp_path / "data", setup[4:], request.getfixturevalue("shared_data_root"))
        monkeypatch.setenv("FSENGINE_DATA", str(tmp_path / "data"))
        monkeypatch.setenv("FSENGINE_DATASETS", str(tmp_path / "datasets"))
        monkeypatch.setenv("FSENGINE_CACHE", str(tmp_path / "cache"))
        monkeypatch.setenv("NLTK_DATA", "")
    defaults = {k: v for k, v in DEFAULTS.items() if k not in args and not (k == "--target" and "--data" in args)}
    argv = [command, "--methods" if command == "compare" else "--method", "variance"]
    for item in [*args, *(x for kv in defaults.items() for x in kv)]:
        argv.append(item.format(tmp=tmp_path))
    if command == "compare":
        argv += ["--bootstrap", "0", "--k", "2"]
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, err = _run(capsys, argv)
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith(f"fsengine {command}: error: "), err
    assert re.search(pattern, err[0]), err[0]
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before                               # nothing written, nothing replaced
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith((".partial", ".old"))]


def test_compare_checks_the_output_folder_before_computing(tmp_path, capsys, monkeypatch):
    import fsengine.compare.engine

    monkeypatch.setattr(fsengine.compare.engine, "run_comparison", lambda *a, **k: pytest.fail("computed first"))
    write_table(tmp_path / "t.csv")
    (tmp_path / "taken").write_text("x")
    code, err = _run(capsys, ["compare", "--methods", "variance", "--data", tmp_path / "t.csv", "--target", "label",
                              "--out", tmp_path / "taken"])
    assert code == 2 and err == [f"fsengine compare: error: --out {tmp_path / 'taken'} is an existing file; name a "
                                 "folder for the results (it is created)."]


def test_runs_replace_each_other_whole_and_force_replaces_a_foreign_folder(tmp_path, capsys):
    write_table(tmp_path / "t.csv")
    out = tmp_path / "res"
    argv = ["select", "--data", tmp_path / "t.csv", "--target", "label", "--out", out, "--method"]
    assert _run(capsys, [*argv, "l1"])[0] == 0
    assert (out / "path.csv").is_file()
    assert _run(capsys, [*argv, "variance"])[0] == 0
    assert not (out / "path.csv").exists() and not list(out.glob("l1*"))     # never a mix of two runs
    assert '"method": "variance"' in (out / "summary.json").read_text()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "scores.csv").write_text("my own scores")
    assert _run(capsys, [*argv, "variance", "--out", mine, "--force"])[0] == 0
    assert (mine / MARKER).is_file() and (mine / "scores.csv").read_text() != "my own scores"


# --------------------------------------------------------------- estimators: values beyond 1e100
@pytest.mark.parametrize("key", ["bia", "l1", "boosting", "ifs", "sgc", "bayes", "variance"])
def test_estimators_refuse_values_beyond_1e100(key):
    from fsengine.methods.run import fit_method

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    ds = Dataset(X=X * 1e300, y=(X[:, 0] > 0).astype(int), feature_names=tuple("abcdef"),
                 provenance=Provenance("test"), name="t", target_names=("n", "p"))
    with pytest.raises(ValueError, match=r"^Input X has values as large as .*e\+300 \(first at row \d+, column \d+\); "
                                         r"beyond 1e\+100 in magnitude sums of squares overflow\. Rescale"):
        fit_method(key, None, ds)


@pytest.mark.parametrize("key", ["mi", "mdl", "count", "rtm"])
def test_binarising_estimators_are_scale_free(key):
    """Methods that binarise at the column median give the same scores at any scale."""
    from fsengine.methods.run import fit_method

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    make = lambda scale: Dataset(X=X * scale, y=(X[:, 0] > 0).astype(int), feature_names=tuple("abcdef"),
                                 provenance=Provenance("test"), name="t", target_names=("n", "p"))
    np.testing.assert_array_equal(fit_method(key, None, make(1e300)).scores, fit_method(key, None, make(1.0)).scores)


def test_a_failing_method_is_reported_and_the_comparison_goes_on(monkeypatch):
    import fsengine.compare.engine as compare
    from fsengine.compare.settings import CompareSettings

    real = compare.fit_method

    def flaky(spec, values, ds, progress=None):
        if spec.key == "l1":
            raise FloatingPointError("overflow in the solver")
        return real(spec, values, ds, progress)

    monkeypatch.setattr(compare, "fit_method", flaky)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5))
    ds = Dataset(X=X, y=(X[:, 0] > 0).astype(int), feature_names=tuple("abcde"), provenance=Provenance("t"),
                 name="t", target_names=("n", "p"))
    result = compare.run_comparison(ds, ["l1", "variance"], CompareSettings(n_bootstrap=0, max_k=4))
    message = "FloatingPointError: overflow in the solver"
    assert result.labels == ["Variance"] and result.failures == {"L1": message}
    assert list(result.tables(2)["failures"]["error"]) == [message]
    with pytest.raises(ValueError, match=r"^Input t has values as large as"):
        compare.run_comparison(Dataset(X=X * 1e200, y=ds.y, feature_names=ds.feature_names, provenance=ds.provenance,
                                       name="t", target_names=ds.target_names), ["variance"])


# ------------------------------------------------------------- random bytes and random tables
_cells = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30),
                   st.text(max_size=6), st.sampled_from(["", "1,5", "-", "=1+1", '"', "\r", ";", "\t"]))


@st.composite
def _random_tables(draw):
    n_cols = draw(st.integers(1, 5))
    names = draw(st.lists(st.text(min_size=1, max_size=8), min_size=n_cols, max_size=n_cols))
    rows = draw(st.lists(st.lists(_cells, min_size=n_cols, max_size=n_cols), min_size=0, max_size=14))
    sep = draw(st.sampled_from([",", ";", "\t", "|"]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"]))
    text = pd.DataFrame(rows, columns=range(n_cols)).set_axis(names, axis=1).to_csv(index=False, sep=sep)
    return text.encode(encoding, errors="replace"), draw(st.integers(0, n_cols - 1))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400) | _random_tables().map(lambda t: t[0]), st.sampled_from(["t.csv", "t.tsv", "t.parquet"]))
def test_random_bytes_and_tables_give_a_dataset_or_an_upload_error(data, name):
    try:
        df = read_table(data, name)
        for target in list(df.columns)[:2]:
            try:
                assert isinstance(dataset_from_table(df, target, name=name), Dataset)
            except UploadError as exc:
                assert str(exc).strip()
    except UploadError as exc:
        assert str(exc).strip()


# --------------------------------------------------------------------------- uploads in the app
def _upload(at, name: str, data: bytes):
    require_file_uploader(at)
    at.sidebar.file_uploader[0].set_value((name, data, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def test_app_uploads_show_one_escaped_error_or_work_everywhere(monkeypatch):
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("upload").run()
    # hostile names: shown as text (escaped), never as a link or an image
    df = pd.DataFrame({HOSTILE[1]: ["t"] * 20, HOSTILE[2]: [1.0] * 20, "f": np.arange(20.0), "y": ["a", "b"] * 10})
    _upload(at, "m.csv", _csv(df))
    warning = " ".join(w.value for w in at.sidebar.warning)
    assert md_escape(HOSTILE[1], inline=True) in warning and md_escape(HOSTILE[2], inline=True) in warning
    assert "](" not in warning and "![" not in warning
    # a semicolon file with decimal commas works; the RTM page trains on it
    _upload(at, "semi.csv", _csv(BASE[["f0", "f1", "f2", "label"]], sep=";", decimal=","))
    assert not at.sidebar.error and any("30 rows, 3 features" in c.value for c in at.sidebar.caption)
    at.switch_page("pages/rtm.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart")
    # a file with values beyond 1e100 and a binary file: one error each, on the page too
    _upload(at, "huge.csv", _csv(_with(BASE, "f1", 2, 1e300)))
    assert [e.value for e in at.sidebar.error] == [md_escape(
        "Column 'f1' has a value of 1e+300 (data row 3); values beyond 1e+100 in magnitude overflow the "
        "computations. Rescale the column (e.g. divide it by a power of ten) and upload again.")]
    assert any("The uploaded file cannot be used" in e.value for e in at.error) and not at.get("plotly_chart")
    _upload(at, "bin.csv", bytes(range(256)))
    assert len(at.sidebar.error) == 1 and "binary data" in at.sidebar.error[0].value
    # an unusable upload limit setting: an error box, not a traceback
    monkeypatch.setenv("FSENGINE_MAX_UPLOAD_MB", "abc")
    at.run()
    assert not at.exception
    assert any(md_escape("FSENGINE_MAX_UPLOAD_MB='abc' is not a number") in e.value for e in at.sidebar.error)


# ---------------------------------------------------------------- downloads into an unwritable folder
def test_fetch_into_a_folder_that_cannot_be_written(fake_source, store, monkeypatch, tmp_path, capsys):
    from fsengine.data.fetch import FetchError, fetch

    (tmp_path / "blocker").write_text("a file where the datasets folder should be")
    monkeypatch.setenv("FSENGINE_DATASETS", str(tmp_path / "blocker" / "datasets"))
    with pytest.raises(FetchError, match=r"^Cannot write the download into .*blocker/datasets/fake "
                                         r"\(Not a directory\); make that folder writable or set FSENGINE_DATASETS"):
        fetch("fake")
    code, err = _run(capsys, ["datasets", "fetch", "fake"])
    assert code == 2 and len(err) == 1 and err[0].startswith("fsengine datasets: error: Cannot write the download")
    # the Data page's button: an error box, no traceback
    from tests.app.test_data import _data_page

    at = _data_page("wine")
    at.button(key="data_fetch_fake").click().run()
    assert not at.exception
    assert any("Cannot write the download into" in e.value for e in at.error)


def test_cli_says_how_a_file_was_read_and_what_was_left_out(tmp_path, capsys):
    (tmp_path / "t.csv").write_bytes(_csv(BASE, sep=";", decimal=","))
    assert main(["select", "--method", "variance", "--data", str(tmp_path / "t.csv"), "--target", "label",
                 "--out", str(tmp_path / "res")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "note: t.csv: separator ';' detected" in out
    assert "note: t.csv: decimal comma detected (1,5 read as 1.5)" in out
    city = BASE.city[0]
    assert (f"note: t.csv: 2 column(s) left out: 'city' non-numeric (e.g. '{city}' in data row 1); 'ones' constant "
            "(every value is 1)") in out
    summary = json.loads((tmp_path / "res" / "summary.json").read_text())
    assert set(summary["excluded_columns"]) == {"city", "ones"} and summary["n_features"] == 3
