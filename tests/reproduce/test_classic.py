"""``reproduce mdl-curve``: a digits-only run whose numbers match the selectors, the quick run against
its committed results row by row, and one interval of each kind (Wilson, paired bootstrap over
held-out rows) recomputed from the raw counts next to ``results.json`` (quick and committed full run)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import BernoulliNB

from fsengine.data import load_dataset
from fsengine.data.transforms import binarize_features, split
from fsengine.reproduce import TARGETS, get_target, results
from fsengine.reproduce import classic as classic_target
from fsengine.selectors import MDLSelector
from fsengine.stats import paired_bootstrap_replicates, wilson_interval
from tests.conftest import PROJECT_ROOT
from tests.reproduce.quick_expected import assert_matches_expected, assert_rerender_gives_back, holm_by_definition

RECORDED = PROJECT_ROOT / "docs" / "results" / "mdl-curve"


def test_mdl_curve_target_writes_report_and_small_figures(tmp_path, monkeypatch):
    assert "mdl-curve" in TARGETS and get_target("mdl-curve") is classic_target.run
    case = classic_target.Case("Digits (test)", "digits", lambda: load_dataset("digits"), 8)
    monkeypatch.setattr(classic_target, "cases", lambda quick: [case])
    messages = []
    report = classic_target.run(tmp_path, True, lambda f, m: messages.append((f, m)))
    text = report.read_text()
    assert messages[-1][0] == 1.0
    _, [record] = classic_target.read_records(tmp_path)
    # the selectors refitted here, independently of the run, give the run's sizes and counts
    train, test = split(binarize_features(load_dataset("digits")), test_size=0.3, seed=0)
    mdl = MDLSelector(max_features=8).fit(train.X, train.y)
    best = int(np.argmin(mdl.trace_["dl_total"]))
    assert record.info["best"] == best == mdl.best_size_
    assert f"|J| = **{best}**" in text and "Claim 1 is an identity and is not judged" in text
    # the held-out curves are those of a BernoulliNB fitted on the training part
    k = 3
    cols = mdl.order_[:k]
    nb = BernoulliNB(alpha=1.0).fit(train.X[:, cols], train.y)
    correct = int(np.sum(nb.predict(test.X[:, cols]) == test.y))
    assert record.by_k["mdl_n_correct"].iloc[k - 1] == correct == record.rows[f"mdl_correct_at_{k}"].sum()
    rows = {r.quantity: r for r in classic_target.result_rows([record])}
    assert not any(q.startswith("claim 1") for q in rows)
    claim3 = rows["claim 3, MDL size (minimum of DL), Digits (test)"]
    assert claim3.ours == best and claim3.verdict.startswith("holds" if 0 < best < 8 else "fails")
    for name in ("digits_mdl_curve.html", "digits_mdl_vs_mi.html"):
        html = (tmp_path / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 60_000


def _recomputed_from_raw_counts(folder):
    """For every dataset: the Wilson interval of the MDL order's accuracy at the MDL size; and the
    nine claim-2 comparisons as one family judged by Holm (by its definition here), each the paired
    bootstrap of its columns of ``<slug>_held_out_rows.csv`` at the level Holm tests it at."""
    data = results.read(folder / "results.json")
    rows = {r["quantity"]: r for r in data["rows"]}
    family = []
    for slug, info in data["inputs"]["datasets"].items():
        raw = pd.read_csv(folder / f"{slug}_held_out_rows.csv")
        assert len(raw) == info["held_out"]
        correct = raw["mdl_correct_at_mdl_size"].to_numpy()
        est = wilson_interval(int(correct.sum()), correct.size)
        row = rows[f"held-out accuracy at the MDL size, MDL order, {info['title']}"]
        assert [row["ours"], *row["interval"]] == pytest.approx([est.value, est.low, est.high], rel=1e-12)
        n = len(raw)
        for _, quantity, (a, b) in classic_target.CLAIM2:
            reps = paired_bootstrap_replicates(raw[[a]].to_numpy(float), raw[[b]].to_numpy(float),
                                               lambda t, n=n: t[..., 0] / n,
                                               n_resamples=data["inputs"]["bootstrap"]["family_resamples"],
                                               seed=data["inputs"]["bootstrap"]["seed"], unit="held-out rows")
            family.append((rows[f"{quantity.format(mdl='MDL order', mi='MI ranking')}, {info['title']}"], reps))
        by_k = pd.read_csv(folder / f"{slug}_held_out_by_k.csv")
        best = int(rows[f"claim 3, MDL size (minimum of DL), {info['title']}"]["ours"])
        assert by_k["mdl_n_correct"].iloc[max(best, 1) - 1] == correct.sum()
        assert by_k["mi_n_correct"].iloc[-1] == raw["mi_correct_at_largest_size"].sum()
        trace = pd.read_csv(folder / f"{slug}_mdl_trace.csv")
        assert int(np.argmin(trace["dl_total"])) == best
    assert len(family) == 3 * len(data["inputs"]["datasets"])
    for (row, reps), (level, _) in zip(family, holm_by_definition([reps.pvalue() for _, reps in family])):
        e = reps.interval(level)
        assert row["level"] == pytest.approx(level, rel=1e-12), row["quantity"]
        assert [row["ours"], *row["interval"]] == pytest.approx([e.value, e.low, e.high], rel=1e-9, abs=1e-15)
        assert row["method"].startswith(e.method) and "Holm's step-down over the 9 claim-2" in row["method"]
        assert (results.outcome(row["verdict"]) == "resolved") == (e.low > 0 or e.high < 0)
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


def test_the_results_page_shows_the_committed_full_runs_headline_numbers():
    text = " ".join((PROJECT_ROOT / "docs" / "results.md").read_text(encoding="utf-8").split())
    assert " ".join(classic_target.headline(RECORDED).split()) in text


RENDERED = ("report.md", "results.json")


def _rerendered_equals(folder, tmp_path) -> None:
    assert_rerender_gives_back(folder, tmp_path, classic_target.rerender, RENDERED)


@pytest.mark.record_bytes
def test_the_committed_record_is_what_rerender_makes_of_its_raw_files(tmp_path):
    _rerendered_equals(RECORDED, tmp_path)


def test_rerender_gives_back_a_quick_runs_own_outputs_byte_for_byte(quick_reproduction, tmp_path):
    report, _ = quick_reproduction("mdl-curve")
    _rerendered_equals(report.parent, tmp_path)
