"""L1-logistic path (Jaakkola Eq. 18-19): optimality conditions, entry order, multiclass."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine.methods.classic.l1_path import l1_logistic_path, path_grid
from fsengine.selectors import L1PathSelector


def planted(n=300, p=15, K=2, seed=0):
    """Logistic data whose first four features have decreasing weights 3, 2, 1, 0.5."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    w = np.zeros(p)
    w[:4] = [3.0, 2.0, 1.0, 0.5]
    if K == 2:
        y = (rng.random(n) < 1 / (1 + np.exp(-X @ w))).astype(int)
    else:
        scores = np.stack([X @ np.roll(w, c) for c in range(K)], axis=1)
        y = np.argmax(scores + rng.gumbel(size=scores.shape), axis=1)
    return X - X.mean(axis=0), y


def kkt_violation(X, target, coef, intercept, C) -> float:
    """Largest violation of Eq. (19), relative to lambda = 1/C: the log-likelihood slope equals
    lambda sign(theta_k) for non-zero theta_k and is at most lambda in size for zero ones."""
    lam = 1.0 / C
    p = 1.0 / (1.0 + np.exp(-(X @ coef + intercept)))
    slope = X.T @ (target - p)
    nz = coef != 0
    worst = np.abs(slope[nz] - lam * np.sign(coef[nz])).max(initial=0.0)
    return max(worst, np.abs(slope[~nz]).max(initial=0.0) - lam) / lam


@pytest.mark.parametrize("K", [2, 3])
def test_every_point_of_the_path_satisfies_eq19(K):
    X, y = planted(K=K, seed=K)
    Cs = path_grid(X, y, n_Cs=8, C_span=100)
    path = l1_logistic_path(X, y, Cs)
    assert path.converged.all()
    targets = [y == 1] if K == 2 else [y == c for c in range(K)]
    for i, C in enumerate(Cs):
        for b, target in enumerate(targets):
            assert kkt_violation(X, target, path.coefs[i, b], path.intercepts[i, b], C) < 0.01


def test_path_starts_empty_at_l1_min_c_and_features_enter_by_strength():
    X, y = planted(seed=1)
    sel = L1PathSelector(n_Cs=25, C_span=300, cv=None).fit(X, y)
    assert sel.trace_["n_active"].iloc[0] == 0
    assert sel.trace_["n_active"].iloc[1] >= 1
    assert sel.order_[:3].tolist() == [0, 1, 2]
    assert list(sel.path_.columns) == list(range(15)) and sel.path_.index.name == "C"
    np.testing.assert_allclose(sel.path_.to_numpy(), sel.coefs_[:, 0, :])
    assert sel.scores_[0] == sel.scores_.max()


def test_warm_started_saga_path_reaches_the_same_optimum():
    X, y = planted(n=200, p=6, seed=2)
    Cs = path_grid(X, y, n_Cs=6, C_span=50)
    saga = l1_logistic_path(X, y, Cs, solver="saga", tol=1e-8, max_iter=20000)
    for i, C in enumerate(Cs):
        assert kkt_violation(X, y == 1, saga.coefs[i, 0], saga.intercepts[i, 0], C) < 0.02


def test_multiclass_path_value_is_the_norm_over_classes_and_cv_picks_a_c():
    X, y = planted(K=3, seed=4)
    sel = L1PathSelector(n_Cs=8, C_span=100, cv=3).fit(X, y)
    assert sel.coefs_.shape == (8, 3, 15)
    np.testing.assert_allclose(sel.path_.to_numpy(), np.linalg.norm(sel.coefs_, axis=1))
    chosen = sel.trace_.loc[sel.trace_["chosen"]]
    assert chosen["cv_accuracy"].iloc[0] == sel.trace_["cv_accuracy"].max()
    assert sel.C_ == chosen["C"].iloc[0]
    assert sel.support_.tolist() == (np.abs(sel.coefs_[sel.trace_["chosen"].to_numpy()][0]).sum(0) > 0).tolist()


def test_held_out_accuracy_and_sparse_input():
    X, y = planted(n=400, seed=5)
    Xtr, Xte, ytr, yte = X[:300], X[300:], y[:300], y[300:]
    sel = L1PathSelector(n_Cs=10, cv=None).fit(Xtr, ytr)
    acc = sel.path_accuracy(Xte, yte)
    assert acc.index.equals(sel.path_.index)
    assert acc.iloc[0] == pytest.approx(max(np.mean(yte), 1 - np.mean(yte)), abs=0.06)  # empty model
    assert acc.max() > 0.8
    Xb = (X > 0.5).astype(float)
    dense = L1PathSelector(n_Cs=6, cv=None, standardize=False).fit(Xb, y)
    sparse = L1PathSelector(n_Cs=6, cv=None, standardize=False).fit(sp.csr_matrix(Xb), y)
    np.testing.assert_allclose(sparse.coefs_, dense.coefs_, atol=1e-5)


def test_path_is_repeatable():
    """liblinear visits coordinates in a random order; the path fixes it (was ~1e-5 run to run)."""
    X, y = planted(n=300, seed=5)
    Xb = sp.csr_matrix((X > 0.5).astype(float))
    first = L1PathSelector(n_Cs=6, cv=None, standardize=False).fit(Xb, y)
    np.random.seed(123)  # noqa: NPY002 - the global RNG liblinear would otherwise draw from
    again = L1PathSelector(n_Cs=6, cv=None, standardize=False).fit(Xb, y)
    np.testing.assert_array_equal(first.coefs_, again.coefs_)


def test_entry_scores_rank_the_first_feature_to_enter_by_the_kkt_condition():
    """Eq. (19) at theta = 0 (intercept fitted): feature k leaves zero once C |x_k^T (y - ybar)|
    exceeds 1, so the feature with the largest |x_k^T (y - ybar)| enters first and is non-zero
    at the most grid values of C; a feature of pure noise enters last or never."""
    from fsengine.methods.classic.l1_path import entry_scores

    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.6 * rng.normal(size=400) > 0).astype(int)
    slope = np.abs((X - X.mean(axis=0)).T @ (y - y.mean()))
    scores = entry_scores(X, y, np.logspace(-4, 0, 25))
    assert np.argmax(scores) == np.argmax(slope) == 0
    assert scores[1] > scores[2:].max()
    first_C = 1.0 / slope.max()  # below it every coefficient is zero
    assert entry_scores(X, y, [0.5 * first_C]).max() == 0.0
