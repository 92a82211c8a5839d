"""IFS, SGC, look-ahead and count cutoff: agreement with each other and with the planted truth,
tie-breaking, stopping rules, re-fits and the scikit-learn contract."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData, MaxentState, fit_map
from fsengine.methods.gain.model import TRACE_COLUMNS, select_features
from fsengine.selectors import CountCutoffSelector, IFSSelector, SGCSelector


@parametrize_with_checks([IFSSelector(n_features_to_select=3), SGCSelector(n_features_to_select=3),
                          SGCSelector(n_features_to_select=3, lookahead=2),
                          CountCutoffSelector(n_features_to_select=3)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def planted():
    ds = make_planted_maxent(seed=0)
    return ds, MaxentData(ds.X, ds.y)


def test_sgc_selects_the_same_first_20_features_as_ifs_on_planted_task(planted):
    ds, data = planted
    ifs = select_features(data, "ifs", n_features=20)
    sgc = select_features(data, "sgc", n_features=20)
    assert set(sgc.selected) == set(ifs.selected)
    # ... and these are the 20 planted (predicate, class) pairs
    truth = ds.extras["true_pairs"]
    planted_pairs = set(zip(truth["predicate"], truth["class"]))
    assert set(zip(*ifs.selected_pairs())) == planted_pairs
    # SGC evaluates a small fraction of the candidates IFS evaluates
    assert sgc.trace["gain_computations"].iloc[1:].sum() < 0.05 * ifs.trace["gain_computations"].iloc[1:].sum()


def test_sgc_with_full_lookahead_reproduces_ifs_exactly(planted):
    _, data = planted
    n_cand = data.candidate_pairs(1)[0].size
    ifs = select_features(data, "ifs", n_features=25)
    la = select_features(data, "sgc", n_features=25, lookahead=n_cand)
    np.testing.assert_array_equal(la.selected, ifs.selected)
    np.testing.assert_allclose(la.trace["alpha"], ifs.trace["alpha"], rtol=1e-9)
    np.testing.assert_allclose(la.trace["gain_total"], ifs.trace["gain_total"], rtol=1e-9)


def test_selection_gains_equal_fresh_gains_on_the_state_before_each_stage(planted):
    _, data = planted
    res = select_features(data, "ifs", n_features=6)
    state = MaxentState.uniform(data)
    for _, row in res.trace.iterrows():
        fresh = state.gains([row["predicate"]], [row["class"]])
        assert fresh.gain[0] == pytest.approx(row["gain_total"], rel=1e-9)
        assert row["gain"] == pytest.approx(row["gain_total"] / data.n)
        state.add(row["predicate"], row["class"], fresh.alpha[0])
    assert res.state.log_likelihood() == pytest.approx(state.log_likelihood(), rel=1e-12)


def test_identical_predicates_break_ties_by_lowest_index():
    rng = np.random.default_rng(0)
    base = (rng.random((400, 6)) < 0.1).astype(float)
    X = sp.csr_matrix(np.hstack([base, base[:, [2]], base[:, [2]]]))  # columns 6, 7 copy column 2
    y = (base[:, 2] > 0).astype(int) * 2 + rng.integers(0, 2, 400) * (base[:, 2] == 0)
    data = MaxentData(X, y)
    for method in ("ifs", "sgc"):
        res = select_features(data, method, n_features=4)
        preds = res.trace["predicate"].tolist()
        assert 2 in preds and 6 not in preds[: preds.index(2) + 1] and 7 not in preds[: preds.index(2) + 1]


def test_budget_min_gain_and_trace(planted):
    _, data = planted
    res = select_features(data, "sgc", n_features=None, min_gain=20.0)
    assert res.stopped == "min_gain"
    assert (res.trace["gain_total"] > 20.0).all() and len(res.trace) >= 5
    assert list(res.trace.columns) == TRACE_COLUMNS
    assert np.all(np.diff(res.trace["seconds"]) >= 0)
    capped = select_features(data, "ifs", n_features=3)
    assert capped.stopped == "budget" and len(capped.trace) == 3
    assert capped.trace["gain_computations"].tolist() == [capped.candidates.shape[0] - k for k in range(3)]
    stop = select_features(data, "sgc", n_features=50, callback=lambda stage, row: stage == 4)
    assert stop.stopped == "stopped by caller" and len(stop.trace) == 5
    with pytest.raises(ValueError, match="lookahead applies to SGC"):
        select_features(data, "ifs", lookahead=3)
    with pytest.raises(ValueError, match="method must be one of"):
        select_features(data, "gis")


def test_refit_every_k_stages_rebuilds_the_state_from_map_weights(planted):
    _, data = planted
    res = select_features(data, "ifs", n_features=6, refit_every=3, refit_prior_variance=5.0)
    pred, cls = res.selected_pairs()
    fit = fit_map(data, pred, cls, prior_variance=5.0)
    np.testing.assert_allclose(res.state.proba(), fit.model.predict_proba(data.X), atol=2e-5)


def test_count_cutoff_takes_the_most_frequent_pairs(planted):
    _, data = planted
    res = select_features(data, "count", n_features=10, cutoff=3)
    cooc = data.cooccurrences()
    counts = [cooc[p, c] for p, c in zip(*res.selected_pairs())]
    assert counts == sorted(counts, reverse=True)
    assert counts[-1] >= np.sort(cooc.ravel())[::-1][9]
    every = select_features(data, "count", n_features=None, cutoff=3)
    assert len(every.trace) == int((cooc >= 3).sum())


def test_selector_maps_pairs_onto_predicate_columns(planted):
    ds, _ = planted
    labels = np.array(["a", "b", "c", "d"])[ds.y]
    sel = SGCSelector(n_features_to_select=8).fit(ds.X, labels, predicate_names=ds.feature_names)
    first = list(dict.fromkeys(sel.selected_pairs_["predicate"]))
    assert sel.order_[: len(first)].tolist() == first
    assert sel.support_.sum() == len(first)
    assert set(sel.selected_pairs_["class"]) <= set("abcd")
    assert sel.trace_["feature"].iloc[0].startswith(ds.feature_names[first[0]] + " -> ")
    for j in first:
        assert sel.scores_[j] == pytest.approx(sel.candidates_.query("predicate == @j")["gain"].max())
    assert sel.model_.n_features == 8
    assert sel.transform(ds.X).shape == (ds.n_samples, len(first))
    pipe = Pipeline([("sel", IFSSelector(n_features_to_select=20)), ("clf", LogisticRegression())])
    Xt, yt = ds.extras["test_X"], ds.extras["test_y"]
    # IFS finds the planted predicates: the pipeline scores as the same classifier on the true
    # predicate columns (the attainable accuracy, about 0.50 with 4 classes), far above chance
    truth = sorted(set(ds.extras["true_pairs"]["predicate"]))
    oracle = LogisticRegression().fit(ds.X[:, truth], ds.y).score(Xt[:, truth], yt)
    assert oracle > np.bincount(yt).max() / yt.size + 0.2
    assert pipe.fit(ds.X, ds.y).score(Xt, yt) == pytest.approx(oracle, abs=0.005)
    with pytest.raises(ValueError, match="predicate names"):
        SGCSelector().fit(ds.X, ds.y, predicate_names=["a"])
