"""The comparison engine: its numbers recomputed independently, cancellation, failures, export."""

import io
import re
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

from fsengine.compare.engine import (
    RANDOM,
    CompareSettings,
    ComparisonCancelled,
    finite_scores,
    k_grid,
    run_comparison,
    stratified_bootstrap,
)
from fsengine.compare.report import html_report, tables_zip, write_tables
from fsengine.data import load_dataset
from fsengine.data.transforms import split
from fsengine.plots.compare import normalised

SETTINGS = CompareSettings(n_bootstrap=3, max_k=12, seed=0)


@pytest.fixture(scope="module")
def glm():
    return load_dataset("synthetic_glm", n=300, p=20, k=4, seed=3)


@pytest.fixture(scope="module")
def result(glm):
    messages = []
    res = run_comparison(glm, ["mi", ("l1", {"n_Cs": 8}), "variance"], SETTINGS,
                         progress=lambda f, m: messages.append((f, m)))
    res.messages = messages
    return res


def test_progress_is_monotone_and_finishes(result):
    fractions = [f for f, _ in result.messages]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and 0 <= fractions[0] < 0.1
    assert any("L1: L1 path: C" in m for _, m in result.messages)  # the selector's own progress
    assert any("bootstrap 3 of 3" in m for _, m in result.messages)


def test_held_out_accuracy_is_logistic_regression_on_the_top_k(glm, result):
    train, test = split(glm, test_size=SETTINGS.test_size, seed=SETTINGS.seed)
    assert (result.n_train, result.n_test) == (train.n_samples, test.n_samples)
    grid = result.accuracy["k"].unique()
    assert grid.tolist() == k_grid(12, 20).tolist() and grid[0] == 1 and grid[-1] == 12 and np.all(np.diff(grid) > 0)
    for label in ("MI", "L1"):
        top = result.run(label).order[:5]
        scaler = StandardScaler().fit(train.X[:, top])
        clf = LogisticRegression(max_iter=5000).fit(scaler.transform(train.X[:, top]), train.y)
        expected = np.mean(clf.predict(scaler.transform(test.X[:, top])) == test.y)
        got = result.accuracy.query("curve == @label and k == 5")["accuracy"].item()
        assert got == pytest.approx(expected)
    assert set(result.accuracy["curve"]) == {"MI", "L1", "Variance", RANDOM}
    labels, counts = np.unique(train.y, return_counts=True)
    assert result.majority_accuracy == pytest.approx(np.mean(test.y == labels[np.argmax(counts)]))


def test_top_k_views_recomputed_by_hand(result):
    k = 4
    sets = {r.label: set(r.order[:k].tolist()) for r in result.runs}
    jac = result.jaccard(k)
    for a in sets:
        for b in sets:
            assert jac.loc[a, b] == pytest.approx(len(sets[a] & sets[b]) / len(sets[a] | sets[b]))
    stab = result.stability(k).set_index("method")
    n = result.n_features
    for r in result.runs:
        boot = [set(row[:k].tolist()) for row in r.boot_top]
        pairs = [(len(a & b) * n - k * k) / (k * (n - k)) for i, a in enumerate(boot) for b in boot[i + 1:]]
        assert stab.loc[r.label, "kuncheva"] == pytest.approx(np.mean(pairs))
        assert stab.loc[r.label, "pairs"] == 3
    with pytest.raises(ValueError, match="between 1 and 12"):
        result.jaccard(13)


def test_bootstrap_rankings_are_refits_on_resamples(glm, result):
    train, _ = split(glm, test_size=SETTINGS.test_size, seed=SETTINGS.seed)
    resamples = stratified_bootstrap(train.y, 3, SETTINGS.seed)
    for rows in resamples:
        assert np.array_equal(np.bincount(train.y[rows]), np.bincount(train.y))
    variance = result.run("Variance")
    X = train.X[resamples[1]]
    assert variance.boot_top[1].tolist() == np.argsort(-X.var(axis=0), kind="stable")[:13].tolist()


def test_roc_and_auc_against_the_truth(glm, result):
    auc = result.auc()
    for r in result.runs:
        assert auc[r.label] == pytest.approx(roc_auc_score(glm.truth, finite_scores(r.scores)))
    assert auc["MI"] > 0.9 > auc["Variance"]
    fpr, tpr = result.roc()["L1"]
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1


def test_missing_scores_rank_last_and_normalise_to_blank():
    s = np.array([0.2, np.nan, -np.inf, 0.9, np.inf])
    np.testing.assert_array_equal(finite_scores(s), [0.2, -0.8, -0.8, 0.9, 1.9])
    np.testing.assert_allclose(normalised(np.array([1.0, 3.0, np.nan])), [0.0, 1.0, np.nan])


def test_cancel_stops_before_the_next_fit(glm):
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(ComparisonCancelled):
        run_comparison(glm, ["mi", "variance"], SETTINGS, cancel=cancel)
    assert len(calls) == 4


def test_a_failing_method_is_reported_and_the_rest_go_on():
    wide = load_dataset("synthetic_glm", n=40, p=5001, k=3)
    res = run_comparison(wide, ["bia", "variance"], CompareSettings(n_bootstrap=0, max_k=5))
    assert res.labels == ["Variance"] and res.stability(3)["kuncheva"].isna().all()
    assert res.failures == {"BIA": "BIA handles at most 5,000 features; synthetic_glm[logistic] (train) has 5,001. "
                                   "Use fewer features (e.g. a larger minimum document frequency)."}
    assert res.tables(3)["failures"]["method"].tolist() == ["BIA"]
    with pytest.raises(ValueError, match="No method could run on this data: BIA: BIA handles at most"):
        run_comparison(wide, ["bia"], CompareSettings(n_bootstrap=0, max_k=5))


def test_class_pair_and_bad_requests():
    digits = load_dataset("digits")
    res = run_comparison(digits, ["variance"], CompareSettings(n_bootstrap=2, max_k=5, classes=("3", "8")))
    assert res.classes == ("3", "8") and res.n_train + res.n_test == int(np.isin(digits.y, [3, 8]).sum())
    with pytest.raises(ValueError, match="needs class labels"):
        run_comparison(load_dataset("synthetic_glm", family="linear", n=100, p=5), ["variance"])
    with pytest.raises(ValueError, match="at least one method"):
        run_comparison(digits, [])
    with pytest.raises(ValueError, match="once per comparison"):
        run_comparison(digits, ["mi", "mi"])
    with pytest.raises(ValueError, match="0 \\(off\\) or at least 2"):
        CompareSettings(n_bootstrap=1)


def test_exports_parse(result, tmp_path):
    paths = write_tables(result, 4, tmp_path)
    names = sorted(p.name for p in paths)
    assert names == ["accuracy.csv", "jaccard.csv", "roc.csv", "runtime.csv", "scores.csv", "stability.csv",
                     "summary.csv"]
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert summary["method"].tolist() == ["MI", "L1", "Variance"] and (summary["k"] == 4).all()
    scores = pd.read_csv(tmp_path / "scores.csv")
    assert len(scores) == 20 and scores["relevant"].sum() == 4
    assert sorted(scores["rank_mi"]) == list(range(1, 21))
    with zipfile.ZipFile(io.BytesIO(tables_zip(result, 4))) as archive:
        assert sorted(archive.namelist()) == names
    page = html_report(result, 4)
    # plotly.js embedded once (offline), four figures: accuracy, Jaccard, stability, ROC (a figure's call
    # names its div; plotly.js 2.x also carries the text "Plotly.newPlot(gd, ..." in a help message)
    figures = re.findall(r"Plotly\.newPlot\(\s*\"", page)
    assert "src=\"https://cdn.plot.ly" not in page and len(figures) == 4 and len(page) > 3_000_000
    assert page.count("window.PlotlyConfig") == 1
