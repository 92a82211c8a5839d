"""``reproduce mdl-curve``: a digits-only run whose numbers match the selectors, the quick run against
its committed results row by row, and one interval of each kind (Wilson, paired bootstrap over
held-out rows) recomputed from the raw counts next to ``results.json`` (quick and committed full run)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import BernoulliNB

from fsengine.data import load_dataset
from fsengine.reproduce import TARGETS, get_target, results
from fsengine.reproduce import classic as classic_target
from fsengine.stats import paired_bootstrap_interval, wilson_interval
from tests.conftest import PROJECT_ROOT
from tests.reproduce.quick_expected import assert_matches_expected

RECORDED = PROJECT_ROOT / "docs" / "results" / "mdl-curve"


def test_mdl_curve_target_writes_report_and_small_figures(tmp_path, monkeypatch):
    assert "mdl-curve" in TARGETS and get_target("mdl-curve") is classic_target.run
    case = classic_target.Case("Digits (test)", "digits", lambda: load_dataset("digits"), 8)
    monkeypatch.setattr(classic_target, "cases", lambda quick: [case])
    messages = []
    report = classic_target.run(tmp_path, True, lambda f, m: messages.append((f, m)))
    text = report.read_text()
    assert messages[-1][0] == 1.0
    result = classic_target.run_case(case, tmp_path)
    best = result["mdl"].best_size_
    assert best == int(np.argmin(result["mdl"].trace_["dl_total"]))
    assert f"|J| = **{best}**" in text and "Claim 1 is an identity and is not judged" in text
    # the held-out curves are those of a BernoulliNB fitted on the training part
    k = 3
    cols = result["sequence"][:k]
    nb = BernoulliNB(alpha=1.0).fit(result["train"].X[:, cols], result["train"].y)
    accuracy = float(np.mean(nb.predict(result["test"].X[:, cols]) == result["test"].y))
    assert result["curves"]["MDL order"]["accuracy"].iloc[k - 1] == pytest.approx(accuracy, abs=1e-12)
    rows = {r.quantity: r for r in classic_target.result_rows([result])}
    assert not any(q.startswith("claim 1") for q in rows)
    claim3 = rows["claim 3, MDL size (minimum of DL), Digits (test)"]
    assert claim3.ours == best and claim3.verdict.startswith("holds" if 0 < best < 8 else "fails")
    for name in ("digits_mdl_curve.html", "digits_mdl_vs_mi.html"):
        html = (tmp_path / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 60_000


def _recomputed_from_raw_counts(folder):
    """For every dataset: the Wilson interval of the MDL order's accuracy at the MDL size and the
    paired bootstrap of the mean log-loss difference, from ``<slug>_held_out_rows.csv``."""
    data = results.read(folder / "results.json")
    rows = {r["quantity"]: r for r in data["rows"]}
    for slug, info in data["inputs"]["datasets"].items():
        raw = pd.read_csv(folder / f"{slug}_held_out_rows.csv")
        assert len(raw) == info["held_out"]
        correct = raw["mdl_correct_at_mdl_size"].to_numpy()
        est = wilson_interval(int(correct.sum()), correct.size)
        row = rows[f"held-out accuracy at the MDL size, MDL order, {info['title']}"]
        assert [row["ours"], *row["interval"]] == pytest.approx([est.value, est.low, est.high], rel=1e-12)
        n = len(raw)
        diff = paired_bootstrap_interval(raw[["mi_mean_log_loss"]].to_numpy(), raw[["mdl_mean_log_loss"]].to_numpy(),
                                         lambda t: t[..., 0] / n, n_resamples=data["inputs"]["bootstrap"]["resamples"],
                                         seed=data["inputs"]["bootstrap"]["seed"], unit="held-out rows")
        row = rows[f"claim 2, held-out log-loss averaged over the sizes explored, MI ranking minus MDL order, "
                   f"{info['title']}"]
        assert [row["ours"], *row["interval"]] == pytest.approx([diff.value, diff.low, diff.high], rel=1e-9)
        assert row["method"] == diff.method
        by_k = pd.read_csv(folder / f"{slug}_held_out_by_k.csv")
        best = int(rows[f"claim 3, MDL size (minimum of DL), {info['title']}"]["ours"])
        assert by_k["mdl_n_correct"].iloc[max(best, 1) - 1] == correct.sum()
        assert by_k["mi_n_correct"].iloc[-1] == raw["mi_correct_at_largest_size"].sum()
    return data


def test_mdl_curve_quick_run_matches_its_committed_results(quick_reproduction):
    report, _ = quick_reproduction("mdl-curve")
    assert_matches_expected("mdl-curve", report.parent / "results.json")


def test_mdl_curve_quick_intervals_recomputed_from_raw_counts(quick_reproduction):
    report, _ = quick_reproduction("mdl-curve")
    _recomputed_from_raw_counts(report.parent)
    text = report.read_text()
    assert all(sentence in text for sentence in classic_target.CHOICES_AFTER_SEEING)


def test_mdl_curve_committed_full_run_recomputes_from_its_raw_counts():
    data = _recomputed_from_raw_counts(RECORDED)
    assert not data["quick"] and {d["max_features"] for d in data["inputs"]["datasets"].values()} == {40}


def test_readme_shows_the_committed_full_runs_headline_numbers():
    text = " ".join((PROJECT_ROOT / "README.md").read_text(encoding="utf-8").split())
    data = results.read(RECORDED / "results.json")
    for row in data["rows"]:
        if "at the MDL size, MDL order minus" in row["quantity"] or "log-loss averaged" in row["quantity"]:
            shown = f"{row['ours']:.3f} [{row['interval'][0]:.3f}, {row['interval'][1]:.3f}]"
            assert shown in text, (row["quantity"], shown)
