"""The selection engine (IFS, SGC, look-ahead and count cutoff): agreement with each other and
with the planted truth, tie-breaking, stopping rules, progress and stop requests, re-fits."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData, MaxentState, fit_map
from fsengine.methods.gain.model import DEFAULT_PAIRS, STOP_REQUESTED, TRACE_COLUMNS, select_features
from fsengine.methods.registry import method_defaults
from fsengine.progress import StopRequested

#: trace columns that must agree between two runs (``seconds`` is wall time, ``cpu_seconds`` CPU time)
SAME = [c for c in TRACE_COLUMNS if c not in ("seconds", "cpu_seconds")]


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
    assert res.stop_reason == "no candidate gains more than min_gain = 20 nats"
    assert (res.trace["gain_total"] > 20.0).all() and len(res.trace) >= 5
    assert list(res.trace.columns) == TRACE_COLUMNS
    assert np.all(np.diff(res.trace["seconds"]) >= 0) and np.all(np.diff(res.trace["cpu_seconds"]) >= 0)
    capped = select_features(data, "ifs", n_features=3)
    assert capped.stop_reason == "the budget of 3 pairs is reached" and len(capped.trace) == 3
    assert capped.trace["gain_computations"].tolist() == [capped.candidates.shape[0] - k for k in range(3)]
    with pytest.raises(ValueError, match="lookahead applies to SGC"):
        select_features(data, "ifs", lookahead=3)
    with pytest.raises(ValueError, match="method must be one of"):
        select_features(data, "gis")
    # the count cutoff computes no gains: a gain threshold or a re-fit would be ignored, so they are refused
    for bad in ({"min_gain": 1.0}, {"refit_every": 2}):
        with pytest.raises(ValueError, match="apply to IFS and SGC"):
            select_features(data, "count", **bad)
    # the engine's default budget is the registry's, as the selectors'
    assert DEFAULT_PAIRS == method_defaults("sgc")["n_features_to_select"] == 50


def _stop_after(k: int, seen: list):
    """A progress callback that records every call and asks to stop once ``k`` stages are done."""
    def progress(fraction, message):
        seen.append((fraction, message))
        if message.startswith(f"stage {k} of"):
            raise StopRequested
    return progress


@pytest.mark.parametrize("method, kw", [("ifs", {}), ("sgc", {}), ("sgc", {"lookahead": 5}), ("count", {})])
def test_a_stop_request_keeps_the_first_stages_of_the_full_run(planted, method, kw):
    _, data = planted
    full_seen = []
    full = select_features(data, method, n_features=12, progress=lambda f, m: full_seen.append((f, m)), **kw)
    fractions = [f for f, _ in full_seen]
    assert all(0.0 <= f <= 1.0 for f in fractions) and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert [m for _, m in full_seen if m.startswith("stage")][:2] == [
        f"stage 1 of 12 ({full.trace['predicate_name'].iloc[0]})",
        f"stage 2 of 12 ({full.trace['predicate_name'].iloc[1]})"]
    seen = []
    part = select_features(data, method, n_features=12, progress=_stop_after(5, seen), **kw)
    assert part.stop_reason == STOP_REQUESTED == "stop requested"
    assert len(part.trace) == 5
    assert part.trace[SAME].equals(full.trace[SAME].iloc[:5])
    assert (part.candidates["selected_at"] >= 0).sum() == 5
    if method != "count":  # the model holds exactly the pairs kept
        assert part.state.model().n_features == 5
    with pytest.raises(StopRequested, match="stop requested after 5 stages"):
        part.propagate_stop()
    assert full.propagate_stop() is full


def test_a_stop_request_before_the_first_stage_selects_nothing(planted):
    _, data = planted

    def refuse(fraction, message):
        raise StopRequested

    res = select_features(data, "sgc", n_features=5, progress=refuse)
    assert res.stop_reason == "stop requested" and len(res.trace) == 0
    assert (res.candidates["selected_at"] == -1).all()


def test_other_exceptions_of_a_callback_propagate(planted):
    _, data = planted

    def interrupt(fraction, message):
        if fraction > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        select_features(data, "ifs", n_features=5, progress=interrupt)


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
    assert every.stop_reason == "every candidate pair is selected"
    # progress at most 100 times (about every 1% of the stages), ending at 1
    seen = []
    select_features(data, "count", n_features=None, cutoff=3, progress=lambda f, m: seen.append(f))
    assert len(every.trace) > 200 and 50 <= len(seen) <= 100 and seen[-1] == 1.0 and seen == sorted(seen)
