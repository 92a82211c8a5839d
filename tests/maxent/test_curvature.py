"""Core additions used by Bayes-factor selection, against direct evaluation of the model:
``MaxentState.evaluate_at`` (h and a_g at given weights) and ``MapObjective.hessian``."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine.maxent import MapObjective, MaxentData, MaxentState, fit_map


def _direct_loglik(Xd, y, pred, cls, weights, n_classes):
    S = np.zeros((Xd.shape[0], n_classes))
    for j, c, w in zip(pred, cls, weights):
        S[:, c] += w * Xd[:, j]
    S -= S.max(1, keepdims=True)
    return float(np.sum(S[np.arange(len(y)), y] - np.log(np.exp(S).sum(1))))


def _task(binary, seed=4, n=90, p=8, k=3):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.35, random_state=seed, format="csr")
    X.data = np.ones_like(X.data) if binary else rng.normal(size=X.data.size)
    return X, rng.integers(0, k, n)


@pytest.mark.parametrize("binary", [True, False])
def test_evaluate_at_is_loglik_difference_and_its_curvature(binary):
    X, y = _task(binary)
    Xd = X.toarray()
    data = MaxentData(X, y)
    st = MaxentState.uniform(data)
    for j, c, a in [(0, 1, 0.6), (3, 2, -0.9)]:
        st.add(j, c, a)
    base = st.model()
    pred, cls = data.candidate_pairs(1)
    alpha = np.linspace(-2.5, 2.5, pred.size)
    prec = 0.7
    res = st.evaluate_at(pred, cls, alpha, prior_precision=prec)
    np.testing.assert_array_equal(res.alpha, alpha)

    def h(t, a):
        ll = _direct_loglik(Xd, y, np.append(base.predicates, pred[t]),
                            np.append(base.classes, cls[t]), np.append(base.weights, a), 3)
        return ll - _direct_loglik(Xd, y, base.predicates, base.classes, base.weights, 3) - 0.5 * prec * a * a

    eps = 1e-4
    for t in range(pred.size):
        if (pred[t], cls[t]) in [(0, 1), (3, 2)]:
            continue  # for an active pair h is the gain of changing its weight, not of adding it
        assert res.gain[t] == pytest.approx(h(t, alpha[t]), rel=1e-10, abs=1e-10)
        fd = -(h(t, alpha[t] + eps) - 2 * h(t, alpha[t]) + h(t, alpha[t] - eps)) / eps**2
        assert res.curvature[t] == pytest.approx(fd, rel=1e-4, abs=1e-5)
    # at the optimum it reproduces the optimiser's own value and curvature (the optimiser reports
    # them from its last pass, one step of relative size <= tol before the returned alpha)
    opt = st.gains(pred, cls, prior_precision=prec)
    again = st.evaluate_at(pred, cls, opt.alpha, prior_precision=prec)
    np.testing.assert_allclose(again.gain, opt.gain, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(again.curvature, opt.curvature, rtol=1e-8)


def test_evaluate_at_does_not_clip_large_weights():
    X, y = _task(True, seed=2)
    data = MaxentData(X, y)
    st = MaxentState.uniform(data)
    res = st.evaluate_at([1], [0], [35.0])
    assert res.alpha[0] == 35.0 and np.isfinite(res.gain[0])


@pytest.mark.parametrize("binary", [True, False])
def test_map_hessian_matches_finite_differences_of_the_gradient(binary):
    X, y = _task(binary, seed=7, n=120, p=6)
    data = MaxentData(X, y)
    pred = np.repeat(np.arange(6), 3)
    cls = np.tile(np.arange(3), 6)
    var = np.linspace(0.5, 3.0, pred.size)
    var[0] = np.inf
    J = MapObjective(data, pred, cls, prior_variance=var)
    w = np.random.default_rng(1).normal(scale=0.8, size=pred.size)
    A = J.hessian(w)
    eps = 1e-6
    fd = np.array([(J(w + eps * e)[1] - J(w - eps * e)[1]) / (2 * eps) for e in np.eye(pred.size)])
    np.testing.assert_allclose(A, fd, rtol=1e-6, atol=1e-6)
    # positive definite at the MAP of a penalised model (every weight has a finite variance)
    fit = fit_map(data, pred, cls, prior_variance=1.0)
    assert np.linalg.eigvalsh(MapObjective(data, pred, cls, 1.0).hessian(fit.model.weights)).min() > 0
    with pytest.raises(ValueError, match="values for"):
        J.hessian(np.zeros(3))
