"""The comparison behind the page and the reproduction: its progress, stop requests and the
numbers the page shows (against sums of the traces), and choosing the MAP prior variance without
the test data: the development split of the CoNLL-2000 loader holds out the last training
sentences and never reads section 20, and the choice is the variance whose model, fitted
independently here (cold start, tight tolerance), scores best on those sentences. The decoded
model to report is chosen the same way. The CoNLL-2000 tests are slow; the planted task runs the
same choices fast."""

import numpy as np
import pytest

from fsengine.data import maxent_tasks
from fsengine.data.corpora import read_conll2000
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData, fit_map
from fsengine.methods.gain.model import select_features
from fsengine.methods.gain.study import (
    METHOD_NAMES,
    choose_decoded_model,
    choose_prior_variance,
    evaluate,
    evaluate_with_counts,
    refit_checkpoint,
    run_comparison,
    selection_cpu_seconds,
    stage_work,
)
from fsengine.progress import StopRequested
from tests.conftest import require_real


@pytest.fixture(scope="module")
def planted():
    return make_planted_maxent(n_samples=1500, n_predicates=60, n_classes=3, n_true=8, n_test=500, seed=3)


def test_comparison_progress_and_the_numbers_of_the_page(planted):
    seen = []
    comp = run_comparison(planted, budget=12, lookahead=5, n_checkpoints=2,
                          progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert all(0.0 <= f <= 1.0 for f in fractions) and fractions == sorted(fractions) and seen[-1] == (1.0, "done")
    for m in METHOD_NAMES:
        assert any(msg.startswith(f"{m}: stage 12 of 12") for _, msg in seen), m
    traces = comp.traces()
    assert list(traces) == list(METHOD_NAMES) and all(traces[m] is comp.selections[m].trace for m in traces)
    # IFS scores every remaining candidate at every stage: n, n - 1, ..., n - 11 gains
    n = int(MaxentData(planted.X, planted.y).candidate_pairs(2)[0].size)
    assert comp.n_candidates == n
    ifs, sgc = traces["IFS"], traces["SGC"]
    ratios = comp.work_ratios()
    assert ratios.stages == 12
    assert ratios.computations == pytest.approx((12 * n - 66) / sgc["gain_computations"].sum(), rel=1e-12)
    assert ratios.time == pytest.approx(ifs["seconds"].iloc[-1] / sgc["seconds"].iloc[-1], rel=1e-12)
    assert comp.common_stages == 12
    table = comp.stage_table(3).set_index("Method")
    assert table.loc["IFS", "Gains computed up to this stage"] == 3 * n - 3
    assert table.loc["Count cutoff", "Gains computed up to this stage"] == 0
    row = ifs.iloc[2]
    assert table.loc["IFS", "Feature added"] == f"{planted.feature_names[row['predicate']]} → class{row['class']}"
    assert table.loc["SGC", "Gain of that feature"] == sgc["gain"].iloc[2]
    with pytest.raises(ValueError, match="stage must be in 1..12"):
        comp.stage_table(13)
    assert run_comparison(planted, budget=12, methods=("IFS", "Count cutoff"), n_checkpoints=1,
                          with_all_features=False).work_ratios() is None


def test_timings_repeat_the_selections_and_count_the_same_gains(planted):
    """CPU seconds after stage 0 from the trace's process-time column; the gain computations are
    deterministic, so every repeat counts the same (and IFS's count is the closed form)."""
    t = selection_cpu_seconds(planted, stages=8, methods=("IFS", "SGC"), repeats=3, lookahead=5)
    assert t.shape[0] == 6 and t["repeat"].tolist() == [0, 0, 1, 1, 2, 2] and (t["stages"] == 8).all()
    assert (t["cpu_seconds"] > 0).all()
    n = int(MaxentData(planted.X, planted.y).candidate_pairs(2)[0].size)
    counts = t.pivot(index="repeat", columns="method", values="gain_computations")
    assert (counts["IFS"] == sum(n - k for k in range(1, 8))).all() and counts["SGC"].nunique() == 1
    sel = select_features(MaxentData(planted.X, planted.y), "sgc", cutoff=2, n_features=8)
    work = stage_work(sel.trace, 8)
    assert work["gain_computations"] == counts["SGC"].iloc[0] == sel.trace["gain_computations"].iloc[1:].sum()
    assert work["cpu_seconds"] == sel.trace["cpu_seconds"].iloc[7] - sel.trace["cpu_seconds"].iloc[0]
    with pytest.raises(ValueError, match="at least 2 stages"):
        stage_work(sel.trace.iloc[:1], 5)


def test_a_checkpoint_refitted_with_another_variance_is_that_map_model(planted):
    comp = run_comparison(planted, budget=10, methods=("SGC",), n_checkpoints=0, extra_checkpoints=(10,),
                          with_all_features=False)
    assert comp.counts == {}  # per-sentence counts are for chunking only
    model = refit_checkpoint(planted, comp, "SGC", 10, 20.0)
    data = MaxentData(planted.X, planted.y)
    ref = fit_map(data, *comp.selections["SGC"].selected_pairs(10), prior_variance=20.0, tol=1e-9 * data.n).model
    np.testing.assert_allclose(model.weights, ref.weights, atol=1e-3)
    assert evaluate_with_counts(planted, model)[1] is None
    with pytest.raises(ValueError, match="did not select 11 pairs"):
        refit_checkpoint(planted, comp, "SGC", 11, 1.0)


def test_a_stop_request_ends_the_comparison(planted):
    seen = []

    def stop_in_sgc(fraction, message):
        seen.append(message)
        if message.startswith("SGC: stage 2 of"):
            raise StopRequested

    with pytest.raises(StopRequested, match="sgc: stop requested after 2 stages"):
        run_comparison(planted, budget=12, methods=("IFS", "SGC", "Count cutoff"), progress=stop_in_sgc)
    assert seen[-1].startswith("SGC: stage 2 of") and not any(m.startswith("Count cutoff") for m in seen)


def test_choices_on_the_planted_task_are_the_best_on_its_held_out_rows(planted):
    grid = (0.05, 1.0, 20.0)
    choice = choose_prior_variance(planted, n_features=10, grid=grid, cutoff=2)
    data = MaxentData(planted.X, planted.y)
    pred, cls = select_features(data, "sgc", cutoff=2, n_features=10).selected_pairs()
    ref = {v: evaluate(planted, fit_map(data, pred, cls, prior_variance=v, tol=1e-9 * data.n).model)["f1"]
           for v in grid}
    np.testing.assert_allclose(choice.table["f1"], [ref[v] for v in grid], atol=0.3)
    assert ref[choice.variance] >= max(ref.values()) - 0.3
    points = (("SGC", 4), ("IFS", 10))
    model = choose_decoded_model(planted, points, prior_variance=1.0, decoders=("greedy",))
    scores = {}
    for method, k in points:
        p, c = select_features(data, method.lower(), cutoff=2, n_features=10).selected_pairs(k)
        scores[(method, k)] = evaluate(planted, fit_map(data, p, c, prior_variance=1.0, tol=1e-9 * data.n).model)["f1"]
    assert scores[(model.method, model.n_features)] >= max(scores.values()) - 0.3
    with pytest.raises(ValueError, match="method must be one of"):
        choose_prior_variance(planted, n_features=5, method="Count cutoff")
    with pytest.raises(ValueError, match="positive prior variances"):
        choose_prior_variance(planted, n_features=5, grid=(0.0, 1.0))
    with pytest.raises(ValueError, match="at least one"):
        choose_decoded_model(planted, (), prior_variance=1.0)


@pytest.fixture(scope="module")
def dev_split():
    return require_real(load_conll2000_maxent, task="np", n_sentences=200, dev_fraction=0.1)


@pytest.mark.slow
def test_development_split_holds_out_the_last_training_sentences(dev_split, monkeypatch):
    train = read_conll2000("train")[:200]
    counts = dev_split.provenance.counts
    assert (counts["train_sentences"], counts["test_sentences"]) == (180, 20)
    held_out = dev_split.extras["test"]
    np.testing.assert_array_equal(held_out.lengths, [len(s) for s in train[180:]])
    assert dev_split.X.shape[0] == sum(len(s) for s in train[:180])
    assert dev_split.name == "conll2000_np_dev" and "not section 20" in " ".join(dev_split.provenance.notes)

    def no_test_section(part):
        if part == "test":
            raise AssertionError("the development split read section 20")
        return read_conll2000(part)

    monkeypatch.setattr(maxent_tasks, "read_conll2000", no_test_section)
    assert load_conll2000_maxent(task="np", n_sentences=50, dev_fraction=0.2).provenance.counts["test_sentences"] == 10
    # a seeded split holds out a random sample, the same for the same seed, and still never reads section 20
    held = maxent_tasks.development_indices(50, 0.2, seed=3)
    assert held.size == 10 and np.all(np.diff(held) > 0) and not np.array_equal(held, np.arange(40, 50))
    np.testing.assert_array_equal(held, maxent_tasks.development_indices(50, 0.2, seed=3))
    seeded = load_conll2000_maxent(task="np", n_sentences=50, dev_fraction=0.2, dev_seed=3)
    np.testing.assert_array_equal(seeded.extras["test"].lengths, [len(train[i]) for i in held])
    assert seeded.X.shape[0] == sum(len(s) for i, s in enumerate(train[:50]) if i not in set(held.tolist()))
    assert "random sample (seed 3)" in " ".join(seeded.provenance.notes)
    with pytest.raises(ValueError, match="keep_test keeps section 20"):
        load_conll2000_maxent(task="np", n_sentences=50, keep_test=True)
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match="dev_fraction must be in"):
            load_conll2000_maxent(task="np", n_sentences=50, dev_fraction=bad)
    with pytest.raises(ValueError, match="leaves no development"):
        load_conll2000_maxent(task="np", n_sentences=3, dev_fraction=0.1)


@pytest.mark.slow
def test_a_development_split_beside_section_20_and_per_sentence_counts():
    """keep_test: the held-out training sentences in extras["dev"], section 20 the test set; the
    per-sentence chunk counts of a model add up to its conlleval totals."""
    ds = require_real(load_conll2000_maxent, task="np", n_sentences=60, dev_fraction=0.5, keep_test=True)
    train = read_conll2000("train")[:60]
    np.testing.assert_array_equal(ds.extras["dev"].lengths, [len(s) for s in train[30:]])
    assert ds.provenance.counts["test_sentences"] == len(read_conll2000("test")) == ds.extras["test"].lengths.size
    assert ds.provenance.counts["dev_sentences"] == 30 and ds.name == "conll2000_np"
    data = MaxentData(ds.X, np.asarray(ds.y), n_classes=3)
    model = fit_map(data, *select_features(data, "sgc", n_features=15).selected_pairs(), prior_variance=1.0).model
    scores, counts = evaluate_with_counts(ds, model)
    assert counts.shape == (ds.extras["test"].lengths.size, 3)
    tp, fp, fn = counts.sum(axis=0)
    assert (scores["n_correct"], scores["n_guessed"], scores["n_gold"]) == (tp, tp + fp, tp + fn)
    assert scores["f1"] == pytest.approx(200 * tp / (2 * tp + fp + fn))


@pytest.mark.slow
def test_fig5_f1_intervals_come_from_the_per_sentence_counts_of_each_point(planted):
    """Comparison.f1_intervals: its point F1 is the conlleval F1 of the curve (two computations, from
    the totals and from the per-sentence counts), inside a bootstrap interval of positive width; a
    task without per-sentence counts has none."""
    ds = require_real(load_conll2000_maxent, task="np", n_sentences=120)
    comp = run_comparison(ds, budget=15, methods=("SGC", "Count cutoff"), n_checkpoints=2, cutoff=2)
    bands = comp.f1_intervals(n_resamples=400, seed=3)
    merged = bands.merge(comp.curves, on=["method", "n_features"], suffixes=("", "_curve"))
    assert len(merged) == len(comp.curves) == len(bands) > 0
    np.testing.assert_allclose(merged["f1"], merged["f1_curve"], rtol=1e-12)
    assert ((bands.low <= bands.f1) & (bands.f1 <= bands.high) & (bands.high > bands.low)).all()
    assert bands.attrs["level"] == 0.95 and "400 resamples, seed 3" in bands.attrs["method"]
    assert comp.f1_estimates(n_resamples=400, seed=3) is comp.f1_estimates(n_resamples=400, seed=3)  # once
    planted_comp = run_comparison(planted, budget=6, methods=("SGC",), n_checkpoints=1)
    assert planted_comp.f1_intervals().empty


@pytest.mark.slow
def test_chosen_variance_is_the_best_on_held_out_sentences(dev_split):
    grid = (0.05, 1.0, 20.0)
    choice = choose_prior_variance(dev_split, n_features=40, grid=grid, decoder="viterbi")
    assert choice.table["prior_variance"].tolist() == list(grid) and choice.n_features == 40
    # independent reference: the same 40 SGC pairs, each variance fitted from zero to a tight tolerance
    y = np.asarray(dev_split.y)
    data = MaxentData(dev_split.X, y, n_classes=3)
    pred, cls = select_features(data, "sgc", cutoff=2, n_features=40).selected_pairs(40)
    ref = {v: evaluate(dev_split, fit_map(data, pred, cls, prior_variance=v, tol=1e-9 * data.n).model,
                       "viterbi")["f1"] for v in grid}
    np.testing.assert_allclose(choice.table["f1"], [ref[v] for v in grid], atol=0.3)
    assert len(set(np.round(list(ref.values()), 1))) == 3  # the grid is wide enough to matter
    assert ref[choice.variance] >= max(ref.values()) - 0.3


@pytest.mark.slow
def test_chosen_decoded_model_is_the_best_on_held_out_sentences(dev_split):
    points = (("SGC", 20), ("SGC", 40), ("IFS", 40))
    choice = choose_decoded_model(dev_split, points, prior_variance=1.0)
    table = choice.table
    assert sorted(zip(table["method"], table["n_features"], table["decoder"])) == sorted(
        (m, k, d) for m, k in points for d in ("greedy", "viterbi"))
    # independent reference: each method's pairs selected here, each model fitted from zero to a
    # tight tolerance and decoded both ways on the held-out training sentences
    y = np.asarray(dev_split.y)
    data = MaxentData(dev_split.X, y, n_classes=3)
    ref = {}
    for method in ("sgc", "ifs"):
        sel = select_features(data, method, cutoff=2, n_features=40)
        for k in (20, 40):
            if (method.upper(), k) in points:
                model = fit_map(data, *sel.selected_pairs(k), prior_variance=1.0, tol=1e-9 * data.n).model
                for decoder in ("greedy", "viterbi"):
                    ref[(method.upper(), k, decoder)] = evaluate(dev_split, model, decoder)["f1"]
    got = {(r.method, r.n_features, r.decoder): r.f1 for r in table.itertuples()}
    for key, f1 in ref.items():
        assert got[key] == pytest.approx(f1, abs=0.3), key
    assert max(ref.values()) - min(ref.values()) > 1.0  # the candidates differ enough for the choice to matter
    assert ref[(choice.method, choice.n_features, choice.decoder)] >= max(ref.values()) - 0.3
