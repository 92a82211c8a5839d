"""Choosing the MAP prior variance without the test data: the development split of the CoNLL-2000
loader holds out the last training sentences and never reads section 20, and the choice is the
variance whose model, fitted independently here (cold start, tight tolerance), scores best on
those sentences. The decoded model to report is chosen the same way."""

import numpy as np
import pytest

from fsengine.data import maxent_tasks
from fsengine.data.corpora import read_conll2000
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.maxent import MaxentData, fit_map
from fsengine.methods.gain.model import select_features
from fsengine.methods.gain.study import choose_decoded_model, choose_prior_variance, evaluate
from tests.conftest import require_real


@pytest.fixture(scope="module")
def dev_split():
    return require_real(load_conll2000_maxent, task="np", n_sentences=200, dev_fraction=0.1)


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
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match="dev_fraction must be in"):
            load_conll2000_maxent(task="np", n_sentences=50, dev_fraction=bad)
    with pytest.raises(ValueError, match="leaves no development"):
        load_conll2000_maxent(task="np", n_sentences=3, dev_fraction=0.1)


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


def test_bad_choice_arguments(dev_split):
    with pytest.raises(ValueError, match="method must be one of"):
        choose_prior_variance(dev_split, n_features=5, method="Count cutoff")
    with pytest.raises(ValueError, match="positive prior variances"):
        choose_prior_variance(dev_split, n_features=5, grid=(0.0, 1.0))


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
    with pytest.raises(ValueError, match="at least one"):
        choose_decoded_model(dev_split, (), prior_variance=1.0)
