"""``reproduce bia-notmnist``: the quick run against its committed results row by row, and every
kind of interval and tolerance recomputed from the raw counts stored next to ``results.json``
(the quick run's and the committed full run's)."""

import numpy as np
import pandas as pd
import pytest

from fsengine.reproduce import bia, results
from fsengine.stats import paired_t_interval, t_interval
from tests.conftest import PROJECT_ROOT
from tests.reproduce.quick_expected import assert_matches_expected

RECORDED = PROJECT_ROOT / "docs" / "results" / "bia-notmnist"

#: recomputed intervals against the committed file: t quantiles of the lowest supported scipy differ at ~1e-11
RECOMPUTED_REL = 1e-9


def _rows(folder):
    return {r["quantity"]: r for r in results.read(folder / "results.json")["rows"]}


def _recomputed_from_raw_counts(folder):
    """One mean accuracy (corrected resampled t over folds), one fold-paired difference and one
    exact check (error and tolerance) recomputed from the CSV files, against results.json."""
    rows = _rows(folder)
    folds = pd.read_csv(folder / "nested_cv_folds.csv")
    assert (folds["accuracy"] == folds["n_correct"] / folds["n_test"]).all()
    ratio = float((folds["n_test"] / folds["n_train"]).mean())

    def acc(method):
        part = folds[folds["method"] == method].sort_values(["repeat", "fold"])
        return (part["n_correct"] / part["n_test"]).to_numpy()

    repeats = folds["repeat"].nunique()
    est = t_interval(acc(bia.BIA_STAR), test_train_ratio=ratio,
                     what=f"folds ({bia.CV_SPLITS}-fold CV repeated {repeats} times)")
    row = rows["nested CV accuracy, top 20 by BIA at Lambda*"]
    assert row["ours"] == pytest.approx(est.value, rel=RECOMPUTED_REL)
    assert row["interval"] == pytest.approx([est.low, est.high], rel=RECOMPUTED_REL) and row["method"] == est.method
    diff = paired_t_interval(acc(bia.BIA_STAR), acc("L1 entry order"), test_train_ratio=ratio)
    row = rows["nested CV accuracy, BIA top 20 at Lambda* minus L1 entry order"]
    assert row["ours"] == pytest.approx(diff.value, rel=RECOMPUTED_REL, abs=1e-9)
    assert row["interval"] == pytest.approx([diff.low, diff.high], rel=RECOMPUTED_REL, abs=1e-9)

    checks = pd.read_csv(folder / "exact_check.csv")
    assert np.allclose(checks["tolerance"], checks["mean_field_gap"] + checks["neglected_order_scale"], rtol=1e-5)
    at_star = checks[(checks["pool"] == "40 highest posteriors") & (checks["lambda_ratio"] == 1.0)].iloc[0]
    row = rows["max |p_BIA - p_exact| at Lambda = Lambda*, 8 pixels from 40 highest posteriors"]
    assert row["ours"] == pytest.approx(at_star["max_error"], rel=1e-5)
    assert f"<= {at_star['tolerance']:.3g} (" in row["verdict"]
    assert results.outcome(row["verdict"]) == ("holds" if at_star["max_error"] <= at_star["tolerance"] else "fails")
    return rows, folds


def test_bia_notmnist_quick_run_matches_its_committed_results(quick_reproduction):
    report, _ = quick_reproduction("bia-notmnist")
    assert_matches_expected("bia-notmnist", report.parent / "results.json")


def test_bia_notmnist_quick_intervals_recomputed_from_raw_counts(quick_reproduction):
    report, _ = quick_reproduction("bia-notmnist")
    out = report.parent
    rows, folds = _recomputed_from_raw_counts(out)
    # 2 repeats of 5 folds, 7 rankings each, every ranking on the same folds
    assert len(folds) == 2 * 5 * 7 and folds.groupby("method").size().eq(10).all()
    post = pd.read_csv(out / "posteriors_lambda_star.csv")
    assert len(post) == 784 and set(post["rank"]) == set(range(1, 785))
    best = post.sort_values("rank").head(10)
    assert best["row"].between(9, 16).all()
    for name in ("fig2a_path.html", "fig2b_posterior.html", "fig2c_top_pixels.html", "bia_baselines.html"):
        html = (out / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 1_500_000
    text = report.read_text()
    assert "$FSENGINE_DATA/notmnist/" in text and "Choices made after seeing results" in text
    assert all(sentence in text for sentence in bia.CHOICES_AFTER_SEEING)
    assert "samples n" not in rows and "pixels p" not in rows  # inputs, not results


def test_bia_notmnist_committed_full_run_recomputes_from_its_raw_counts():
    rows, folds = _recomputed_from_raw_counts(RECORDED)
    data = results.read(RECORDED / "results.json")
    assert not data["quick"] and data["inputs"]["nested_cv"]["repeats"] == bia.CV_REPEATS
    assert folds["repeat"].nunique() == bia.CV_REPEATS


def test_readme_shows_the_committed_full_runs_headline_numbers():
    text = " ".join((PROJECT_ROOT / "README.md").read_text(encoding="utf-8").split())
    rows = _rows(RECORDED)
    for q in ("nested CV accuracy, top 20 by BIA at Lambda*", "nested CV accuracy, top 20 by L1 entry order",
              *[f"nested CV accuracy, BIA top 20 at Lambda* minus {name}"
                for name in ("correlation screening", "L1 entry order", "logistic |coef|", "20 random pixels")]):
        row = rows[q]
        shown = f"{row['ours']:.3f} [{row['interval'][0]:.3f}, {row['interval'][1]:.3f}]"
        assert shown in text, (q, shown)
    star = rows["max |p_BIA - p_exact| at Lambda = Lambda*, 8 pixels from 40 highest posteriors"]
    tolerance = results.rule(star["verdict"]).split("<= ")[1].split(" ")[0]
    assert f"{star['ours']:.3g} against a tolerance of {tolerance}" in text
    checks = [r for q, r in rows.items() if q.startswith("max |p_BIA - p_exact|")]
    holding = sum(results.outcome(r["verdict"]) == "holds" for r in checks)
    assert f"holds at {'all ' if holding == len(checks) else ''}{holding} checked points" in text
