"""``fsengine select|compare`` with the toolbox methods, your own MODULE:CLASS selector and your own
file formats (compressed CSV/TSV, svmlight), and the one-line errors around them."""

import bz2
import gzip
import io
import json
import lzma
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from sklearn.feature_selection import f_classif

from fsengine.cli import main
from fsengine.data import load_dataset
from fsengine.methods.registry import method_keys
from tests.commands.test_output import write_table

TOOLBOX = ["anova", "chi2", "forest", "permutation", "rfe", "stability", "mrmr"]
SMALL = {"forest": ["n_estimators=10"], "permutation": ["n_repeats=2"], "stability": ["n_resamples=10", "n_Cs=3"],
         "mrmr": ["max_features=5"]}


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.strip().splitlines()


def _one_line_error(capsys, argv, command="select"):
    code, _, err = _run(capsys, argv)
    # the error in one line; before it only the progress bar's announcement of a fit that was started
    assert code == 2 and err and err[-1].startswith(f"fsengine {command}: error: "), err
    assert all(line.startswith(f"{command} ") and "error" not in line for line in err[:-1]), err
    return err[-1]


@pytest.mark.parametrize("key", TOOLBOX)
def test_select_runs_every_toolbox_method(key, tmp_path, capsys):
    argv = ["select", "--method", key, "--data", "synthetic_glm:n=200,p=10", "--out", tmp_path]
    for item in SMALL.get(key, []):
        argv += ["--param", item]
    code, out, err = _run(capsys, argv)
    assert code == 0, err
    summary = json.loads((tmp_path / "summary.json").read_text())
    scores = pd.read_csv(tmp_path / "scores.csv")
    assert summary["method"] == key and len(scores) == 10 and scores["rank"].min() == 1
    assert summary["selected_by_method"] == int(scores["selected"].sum())
    if key == "chi2":  # gaussian features: rescaled, and the note says so
        assert "note: Chi² needs non-negative features: 10 feature(s) had negative values" in out


def test_select_your_own_class_select_k_best(tmp_path, capsys):
    code, out, err = _run(capsys, ["select", "--method", "sklearn.feature_selection:SelectKBest", "--param", "k=20",
                                   "--data", "digits", "--out", tmp_path])
    assert code == 0, err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["method"] == "sklearn.feature_selection:SelectKBest" and summary["label"] == "SelectKBest"
    assert summary["parameters"] == {"k": 20} and summary["selected_by_method"] == 20
    ds = load_dataset("digits")
    with np.errstate(invalid="ignore", divide="ignore"):
        F = f_classif(ds.X, ds.y)[0]
    scores = pd.read_csv(tmp_path / "scores.csv")
    np.testing.assert_allclose(scores["score"], F, rtol=1e-10)           # NaN where the pixel is constant
    assert scores.loc[scores["selected"], "feature"].tolist() == sorted(np.argsort(-np.nan_to_num(F, nan=-1))[:20])


def test_select_your_own_select_from_model_with_a_class_valued_parameter(tmp_path, capsys):
    code, out, err = _run(capsys, ["select", "--method", "sklearn.feature_selection:SelectFromModel",
                                   "--param", "estimator=sklearn.linear_model:LogisticRegression",
                                   "--param", "threshold='mean'",
                                   "--data", "synthetic_glm:n=300,p=12", "--out", tmp_path])
    assert code == 0, err
    scores = pd.read_csv(tmp_path / "scores.csv")
    assert scores["score"].min() >= 0 and 0 < scores["selected"].sum() < 12
    assert (scores.loc[scores["selected"], "score"].min() >= scores["score"].mean())   # SelectFromModel's rule
    assert "SelectFromModel on synthetic_glm" in out


@pytest.mark.parametrize("method, message", [
    ("tests.methods.test_custom:ExposesNothing",
     "ExposesNothing exposes none of scores_, feature_importances_, coef_, ranking_ or get_support() after fit"),
    ("nosuchmodule_xyz:Thing", "cannot import nosuchmodule_xyz (ModuleNotFoundError"),
    ("sklearn.feature_selection:Nope", "sklearn.feature_selection has no attribute 'Nope'"),
])
def test_your_own_class_errors_are_one_line(method, message, tmp_path, capsys):
    line = _one_line_error(capsys, ["select", "--method", method, "--data", "digits", "--out", tmp_path / "o"])
    assert message in line
    assert not (tmp_path / "o").exists()


def test_compare_toolbox_and_your_own_class(tmp_path, capsys):
    code, out, err = _run(capsys, ["compare", "--methods", "anova,mrmr,sklearn.feature_selection:SelectKBest",
                                   "--param", "SelectKBest.k=4", "--param", "mrmr.max_features=6",
                                   "--data", "synthetic_glm:n=200,p=15", "--bootstrap", "2", "--max-k", "6",
                                   "--k", "3", "--out", tmp_path])
    assert code == 0, err
    summary = pd.read_csv(tmp_path / "summary.csv")
    runtime = pd.read_csv(tmp_path / "runtime.csv").set_index("method")
    assert summary["method"].tolist() == ["ANOVA F", "mRMR", "SelectKBest"]
    assert runtime.loc["SelectKBest", "parameters"] == "k=4" and runtime.loc["SelectKBest", "selected_by_method"] == 4
    assert runtime.loc["mRMR", "parameters"] == "max_features=6, bins=mean_sd"
    code, _, err = _run(capsys, ["compare", "--methods", "anova,sklearn.feature_selection:SelectKBest", "--param",
                                 "sklearn.feature_selection:SelectKBest.k=2", "--data", "synthetic_glm:n=200,p=15",
                                 "--bootstrap", "0", "--max-k", "4", "--k", "2", "--out", tmp_path, "--force"])
    assert code == 0, err
    assert pd.read_csv(tmp_path / "runtime.csv").set_index("method").loc["SelectKBest", "parameters"] == "k=2"
    line = _one_line_error(capsys, ["compare", "--methods", "anova", "--param", "SelectKBest.k=2", "--data", "digits",
                                    "--out", tmp_path / "o"], "compare")
    assert "method 'SelectKBest' is not among --methods (anova)" in line


@pytest.mark.parametrize("command", ["select", "compare"])
def test_help_lists_the_toolbox_and_module_class(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    for key in TOOLBOX:
        assert f"  {key}: " in text
    assert "pi_threshold=0.75 (float [0.6..1.0])" in text and "MODULE:CLASS" in text
    assert set(TOOLBOX) <= set(method_keys())


# ---------------------------------------------------------------------------- your own file formats
def _compress(raw: bytes, suffix: str) -> bytes:
    if suffix == ".gz":
        return gzip.compress(raw)
    if suffix == ".bz2":
        return bz2.compress(raw)
    if suffix == ".xz":
        return lzma.compress(raw)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("table.csv", raw)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["t.csv.gz", "t.csv.bz2", "t.csv.xz", "t.csv.zip", "t.tsv", "t.tsv.gz", "t.txt.xz"])
def test_compressed_and_tab_separated_tables_give_the_plain_csvs_result(name, tmp_path, capsys):
    plain = write_table(tmp_path / "plain.csv", n=40)
    df = pd.read_csv(plain)
    raw = df.to_csv(index=False, sep="\t" if ".tsv" in name else ",").encode()
    path = tmp_path / name
    suffix = "." + name.rsplit(".", 1)[1]
    path.write_bytes(raw if suffix == ".tsv" else _compress(raw, suffix))
    for data, out in ((plain, tmp_path / "a"), (path, tmp_path / "b")):
        code, printed, err = _run(capsys, ["select", "--method", "anova", "--data", data, "--target", "label",
                                           "--out", out])
        assert code == 0, err
    a, b = pd.read_csv(tmp_path / "a" / "scores.csv"), pd.read_csv(tmp_path / "b" / "scores.csv")
    pd.testing.assert_frame_equal(a, b)
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["dataset"] == name and summary["n_samples"] == 40


def _svmlight(path, n=60, p=9, seed=0, zero_based=False):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.4, random_state=seed, format="lil")
    X[:, 2] = (rng.random((n, 1)) < 0.5).astype(float)
    X = X.tocsr()
    y = np.where(X[:, 2].toarray().ravel() > 0, 1, -1)
    y[:5] *= -1
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return X, y


def test_svmlight_has_its_own_labels_and_target_is_an_error(tmp_path, capsys):
    X, y = _svmlight(tmp_path / "news.svm")
    code, out, err = _run(capsys, ["select", "--method", "chi2", "--data", tmp_path / "news.svm",
                                   "--out", tmp_path / "a"])
    assert code == 0, err
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["n_samples"] == 60 and summary["n_features"] == 9 and summary["top"][0]["name"] == "f3"
    assert "news.svm: svmlight labels (classification, 2 classes)" in out
    code, out, err = _run(capsys, ["compare", "--methods", "anova,mi", "--data", tmp_path / "news.svm",
                                   "--bootstrap", "0", "--max-k", "4", "--k", "2", "--out", tmp_path / "b"])
    assert code == 0, err
    line = _one_line_error(capsys, ["select", "--method", "anova", "--data", tmp_path / "news.svm", "--target", "y",
                                    "--out", tmp_path / "c"])
    assert "--target goes with a table file;" in line and "news.svm is an svmlight/libsvm file with its own labels" \
        in line


@pytest.mark.parametrize("setup, data, pattern", [
    ("folder", "{tmp}/tables", r"--data .*tables is a folder, not a data file; fsengine reads CSV/TSV \(.csv, .tsv"),
    ("folder", "{tmp}/digits", r"--data .*digits is a folder, not a data file"),        # never the catalogue's
    ("xlsx", "{tmp}/t.xlsx", r"--data t\.xlsx: unsupported file type \.xlsx; fsengine reads CSV/TSV .*svmlight"),
    ("plainfile", "{tmp}/digits", r"--data digits: unsupported file type \(none\); fsengine reads"),
    (None, "{tmp}/missing.csv.gz", r"--data .*missing\.csv\.gz: no such file"),
    ("badgz", "{tmp}/t.csv.gz", r"t\.csv\.gz is not a readable \.gz file"),
])
def test_data_paths_get_their_own_one_line_error(setup, data, pattern, tmp_path, capsys, monkeypatch):
    import re

    monkeypatch.chdir(tmp_path)
    if setup == "folder":
        (tmp_path / data.rsplit("/", 1)[1]).mkdir()
    elif setup == "xlsx":
        (tmp_path / "t.xlsx").write_bytes(b"PK not really")
    elif setup == "plainfile":
        (tmp_path / "digits").write_text("a,b\n1,2\n")
    elif setup == "badgz":
        (tmp_path / "t.csv.gz").write_bytes(b"not gzip at all")
    argv = ["select", "--method", "variance", "--data", data.format(tmp=tmp_path), "--out", tmp_path / "o"]
    if setup == "badgz":
        argv += ["--target", "label"]
    line = _one_line_error(capsys, argv)
    assert re.search(pattern, line), line
    assert not (tmp_path / "o").exists()
