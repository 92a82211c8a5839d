"""What the Bayes-factor page and reproduction compute (``study.py``): the numbers around a run on
planted data (checked against the run's own trace), and the real CoNLL-2000 Base-NP subset."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from fsengine.data import load_dataset
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.methods.bayes_factor.study import (
    accuracy_curves,
    at_stop_row,
    checkable_rounds,
    comparison_budget,
    gain_selector_curves,
    heldout_at_stop,
    heldout_task,
    recommend,
    run_bayes_factor,
    run_scored,
    selected_table,
    starts_on_subset,
    stop_summary,
    summarise,
    unit_counts,
)
from fsengine.progress import StopRequested
from tests.conftest import require_real


@pytest.fixture(scope="module")
def task():
    return heldout_task(load_dataset("planted_maxent", n_samples=600, n_predicates=40, n_classes=3, seed=0))


def test_numbers_around_a_run_come_from_its_trace(task):
    run = run_bayes_factor(task, per_round=2, model_prior="multiplicity", max_pairs=40, rounds_past_stop=2)
    tr = run.trace
    assert run.stop_round is not None and tr["bayes_stop"].sum() == 1
    stop_row = tr[tr["bayes_stop"]].iloc[0]          # the round whose best candidate lost to beta_0
    assert at_stop_row(run)["round"] == stop_row["round"] == run.stop_round
    summary = stop_summary(run)
    assert summary.pairs == run.n_at_stop == stop_row["n_selected"]
    assert summary.rounds == run.stop_round + 1 and summary.traced_past   # 2 rounds traced after it
    assert summary.heldout_accuracy == stop_row["heldout_accuracy"] and summary.seconds == stop_row["seconds"]
    assert checkable_rounds(run) == list(range(run.stop_round + 1))
    assert comparison_budget(run) == max(int(tr["n_selected"].iloc[-1]), 10)
    table = selected_table(task, run)
    assert len(table) == run.n_at_stop and table["order"].tolist() == list(range(1, run.n_at_stop + 1))
    others = pd.DataFrame({"method": ["IFS"], "n_features": [3], "train_accuracy": [0.5], "heldout_accuracy": [0.4]})
    curves = accuracy_curves(run, others)
    assert curves["method"].tolist() == ["Bayes factor"] * len(tr) + ["IFS"]
    np.testing.assert_array_equal(curves["heldout_accuracy"].iloc[:-1], tr["heldout_accuracy"])
    assert accuracy_curves(run)["n_features"].tolist() == tr["n_selected"].tolist()


def test_the_heldout_accuracy_at_the_stop_carries_its_interval(task):
    """Issue 31: the page's "held-out accuracy at the stop" had no interval. Independent rows get
    Wilson's (scipy's here); the point is the trace's accuracy at the stop."""
    scored = run_scored(task, per_round=2, model_prior="multiplicity", max_pairs=40, rounds_past_stop=2)
    summary = stop_summary(scored.run, scored, task)
    n = task.y_val.size
    assert summary.heldout.value == pytest.approx(summary.heldout_accuracy)
    ci = st.binomtest(round(summary.heldout_accuracy * n), n).proportion_ci(method="wilson")
    assert [summary.heldout.low, summary.heldout.high] == pytest.approx([ci.low, ci.high], rel=1e-9)
    assert stop_summary(scored.run).heldout is None


@pytest.mark.realdata
def test_on_sentences_the_heldout_accuracy_at_the_stop_is_a_sentence_bootstrap():
    """Tokens of a sentence are not independent: the interval resamples whole sentences."""
    from tests.conftest import require_real

    ds = require_real(load_conll2000_maxent, task="np", n_sentences=120)
    task = heldout_task(ds, n_heldout=3000)
    scored = run_scored(task, per_round=10, model_prior="multiplicity", max_pairs=30)
    e = heldout_at_stop(task, scored)
    assert "bootstrap over" in e.method and "sentences" in e.method
    assert e.value == pytest.approx(stop_summary(scored.run).heldout_accuracy)
    # the units: per sentence of the held-out rows, (correct tokens, tokens), as numpy counts them
    stop = int(np.flatnonzero(scored.run.trace["n_selected"] == scored.run.n_at_stop)[0])
    assert scored.test[stop][:, 1].tolist() == np.bincount(np.unique(task.val_units, return_inverse=True)[1]).tolist()
    assert e.low < e.value < e.high


def test_a_run_that_never_stops_by_itself(task):
    run = run_bayes_factor(task, sign="printed", max_pairs=20)
    assert run.stop_round is None and run.stop_reason == "feature budget reached"
    summary = stop_summary(run)
    assert summary.pairs == 20 and summary.rounds == len(run.trace) and not summary.traced_past
    assert checkable_rounds(run) == run.trace["round"].tolist()


def test_progress_and_stop_request_reach_the_rounds(task):
    seen = []

    def stop_at_second_round(fraction, message):
        seen.append(fraction)
        if len(seen) == 2:
            raise StopRequested

    run = run_bayes_factor(task, per_round=3, max_pairs=40, progress=stop_at_second_round)
    assert run.stop_reason == "stop requested" and run.predicates.size == 6 and run.n_at_stop == 6
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)


def test_large_sparse_datasets_start_on_a_subset():
    assert not starts_on_subset(SimpleNamespace(is_sparse=True, n_samples=20000))
    assert starts_on_subset(SimpleNamespace(is_sparse=True, n_samples=20001))
    assert not starts_on_subset(SimpleNamespace(is_sparse=False, n_samples=10**6))


@pytest.mark.slow
@pytest.mark.realdata
def test_conll2000_base_np_subset_selects_tag_predicates_and_generalises():
    ds = require_real(load_conll2000_maxent, task="np", n_sentences=150)
    task = heldout_task(ds, n_heldout=5000)
    assert task.class_names == ("B-NP", "I-NP", "O")
    run = run_bayes_factor(task, per_round=25, max_pairs=150)
    tr = run.trace
    at_stop = at_stop_row(run)
    # the bias-only model predicts the training majority tag (about 41% of the held-out tokens);
    # 150 pairs reach about 96.7% (the quick reproduction's uniform-prior rows: 96.7-96.8% at 100)
    majority = np.bincount(task.y).argmax()
    assert tr["heldout_accuracy"].iloc[0] == pytest.approx(np.mean(task.y_val == majority), abs=1e-12)
    assert 0.96 < at_stop["heldout_accuracy"] < 0.975
    table = selected_table(task, run)
    # the strongest evidence in round 0 comes from POS tags and previous chunk tags (72% of its pairs)
    first = table[table["round"] == 0]["predicate"]
    assert first.str.contains(r"P0=|T-1=").mean() > 0.65
    assert np.all(np.diff(table["beta_g"]) > 0)


def test_unit_counts_per_sentence():
    correct = np.array([True, False, True, True, False])
    units = np.array([4, 4, 7, 7, 9])
    np.testing.assert_array_equal(unit_counts(correct, units), [[1, 2], [2, 2], [0, 1]])


def test_without_sentences_each_held_out_row_is_its_own_unit(task):
    """A task of independent rows (no sentences) is scored per row: every unit counts one row, and each
    round's total is the trace's held-out accuracy."""
    assert task.val_units is None and task.X_dev is None
    scored = run_scored(task, max_pairs=5)
    assert scored.dev is None and (scored.test[:, :, 1] == 1).all() and scored.test.shape[1] == task.y_val.size
    np.testing.assert_allclose(scored.test[:, :, 0].mean(axis=1), scored.run.trace["heldout_accuracy"])


def test_recommendation_is_chosen_on_the_development_split():
    """The rule reads development accuracies only (the summaries below carry no test numbers)."""
    s = {("laplace", "multiplicity"): dict(stopped=True, dev_at_stop=0.9500, pairs_at_stop=40),
         ("printed", "multiplicity"): dict(stopped=True, dev_at_stop=0.9504, pairs_at_stop=30),
         ("printed", "uniform"): dict(stopped=False, dev_at_stop=0.99, pairs_at_stop=100),
         ("laplace", "uniform"): dict(stopped=True, dev_at_stop=0.9400, pairs_at_stop=90)}
    assert recommend(s) == ("printed", "multiplicity")  # tie within 0.05 points: fewer pairs
    s[("laplace", "uniform")]["dev_at_stop"] = 0.9600
    assert recommend(s) == ("laplace", "uniform")  # better at the stop; a run that never stopped never counts
    assert recommend({k: dict(v, stopped=False) for k, v in s.items()}) == ("printed", "uniform")


@pytest.mark.slow
@pytest.mark.realdata
def test_rounds_scored_per_sentence_on_section_20_and_the_development_split():
    ds = require_real(load_conll2000_maxent, task="np", n_sentences=160, dev_fraction=0.5, keep_test=True)
    task = heldout_task(ds, n_heldout=3000)
    assert task.X_dev.shape[0] == task.y_dev.size == task.dev_units.size > 0
    assert task.val_units.size == task.y_val.size == 3000 and np.all(np.diff(task.val_units) >= 0)
    scored = run_scored(task, per_round=10, model_prior="multiplicity", max_pairs=60, rounds_past_stop=None)
    tr = scored.run.trace
    assert scored.test.shape[0] == scored.dev.shape[0] == len(tr)
    # the per-sentence counts of every round add up to the trace's held-out accuracy
    np.testing.assert_allclose([scored.accuracy("test", i) for i in range(len(tr))], tr["heldout_accuracy"],
                               rtol=0, atol=1e-12)
    assert (scored.test[:, :, 1].sum(axis=1) == 3000).all()
    s = summarise(scored)
    dev = scored.dev[:, :, 0].sum(axis=1) / scored.dev[:, :, 1].sum(axis=1)
    assert s["dev_best_index"] == int(np.argmax(dev)) and s["dev_at_stop"] == dev[s["stop_index"]]
    assert s["stopped"] and tr["n_selected"].iloc[-1] == 60 > s["pairs_at_stop"]  # traced past the stop
    assert s["test_at_dev_best"] == scored.accuracy("test", s["dev_best_index"])
    counts = {}
    curves = gain_selector_curves(task, 20, methods=("SGC",), extra_sizes=(7,), n_points=2, counts_out=counts)
    for r in curves.itertuples():
        c = counts[("SGC", r.n_features)]
        assert c[:, 0].sum() / c[:, 1].sum() == pytest.approx(r.heldout_accuracy, abs=1e-12)
