"""CSV exports are safe in a spreadsheet (OWASP CSV injection) and read back exactly; user text
shown in the app's markdown is escaped."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsengine.app.safe_text import SPECIAL, md_escape
from fsengine.cli import main
from fsengine.csv_export import DANGEROUS, csv_bytes, escape_cell, unescape_cell
from tests.test_bad_inputs import HOSTILE


@pytest.mark.parametrize("value,expected", [
    ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"), ("+1+2", "'+1+2"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"), ("\rx", "'\rx"), ("'=x", "''=x"), ("-", "'-"),
    ("-1.5", "-1.5"), ("+3e5", "+3e5"), ("plain", "plain"), ("'quoted", "'quoted"), ("", ""), (2.5, 2.5), (None, None),
])
def test_owasp_escaping(value, expected):
    assert escape_cell(value) == expected


@settings(deadline=None)  # a loaded shared machine must not make these fail
@given(st.text())
def test_escaping_round_trips_and_no_cell_starts_a_formula(text):
    escaped = escape_cell(text)
    assert unescape_cell(escaped) == text
    if escaped and escaped[0] in DANGEROUS:
        float(escaped)  # only numbers such as -1.5 may keep their sign


def test_every_text_cell_column_name_and_index_is_escaped():
    df = pd.DataFrame({"=name": ["=1+1", "ok", "-x"], "score": [-1.5, 2.0, 3.0]}, index=["@a", "b", "c"])
    back = pd.read_csv(io.BytesIO(csv_bytes(df)), index_col=0)
    assert list(back.columns) == ["'=name", "score"] and list(back.index) == ["'@a", "b", "c"]
    assert list(back["'=name"]) == ["'=1+1", "ok", "'-x"] and list(back["score"]) == [-1.5, 2.0, 3.0]
    assert list(df["=name"]) == ["=1+1", "ok", "-x"]  # the caller's frame is untouched


def test_cli_exports_escape_feature_names(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    df = pd.DataFrame(X, columns=HOSTILE[:3]).assign(label=np.where(X[:, 0] > 0, "a", "b"))
    df.to_csv(tmp_path / "t.csv", index=False)
    assert main(["select", "--method", "variance", "--data", str(tmp_path / "t.csv"), "--target", "label",
                 "--out", str(tmp_path / "sel")]) == 0
    names = pd.read_csv(tmp_path / "sel" / "scores.csv")["name"].map(unescape_cell)
    assert list(names) == HOSTILE[:3]
    assert pd.read_csv(tmp_path / "sel" / "scores.csv")["name"][0] == "'" + HOSTILE[0]
    assert json.loads((tmp_path / "sel" / "summary.json").read_text())["top"][0]["name"] in HOSTILE[:3]
    assert main(["compare", "--methods", "variance", "--data", str(tmp_path / "t.csv"), "--target", "label",
                 "--bootstrap", "0", "--k", "1", "--out", str(tmp_path / "cmp")]) == 0
    capsys.readouterr()
    assert pd.read_csv(tmp_path / "cmp" / "scores.csv")["name"][0] == "'" + HOSTILE[0]


def test_comparison_zip_members_are_escaped():
    from fsengine.compare.report import tables_zip
    from fsengine.compare.runner import run_comparison
    from fsengine.compare.settings import CompareSettings
    from fsengine.data.dataset import Dataset, Provenance

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    ds = Dataset(X=X, y=(X[:, 0] > 0).astype(int), feature_names=("=1+1", "b", "c"), provenance=Provenance("t"),
                 name="t", target_names=("n", "p"))
    result = run_comparison(ds, ["variance"], CompareSettings(n_bootstrap=0, max_k=2))
    with zipfile.ZipFile(io.BytesIO(tables_zip(result, 1))) as archive:
        scores = pd.read_csv(io.BytesIO(archive.read("scores.csv")))
    assert scores["name"][0] == "'=1+1"


@settings(deadline=None)  # a loaded shared machine must not make these fail
@given(st.text())
def test_markdown_escape_leaves_no_special_character_unescaped(text):
    escaped = md_escape(text, inline=True)
    assert "\n" not in escaped and "\r" not in escaped
    i = 0
    while i < len(escaped):  # every special character is preceded by its own backslash
        if escaped[i] == "\\":
            assert escaped[i + 1] in SPECIAL
            i += 2
            continue
        assert escaped[i] not in SPECIAL
        i += 1
