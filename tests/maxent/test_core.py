"""The maxent core against independent references: scikit-learn's multinomial logistic regression
(MAP training), direct evaluation of the model (state, gains), hand-scored conlleval cases."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import OneHotEncoder

from fsengine.maxent import (
    ALPHA_CAP,
    MapObjective,
    MaxentData,
    MaxentModel,
    MaxentState,
    accuracy,
    chunk_scores,
    chunk_spans,
    fit_map,
    sentence_counts,
    stage0_gains,
)


def _one_hot_task(seed=0, n=400, n_vars=4, levels=4, n_classes=4):
    rng = np.random.default_rng(seed)
    cats = rng.integers(0, levels, size=(n, n_vars))
    X = OneHotEncoder().fit_transform(cats).tocsr().astype(np.float64)
    W = rng.normal(scale=1.5, size=(X.shape[1], n_classes))
    logits = X @ W
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = np.array([rng.choice(n_classes, p=row) for row in p])
    return X, y


def _all_pairs(n_pred, n_classes):
    return np.repeat(np.arange(n_pred), n_classes), np.tile(np.arange(n_classes), n_pred)


@pytest.mark.parametrize("C", [0.3, 4.0])
def test_map_training_matches_sklearn_multinomial(C):
    X, y = _one_hot_task()
    data = MaxentData(X, y)
    pred, cls = _all_pairs(X.shape[1], 4)
    fit = fit_map(data, pred, cls, prior_variance=C, tol=1e-10)
    ref = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=20000).fit(X, y)
    J = MapObjective(data, pred, cls, prior_variance=C)
    j_ref, _ = J(ref.coef_.T[pred, cls])
    assert fit.converged
    assert abs(fit.objective - j_ref) <= 1e-6 * abs(j_ref)
    np.testing.assert_array_equal(fit.model.predict(X), ref.predict(X))
    np.testing.assert_allclose(fit.model.predict_proba(X), ref.predict_proba(X), atol=1e-4)


def test_unpenalised_bias_via_per_feature_variance_matches_sklearn_intercept():
    X, y = _one_hot_task(seed=3, n_classes=3)
    Xb = sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr()
    data = MaxentData(Xb, y)
    pred, cls = _all_pairs(Xb.shape[1], 3)
    var = np.where(pred == Xb.shape[1] - 1, np.inf, 1.0)
    fit = fit_map(data, pred, cls, prior_variance=var, tol=1e-10)
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=20000).fit(X, y)
    W = np.vstack([ref.coef_.T, ref.intercept_[None, :]])
    j_ref, _ = MapObjective(data, pred, cls, prior_variance=var)(W[pred, cls])
    assert abs(fit.objective - j_ref) <= 1e-6 * abs(j_ref)
    np.testing.assert_array_equal(fit.model.predict(Xb), ref.predict(X))


def test_map_gradient_matches_finite_differences_and_warm_start_helps():
    X, y = _one_hot_task(seed=1, n=120)
    data = MaxentData(X, y)
    pred, cls = _all_pairs(X.shape[1], 4)
    J = MapObjective(data, pred, cls, prior_variance=np.linspace(0.5, 2.0, pred.size))
    w = np.random.default_rng(0).normal(size=pred.size)
    _, g = J(w)
    eps = 1e-6
    fd = np.array([(J(w + eps * e)[0] - J(w - eps * e)[0]) / (2 * eps) for e in np.eye(pred.size)[:12]])
    np.testing.assert_allclose(g[:12], fd, rtol=1e-5, atol=1e-6)
    cold = fit_map(data, pred, cls, prior_variance=1.0)
    warm = fit_map(data, pred, cls, prior_variance=1.0, w0=cold.model.weights)
    assert warm.n_iter < cold.n_iter and abs(warm.objective - cold.objective) < 1e-6 * cold.objective


def _direct_loglik(X, y, pred, cls, weights, n_classes):
    S = np.zeros((X.shape[0], n_classes))
    Xd = X.toarray()
    for j, c, w in zip(pred, cls, weights):
        S[:, c] += w * Xd[:, j]
    S -= S.max(1, keepdims=True)
    return float(np.sum(S[np.arange(len(y)), y] - np.log(np.exp(S).sum(1))))


def test_state_tracks_direct_model_and_exports_it():
    X, y = _one_hot_task(seed=2, n=150, n_classes=3)
    data = MaxentData(X, y)
    st = MaxentState.uniform(data)
    feats = [(0, 1, 0.7), (5, 2, -1.3), (0, 1, 0.4), (9, 0, 2.0)]
    for j, c, a in feats:
        st.add(j, c, a)
    model = st.model()
    assert model.n_features == 3
    ll = _direct_loglik(X, y, model.predicates, model.classes, model.weights, 3)
    assert st.log_likelihood() == pytest.approx(ll, rel=1e-12)
    np.testing.assert_allclose(st.proba(), model.predict_proba(X), atol=1e-13)
    again = MaxentState.from_weights(data, model.predicates, model.classes, model.weights)
    np.testing.assert_allclose(again.proba(), st.proba(), atol=1e-13)


def test_row_renormalisation_keeps_near_certain_instances_exact():
    # one predicate pushed to p ~ 1 - 1e-17 and back: subtract-then-add would lose it entirely
    X = sp.csr_matrix(np.array([[1.0], [1.0], [0.0]]))
    data = MaxentData(X, np.array([0, 1, 2]), n_classes=3)
    st = MaxentState.uniform(data)
    for _ in range(2):
        st.add(0, 0, 20.0)
    st.add(0, 1, 39.0)
    ref = _direct_loglik(X, data.y, [0, 0], [0, 1], [40.0, 39.0], 3)
    assert st.log_likelihood() == pytest.approx(ref, rel=1e-12)
    assert np.all(np.isfinite(st.sum)) and st.sum.max() <= 1.0


def _brute_force_gain(X, y, model, j, c, n_classes, prec=0.0):
    base = _direct_loglik(X, y, model.predicates, model.classes, model.weights, n_classes)

    def neg(a):
        pred = np.append(model.predicates, j)
        cls = np.append(model.classes, c)
        w = np.append(model.weights, a)
        return -(_direct_loglik(X, y, pred, cls, w, n_classes) - base - 0.5 * prec * a * a)

    res = minimize_scalar(neg, bounds=(-ALPHA_CAP, ALPHA_CAP), method="bounded",
                          options={"xatol": 1e-10})
    return res.x, -res.fun


@pytest.mark.parametrize("binary", [True, False])
def test_gains_equal_brute_force_loglik_difference(binary):
    rng = np.random.default_rng(5)
    X = sp.random(120, 15, density=0.2, random_state=2, format="csr")
    if binary:
        X.data[:] = 1.0
    else:
        X.data = rng.normal(size=X.data.size)
    y = rng.integers(0, 3, 120)
    data = MaxentData(X, y)
    st = MaxentState.uniform(data)
    for j, c, a in [(1, 0, 0.8), (4, 2, -0.5), (7, 1, 1.2)]:
        st.add(j, c, a)
    pred, cls = data.candidate_pairs(1)
    res = st.gains(pred, cls)
    pen = st.gains(pred, cls, prior_precision=2.0)
    for t in range(0, pred.size, 3):
        a_ref, g_ref = _brute_force_gain(X, y, st.model(), pred[t], cls[t], 3)
        assert res.gain[t] == pytest.approx(g_ref, rel=1e-8, abs=1e-10)
        if abs(a_ref) < ALPHA_CAP - 1e-3:
            assert res.alpha[t] == pytest.approx(a_ref, abs=1e-5)
        a_ref, g_ref = _brute_force_gain(X, y, st.model(), pred[t], cls[t], 3, prec=2.0)
        assert pen.gain[t] == pytest.approx(g_ref, rel=1e-8, abs=1e-10)
        assert pen.alpha[t] == pytest.approx(a_ref, abs=1e-5)
    # gain_at agrees with the optimum and curvature is -h'' (finite differences of gain_at)
    np.testing.assert_allclose(st.gain_at(pred, cls, res.alpha), res.gain, rtol=1e-12, atol=1e-12)
    h = 1e-4
    fd = -(st.gain_at(pred, cls, res.alpha + h) - 2 * res.gain + st.gain_at(pred, cls, res.alpha - h)) / h**2
    inside = np.abs(res.alpha) < ALPHA_CAP - 1
    np.testing.assert_allclose(res.curvature[inside], fd[inside], rtol=1e-4, atol=1e-6)


def test_stage0_closed_form_equals_newton_and_caps_saturated_pairs():
    rng = np.random.default_rng(1)
    X = sp.random(500, 60, density=0.05, random_state=3, format="csr")
    X.data[:] = 1.0
    X = sp.hstack([X, sp.csr_matrix(np.r_[np.ones(20), np.zeros(480)][:, None])]).tocsr()
    y = rng.integers(0, 4, 500)
    y[:20] = 2  # predicate 60 always co-occurs with class 2: alpha = +inf, capped
    data = MaxentData(X, y)
    pred, cls = data.candidate_pairs(1)
    closed = stage0_gains(data, pred, cls)
    newton = MaxentState.uniform(data).gains(pred, cls)
    np.testing.assert_allclose(closed.gain, newton.gain, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(closed.alpha, newton.alpha, atol=1e-7)
    sat = np.flatnonzero((pred == 60) & (cls == 2))[0]
    assert closed.alpha[sat] == ALPHA_CAP
    # capped gain is within 1e-6 relative of the uncapped limit n_j log(1 / p0)
    assert closed.gain[sat] == pytest.approx(20 * np.log(4), rel=1e-6)
    # Zhou et al.'s KL form where the cap is inactive
    R = data.feature_sums()[pred, cls] / data.predicate_frequency()[pred]
    ok = (R > 0) & (R < 1)
    p0 = 0.25
    R = np.where(ok, R, 0.5)
    kl = data.predicate_frequency()[pred] * (R * np.log(R / p0) + (1 - R) * np.log((1 - R) / (1 - p0)))
    np.testing.assert_allclose(closed.gain[ok], kl[ok], rtol=1e-10)


def test_bad_inputs_have_clear_errors():
    X = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="class indices"):
        MaxentData(X, np.array([0.5, 1, 2]))
    with pytest.raises(ValueError, match="one class index per row"):
        MaxentData(X, np.array([0, 1]))
    data = MaxentData(X, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="out of range"):
        MaxentState.uniform(data).gains([5], [0])
    with pytest.raises(ValueError, match="more than once"):
        MaxentModel(3, 3, [0, 0], [1, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match="prior_variance"):
        fit_map(data, [0], [0], prior_variance=0.0)
    with pytest.raises(ValueError, match="predicate columns"):
        MaxentModel(3, 3, [0], [1], [1.0]).predict(np.eye(4))
    bad = sp.csr_matrix(np.eye(3))
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MaxentData(bad, np.array([0, 1, 2]))


def test_conlleval_chunks_and_scores_by_hand():
    # I after O starts a chunk; a type change ends one; B always starts one
    assert chunk_spans(["B-NP", "I-NP", "O", "I-NP", "I-VP", "B-VP", "B-NP"]) == [
        (0, 1, "NP"), (3, 3, "NP"), (4, 4, "VP"), (5, 5, "VP"), (6, 6, "NP")]
    gold = [["B-NP", "I-NP", "O", "B-VP"], ["B-NP", "B-NP", "I-NP"]]
    guess = [["B-NP", "I-NP", "O", "B-NP"], ["B-NP", "I-NP", "I-NP"]]
    s = chunk_scores(gold, guess)
    # gold: NP(0-1) VP(3) | NP(0) NP(1-2); guessed: NP(0-1) NP(3) | NP(0-2); correct: NP(0-1) of s1
    assert (s.n_gold, s.n_guessed, s.n_correct) == (4, 3, 1)
    assert s.precision == pytest.approx(100 / 3) and s.recall == pytest.approx(25.0)
    assert s.f1 == pytest.approx(2 * (100 / 3) * 25 / (100 / 3 + 25))
    assert s.accuracy == pytest.approx(100 * 5 / 7)
    # per sentence: (TP, FP, FN) = (1, 1, 1) in s1, (0, 1, 2) in s2; their sums are the totals above
    np.testing.assert_array_equal(sentence_counts(gold, guess), [[1, 1, 1], [0, 1, 2]])
    assert accuracy([1, 2, 3], [1, 0, 3]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="2 gold sentences vs 1 guessed"):
        sentence_counts(gold, guess[:1])
    with pytest.raises(ValueError, match="IOB"):
        chunk_spans(["NP"])


@pytest.mark.parametrize("alpha", [-3.0, -0.7, 0.0, 0.4, 2.5, 20.0])
def test_real_valued_gain_terms_over_a_long_column_equal_the_direct_sum_of_logs(alpha):
    """The real-valued pass takes its logs of running products (kernels._REAL_PRODUCT_MIN): over a
    column of 5,000 incidences (the product is flushed many times) with near-certain and saturated
    instances (terms below kernels._REAL_FACTOR_MIN get their own log), h, h' and h'' equal Eq. (1)
    summed term by term in numpy (logaddexp: no product, no overflow)."""
    from fsengine.maxent.kernels import _REAL_FACTOR_MIN, _REAL_PRODUCT_MIN, _evaluate

    rng = np.random.default_rng(3)
    m = 5000
    p = rng.uniform(0.0, 1.0, m)
    p[:50] = 1e-300  # near-impossible class
    p[50:100] = 1.0  # certain class: 1 - p = 0, the term is p e^{ax}
    x = rng.uniform(-30.0, 30.0, m)
    x[50:100] = -20.0  # with alpha 20: e^{-400}, below the factor floor
    count, prec = 0.3 * m, 0.5
    brest = np.maximum(1.0 - p, 0.0)
    h, d1, d2 = _evaluate(alpha, m, p, brest, x, False, count, prec)
    with np.errstate(divide="ignore"):
        log_u = np.logaddexp(np.log(brest), np.log(p) + alpha * x)  # log(1 - p + p e^{ax})
    q = np.exp(np.log(p) + alpha * x - log_u)
    want_h = alpha * count - log_u.sum() - 0.5 * prec * alpha**2
    want_d1 = count - (x * q).sum() - prec * alpha
    want_d2 = -(x * x * q * (1 - q)).sum() - prec
    assert h == pytest.approx(want_h, rel=1e-11, abs=1e-9)
    assert d1 == pytest.approx(want_d1, rel=1e-9, abs=1e-9)
    assert d2 == pytest.approx(want_d2, rel=1e-9, abs=1e-9)
    if alpha == 20.0:
        assert np.exp(alpha * x[50:100]).max() < _REAL_FACTOR_MIN  # the own-log branch is taken
    if alpha != 0.0:  # the kernel's factors are u e^{-ax} for ax > 0, else u: one product of them would underflow
        assert (log_u - np.maximum(alpha * x, 0.0))[100:].sum() < np.log(_REAL_PRODUCT_MIN) * 1.5
