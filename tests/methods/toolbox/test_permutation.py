"""Permutation importance from arrays (fsengine.methods.toolbox.permutation) against scikit-learn's
``permutation_importance``, which scores every shuffled copy through the fitted model itself."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsengine.data import load_dataset
from fsengine.methods.toolbox.permutation import (
    forest_permutation_scores,
    linear_permutation_scores,
    sklearn_shuffles,
)
from fsengine.selectors import PermutationSelector


def _importances(model, X, y, scores):
    return model.score(X, y) - scores.T


def _table(seed: int, classes: int, n: int = 240, p: int = 9):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, 3] = rng.integers(0, 3, n)  # a discrete column: many equal values, shuffles that move nothing
    X[:, 4] = 0.0  # a constant column: importance exactly 0
    signal = X[:, 0] + 0.6 * X[:, 1] - 0.4 * X[:, 3] + 0.7 * rng.normal(size=n)
    if classes == 0:
        return X, signal
    return X, np.digitize(signal, np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1]))


def test_shuffles_are_sklearns_own():
    """A column of the row numbers, shuffled by permutation_importance, shows its row orders:
    a 'model' that scores how far the column is from each order tells which one it got."""
    from sklearn.base import BaseEstimator

    orders = sklearn_shuffles(30, 4, 7)
    seen = []

    class Spy(BaseEstimator):
        def fit(self, X, y):
            return self

        def score(self, X, y):
            seen.append(X[:, 0].astype(int).copy())
            return 0.0

    X = np.arange(30, dtype=float)[:, None]
    permutation_importance(Spy().fit(X, None), X, np.zeros(30), n_repeats=4, random_state=7)
    assert np.array_equal(np.array(seen[1:]), orders)  # seen[0] is the baseline score


@pytest.mark.parametrize("classes", [2, 3, 5])
def test_linear_classifier_equals_sklearn_exactly(classes):
    X, y = _table(classes, classes)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[:160], y[:160])
    Xt, yt = X[160:], y[160:]
    orders = sklearn_shuffles(len(yt), 5, 11)
    ours = _importances(model, Xt, yt, linear_permutation_scores(model, Xt, yt, orders, classification=True))
    ref = permutation_importance(model, Xt, yt, n_repeats=5, random_state=11).importances
    assert np.array_equal(ours, ref)
    assert np.all(ours[4] == 0)


def test_linear_regression_equals_sklearn_to_round_off():
    X, y = _table(1, 0)
    model = make_pipeline(StandardScaler(), Ridge()).fit(X[:160], y[:160])
    Xt, yt = X[160:], y[160:]
    orders = sklearn_shuffles(len(yt), 4, 2)
    ours = _importances(model, Xt, yt, linear_permutation_scores(model, Xt, yt, orders, classification=False))
    ref = permutation_importance(model, Xt, yt, n_repeats=4, random_state=2).importances
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-13)


@pytest.mark.parametrize("classes, n_trees", [(2, 10), (2, 4), (4, 9)])
def test_forest_classifier_equals_sklearn_exactly(classes, n_trees):
    """Even tree counts give tied votes (2 of 4 trees each way): they must break as sklearn's
    argmax of the summed probabilities breaks them."""
    X, y = _table(classes + n_trees, classes)
    forest = RandomForestClassifier(n_estimators=n_trees, max_depth=4, random_state=0).fit(X[:160], y[:160])
    Xt, yt = X[160:], y[160:]
    orders = sklearn_shuffles(len(yt), 5, 3)
    ours = _importances(forest, Xt, yt, forest_permutation_scores(forest, Xt, yt, orders, classification=True))
    ref = permutation_importance(forest, Xt, yt, n_repeats=5, random_state=3).importances
    assert np.array_equal(ours, ref)


def test_forest_regressor_equals_sklearn_to_round_off():
    X, y = _table(5, 0)
    forest = RandomForestRegressor(n_estimators=12, random_state=0).fit(X[:160], y[:160])
    Xt, yt = X[160:], y[160:]
    orders = sklearn_shuffles(len(yt), 3, 5)
    ours = _importances(forest, Xt, yt, forest_permutation_scores(forest, Xt, yt, orders, classification=False))
    ref = permutation_importance(forest, Xt, yt, n_repeats=3, random_state=5).importances
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-13)


@pytest.mark.parametrize("name", ["breast_cancer", "digits"])
@pytest.mark.parametrize("model", ["linear", "forest"])
def test_selector_equals_sklearn_on_catalogue_tables(name, model):
    """The selector's importances on two catalogue tables (30 real features; 64 pixels and ten
    classes) equal permutation_importance of its own fitted model on its held-out rows."""
    ds = load_dataset(name)
    X, y = np.asarray(ds.X, dtype=np.float64), ds.y
    sel = PermutationSelector(model=model, n_estimators=15, n_repeats=3, random_state=4).fit(X, y)
    _, test = sel.held_out_split(y)
    ref = permutation_importance(sel.model_, X[test], y[test], n_repeats=3, random_state=4)
    assert np.array_equal(sel.importances_, ref.importances)
    assert np.array_equal(sel.scores_, ref.importances_mean)


def test_a_decision_of_exactly_zero_is_the_first_class_as_in_sklearn():
    """Binary logistic regression predicts class 1 only where the decision is > 0."""
    X, y = _table(9, 2)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    model[-1].coef_[:] = 0.0
    model[-1].coef_[0, 3] = 1.0  # only the discrete column moves the decision, and not for its mean value
    model[-1].intercept_[:] = 0.0
    Xt = X.copy()
    Xt[:, 3] = model[0].mean_[3]  # standardised value exactly 0: decision exactly 0 on every row
    Xt[::2, 3] += 1.0
    orders = sklearn_shuffles(len(y), 3, 1)
    ours = _importances(model, Xt, y, linear_permutation_scores(model, Xt, y, orders, classification=True))
    ref = permutation_importance(model, Xt, y, n_repeats=3, random_state=1).importances
    assert np.array_equal(ours, ref) and np.any(ours != 0)
