"""Sequential forward selection against scikit-learn's own ``SequentialFeatureSelector`` (the same
selected set at every size, so the recorded order is the order of its additions) and its trace
against ``cross_val_score``."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.dummy import DummyClassifier
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsengine.progress import StopRequested
from fsengine.selectors import SequentialForwardSelector


def _data(n=150, p=8, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3.0, size=p) + rng.normal(size=p)
    eta = 1.5 * X[:, 2] / X[:, 2].std() - X[:, 6] / X[:, 6].std() + 0.7 * X[:, 0] / X[:, 0].std()
    y = np.digitize(eta + rng.normal(size=n), np.quantile(eta, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


def _sklearn(sel: SequentialForwardSelector, X, y, k):
    """scikit-learn's selector with the model, folds and scoring the class states."""
    reference = SequentialFeatureSelector(make_pipeline(StandardScaler(), sel.model()), n_features_to_select=k,
                                          direction="forward", scoring=sel.scoring, cv=sel.folds())
    return np.flatnonzero(reference.fit(X, y).get_support())


@pytest.mark.parametrize("scoring, classes", [("neg_log_loss", 2),
                                              pytest.param("accuracy", 2, marks=pytest.mark.slow),
                                              pytest.param("roc_auc", 2, marks=pytest.mark.slow),
                                              pytest.param("neg_log_loss", 3, marks=pytest.mark.slow)])
def test_every_prefix_of_the_order_is_sklearns_selection_of_that_size(scoring, classes):
    """(The log-loss case is the fast twin of the others.)"""
    X, y = _data(p=7, classes=classes)
    k = 4
    sel = SequentialForwardSelector(n_features_to_select=k, n_candidates=None, scoring=scoring, random_state=3)
    sel.fit(X, y)
    assert sel.support_.sum() == k and sel.trace_["feature"].tolist() == sel.order_[:k].tolist()
    for size in range(1, k + 1):
        np.testing.assert_array_equal(np.sort(sel.order_[:size]), _sklearn(sel, X, y, size))


def test_the_prescreen_searches_the_largest_f_statistics_as_sklearn_would_on_those_columns():
    X, y = _data(p=12, seed=1)
    sel = SequentialForwardSelector(n_features_to_select=3, n_candidates=6, random_state=0).fit(X, y)
    from sklearn.feature_selection import f_classif
    F = f_classif(X, y)[0]
    np.testing.assert_array_equal(sel.candidates_, np.sort(np.argsort(-F, kind="stable")[:6]))
    np.testing.assert_allclose(sel.f_statistic_, F, rtol=1e-10)
    reference = _sklearn(sel, X[:, sel.candidates_], y, 3)
    np.testing.assert_array_equal(np.sort(sel.order_[:3]), sel.candidates_[reference])
    # the rest: the other candidates, then the screened-out features by decreasing F, never scored
    rest = sel.order_[3:]
    assert set(rest[:3]) == set(sel.candidates_) - set(sel.order_[:3])
    left_out = rest[3:]
    assert np.all(np.diff(F[left_out]) <= 0) and np.isnan(sel.scores_[left_out]).all()


def test_trace_scores_and_gains_are_cross_val_scores_of_the_prefixes():
    X, y = _data(seed=2)
    sel = SequentialForwardSelector(n_features_to_select=3, n_candidates=None, random_state=1).fit(X, y)
    pipe = make_pipeline(StandardScaler(), sel.model())
    baseline = cross_val_score(DummyClassifier(strategy="prior"), X, y, cv=sel.folds(), scoring="neg_log_loss").mean()
    previous = baseline
    for t, row in enumerate(sel.trace_.itertuples(), start=1):
        folds = cross_val_score(pipe, X[:, sel.order_[:t]], y, cv=sel.folds(), scoring="neg_log_loss")
        np.testing.assert_allclose([row.score_fold_1, row.score_fold_2, row.score_fold_3], folds, rtol=1e-10)
        np.testing.assert_allclose(row.score, folds.mean(), rtol=1e-10)
        np.testing.assert_allclose(row.gain, folds.mean() - previous, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(sel.scores_[row.feature], row.gain, rtol=1e-12)
        np.testing.assert_allclose(sel.path_.loc[t, row.feature], row.score, rtol=1e-12)
        previous = folds.mean()
    # a candidate never added: its gain against the set before the last step
    j = sel.order_[3]
    last = cross_val_score(pipe, X[:, [*sel.order_[:2], j]], y, cv=sel.folds(), scoring="neg_log_loss").mean()
    np.testing.assert_allclose(sel.scores_[j], last - sel.trace_["score"].iloc[1], rtol=1e-8)
    assert np.isnan(sel.path_.loc[2, sel.order_[0]])  # already added: not a candidate


def test_sparse_input_selects_what_dense_input_selects():
    X, y = _data(seed=4)
    X[np.abs(X) < 0.8] = 0.0
    dense = SequentialForwardSelector(n_features_to_select=3, n_candidates=5).fit(X, y)
    sparse = SequentialForwardSelector(n_features_to_select=3, n_candidates=5).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.order_, sparse.order_)
    np.testing.assert_allclose(dense.scores_, sparse.scores_, rtol=1e-9)


def test_a_stop_keeps_the_features_added_so_far_and_too_small_classes_are_refused():
    X, y = _data()
    steps = []

    def stop_after_two(fraction, message):
        steps.append(message)
        if message.startswith("step 2 of 4: feature"):
            raise StopRequested

    sel = SequentialForwardSelector(n_features_to_select=4, n_candidates=None).fit(X, y, progress=stop_after_two)
    assert sel.stop_reason_ == "stop requested" and sel.support_.sum() == 2 and len(sel.trace_) == 2
    full = SequentialForwardSelector(n_features_to_select=4, n_candidates=None).fit(X, y)
    np.testing.assert_array_equal(sel.order_[:2], full.order_[:2])
    with pytest.raises(ValueError, match="cv=3 stratified folds need at least 3 rows of every class"):
        SequentialForwardSelector(cv=3).fit(X[:40], np.r_[np.zeros(38), np.ones(2)])


@pytest.mark.parametrize("name", ["neg_log_loss", "accuracy"])
def test_the_fast_scorers_give_sklearns_numbers(name):
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import get_scorer

    from fsengine.methods.wrappers.sequential import FAST_SCORERS

    for classes in (2, 3):
        X, y = _data(classes=classes, seed=classes)
        y = np.array(["a", "b", "c"])[y]  # labels that are no positions
        model = LogisticRegression(C=100.0).fit(X[:100], y[:100])  # confident: the clipping matters
        assert FAST_SCORERS[name](model, X[100:], y[100:]) == get_scorer(name)(model, X[100:], y[100:])
