"""The live exact check (fsengine.methods.bia.validation): its posteriors, its grid position and its
caption, against a fresh model solved at each ratio and errors recomputed by hand; the orders of the
expansion against the closed-form and Laplace evidence, and the error scale derived from them."""

import math

import numpy as np
import pytest

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.glm import prior_mean_expansion
from fsengine.methods.bia.model import build_bia_model, posterior_from_magnetization
from fsengine.methods.bia.validation import (
    DEFAULT_RATIOS,
    MAX_CHECK_FEATURES,
    check_size_limit,
    check_subproblem,
    expansion_orders,
    pick_features,
    third_cumulant,
)
from fsengine.references.ising_exact import exact_magnetizations
from fsengine.references.laplace_evidence import laplace_log_evidence
from fsengine.references.linear_evidence import linear_inclusion_probabilities, linear_log_evidence


@pytest.fixture(scope="module")
def linear_check():
    ds = make_sparse_glm("linear", n=150, p=10, k=3, rho=0.3, seed=2)
    features = pick_features(ds.X, 5, seed=3)
    return ds, features, check_subproblem(ds.X, ds.y, "linear", features, ds.feature_names,
                                          ratios=(10.0, 1.0, 3.0))


def test_check_rows_follow_ascending_ratios_and_match_a_fresh_solve(linear_check):
    ds, features, check = linear_check
    assert check.ratios.tolist() == [1.0, 3.0, 10.0]
    assert check.feature_names == [ds.feature_names[j] for j in features]
    model = build_bia_model(ds.X[:, features], ds.y, "linear")
    assert check.lambda_star == pytest.approx(model.lambda_star)
    for row, ratio in enumerate(check.ratios):
        np.testing.assert_allclose(check.bia[row], model.solve(ratio).posterior, atol=1e-8)
    exact = linear_inclusion_probabilities(ds.X[:, features], ds.y, check.ratios * model.lambda_star)
    np.testing.assert_allclose(check.exact, exact, atol=1e-12)
    assert check.exact_label == "exact (closed-form evidence)"


def test_position_and_caption_use_the_checks_own_grid(linear_check):
    _, _, check = linear_check
    for value, expected in ((0.2, 0), (1.6, 0), (1.8, 1), (5.0, 1), (6.0, 2), (500.0, 2)):
        pos = check.position(value)
        distances = [abs(math.log(r / value)) for r in check.ratios]
        assert pos.index == expected == distances.index(min(distances)) and pos.value == check.ratios[expected]
    errors = [max(abs(b - e) for b, e in zip(bia, exact)) for bia, exact in zip(check.bia, check.exact)]
    pos = check.position(2.0)
    assert check.caption(pos) == (
        f"Subproblem Λ* = {check.lambda_star:,.0f}. Largest |p_BIA − p_exact| at the nearest checked Λ/Λ*: "
        f"{errors[pos.index]:.2g}; at Λ/Λ* = 10: {errors[-1]:.2g}.")


def test_feature_draws_and_size_limits():
    ds = make_sparse_glm("linear", n=60, p=20, seed=1)
    X = ds.X.copy()
    X[:, 4] = 1.0
    drawn = pick_features(X, 12, seed=0)
    assert drawn.size == 12 and 4 not in drawn and list(drawn) == sorted(drawn)
    assert pick_features(X, 3, seed=5, candidates=[1, 2, 3, 4]).tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="choose 1 to 12"):
        pick_features(X, MAX_CHECK_FEATURES + 1, seed=0)
    with pytest.raises(ValueError, match="Only 3 non-constant"):
        pick_features(X, 4, seed=0, candidates=[1, 2, 3, 4])
    assert check_size_limit("linear", 2) == 2 and check_size_limit("poisson", 100) == 10
    assert DEFAULT_RATIOS[-1] == 10.0


# --- the error scale of the neglected orders (expansion_orders) -------------------------------------

def _unbalanced_logistic():
    ds = make_sparse_glm("logistic", n=1200, p=5, k=2, rho=0.3, seed=4)
    keep = np.flatnonzero((ds.y == 0) | (np.arange(ds.y.size) % 4 == 0))  # about one positive in five
    return ds.X[keep], ds.y[keep]


def test_second_order_marginals_are_the_ising_models_exact_marginals():
    X, y = _unbalanced_logistic()
    model = build_bia_model(X, y, "logistic")
    ratios = np.array([1.0, 4.0])
    orders = expansion_orders(X, y, "logistic", ratios * model.lambda_star)
    for row, ratio in enumerate(ratios):
        m = exact_magnetizations(model.fields(ratio), model.couplings_at(ratio))[0]
        np.testing.assert_allclose(orders.marginals()[row], posterior_from_magnetization(m), atol=1e-12)


@pytest.mark.parametrize("family", ["linear", "logistic"])
def test_third_order_is_the_leading_remainder_of_the_exact_evidence(family):
    """exact - second order falls as eps^3 and exact - second - third as eps^4 when Lambda doubles
    (linear: the closed-form evidence, Eq. 5 exactly; logistic with 18% positives: the Laplace
    evidence, whose cubic likelihood terms the third order includes through kappa3)."""
    if family == "linear":
        ds = make_sparse_glm("linear", n=300, p=5, k=2, rho=0.3, seed=4)
        X, y = ds.X, ds.y
    else:
        X, y = _unbalanced_logistic()
    lam = build_bia_model(X, y, family).lambda_star * np.array([2.0, 4.0, 8.0])
    orders = expansion_orders(X, y, family, lam)
    _, exact = linear_log_evidence(X, y, lam) if family == "linear" else laplace_log_evidence(X, y, family, lam)
    remainder = np.abs(exact - orders.second).max(axis=1)
    residual = np.abs(exact - orders.second - orders.third).max(axis=1)
    assert np.all(remainder[:-1] / remainder[1:] > 7.0)  # eps^3: 8 per doubling
    assert np.all(residual[:-1] / residual[1:] > 12.0)  # eps^4: 16 per doubling
    assert np.all(residual < 0.2 * remainder)
    np.testing.assert_allclose(orders.x, 1.0 / lam * np.linalg.norm(
        prior_mean_expansion(family, X, y).hessian(), 2), rtol=1e-12)


def test_tolerance_is_the_covariance_scale_of_the_third_order():
    X, y = _unbalanced_logistic()
    lam = build_bia_model(X, y, "logistic").lambda_star * np.array([1.0, 10.0])
    orders = expansion_orders(X, y, "logistic", lam)
    for row in range(2):
        w = np.exp(orders.second[row] - orders.second[row].max())
        w /= w.sum()
        p = w @ orders.masks
        sd = math.sqrt(np.sum(w * orders.third[row] ** 2) - np.sum(w * orders.third[row]) ** 2)
        expected = max(math.sqrt(q * (1 - q)) for q in p) * sd / (1 - orders.x[row])
        assert orders.tolerance()[row] == pytest.approx(expected, rel=1e-9)
        # first-order response of each marginal to the third order: |Cov_P(t_j, R3)| <= the scale
        cov = w @ (orders.masks * (orders.third[row] - w @ orders.third[row])[:, None])
        assert np.all(np.abs(cov) <= expected)
    assert third_cumulant("logistic", 0.2) == pytest.approx(-0.2 * 0.8 * 0.6)
    assert third_cumulant("logistic", 0.5) == 0.0 and third_cumulant("linear", 0.3) == 0.0
