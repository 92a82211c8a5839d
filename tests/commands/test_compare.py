"""``fsengine select`` and ``fsengine compare``: files written and readable, errors as one line."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from fsengine.cli import main
from fsengine.methods.registry import method_keys
from tests.conftest import PROJECT_ROOT


def test_select_writes_scores_order_trace_summary_and_figures(tmp_path, capsys):
    assert main(["select", "--method", "mi", "--data", "digits", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "note: MI needs binary features: features binarised as x > 0.5." in out
    scores = pd.read_csv(tmp_path / "scores.csv")
    ranking = pd.read_csv(tmp_path / "order.csv")
    assert len(scores) == 64 and ranking["rank"].tolist() == list(range(1, 65))
    assert sorted(ranking["feature"]) == list(range(64))
    # the ranking is the scores sorted (MI has no selection order of its own)
    assert np.all(np.diff(ranking["score"].to_numpy()) <= 0)
    assert scores.set_index("feature").loc[ranking["feature"], "rank"].tolist() == list(range(1, 65))
    trace = pd.read_csv(tmp_path / "trace.csv")
    assert {"feature", "mi", "p_value"} <= set(trace.columns)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["method"] == "mi" and summary["parameters"] == {"alpha": 0.01}
    assert summary["selected_by_method"] == int(scores["selected"].sum())
    assert summary["top"][0]["feature"] == ranking["feature"].iloc[0]
    for name in ("top_ranked", "score_by_rank", "score_image", "mi_bars"):
        html = (tmp_path / f"{name}.html").read_text()
        assert '<script charset="utf-8" src="plotly.min.js"></script>' in html and len(html) < 100_000
    assert (tmp_path / "plotly.min.js").stat().st_size > 1_000_000


def test_select_path_method_writes_named_path(tmp_path):
    args = ["select", "--method", "bia", "--data", "synthetic_glm:p=12,n=200", "--param", "n_steps=20",
            "--out", str(tmp_path)]
    assert main(args) == 0
    path = pd.read_csv(tmp_path / "path.csv", index_col=0)
    scores = pd.read_csv(tmp_path / "scores.csv")
    assert path.shape == (20, 12) and list(path.columns) == scores["name"].tolist()
    assert path.index.name == "lambda_ratio" and path.to_numpy().min() >= 0 and path.to_numpy().max() <= 1
    assert scores["relevant"].sum() == 5 and (tmp_path / "bia_path.html").is_file()


def test_compare_writes_tables_and_report(tmp_path, capsys):
    args = ["compare", "--methods", "mi,variance", "--data", "synthetic_glm:p=20,n=200", "--bootstrap", "2",
            "--max-k", "8", "--k", "3", "--param", "mi.alpha=0.05", "--out", str(tmp_path)]
    assert main(args) == 0
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert summary["method"].tolist() == ["MI", "Variance"] and summary["auc"].between(0, 1).all()
    runtime = pd.read_csv(tmp_path / "runtime.csv")
    assert runtime.loc[0, "parameters"] == "alpha=0.05"
    jaccard = pd.read_csv(tmp_path / "jaccard.csv", index_col=0)
    assert np.allclose(np.diag(jaccard.to_numpy()), 1.0)
    accuracy = pd.read_csv(tmp_path / "accuracy.csv")
    assert accuracy["k"].max() == 8 and (accuracy["low"] <= accuracy["accuracy"]).all()
    assert accuracy["method"].str.startswith("95% Wilson score interval").any()
    differences = pd.read_csv(tmp_path / "differences.csv")
    assert list(differences.columns[:7]) == ["method", "reference", "k", "difference", "low", "high", "verdict"]
    assert set(differences["reference"]) == {"MI"} and set(differences["method"]) == {"Variance"}
    # stability.csv: Nogueira's estimate and its paired test against the reference beside Kuncheva's index, the
    # numbers the estimator gives on the same fits (the run is deterministic: the same comparison in this process)
    from fsengine.compare.runner import CompareSettings, run_comparison
    from fsengine.data import load_dataset
    from fsengine.selection_metrics import nogueira_difference, nogueira_stability

    stability = pd.read_csv(tmp_path / "stability.csv").set_index("method")
    same = run_comparison(load_dataset("synthetic_glm", p=20, n=200), [("mi", {"alpha": 0.05}), "variance"],
                          CompareSettings(n_bootstrap=2, max_k=8))
    boot = {r.label: [row[:3] for row in r.boot_top] for r in same.runs}
    for label in ("MI", "Variance"):
        phi = nogueira_stability(boot[label], 20)
        assert stability.loc[label, ["nogueira", "nogueira_low"]].tolist() == pytest.approx([phi.value, phi.low])
        assert stability.loc[label, "nogueira"] == pytest.approx(stability.loc[label, "kuncheva"])
    test = nogueira_difference(boot["MI"], boot["Variance"], 20, paired=True, level=same.comparison_level())
    row = stability.loc["Variance"]
    assert [row["stability_difference"], row["stability_difference_low"], row["stability_p"]] == pytest.approx(
        [test.difference.value, test.difference.low, test.pvalue])
    assert row["stability_p_holm"] == pytest.approx(test.pvalue)  # one test: Holm changes nothing
    assert stability.loc["MI", "stability_verdict"] == "reference" and row["reference"] == "MI"
    assert (tmp_path / "report.html").stat().st_size > 3_000_000
    out = capsys.readouterr().out
    assert "resolved from MI" in out and "Bands: 95% Wilson intervals" in out


def test_compare_reference_and_repeated_splits(tmp_path, capsys):
    args = ["compare", "--methods", "mi,variance", "--data", "synthetic_glm:p=20,n=200", "--bootstrap", "0",
            "--max-k", "6", "--k", "3", "--reference", "variance", "--repeats", "3", "--out", str(tmp_path)]
    assert main(args) == 0
    differences = pd.read_csv(tmp_path / "differences.csv")
    assert set(differences["reference"]) == {"Variance"} and set(differences["method"]) == {"MI"}
    assert differences["interval_method"].str.contains("corrected resampled t").all()
    accuracy = pd.read_csv(tmp_path / "accuracy.csv")
    assert accuracy["method"].str.endswith("over 3 repeated splits").all()
    assert "resolved from Variance" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["select", "--method", "lasso", "--data", "digits"], "Unknown method 'lasso'. Known methods: bia, mi"),
    (["select", "--method", "bia", "--data", "digits", "--param", "n_steps=0"], "n_steps=0: must be at least 1"),
    (["select", "--method", "mi", "--data", "nope"], "Unknown dataset 'nope'"),
    (["select", "--method", "bia", "--data", "digits", "--classes", "3"], "--classes '3': give exactly two"),
    (["compare", "--methods", "mi", "--data", "digits", "--param", "l1.n_Cs=4"], "method 'l1' is not among"),
    (["compare", "--methods", "mi", "--data", "digits", "--k", "0"], "--k 0: choose k between 1 and 50"),
    (["compare", "--methods", "mi", "--data", "synthetic_glm:family=linear"], "needs class labels"),
    (["compare", "--methods", "mi", "--data", "digits", "--n-jobs", "2", "--scheduler", "tcp://127.0.0.1:9"],
     "--n-jobs and --scheduler: choose local processes or a Dask cluster, not both"),
    (["compare", "--methods", "mi", "--data", "digits", "--n-jobs", "0"], "n_jobs=0: use 1 (serial)"),
    (["compare", "--methods", "mi,l1", "--data", "digits", "--reference", "bia"],
     "--reference bia: name one of --methods (mi, l1)"),
    (["compare", "--methods", "mi", "--data", "digits", "--repeats", "0"], "n_repeats=0: choose 1"),
    (["reproduce", "mdl-curve", "--n-jobs", "2"],
     "mdl-curve does not take --n-jobs; it applies to: benchmark, rtm-roc, sgc-vs-ifs, toolbox"),
    (["reproduce", "sgc-vs-ifs", "--keep-tasks", "kept"],
     "sgc-vs-ifs does not take --keep-tasks; it applies to: benchmark, rtm-roc, toolbox"),
    (["reproduce", "bia-notmnist", "--scheduler", "tcp://127.0.0.1:9"],
     "bia-notmnist does not take --scheduler; it applies to: benchmark, rtm-roc, toolbox"),
    (["reproduce", "mdl-curve", "--keep-tasks", "kept"], "mdl-curve does not take --keep-tasks; it applies to: "
                                                         "benchmark, rtm-roc, toolbox"),
])
def test_user_mistakes_are_one_line_and_exit_2(argv, message, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"fsengine {argv[0]}: error: ") and message in err[0]


def test_module_entry_point_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "fsengine", "compare", "--methods", "mi,nope", "--data", "digits",
                           "--out", "unused"], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"fsengine compare: error: Unknown method 'nope'. Known methods: {', '.join(method_keys())}"]


@pytest.mark.parametrize("command", ["select", "compare"])
def test_help_lists_every_method_with_its_parameters(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "bia: BIA" in text and "n_steps=200 (int [1..1000])" in text and "variance: Variance" in text
