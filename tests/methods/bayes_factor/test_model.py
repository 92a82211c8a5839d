"""Approximate Bayes factors (Daume III) against independent references.

The references (a log-likelihood written out with numpy, scipy quadrature) are in
``reference.py``; the Laplace evidence of whole models is tested in ``test_evidence.py``.

* The engine's mean-field beta_g - beta_0 (Eq. 12, Laplace sign) vs the 1-D integral with the
  other weights fixed; the printed sign is off by log a_g. Two disjoint candidates added in turn
  (Eq. 14) vs the 2-D integral; a duplicate of an added feature falls back.
* Newton mu_g vs scipy's bounded scalar optimiser on the exact penalised log-likelihood.
* The automatic stopping point vs the held-out accuracy curve on seeded planted data (uniform and
  multiplicity model priors; the gaps are printed, run with -s).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize_scalar

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData, MaxentState, fit_map
from fsengine.methods.bayes_factor.model import (
    STOP_BAYES,
    approx_bayes_factor_selection,
    beta_margin,
    misclassified_proposals,
    score_candidates,
)
from tests.methods.bayes_factor.reference import log_integral_1d, log_integral_2d, loglik, three_class_task


def test_mean_field_margin_is_the_laplace_integral_and_the_printed_sign_is_off_by_log_a():
    Xd, y, data, state, (bp, bc, bw) = three_class_task()
    var = 1.5
    base = loglik(Xd, y, bp, bc, bw, 3)
    lap = score_candidates(state, [0, 1, 3], [1, 2, 0], var, sign="laplace")
    printed = score_candidates(state, [0, 1, 3], [1, 2, 0], var, sign="printed")
    for t, (j, c) in enumerate([(0, 1), (1, 2), (3, 0)]):
        def log_ratio(mu, j=j, c=c):  # log [pi(mu) p(D | lambda0, mu) / p(D | lambda0)]
            return (loglik(Xd, y, bp + [j], bc + [c], np.append(bw, mu), 3) - base
                    - 0.5 * mu * mu / var - 0.5 * np.log(2 * np.pi * var))

        exact = log_integral_1d(log_ratio, lap.mu[t], 1 / np.sqrt(lap.curvature[t]))
        assert lap.margin[t] == pytest.approx(exact, abs=0.01), (j, c)
        # the printed +1/2 log a_g differs from Eq. (7) by exactly log a_g (>> 0.01 here)
        assert printed.margin[t] - lap.margin[t] == pytest.approx(np.log(lap.curvature[t]), rel=1e-12)
        assert abs(printed.margin[t] - exact) > 2.0
    # the two planted features beat beta_0, the noise column does not
    assert lap.margin[0] > 5 and lap.margin[1] > 5 and lap.margin[2] < 0


def test_eq14_two_disjoint_features_match_the_2d_integral_and_a_duplicate_falls_back():
    Xd, y, data, state, (bp, bc, bw) = three_class_task()
    var = 1.5
    base = loglik(Xd, y, bp, bc, bw, 3)
    run = approx_bayes_factor_selection(Xd[:, :4], y, per_round=2, prior_variance=var,
                                        max_pairs=2)
    first = list(zip(run.predicates.tolist(), run.classes.tolist()))
    assert set(first) == {(0, 1), (1, 2)}  # the copy (2, 1) of (0, 1) is not taken second
    assert run.trace.loc[0, "n_added"] == 2

    def log_ratio(a, b):
        return (loglik(Xd, y, bp + [0, 1], bc + [1, 2], np.append(bw, [a, b]), 3) - base
                - 0.5 * (a * a + b * b) / var - np.log(2 * np.pi * var))

    s = score_candidates(state, [0, 1], [1, 2], var)
    exact = log_integral_2d(log_ratio, s.mu, 1 / np.sqrt(s.curvature))
    # beta after two additions minus beta_0 of round 0 = margin_1 + re-scored margin_2 (Eq. 14)
    total = run.beta[1] - run.trace.loc[0, "beta_0"]
    assert total == pytest.approx(exact, abs=0.02)
    # a duplicate of an added feature: fresh it scores like the original, after Eq. (14) it is
    # negative (the mean-field weights double-count the same evidence)
    grown = state.copy()
    grown.add(0, 1, s.mu[0])
    dup_fresh = score_candidates(state, [2], [1], var).margin[0]
    again = grown.evaluate_at([2], [1], [s.mu[0]], prior_precision=1 / var)
    dup_after = beta_margin(again.gain, again.curvature, var)[0]
    assert dup_fresh == pytest.approx(s.margin[0], rel=1e-10)
    assert dup_after < 0 < dup_fresh


@pytest.mark.parametrize("binary", [True, False])
def test_newton_mu_matches_scalar_optimiser_on_exact_penalised_loglik(binary):
    rng = np.random.default_rng(11)
    n, P = 300, 12
    X = sp.random(n, P, density=0.25, random_state=5, format="csr")
    X.data = np.ones_like(X.data) if binary else rng.normal(size=X.data.size)
    y = rng.integers(0, 3, n)
    Xd = X.toarray()
    data = MaxentData(X, y, 3)
    active = ([0, 5, 7], [1, 2, 0])
    fit = fit_map(data, *active, prior_variance=1.0)
    state = MaxentState.from_weights(data, *active, fit.model.weights)
    base = loglik(Xd, y, *active, fit.model.weights, 3)
    wrong = state.predict() != y
    pred, cls = misclassified_proposals(data, state.predict(), np.array([0 * 3 + 1, 5 * 3 + 2, 7 * 3]), P)
    # Section 3.6: every proposal fires on a misclassified row, for its gold or predicted class
    for j, c in zip(pred, cls):
        rows = np.flatnonzero((Xd[:, j] != 0) & wrong)
        assert np.any((y[rows] == c) | (state.predict()[rows] == c))
    var = np.linspace(0.3, 4.0, pred.size)
    s = score_candidates(state, pred, cls, var)
    for t in range(pred.size):
        def neg(mu, t=t):
            return -(loglik(Xd, y, active[0] + [pred[t]], active[1] + [cls[t]],
                            np.append(fit.model.weights, mu), 3) - base - 0.5 * mu * mu / var[t])

        ref = minimize_scalar(neg, bounds=(-20, 20), method="bounded", options={"xatol": 1e-10})
        assert s.mu[t] == pytest.approx(ref.x, abs=1e-6)
        assert s.gain[t] == pytest.approx(-ref.fun, rel=1e-9, abs=1e-10)
        h = 1e-4
        curv = (neg(s.mu[t] + h) - 2 * neg(s.mu[t]) + neg(s.mu[t] - h)) / h**2
        assert s.curvature[t] == pytest.approx(curv, rel=1e-4)


def _planted(seed, n_test=20000):
    return make_planted_maxent(n_samples=1000, n_predicates=60, n_classes=3, n_true=8,
                               n_test=n_test, min_rate=0.05, max_rate=0.25, seed=seed)


@pytest.mark.parametrize("prior", ["uniform", "multiplicity"])
@pytest.mark.parametrize("seed", [0, 1])
def test_automatic_stop_is_near_the_best_heldout_accuracy(seed, prior):
    ds = _planted(seed)
    odds = 0.0 if prior == "uniform" else "multiplicity"
    run = approx_bayes_factor_selection(ds.X, ds.y, per_round=2, log_prior_odds=odds,
                                        X_val=ds.extras["test_X"], y_val=ds.extras["test_y"],
                                        max_pairs=30, rounds_past_stop=None)
    tr = run.trace
    assert run.stop_round is not None and tr["bayes_stop"].sum() == 1
    at_stop = tr.loc[tr["n_selected"] == run.n_at_stop].iloc[0]
    best = tr.loc[tr["heldout_accuracy"].idxmax()]
    gap = best["heldout_accuracy"] - at_stop["heldout_accuracy"]
    true = set(zip(ds.extras["true_pairs"]["predicate"], ds.extras["true_pairs"]["class"]))
    found = set(zip(run.predicates[:run.n_at_stop].tolist(), run.classes[:run.n_at_stop].tolist()))
    print(f"\nseed {seed}, {prior} model prior: automatic stop at {run.n_at_stop} pairs "
          f"({len(found & true)} of {len(true)} planted; held-out accuracy "
          f"{at_stop['heldout_accuracy']:.4f}); best held-out accuracy {best['heldout_accuracy']:.4f} "
          f"at {int(best['n_selected'])} pairs; gap {gap:.4f}")
    assert gap < 0.01
    assert len(found & true) >= 7
    # the stop is where the best candidate's margin first drops below zero ...
    assert tr.loc[tr["bayes_stop"], "best_margin"].iloc[0] <= 0
    assert (tr.loc[tr["round"] < run.stop_round, "best_margin"] > 0).all()
    # ... and stopping pays: 30 pairs predict worse than the stop on held-out data
    assert tr["heldout_log_loss"].iloc[-1] > at_stop["heldout_log_loss"]
    if prior == "multiplicity":  # the prior removes the noise pairs the uniform prior admits
        assert len(found - true) <= 1
    # the final model (30 pairs) predicts new rows as the trace says
    acc = np.mean(run.predict(ds.extras["test_X"]) == ds.extras["test_y"])
    assert acc == pytest.approx(tr["heldout_accuracy"].iloc[-1])
    auto = approx_bayes_factor_selection(ds.X, ds.y, per_round=2, log_prior_odds=odds)
    assert auto.stop_reason == STOP_BAYES and auto.predicates.size == run.n_at_stop
    np.testing.assert_array_equal(auto.predicates, run.predicates[:run.n_at_stop])
