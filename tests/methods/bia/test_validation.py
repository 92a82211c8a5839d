"""The live exact check (fsengine.methods.bia.validation): its posteriors, its grid position and its
caption, against a fresh model solved at each ratio and errors recomputed by hand."""

import math

import numpy as np
import pytest

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.methods.bia.model import build_bia_model
from fsengine.methods.bia.validation import (
    DEFAULT_RATIOS,
    MAX_CHECK_FEATURES,
    check_size_limit,
    check_subproblem,
    pick_features,
)
from fsengine.references.linear_evidence import linear_inclusion_probabilities


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
