"""The bad-input matrix: every way a user (or a hostile file) can go wrong gives one specific line
(exit status 2 and ``fsengine COMMAND: error: ...`` on the command line, an ``UploadError`` or
``ValueError`` in the API, an ``st.error`` in the app), and the files on disk are what they were.

Cases: the command line (arguments, --data FILE, --out folders and links, corrupt corpus zips), the
upload reader (API), odd but valid files read as people write them (values checked exactly),
estimators on values beyond 1e100, a comparison with a failing method, uploads in the app (AppTest),
what files declare (svmlight indices, IDX and .npy headers, zip members, Parquet footers, CSV
headers, compressed bombs, generated data) checked before memory follows it, methods that fail (a
user's class raising, exiting, scoring NaN; invalid parameter values before any fit), the
environment variables, numeric options (NaN, inf, out of range) and the output folders' links and
permissions. Tests that would allocate a bomb's memory on a regression run in a memory-capped
child process (the app's upload of the bomb: tests/app/test_upload_browser.py, a capped server).
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
    "out-dangling-link": (["--out", "{tmp}/dangling"], "links",
                          r"--out .*/dangling is a link to .*/nowhere, which does not exist; create that folder or "
                          r"remove the link\.$"),
    "out-below-dangling-link": (["--out", "{tmp}/dangling/res"], "links",
                                r"--out .*/dangling/res: .*/dangling is a link to .*/nowhere, which does not exist"),
    "out-link-loop": (["--out", "{tmp}/loop"], "links", r"--out .*/loop is a link that loops \(it never reaches a "
                                                        r"folder\); remove the link or name another folder\.$"),
    "out-link-to-foreign-folder": (["--out", "{tmp}/to-mine"], "links",
                                   r"--out .*/to-mine -> .*/mine already holds files fsengine did not write "
                                   r"\(scores\.csv\); .*--force"),
    "out-link-to-a-file": (["--out", "{tmp}/to-file"], "links", r"--out .*/to-file -> .*/taken\.txt is an existing "
                                                                r"file; name a folder"),
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
    elif setup == "links":
        (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
        (tmp_path / "loop").symlink_to(tmp_path / "loop")
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "scores.csv").write_text("my own scores")
        (tmp_path / "to-mine").symlink_to("mine")
        (tmp_path / "taken.txt").write_text("mine")
        (tmp_path / "to-file").symlink_to(tmp_path / "taken.txt")
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
    before = _tree(tmp_path)
    code, err = _run(capsys, argv)
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith(f"fsengine {command}: error: "), err
    assert re.search(pattern, err[0]), err[0]
    assert _tree(tmp_path) == before                     # nothing written, nothing replaced
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith((".partial", ".old"))]


def _tree(root: Path) -> dict:
    """Every file's bytes and every link's target under ``root`` (links are not followed)."""
    import os

    tree = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            tree[path] = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else "dir"
    return tree


def test_compare_checks_the_output_folder_before_computing(tmp_path, capsys, monkeypatch):
    import fsengine.compare.runner

    monkeypatch.setattr(fsengine.compare.runner, "run_comparison", lambda *a, **k: pytest.fail("computed first"))
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
    import fsengine.compare.runner as compare
    from fsengine.compare.settings import CompareSettings

    real = compare.fit_method

    def flaky(spec, values, ds, progress=None, *, warm_start=None):
        if spec.key == "l1":
            raise FloatingPointError("overflow in the solver")
        return real(spec, values, ds, progress, warm_start=warm_start)

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


# -------------------------------------------- what a file declares is checked before memory follows it
#: the svmlight bomb of issue 30: 20 rows naming feature 2,000,000,000 (about 800 bytes); a loader that
#: allocates per index up to the largest needs about 130 GB for the column names alone
SVMLIGHT_BOMB = b"".join(b"%d 1:1 2000000000:1\n" % (i % 2) for i in range(20))
#: the same with a varying value at the far index, so that one usable feature remains
SVMLIGHT_FAR = b"".join(b"%d 1:1 2000000000:%d\n" % (i % 2, i + 1) for i in range(20))

#: run in a child whose address space is capped at what it has after the imports plus HEADROOM_MB
_HEADROOM_CHILD = """
import resource, sys
{imports}
size = int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmSize:"))) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + {headroom} * 2**20, resource.RLIM_INFINITY))
{body}
"""
HEADROOM_MB = 400


def _in_bounded_memory(imports: str, body: str, tmp_path, headroom_mb: int = HEADROOM_MB):
    """Run ``body`` in a child Python that may allocate at most ``headroom_mb`` more than its imports took
    (a loader that follows a declared size dies there with MemoryError); returns the finished process."""
    import os
    import subprocess
    import sys
    import textwrap

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               NUMBA_NUM_THREADS="1", PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    code = _HEADROOM_CHILD.format(imports=textwrap.dedent(imports), headroom=headroom_mb, body=textwrap.dedent(body))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=600)


def test_the_svmlight_bomb_loads_in_bounded_memory_and_keeps_only_the_columns_that_occur(tmp_path):
    (tmp_path / "bomb.svm").write_bytes(SVMLIGHT_BOMB)
    (tmp_path / "far.svm").write_bytes(SVMLIGHT_FAR)
    done = _in_bounded_memory("""
        from fsengine.cli import main
        from fsengine.data.upload import UploadError, load_svmlight
        """, """
        ds = load_svmlight(open("far.svm", "rb").read(), "far.svm")
        print(ds.X.shape, ds.feature_names, ds.extras["excluded_columns"])
        print(ds.provenance.notes[2])
        try:
            load_svmlight(open("bomb.svm", "rb").read(), "bomb.svm")
        except UploadError as exc:
            print("upload error:", exc)
        sys.exit(main(["select", "--method", "variance", "--data", "bomb.svm", "--out", "res"]))
        """, tmp_path)
    out = done.stdout.splitlines()
    assert done.returncode == 2, done.stderr[-3000:]
    assert out[0] == "(20, 1) ('f2000000000',) {'f1': 'constant (every value is 1)'}"
    assert out[1] == ("1,999,999,998 feature indices between 1 and 2,000,000,000 never occur (all-zero, left out); "
                      "2 occur")
    assert out[2] == "upload error: No usable feature in bomb.svm: every feature is constant."
    assert done.stderr.strip() == "fsengine select: error: No usable feature in bomb.svm: every feature is constant."


def test_an_svmlight_index_beyond_int32_an_empty_file_and_a_single_label_are_one_line():
    from fsengine.data.upload import load_svmlight

    with pytest.raises(UploadError, match=r"^t\.svm has a feature index beyond 2,147,483,647, the largest an "
                                          r"svmlight reader takes; number the features from 1 \(or 0\) upwards\.$"):
        load_svmlight(SVMLIGHT_BOMB.replace(b"2000000000", b"99999999999"), "t.svm")
    with pytest.raises(UploadError, match=r"^No usable feature in t\.svm: no row holds an 'index:value' entry\.$"):
        load_svmlight(b"1\n-1\n" * 10, "t.svm")
    with pytest.raises(UploadError, match=r"^The label column of t\.svm has a single class \('1'\); feature selection "
                                          r"needs at least two classes\. An svmlight file carries its own labels"):
        load_svmlight(b"1 1:1 2:3\n1 1:2 2:1\n" * 10, "t.svm")


def test_a_failing_reader_is_one_error_in_the_app_never_an_exception(monkeypatch):
    """Whatever a reader raises (here memory running out) is the upload's error, shown in one line."""
    import fsengine.data.upload as upload

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 130. GiB for an array")

    monkeypatch.setattr(upload, "load_svmlight", no_memory)
    monkeypatch.setattr(upload, "read_table", no_memory)
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("upload").run()
    for name in ("bomb.svm", "table.csv"):
        _upload(at, name, SVMLIGHT_BOMB)
        assert [e.value for e in at.sidebar.error] == [md_escape(
            f"{name} could not be read (MemoryError: Unable to allocate 130. GiB for an array)")]
    at.switch_page("pages/data.py").run()
    assert not at.exception and any("The uploaded file cannot be used" in e.value for e in at.error)


# The bomb uploaded in the app itself: tests/app/test_upload_browser.py (a real server with a capped address
# space; in this process a regression would take the machine's memory).


def _zeros_gz(n_bytes: int, head: bytes = b"") -> bytes:
    """gzip of ``head`` and ``n_bytes`` zero bytes, compressed in blocks (never held whole)."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(head)]
    block = bytes(2**20)
    for _ in range(n_bytes // len(block)):
        parts.append(packer.compress(block))
    return b"".join(parts) + packer.compress(bytes(n_bytes % len(block))) + packer.flush()


def _peak_bytes(call) -> tuple[int, object]:
    """(peak bytes Python allocated while ``call()`` ran, what it returned or raised)."""
    import tracemalloc

    tracemalloc.start()
    try:
        try:
            outcome = call()
        except Exception as exc:  # the outcome is checked by the caller
            outcome = exc
        return tracemalloc.get_traced_memory()[1], outcome
    finally:
        tracemalloc.stop()


def test_an_idx_gz_is_unpacked_no_further_than_its_header_declares(tmp_path):
    import struct

    from fsengine.data.notmnist import CorruptDataError, read_idx

    bomb = tmp_path / "images.idx.gz"  # declares one 28x28 image, unpacks to 64 MB
    bomb.write_bytes(_zeros_gz(64 * 2**20, struct.pack(">HBB3I", 0, 0x08, 3, 1, 28, 28)))
    peak, outcome = _peak_bytes(lambda: read_idx(bomb))
    assert isinstance(outcome, CorruptDataError) and str(outcome) == (
        f"{bomb}: header promises (1, 28, 28) (784 bytes) but the file holds more than 784 bytes")
    assert peak < 8 * 2**20, peak


def test_declared_arrays_beyond_memory_are_refused_before_they_are_allocated(tmp_path):
    import struct

    from fsengine.data.limits import size_text
    from fsengine.data.notmnist import CorruptDataError, load_notmnist_npz, read_idx

    huge = tmp_path / "huge.idx"
    huge.write_bytes(struct.pack(">HBB3I", 0, 0x0E, 3, 2**32 - 1, 2**32 - 1, 2**32 - 1))
    with pytest.raises(CorruptDataError, match=r"huge\.idx: the IDX header's \(4294967295, 4294967295, 4294967295\) "
                                               r"array would take .* TB in memory, more than this machine's memory "
                                               r"\(.*\); the header is damaged or the file is not this data set\.$"):
        read_idx(huge)
    npz = tmp_path / "huge.npz"  # an .npy header declaring 1e12 bytes; numpy allocates that before reading
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": (10**12,)})
    with zipfile.ZipFile(npz, "w") as archive:
        archive.writestr("images.npy", header.getvalue())
        archive.writestr("labels.npy", b"")
    with pytest.raises(CorruptDataError, match=rf"huge\.npz: member images\.npy declares a \(1000000000000,\) uint8 "
                                               rf"array that would take {re.escape(size_text(10**12))} in memory"):
        load_notmnist_npz(npz)


@pytest.mark.parametrize("n,p,rows", [(1000, 1000, 1000)])
def test_generated_datasets_are_checked_against_memory_before_they_are_drawn(monkeypatch, n, p, rows):
    import fsengine.data.limits as limits
    from fsengine.data import load_dataset

    monkeypatch.setattr(limits, "memory_budget", lambda: 2**20)
    for spec, pattern in ((f"synthetic_glm:n={n},p={p}", r"^A sparse GLM with n=1,000 rows and p=1,000 features"),
                          (f"synthetic_rtm:n_samples={n},n_tags={p}", r"^An RTM sample of 1,000 objects x 1,000 tags"),
                          (f"planted_maxent:n_samples={n},n_predicates={p}",
                           r"^A planted maxent task of 1,000 rows x 1,000 predicates")):
        with pytest.raises(ValueError, match=pattern + r" .*would take .* MB in memory, more than this machine's "
                                                       r"memory \(1\.0 MB\); choose fewer"):
            load_dataset(spec)


def test_a_corpus_zip_member_is_checked_before_it_is_unpacked(monkeypatch, tmp_path):
    import fsengine.data.limits as limits
    from fsengine.data.corpora import CorpusFormatError, read_subjectivity

    corpus = tmp_path / "subjectivity.zip"
    with zipfile.ZipFile(corpus, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("subjectivity/quote.tok.gt9.5000", "so good .\n" * 5000)
        archive.writestr("subjectivity/plot.tok.gt9.5000", "a plot .\n" * 10)
    monkeypatch.setattr(limits, "memory_budget", lambda: 10_000)
    with pytest.raises(CorpusFormatError, match=r"subjectivity\.zip: member subjectivity/quote\.tok\.gt9\.5000, "
                                                r"unpacked, would take 48\.8 kB in memory, more than this machine's "
                                                r"memory \(9\.8 kB\); delete the archive and download it again"):
        read_subjectivity(corpus)


def _parquet(df: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    df.to_parquet(buffer)
    return buffer.getvalue()


DECLARED_UPLOADS = {
    # a few kB of run-length encoded constants declaring a million rows
    "parquet-rows": (lambda: read_table(_parquet(pd.DataFrame({"a": np.zeros(10**6), "y": np.ones(10**6)})),
                                        "t.parquet", max_bytes=2**20),
                     r"^t\.parquet declares 1,000,000 rows x 2 columns, which would take 15\.3 MB in memory, more "
                     r"than the upload limit of 1\.0 MB \(FSENGINE_MAX_UPLOAD_MB\)\.$"),
    # the central directory declares the member's size: refused before a byte is unpacked
    "zip-member": (lambda: read_table(_zip_of(b"a,b\n" + b"1,2\n" * 10**5), "t.csv.zip", max_bytes=10**5),
                   r"^t\.csv\.zip declares 'inner\.csv' as 0\.4 MB unpacked, more than 0\.1 MB, over the upload "
                   r"limit; upload a smaller table or raise the limit with FSENGINE_MAX_UPLOAD_MB\.$"),
    # a header of 20,000 names over twelve one-value rows: pandas would fill a 20,000 x 12 grid with NaN
    "wide-header-short-rows": (lambda: read_table((",".join(f"c{j}" for j in range(20_000)) + "\n" + "1\n" * 12)
                                                  .encode(), "t.csv"),
                               r"^t\.csv: the header names 20,000 columns, more than its 12 data rows can fill "
                               r"\(0\.1 MB of text\): rows are shorter than the header\. Give every row one value per "
                               r"column\.$"),
}


def _lying_zip() -> bytes:
    """A .zip whose headers declare 100 bytes for a member that unpacks to 4 MB."""
    import struct

    data = bytearray(_zip_of(b"a,b\n" + b"1,2\n" * 10**6))
    central, local = data.rfind(b"PK\x01\x02"), data.find(b"PK\x03\x04")
    data[central + 24:central + 28] = data[local + 22:local + 26] = struct.pack("<I", 100)
    return bytes(data)


DECLARED_UPLOADS.update({
    # the declared size lies: zipfile stops there, and the member's checksum then fails
    "zip-member-lies": (lambda: read_table(_lying_zip(), "t.csv.zip", max_bytes=10**5),
                        r"^t\.csv\.zip is not a readable \.zip archive \(BadZipFile: Bad CRC-32 for file "
                        r"'inner\.csv'\)\.$"),
})


def _zip_of(raw: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("inner.csv", raw)
    return buffer.getvalue()


@pytest.mark.parametrize("case", list(DECLARED_UPLOADS))
def test_declared_sizes_of_uploads_are_checked_before_reading(case):
    call, pattern = DECLARED_UPLOADS[case]
    with pytest.raises(UploadError) as info:
        call()
    assert re.search(pattern, str(info.value)), str(info.value)


def test_short_rows_under_a_narrow_header_still_read():
    """Rows missing their last (text) value are a table people write; only a grid beyond the text is refused."""
    table = read_table(b"a,b,note\n" + b"1,2,x\n3,4\n" * 10, "t.csv")
    assert table.shape == (20, 3) and table["note"].isna().sum() == 10


def test_a_compressed_file_on_disk_unpacks_at_most_a_quarter_of_memory(monkeypatch, tmp_path, capsys):
    import fsengine.data.upload as upload

    monkeypatch.setattr(upload, "memory_budget", lambda: 4 * 2**20)
    (tmp_path / "t.csv.gz").write_bytes(_zeros_gz(3 * 2**20, b"a,b\n"))
    code, err = _run(capsys, ["select", "--method", "variance", "--data", tmp_path / "t.csv.gz", "--target", "b",
                              "--out", tmp_path / "res"])
    assert code == 2 and err == ["fsengine select: error: t.csv.gz unpacks to more than 1.0 MB, a quarter of this "
                                 "machine's memory: too large to read here; split the table or read it in parts."]


def test_sniffing_the_separator_reads_only_the_first_lines():
    from fsengine.data.upload import sniff_separator

    text = "a;b\n" + "1;2\n" * 2_000_000
    peak, outcome = _peak_bytes(lambda: sniff_separator(text))
    assert outcome == ";" and peak < 2**20, peak   # not a list of two million lines


# ------------------------------------------------ methods that fail: one line, and the others go on
HOSTILE_METHODS = '''
import sys

import numpy as np
from sklearn.base import BaseEstimator


class Crashing(BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("boom in fit")


class Typed(BaseEstimator):
    def fit(self, X, y):
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")


class Exiting(BaseEstimator):
    def fit(self, X, y):
        sys.exit(3)


class AllNaN(BaseEstimator):
    def fit(self, X, y):
        self.scores_ = np.full(X.shape[1], np.nan)
        return self


class SomeNaN(BaseEstimator):
    def fit(self, X, y):
        self.scores_ = np.arange(X.shape[1], dtype=float)
        self.scores_[-2:] = np.nan
        return self


class NoReturn(BaseEstimator):
    def fit(self, X, y):
        self.scores_ = np.arange(X.shape[1], dtype=float)   # forgets 'return self'
'''
#: a script that parses its own command line when imported (no __main__ guard)
SCRIPT_MODULE = '''
import argparse

parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--epochs", type=int, required=True)
parser.parse_args()
'''


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """``hostile_methods`` and ``script_module`` importable; a small table at ``tmp_path / 't.csv'``."""
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "hostile_methods.py").write_text(HOSTILE_METHODS)
    (tmp_path / "code" / "script_module.py").write_text(SCRIPT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    write_table(tmp_path / "t.csv", n=60)
    return tmp_path


def _strict_json(path: Path):
    """The file parsed as JSON proper: a bare NaN or Infinity is an error (as in browsers and jq)."""
    def refuse(token):
        raise ValueError(f"{path.name} holds {token}, which is not JSON")
    return json.loads(path.read_text(), parse_constant=refuse)


@pytest.mark.parametrize("cls,reason", [
    ("Crashing", "RuntimeError: boom in fit"),
    ("Typed", "TypeError: unsupported operand type(s) for +: 'int' and 'str'"),
    ("Exiting", "SystemExit: it called sys.exit(3)"),
    ("AllNaN", "it gave no finite score (6 NaN of 6), so it ranks nothing"),
])
def test_select_reports_a_failing_own_class_in_one_line(hostile, capsys, cls, reason):
    code, err = _run(capsys, ["select", "--method", f"hostile_methods:{cls}", "--data", hostile / "t.csv",
                              "--target", "label", "--out", hostile / "res"])
    # the error in one line, after the progress bar's announcement of the fit (a captured stderr's lines)
    assert code == 2 and err[-1] == f"fsengine select: error: {cls} failed: {reason}"
    assert err[:-1] == [line for line in err[:-1] if line.startswith(f"select hostile_methods:{cls} [")], err
    assert not (hostile / "res").exists()


def test_some_nan_scores_rank_last_with_a_note_and_every_json_file_is_json(hostile, capsys):
    code, err = _run(capsys, ["select", "--method", "hostile_methods:SomeNaN", "--data", hostile / "t.csv",
                              "--target", "label", "--out", hostile / "res"])
    assert code == 0, err
    summary = _strict_json(hostile / "res" / "summary.json")
    assert [row["name"] for row in summary["top"]] == ["f3", "f2", "f1", "f0", "f4", "f5"]
    assert [row["score"] for row in summary["top"]][-2:] == [None, None]
    assert "SomeNaN: 2 NaN of 6 scores are not finite ('f4', 'f5'); those features rank last" in summary["notes"]
    _strict_json(hostile / "res" / MARKER)


def test_a_fit_without_return_self_is_read_with_a_note(hostile, capsys):
    code, err = _run(capsys, ["select", "--method", "hostile_methods:NoReturn", "--data", hostile / "t.csv",
                              "--target", "label", "--out", hostile / "res"])
    assert code == 0, err
    summary = _strict_json(hostile / "res" / "summary.json")
    assert summary["top"][0]["name"] == "f5"
    assert any("NoReturn.fit returned NoneType instead of the estimator itself (scikit-learn's convention: end fit "
               "with 'return self')" in note for note in summary["notes"])


def test_a_module_that_exits_at_import_is_an_fsengine_error(hostile, capsys):
    import sys

    for argv in (["select", "--method", "script_module:Model"], ["compare", "--methods", "variance,script_module:M"]):
        code, err = _run(capsys, [*argv, "--data", hostile / "t.csv", "--target", "label", "--out", hostile / "r"])
        assert code == 2 and err == [
            f"fsengine {argv[0]}: error: {argv[2].split(',')[-1]}: cannot import script_module (SystemExit: it called "
            "sys.exit(2); it printed 'train.py: error: the following arguments are required: --epochs'); a module "
            "that runs a script's command line when imported needs an 'if __name__ == \"__main__\":' guard"], err
        sys.modules.pop("script_module", None)
    with pytest.raises(ValueError, match=r"^script_module:Parser: cannot import script_module \(SystemExit"):
        from fsengine.methods.custom import parse_value

        parse_value("script_module:Parser")


def test_compare_goes_on_when_a_method_crashes_in_its_warm_up(hostile, capsys):
    code, err = _run(capsys, ["compare", "--methods", "hostile_methods:Crashing,variance,hostile_methods:AllNaN,anova",
                              "--data", hostile / "t.csv", "--target", "label", "--bootstrap", "0", "--max-k", "4",
                              "--k", "2", "--out", hostile / "res"])
    assert code == 0, err
    assert [line for line in err if not line.startswith("compare ")] == [  # (the progress bar is on stderr too)
        "warning: the reference Crashing failed (RuntimeError: boom in fit); the differences are against Variance, "
        "the first method that ran"]
    failures = pd.read_csv(hostile / "res" / "failures.csv")
    assert dict(zip(failures["method"], failures["error"])) == {
        "Crashing": "RuntimeError: boom in fit", "AllNaN": "it gave no finite score (6 NaN of 6), so it ranks nothing"}
    summary = pd.read_csv(hostile / "res" / "summary.csv")
    assert list(summary["method"]) == ["Variance", "ANOVA F"]            # never ranked by column index
    assert "the reference Crashing failed" in (hostile / "res" / "report.html").read_text()


@pytest.mark.parametrize("param,pattern", [
    ("bia.lambda_ratio=nan", r"lambda_ratio=nan: must be a finite number"),
    ("bia.lambda_ratio=inf", r"lambda_ratio=inf: must be a finite number"),
    ("bia.lambda_ratio=-1e309", r"lambda_ratio=-inf: must be a finite number"),
    ("SelectKBest.k=-5", r"SelectKBest rejects its parameters: The 'k' parameter of SelectKBest must be .*Got -5 "
                         r"instead\."),
    ("SelectKBest.score_func=5", r"SelectKBest rejects its parameters: The 'score_func' parameter of SelectKBest "
                                 r"must be a callable"),
])
def test_compare_validates_every_value_before_any_fit(hostile, capsys, monkeypatch, param, pattern):
    import fsengine.methods.run as run

    monkeypatch.setattr(run, "fit_method", lambda *a, **k: pytest.fail("fitted before validating"))
    code, err = _run(capsys, ["compare", "--methods", "bia,sklearn.feature_selection:SelectKBest", "--param", param,
                              "--data", hostile / "t.csv", "--target", "label", "--out", hostile / "res"])
    assert code == 2 and len(err) == 1 and re.search(pattern, err[0]), err


def test_select_validates_an_own_class_before_reading_the_data(hostile, capsys):
    code, err = _run(capsys, ["select", "--method", "sklearn.feature_selection:SelectKBest", "--param", "k=-5",
                              "--data", hostile / "missing.csv", "--target", "label", "--out", hostile / "res"])
    assert code == 2 and err[0].startswith("fsengine select: error: SelectKBest rejects its parameters: The 'k' "
                                           "parameter of SelectKBest must be")


def test_run_comparison_validates_every_value_before_any_fit(monkeypatch):
    from sklearn.feature_selection import SelectKBest

    import fsengine.compare.runner as compare

    monkeypatch.setattr(compare, "fit_method", lambda *a, **k: pytest.fail("fitted before validating"))
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5))
    ds = Dataset(X=X, y=(X[:, 0] > 0).astype(int), feature_names=tuple("abcde"), provenance=Provenance("t"),
                 name="t", target_names=("n", "p"))
    with pytest.raises(ValueError, match=r"^lambda_ratio=nan: must be a finite number$"):
        compare.run_comparison(ds, ["variance", ("bia", {"lambda_ratio": float("nan")})])
    with pytest.raises(ValueError, match=r"^SelectKBest rejects its parameters: The 'k' parameter"):
        compare.run_comparison(ds, ["variance", (SelectKBest(), {"k": -5})])


def test_the_warm_up_is_inside_each_methods_failure_handling():
    """An error of any type from one method, warm-up included, is that method's failure (API)."""
    from sklearn.base import BaseEstimator

    import fsengine.compare.runner as compare

    class Broken(BaseEstimator):
        def fit(self, X, y):
            raise KeyError("no such column")

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5))
    ds = Dataset(X=X, y=(X[:, 0] > 0).astype(int), feature_names=tuple("abcde"), provenance=Provenance("t"),
                 name="t", target_names=("n", "p"))
    result = compare.run_comparison(ds, [Broken(), "variance"], compare.CompareSettings(n_bootstrap=2, max_k=3))
    assert result.labels == ["Variance"] and result.failures == {"Broken": "KeyError: 'no such column'"}


def test_reproduce_results_json_is_json_with_null_for_no_number(tmp_path):
    from fsengine.reproduce import results

    row = results.Row("a quantity", float("nan"), 0.5, "recorded: a row of a test", None, None, None)
    path = results.write(tmp_path, "t", True, {"seed": 0, "ratio": float("inf")}, [row])
    data = _strict_json(path)
    assert data["rows"][0]["paper"] is None and data["inputs"]["ratio"] is None


# ------------------------------------------------------------ environment variables: checked at start
_UNUSABLE_SIZE = (r"is not a usable size; set it to a positive, finite number of megabytes, e\.g\. 200 \(the app's "
                  r"server needs a limit; unset it for the default of 200\)$")
ENVIRONMENT_CASES = {
    "upload-inf": ("FSENGINE_MAX_UPLOAD_MB", "inf", r"FSENGINE_MAX_UPLOAD_MB='inf' " + _UNUSABLE_SIZE),
    "upload-nan": ("FSENGINE_MAX_UPLOAD_MB", "nan", r"FSENGINE_MAX_UPLOAD_MB='nan' " + _UNUSABLE_SIZE),
    "upload-negative": ("FSENGINE_MAX_UPLOAD_MB", "-5", r"FSENGINE_MAX_UPLOAD_MB='-5' " + _UNUSABLE_SIZE),
    "upload-zero": ("FSENGINE_MAX_UPLOAD_MB", "0", r"FSENGINE_MAX_UPLOAD_MB='0' " + _UNUSABLE_SIZE),
    "upload-huge": ("FSENGINE_MAX_UPLOAD_MB", "1e300", r"FSENGINE_MAX_UPLOAD_MB='1e300' " + _UNUSABLE_SIZE),
    "upload-text": ("FSENGINE_MAX_UPLOAD_MB", "200MB", r"FSENGINE_MAX_UPLOAD_MB='200MB' is not a number; set it to a "
                                                      r"size in megabytes, e\.g\. 200$"),
    "data-missing": ("FSENGINE_DATA", "{tmp}/nope", r"FSENGINE_DATA=.*/nope: no such folder; point it at the folder "
                                                    r"holding the shared data or unset it$"),
    "data-file": ("FSENGINE_DATA", "{tmp}/file", r"FSENGINE_DATA=.*/file is a file, not a folder"),
    "cache-file": ("FSENGINE_CACHE", "{tmp}/file", r"FSENGINE_CACHE=.*/file is a file, not a folder"),
    "datasets-file": ("FSENGINE_DATASETS", "{tmp}/file", r"FSENGINE_DATASETS=.*/file is a file, not a folder"),
    "mirror-ftp": ("FSENGINE_FETCH_BASE_URL", "ftp://mirror.example",
                   r"FSENGINE_FETCH_BASE_URL='ftp://mirror\.example' is not an http\(s\) or file address"),
    "mirror-no-host": ("FSENGINE_FETCH_BASE_URL", "https:/data", r"FSENGINE_FETCH_BASE_URL='https:/data' is not an"),
    "nltk-file": ("NLTK_DATA", "{tmp}/file", r"NLTK_DATA names .*/file, a file, not a folder"),
}


@pytest.mark.parametrize("case", list(ENVIRONMENT_CASES))
def test_every_environment_variable_is_checked_at_start_in_one_line(case, tmp_path, capsys, monkeypatch):
    name, value, pattern = ENVIRONMENT_CASES[case]
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv(name, value.format(tmp=tmp_path))
    code, err = _run(capsys, ["datasets", "list"])
    assert code == 2 and len(err) == 1 and re.search("^fsengine datasets: error: " + pattern, err[0]), err


@pytest.mark.parametrize("value", ["inf", "nan", "-5"])
def test_the_app_command_refuses_an_unusable_upload_limit_before_serving(value, capsys, monkeypatch):
    import fsengine.commands.app as app

    monkeypatch.setattr(app, "serve", lambda command: pytest.fail("a server was started"))
    monkeypatch.setenv("FSENGINE_MAX_UPLOAD_MB", value)
    code, err = _run(capsys, ["app", "--no-warmup", "--port", "8599"])
    assert code == 2 and err == [f"fsengine app: error: FSENGINE_MAX_UPLOAD_MB={value!r} is not a usable size; set it "
                                 "to a positive, finite number of megabytes, e.g. 200 (the app's server needs a limit; "
                                 "unset it for the default of 200)"]


def test_the_app_names_unusable_environment_variables_in_its_sidebar(monkeypatch, tmp_path):
    monkeypatch.setenv("FSENGINE_MAX_UPLOAD_MB", "inf")
    monkeypatch.setenv("FSENGINE_DATA", str(tmp_path / "nope"))
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("upload").run()
    assert not at.exception
    errors = [e.value for e in at.sidebar.error]
    assert md_escape(f"FSENGINE_DATA={tmp_path / 'nope'}: no such folder; point it at the folder holding the shared "
                     "data or unset it") in errors
    assert md_escape("FSENGINE_MAX_UPLOAD_MB='inf' is not a usable size; set it to a positive, finite number of "
                     "megabytes, e.g. 200 (the app's server needs a limit; unset it for the default of 200)") in errors


# --------------------------------------------------- output folders: links followed, the umask's permissions
@pytest.mark.parametrize("command", ["select", "compare"])
def test_a_linked_out_folder_is_followed_and_replaced_whole_behind_the_link(command, tmp_path, capsys):
    write_table(tmp_path / "t.csv")
    (tmp_path / "disk" / "results").mkdir(parents=True)
    (tmp_path / "res").symlink_to(tmp_path / "disk" / "results")   # e.g. a link to a bigger disk
    argv = [command, "--methods" if command == "compare" else "--method", "variance", "--data", tmp_path / "t.csv",
            "--target", "label", "--out", tmp_path / "res"] + (["--bootstrap", "0", "--k", "2"] if command ==
                                                                "compare" else [])
    for _ in range(2):  # the second run replaces the first set whole, behind the link
        assert _run(capsys, argv)[0] == 0
        assert (tmp_path / "res").is_symlink() and os_readlink(tmp_path / "res") == str(tmp_path / "disk" / "results")
        assert (tmp_path / "disk" / "results" / MARKER).is_file()
        assert sorted(p.name for p in (tmp_path / "disk").iterdir()) == ["results"]   # nothing left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk", "res", "t.csv"]


def os_readlink(path: Path) -> str:
    import os

    return os.readlink(path)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_output_folders_get_the_umasks_permissions(umask, tmp_path, capsys):
    import os
    import stat

    write_table(tmp_path / "t.csv")
    previous = os.umask(umask)
    try:
        for command in ("select", "compare"):
            out = tmp_path / command
            argv = [command, "--methods" if command == "compare" else "--method", "variance", "--data",
                    tmp_path / "t.csv", "--target", "label", "--out", out]
            assert _run(capsys, argv + (["--bootstrap", "0", "--k", "2"] if command == "compare" else []))[0] == 0
            assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask, oct(out.stat().st_mode)
            for path in out.iterdir():
                assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path
    finally:
        os.umask(previous)


# ------------------------------------------------- numeric options: NaN, inf, out of range, absurdly large
OPTION_CASES = {
    # command-line options of compare (settings checked before any data are read)
    "test-size-nan": (["compare", "--test-size", "nan"], r"test_size=nan: choose a held-out share between 0\.05"),
    "test-size-inf": (["compare", "--test-size", "inf"], r"test_size=inf: choose a held-out share"),
    "bootstrap-huge": (["compare", "--bootstrap", "1000000000"],
                       r"n_bootstrap=1000000000: stability needs 0 \(off\) or at least 2 resamples \(at most 1,000\)$"),
    "seed-negative": (["compare", "--seed", "-1"], r"seed=-1: choose a seed between 0 and 4,294,967,295$"),
    "seed-huge": (["compare", "--seed", str(2**40)], r"seed=1099511627776: choose a seed between 0 and 4,294,967,295$"),
    "repeats-huge": (["compare", "--repeats", "100000"], r"n_repeats=100000: choose 1 .* up to 50 repeated splits$"),
    # dataset parameters (the registry's Param, the same for the app's widgets)
    "data-signal-inf": (["select", "--data", "synthetic_glm:signal=inf"], r"signal=inf: must be a finite number$"),
    "data-rate-nan": (["select", "--data", "synthetic_rtm:tag_rate=nan"], r"tag_rate=nan: must be a finite number$"),
    "data-rho-nan": (["select", "--data", "synthetic_glm:rho=nan"], r"rho=nan: must be a finite number$"),
    # method parameters of a registered method and of a class given by path
    "param-nan": (["select", "--method", "l1", "--param", "n_Cs=nan"], r"n_Cs='nan': expected an int$"),
    "param-float-inf": (["select", "--method", "bia", "--param", "lambda_ratio=1e999"],
                        r"lambda_ratio=inf: must be a finite number$"),
    "class-param-inf": (["select", "--method", "sklearn.feature_selection:SelectPercentile", "--param",
                         "percentile=1e999"], r"SelectPercentile rejects its parameters: The 'percentile' parameter of "
                                              r"SelectPercentile must be a float in the range \[0(\.0)?, 100(\.0)?\]"),
}


@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_numeric_options_are_checked_in_one_line_before_any_work(case, tmp_path, capsys, monkeypatch):
    import fsengine.compare.runner as engine
    import fsengine.methods.run as run

    # a regression must fail here, not draw a billion resamples
    monkeypatch.setattr(engine, "run_comparison", lambda *a, **k: pytest.fail("compared before checking"))
    monkeypatch.setattr(run, "fit_method", lambda *a, **k: pytest.fail("fitted before checking"))
    args, pattern = OPTION_CASES[case]
    command = args[0]
    argv = [*args]
    if "--method" not in argv:
        argv += ["--methods" if command == "compare" else "--method", "variance"]
    if "--data" not in argv:
        argv += ["--data", "digits"]
    code, err = _run(capsys, [*argv, "--out", tmp_path / "res"])
    assert code == 2 and len(err) == 1 and re.search(f"^fsengine {command}: error: " + pattern, err[0]), err
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_compressed_bomb_is_unpacked_no_further_than_the_limit(suffix):
    import bz2
    import lzma

    packed = {".gz": lambda: _zeros_gz(32 * 2**20, b"a,b\n"),
              ".bz2": lambda: bz2.compress(b"a,b\n" + bytes(32 * 2**20), 9),
              ".xz": lambda: lzma.compress(b"a,b\n" + bytes(32 * 2**20))}[suffix]()
    peak, outcome = _peak_bytes(lambda: read_table(packed, f"t.csv{suffix}", max_bytes=2**20))
    assert isinstance(outcome, UploadError) and str(outcome) == (
        f"t.csv{suffix} unpacks to more than 1.0 MB, over the upload limit; upload a smaller table or raise the limit "
        "with FSENGINE_MAX_UPLOAD_MB.")
    assert peak < 16 * 2**20, peak  # the decoder's own buffers (xz: an 8 MB dictionary), not the 32 MB


def test_svmlight_labels_beyond_int64_stay_two_classes():
    """Whole-number labels are read as integers only while int64 holds them exactly (1e300 once
    became -9223372036854775808 for every row: 'a single class')."""
    from fsengine.data.upload import load_svmlight

    data = b"".join(b"%r 1:%d 2:%d\n" % ((1e300, -1e300)[i % 2], i, i * i % 7) for i in range(20))
    ds = load_svmlight(data, "t.svm")
    assert ds.task == "classification" and ds.target_names == ("-1e+300", "1e+300")
    np.testing.assert_array_equal(ds.y, np.arange(20) % 2 == 0)
