"""``reproduce bia-notmnist``: the quick run against its committed results row by row, and every
kind of interval and tolerance recomputed from the raw counts stored next to ``results.json``
(the quick run's and the committed full run's)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from fsengine.reproduce import bia, results
from fsengine.stats import t_interval
from tests.conftest import PROJECT_ROOT
from tests.reproduce.quick_expected import assert_matches_expected, assert_rerender_gives_back, holm_by_definition

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
    # issue 31: the three judged differences are one family under Holm (by its definition here); the
    # deterministic rankings by the fold-paired corrected resampled t, the random pixels by the plain paired t
    # (drawn independently in each fold); correlation screening is an observation, not judged
    tests = []
    for name in ("L1 entry order", "logistic |coef|", "20 random pixels"):
        d = acc(bia.BIA_STAR) - acc(name)
        plain = name == "20 random pixels"
        se = d.std(ddof=1) * np.sqrt(1 / d.size + (0.0 if plain else ratio))
        p = 2 * st.t.sf(abs(d.mean()) / se, d.size - 1)
        if plain:
            assert p == pytest.approx(st.ttest_1samp(d, 0.0).pvalue, rel=1e-9)
        tests.append((name, d, se, p))
    for (name, d, se, _), (level, rejected) in zip(tests, holm_by_definition([p for *_, p in tests])):
        half = st.t.ppf(0.5 + level / 2, d.size - 1) * se
        row = rows[f"nested CV accuracy, BIA top 20 at Lambda* minus {name}"]
        assert row["level"] == pytest.approx(level, rel=1e-12)
        assert [row["ours"], *row["interval"]] == pytest.approx([d.mean(), d.mean() - half, d.mean() + half],
                                                                rel=RECOMPUTED_REL, abs=1e-9)
        assert (results.outcome(row["verdict"]) == "resolved") == rejected
    screening = rows["nested CV accuracy, BIA top 20 at Lambda* minus correlation screening"]
    same = int((folds[folds["method"] == "correlation screening"]["overlap"] == 1.0).sum())
    assert screening["verdict"].startswith("recorded: an observation, not judged") and screening["interval"]
    assert rows["folds where the BIA top 20 at Lambda* is correlation screening's top 20"]["ours"] == same

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


def test_the_results_page_shows_the_committed_full_runs_headline_numbers():
    text = " ".join((PROJECT_ROOT / "docs" / "results.md").read_text(encoding="utf-8").split())
    assert " ".join(bia.headline(RECORDED).split()) in text


def test_the_random_pixels_test_fits_the_design_and_the_report_says_why():
    """Issue 31: the corrected resampled t inflated the variance 13.5-fold for a spread that comes from
    pixels drawn independently in each fold; the plain paired t resolves the BIA above 20 random pixels."""
    rows = _rows(RECORDED)
    row = rows["nested CV accuracy, BIA top 20 at Lambda* minus 20 random pixels"]
    assert "plain paired t" in row["method"] and row["verdict"].startswith("resolved: BIA at Lambda* > 20 random")
    text = (RECORDED / "report.md").read_text()
    assert "inflates the variance 13.5-fold" in text and "drawn afresh and independently in each fold" in text


RENDERED = ("report.md", "results.json")


def _rerendered_equals(folder, tmp_path) -> None:
    assert_rerender_gives_back(folder, tmp_path, bia.rerender, RENDERED)


@pytest.mark.record_bytes
def test_the_committed_record_is_what_rerender_makes_of_its_raw_files(tmp_path):
    _rerendered_equals(RECORDED, tmp_path)


def test_rerender_gives_back_a_quick_runs_own_outputs_byte_for_byte(quick_reproduction, tmp_path):
    report, _ = quick_reproduction("bia-notmnist")
    _rerendered_equals(report.parent, tmp_path)
