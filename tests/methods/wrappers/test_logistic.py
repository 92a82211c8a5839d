"""The numba logistic regression of forward selection against scikit-learn's own
``LogisticRegression(solver="newton-cholesky")`` (coefficients, iterations, cross-validated scores),
on random designs and on notMNIST pixels, and forward selection's fast path against scikit-learn's
``SequentialFeatureSelector`` on real data."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsengine.data import load_dataset
from fsengine.methods.wrappers.logistic import ACCURACY, NEG_LOG_LOSS, candidate_fold_scores, newton_logistic
from fsengine.methods.wrappers.sequential import FAST_SCORERS, forward_selection
from fsengine.selectors import SequentialForwardSelector
from tests.conftest import require_real


def _designs(n_cases=60, seed=0):
    """(X, y, C): 20 to 1,000 rows, 1 to 12 columns, C from 1e-3 to 1e3, separations from weak to
    nearly separable, unbalanced classes; every other design of Gaussian columns of mixed scales,
    the others standardised word-presence columns (two values, 1% to 30% ones), where a loss summed
    without compensation stalls the line search."""
    rng = np.random.default_rng(seed)
    while n_cases:
        n, m = int(rng.integers(20, 1000)), int(rng.integers(1, 13))
        if n_cases % 2:
            X = rng.normal(size=(n, m)) * rng.uniform(0.2, 3.0, size=m) + rng.normal(size=m)
        else:
            X = (rng.random((n, m)) < rng.uniform(0.01, 0.3, size=m)).astype(np.float64)
            X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
        eta = X @ rng.normal(size=m) * rng.uniform(0.3, 8.0) + rng.normal(scale=2.0)
        y = (eta + rng.logistic(size=n) > 0).astype(np.float64)
        if 0 < y.sum() < n:
            n_cases -= 1
            yield X, y, 10 ** rng.uniform(-3, 3)


def _kernel_fit(X, y, C, tol):
    w = np.zeros(X.shape[1] + 1)
    n_iter, converged = newton_logistic(np.hstack([X, np.ones((X.shape[0], 1))]), y, C, tol, 200, w)
    return w, n_iter, converged


def test_newton_takes_scikit_learns_steps_to_its_coefficients():
    """The same objective, steps, line search and test: at the same ``tol`` the same number of
    iterations and the same coefficients to rounding."""
    for X, y, C in _designs():
        for tol in (1e-4, 1e-10):
            ref = LogisticRegression(C=C, solver="newton-cholesky", tol=tol, max_iter=200).fit(X, y)
            w, n_iter, converged = _kernel_fit(X, y, C, tol)
            assert converged and n_iter == ref.n_iter_[0]
            np.testing.assert_allclose(w, np.r_[ref.coef_.ravel(), ref.intercept_], rtol=1e-9, atol=1e-12)


def test_newton_solves_the_written_out_objective():
    """Against the objective itself, F(w, b) = C sum_i loss_i + ||w||^2 / 2: its gradient, written
    out, vanishes at the kernel's solution, and no other solver (scikit-learn's L-BFGS, another
    scaling of the penalty) finds a lower F."""
    for X, y, C in _designs(n_cases=20, seed=1):
        v, _, _ = _kernel_fit(X, y, C, 1e-12)
        w, b = v[:-1], v[-1]
        z = X @ w + b
        residual = C * (1.0 / (1.0 + np.exp(-z)) - y)
        gradient = np.r_[X.T @ residual + w, residual.sum()]
        assert np.abs(gradient).max() <= 1e-9 * C * len(y)

        def objective(coef):
            eta = X @ coef[:-1] + coef[-1]
            return C * np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * coef[:-1] @ coef[:-1]

        ref = LogisticRegression(C=C, solver="lbfgs", tol=1e-12, max_iter=10_000).fit(X, y)
        assert objective(v) <= objective(np.r_[ref.coef_.ravel(), ref.intercept_]) * (1 + 1e-12)


def _pixels(n_columns):
    ds = require_real(load_dataset, "notmnist", letters="BD")
    rows = np.random.default_rng(0).permutation(ds.n_samples)[:600]
    X, y = ds.X[rows], ds.y[rows]
    spread = np.argsort(-X.std(axis=0), kind="stable")[::25][:n_columns]  # informative and weak pixels
    return np.asarray(X[:, np.sort(spread)], dtype=np.float64), y


@pytest.mark.parametrize("scoring, code", [("neg_log_loss", NEG_LOG_LOSS), ("accuracy", ACCURACY)])
def test_every_candidates_fold_scores_are_cross_val_score_of_the_pipeline_on_pixels(scoring, code):
    X, y = _pixels(12)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    scaled = []
    for train, test in folds:
        scaler = StandardScaler().fit(X[train])
        scaled.append((scaler.transform(X[train]), y[train], scaler.transform(X[test]), y[test]))
    A, ya, B, yb = (np.concatenate(part) for part in zip(*scaled))
    a_start = np.cumsum([0] + [len(train) for train, _ in folds])
    b_start = np.cumsum([0] + [len(test) for _, test in folds])
    positive = np.unique(y)[1]
    chosen, batch = np.array([3, 7]), np.array([0, 1, 2, 4, 5, 6, 8, 9, 10, 11])
    for C in (0.01, 1.0, 100.0):
        scores, converged = candidate_fold_scores(A, (ya == positive) * 1.0, a_start, B, (yb == positive) * 1.0,
                                                  b_start, chosen, batch, C, code, 1e-10, 200)
        assert converged.all()
        pipe = make_pipeline(StandardScaler(), LogisticRegression(C=C, solver="newton-cholesky", tol=1e-10))
        for i, c in enumerate(batch):
            expected = cross_val_score(pipe, X[:, [*chosen, c]], y, cv=folds, scoring=scoring)
            np.testing.assert_allclose(scores[i], expected, rtol=1e-12, atol=1e-12)


def test_forward_selection_on_pixels_is_sklearns_at_every_size():
    X, y = _pixels(10)
    sel = SequentialForwardSelector(n_features_to_select=4, n_candidates=None, random_state=2).fit(X, y)
    for size in range(1, 5):
        reference = SequentialFeatureSelector(make_pipeline(StandardScaler(), sel.model()), n_features_to_select=size,
                                              scoring=sel.scoring, cv=sel.folds()).fit(X, y)
        np.testing.assert_array_equal(np.sort(sel.order_[:size]), np.flatnonzero(reference.get_support()))


def test_a_fit_the_kernel_does_not_converge_is_scikit_learns_own():
    """With ``max_iter=1`` no kernel fit converges; every score is then scikit-learn's (its
    ConvergenceWarning included), as on the scikit-learn path (a subclass of the model)."""

    class Subclass(LogisticRegression):
        """The same model under another class: the kernel path is for LogisticRegression itself."""

    X, y = _designs(n_cases=1, seed=3).__next__()[:2]
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    runs = []
    for model in (LogisticRegression, Subclass):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runs.append(forward_selection(X, y, estimator=model(solver="newton-cholesky", max_iter=1),
                                          scorer=FAST_SCORERS["neg_log_loss"], folds=folds,
                                          candidates=np.arange(X.shape[1]), n_steps=min(2, X.shape[1])))
        assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    np.testing.assert_array_equal(runs[0].order, runs[1].order)
    np.testing.assert_array_equal(runs[0].candidate_scores, runs[1].candidate_scores)
