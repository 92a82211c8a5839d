"""The warm-started coordinate-descent L1-logistic path against independent references: the
optimality condition Eq. (19) (``eq19_violation``, written apart from the solver) and
scikit-learn's liblinear and saga solvers of the same problem."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from fsengine.data import load_dataset
from fsengine.methods.classic.binary import class_codes
from fsengine.methods.classic.l1_path import eq19_violation, l1_logistic_path, path_grid
from fsengine.methods.classic.l1_solver import binary_l1_logistic_path
from tests.conftest import require_real


def planted(n=300, p=15, seed=0, sparse=False, K=2):
    """Logistic data with weights 3, 2, 1, 0.5 on the first four features and intercept 0.7; the
    sparse variant keeps about 30% of the (absolute) entries, uncentred like word counts."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if sparse:
        X = np.where(rng.random((n, p)) < 0.3, np.abs(X), 0.0)
    w = np.zeros(p)
    w[:4] = [3.0, 2.0, 1.0, 0.5]
    if K == 2:
        y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w + (-1.5 if sparse else 0.7))))).astype(int)
    else:
        scores = np.stack([X @ np.roll(w, c) for c in range(K)], axis=1)
        y = np.argmax(scores + rng.gumbel(size=scores.shape), axis=1)
    return (sp.csc_matrix(X) if sparse else X), y


def liblinear(X, target, C, scaling):
    """scikit-learn's liblinear at a tight tolerance; its intercept carries the penalty
    lambda |theta_0| / scaling (Eq. 18 leaves it unpenalised)."""
    return LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, tol=1e-12, intercept_scaling=scaling,
                              max_iter=100_000, random_state=0).fit(X, target)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("tol", [1e-6, 1e-9])
def test_eq19_holds_at_every_c(sparse, tol):
    X, y = planted(seed=1, sparse=sparse)
    Cs = path_grid(X, y, n_Cs=12, C_span=300)
    path = binary_l1_logistic_path(X, y, Cs, tol=tol)
    assert path.converged.all()
    assert (path.coefs[-1] != 0).sum() > 4
    if not sparse:  # l1_min_c (no intercept) is the empty model's edge for centred columns
        assert (path.coefs[0] == 0).all()
    for i, C in enumerate(Cs):
        assert eq19_violation(X, y, path.coefs[i], path.intercepts[i], C) < tol
        mu = 1 / (1 + np.exp(-(X @ path.coefs[i] + path.intercepts[i])))
        assert abs((y - mu).sum()) * C < tol  # the unpenalised intercept's condition


def test_sparse_input_is_the_dense_problem():
    X, y = planted(seed=2, sparse=True)
    Cs = path_grid(X, y, n_Cs=10, C_span=100)
    on_sparse = binary_l1_logistic_path(X, y, Cs, tol=1e-10)
    on_dense = binary_l1_logistic_path(X.toarray(), y, Cs, tol=1e-10)
    np.testing.assert_allclose(on_sparse.coefs, on_dense.coefs, atol=1e-8)
    np.testing.assert_array_equal(on_sparse.coefs != 0, on_dense.coefs != 0)


@pytest.mark.parametrize("sparse", [False, True])
def test_coefficients_and_active_sets_match_liblinear(sparse):
    """liblinear's intercept penalty lambda |theta_0| / s biases its answer by O(1/s): at s = 1e4
    the coefficients agree to 5e-5 and the intercepts to 1e-3, and the intercepts' gap shrinks
    tenfold from s = 1e3 to 1e4 (the gap is the reference's penalty, not our error)."""
    X, y = planted(seed=3, sparse=sparse)
    Cs = path_grid(X, y, n_Cs=8, C_span=100)
    path = binary_l1_logistic_path(X, y, Cs, tol=1e-10)
    for i, C in enumerate(Cs):
        ref = liblinear(X, y, C, 1e4)
        np.testing.assert_allclose(path.coefs[i], ref.coef_[0], atol=5e-5)
        assert abs(path.intercepts[i] - ref.intercept_[0]) < 1e-3
        np.testing.assert_array_equal(path.coefs[i] != 0, ref.coef_[0] != 0)
        gap_3 = abs(path.intercepts[i] - liblinear(X, y, C, 1e3).intercept_[0])
        assert abs(path.intercepts[i] - ref.intercept_[0]) <= max(0.15 * gap_3, 1e-9)


@pytest.mark.parametrize("sparse", [False, True])
def test_coefficients_match_saga(sparse):
    """saga penalises no intercept, but converges slowly: at its tol 1e-10 it agrees to 1e-3."""
    X, y = planted(n=200, p=8, seed=4, sparse=sparse)
    Cs = path_grid(X, y, n_Cs=5, C_span=30)
    path = binary_l1_logistic_path(X, y, Cs, tol=1e-10)
    for i, C in enumerate(Cs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ref = LogisticRegression(l1_ratio=1.0, solver="saga", C=C, tol=1e-10, max_iter=100_000,
                                     random_state=0).fit(X, y)
        np.testing.assert_allclose(path.coefs[i], ref.coef_[0], atol=1e-3)
        assert abs(path.intercepts[i] - ref.intercept_[0]) < 1e-3


def test_multiclass_one_vs_rest_matches_liblinear_per_class():
    X, y = planted(n=200, p=6, seed=5, K=3)
    Cs = path_grid(X, y, n_Cs=4, C_span=30)
    path = l1_logistic_path(X, y, Cs, solver="cd", tol=1e-10)
    assert path.coefs.shape == (4, 3, 6) and path.converged.all()
    for i, C in enumerate(Cs):
        for c in range(3):
            ref = liblinear(X, y == c, C, 1e4)
            np.testing.assert_allclose(path.coefs[i, c], ref.coef_[0], atol=5e-5)
            np.testing.assert_array_equal(path.coefs[i, c] != 0, ref.coef_[0] != 0)
            assert eq19_violation(X, y == c, path.coefs[i, c], path.intercepts[i, c], C) < 1e-10


def _real(name):
    ds = require_real(load_dataset, name)
    codes, _ = class_codes(np.asarray(ds.y))
    X = StandardScaler(with_mean=not sp.issparse(ds.X)).fit_transform(ds.X)
    return X, codes


@pytest.mark.parametrize("name", ["notmnist:letters=BD,n_per_class=150", "movie_reviews"])
def test_real_paths_satisfy_eq19(name):
    """The L1 selector's path (20 Cs over 1e3, tol 1e-6) on notMNIST B vs D (dense) and the movie
    reviews (sparse, 4,752 words): Eq. (19) to 1e-6 at every C."""
    X, y = _real(name)
    Cs = path_grid(X, y, n_Cs=20, C_span=1e3)
    path = binary_l1_logistic_path(X, y, Cs, tol=1e-6)
    assert path.converged.all() and path.coefs[-1].any()
    for i, C in enumerate(Cs):
        assert eq19_violation(X, y, path.coefs[i], path.intercepts[i], C) < 1e-6


def test_real_path_agrees_with_liblinear():
    """notMNIST B vs D (300 images): against liblinear (tol 1e-8, intercept_scaling 1e4) at three
    points of the path the active sets are equal and the coefficients agree to 2e-4. (On the movie
    reviews liblinear needs minutes per C at such a tolerance; benchmarks/bench_classic.py
    ``l1ab`` compares there.)"""
    X, y = _real("notmnist:letters=BD,n_per_class=150")
    Cs = path_grid(X, y, n_Cs=20, C_span=1e3)
    path = binary_l1_logistic_path(X, y, Cs, tol=1e-8)
    for i in (5, 10, 15):
        ref = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=Cs[i], tol=1e-8, intercept_scaling=1e4,
                                 max_iter=100_000, random_state=0).fit(X, y).coef_[0]
        np.testing.assert_array_equal(path.coefs[i] != 0, ref != 0)
        np.testing.assert_allclose(path.coefs[i], ref, atol=2e-4)


def test_clear_errors():
    X, y = planted(n=50, p=4)
    with pytest.raises(ValueError, match="single class"):
        binary_l1_logistic_path(X, np.ones(50), [1.0])
    with pytest.raises(ValueError, match="sorted increasing"):
        binary_l1_logistic_path(X, y, [2.0, 1.0])
    with pytest.raises(ValueError, match="0/1 labels"):
        binary_l1_logistic_path(X, 2 * y - 1, [1.0])


def test_eq19_check_on_all_features_adds_what_the_working_set_missed():
    """Started with a zero likelihood slope, the strong rule keeps no feature; the check of Eq. (19)
    on every feature must bring in all the features the optimum uses."""
    from fsengine.methods.classic.l1_solver import _fit_at

    X, y = planted(seed=7)
    Cs = path_grid(X, y, n_Cs=6, C_span=100)
    coef, eta = np.zeros(X.shape[1]), np.full(y.size, np.log(y.mean() / (1 - y.mean())))
    intercept = eta[:1].copy()
    n_iter, converged = _fit_at(np.asfortranarray(X), y.astype(float), 1 / Cs[-1], 1 / Cs[-1], coef, intercept, eta,
                                np.zeros(X.shape[1]), 1e-8, 100)
    assert converged and (coef != 0).sum() > 4
    assert eq19_violation(X, y, coef, intercept[0], Cs[-1]) < 1e-8


@pytest.mark.parametrize("sparse", [False, True])
def test_nearly_collinear_pair_converges_in_few_newton_steps(sparse):
    """Two columns with correlation ~0.99999 (x2 = x1 + 0.003 e) whose difference carries signal, so
    both stay active at weak penalty: cyclic coordinate descent needs ~1 / (1 - rho^2) sweeps
    there (the stall of a sentence-polarity bootstrap, where the IRLS weights made two rare words
    nearly collinear). The solver before the orthant-subspace step ran out of its 100 Newton
    iterations at C = 100 without meeting Eq. (19); now a few suffice."""
    rng = np.random.default_rng(0)
    n = 200
    z, e, other = rng.normal(size=n), rng.normal(size=n), rng.normal(size=(n, 2))
    X = np.column_stack([z, z + 0.003 * e, other])
    y = (rng.random(n) < 1 / (1 + np.exp(-(z + 0.5 * e + 0.5 * other[:, 0])))).astype(int)
    Cs = np.array([1.0, 10.0, 100.0])
    fit = binary_l1_logistic_path(sp.csc_matrix(X) if sparse else X, y, Cs, tol=1e-6, max_iter=100)
    assert fit.converged.all()
    assert fit.n_iter.max() <= 10
    assert np.all(fit.coefs[-1, :2] != 0.0)  # the pair is in the model with opposite signs
    assert fit.coefs[-1, 0] * fit.coefs[-1, 1] < 0.0
    for coef, b, C in zip(fit.coefs, fit.intercepts, Cs):
        assert eq19_violation(X, y, coef, b, C) < 1e-6
