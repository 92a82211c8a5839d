"""GLM log-likelihood, gradient and Hessian (fsengine.glm) against scipy and finite differences."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import expit

from fsengine import glm


@pytest.fixture
def design():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4)) * [1.0, 3.0, 0.5, 2.0] + [0.0, 5.0, -1.0, 2.0]
    eta = 0.3 + X @ np.array([0.4, -0.1, 0.8, 0.0])
    return X, {
        "linear": eta + rng.normal(size=80),
        "logistic": (rng.random(80) < expit(eta)).astype(float),
        "poisson": rng.poisson(np.exp(0.2 * eta)).astype(float),
    }


@pytest.mark.parametrize("name", glm.FAMILY_NAMES)
def test_log_likelihood_matches_scipy_distributions(name, design):
    X, ys = design
    y, fam = ys[name], glm.get_family(name)
    theta, b0 = np.array([0.1, -0.05, 0.2, 0.03]), 0.2
    eta = b0 + X @ theta
    ref = {"linear": lambda: stats.norm(eta, np.sqrt(1.7)).logpdf(y).sum(),
           "logistic": lambda: stats.bernoulli(expit(eta)).logpmf(y).sum(),
           "poisson": lambda: stats.poisson(np.exp(eta)).logpmf(y).sum()}[name]()
    phi = 1.7 if name == "linear" else 1.0
    assert glm.log_likelihood(fam, X, y, theta, b0, phi) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("name", glm.FAMILY_NAMES)
def test_gradient_and_hessian_match_finite_differences(name, design):
    X, ys = design
    y, fam = ys[name], glm.get_family(name)
    theta, b0, h = np.array([0.1, -0.05, 0.2, 0.03]), 0.2, 1e-5
    f = lambda t: glm.log_likelihood(fam, X, y, t, b0)
    eye = np.eye(4)
    num_grad = np.array([(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in eye])
    np.testing.assert_allclose(glm.gradient(fam, X, y, theta, b0), num_grad, rtol=1e-6, atol=1e-6)
    g = lambda t: glm.gradient(fam, X, y, t, b0)
    num_hess = np.array([(g(theta + h * e) - g(theta - h * e)) / (2 * h) for e in eye])
    np.testing.assert_allclose(glm.hessian(fam, X, y, theta, b0), num_hess, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", glm.FAMILY_NAMES)
def test_prior_mean_expansion_is_the_derivative_at_the_matched_intercept(name, design):
    """Eq. (17)-(19), (25)-(28) in closed form vs the general derivatives at theta-bar."""
    X, ys = design
    y, fam = ys[name], glm.get_family(name)
    exp = glm.prior_mean_expansion(name, X, y)
    Z = (X - X.mean(0)) / X.std(0)
    assert fam.mean(exp.intercept) == pytest.approx(y.mean())
    phi = y.var() if name == "linear" else 1.0
    zero = np.zeros(4)
    np.testing.assert_allclose(exp.b, glm.gradient(fam, Z, y, zero, exp.intercept, phi), rtol=1e-10)
    np.testing.assert_allclose(exp.hessian(), glm.hessian(fam, Z, y, zero, exp.intercept, phi),
                               rtol=1e-10)
    np.testing.assert_allclose(np.diag(exp.gram), 80.0, rtol=1e-12)  # G = n Corr


def test_sparse_design_gives_the_same_expansion(design):
    X, ys = design
    X = np.where(np.abs(X) < 1.0, 0.0, X)
    dense = glm.prior_mean_expansion("logistic", X, ys["logistic"])
    sparse = glm.prior_mean_expansion("logistic", sp.csr_matrix(X), ys["logistic"])
    np.testing.assert_allclose(sparse.b, dense.b, rtol=1e-10)
    np.testing.assert_allclose(sparse.gram, dense.gram, rtol=1e-9, atol=1e-9)


def test_clear_errors():
    X = np.c_[np.ones(6), np.arange(6.0), np.zeros(6)]
    with pytest.raises(glm.ConstantFeatureError, match=r"2 constant feature\(s\).*a, c"):
        glm.prior_mean_expansion("linear", X, np.arange(6.0), feature_names=["a", "b", "c"])
    Xok = np.arange(12.0).reshape(6, 2) ** 2
    with pytest.raises(ValueError, match="single class"):
        glm.prior_mean_expansion("logistic", Xok, np.ones(6))
    with pytest.raises(ValueError, match="binary labels coded 0/1; y has 3 distinct"):
        glm.prior_mean_expansion("logistic", Xok, np.array([0, 1, 2, 0, 1, 2]))
    with pytest.raises(ValueError, match="non-negative integer counts"):
        glm.prior_mean_expansion("poisson", Xok, np.array([0, 1, 2.5, 0, 1, 2]))
    with pytest.raises(ValueError, match="Unknown GLM family"):
        glm.get_family("probit")
