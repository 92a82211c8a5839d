"""RTMClassifier / RTMSelector: scikit-learn contract, pipelines on sparse tags, predictive
probabilities against quadrature, traces and loud failures."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import integrate
from sklearn.exceptions import ConvergenceWarning
from sklearn.naive_bayes import BernoulliNB
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data.synthetic.rtm import make_rtm
from fsengine.selectors import RTMClassifier, RTMSelector


@parametrize_with_checks([RTMClassifier(), RTMClassifier(method="em"), RTMSelector(),
                          RTMSelector(method="ep", ard=False, n_features_to_select=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_pipeline_with_bernoulli_nb_on_sparse_tags():
    ds = make_rtm(n_samples=900, n_tags=200, n_relevant=20, min_effect=0.25, tag_rate=0.08, seed=0)
    X = sp.csr_matrix(ds.X)
    pipe = Pipeline([("rtm", RTMSelector()), ("nb", BernoulliNB())]).fit(X[:600], ds.y[:600])
    sel = pipe.named_steps["rtm"]
    kept = sel.get_support()
    assert 0 < kept.sum() < 200 and sel.transform(X[:5]).shape == (5, kept.sum())
    assert kept[ds.truth].mean() > 0.8 and kept[~ds.truth].mean() < 0.3
    all_tags = BernoulliNB().fit(X[:600], ds.y[:600]).score(X[600:], ds.y[600:])
    assert pipe.score(X[600:], ds.y[600:]) > all_tags  # dropping noise tags helps Naive Bayes
    assert sorted(sel.order_) == list(range(200)) and sel.scores_.shape == (200,)
    assert {"iteration", "max_change", "log_evidence", "n_active", "n_skipped", "seconds"} <= set(sel.trace_)
    assert sel.trace_.n_active.iloc[-1] == kept.sum()


def test_predict_proba_against_quadrature():
    """P(c = 1 | x) = E_q[prod theta^x / (prod theta^x + prod (1 - theta)^x)]: exact for a single
    tag, Gaussian-reduced for two (checked by 2-D quadrature of the product form)."""
    X = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * 10, dtype=float)
    y = np.array([1, 0, 1, 0] * 10)
    clf = RTMClassifier().fit(X, y)
    A, B = clf.A_, clf.B_
    proba = clf.predict_proba(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=float))[:, 1]
    assert proba[0] == pytest.approx(A[0] / (A[0] + B[0]), abs=1e-8)
    assert proba[1] == pytest.approx(A[1] / (A[1] + B[1]), abs=1e-8)
    assert proba[3] == 0.5
    from scipy.stats import beta

    two = integrate.dblquad(
        lambda t2, t1: beta.pdf(t1, A[0], B[0]) * beta.pdf(t2, A[1], B[1]) * t1 * t2 / (t1 * t2 + (1 - t1) * (1 - t2)),
        0, 1, 0, 1, epsabs=1e-10)[0]
    assert proba[2] == pytest.approx(two, abs=2e-3)
    assert list(clf.predict(np.array([[1.0, 0.0]]))) == [1]


def test_binary_tags_required_when_not_binarising():
    X = np.array([[0.0, 2.0], [1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="entries other than 0 and 1"):
        RTMClassifier(binarize=None).fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="Only binary classification"):
        RTMClassifier().fit(X, [0, 1, 2])


def test_non_convergence_warns_and_keeps_the_trace():
    ds = make_rtm(n_samples=200, n_tags=50, n_relevant=5, seed=0)
    with pytest.warns(ConvergenceWarning, match="did not converge in 3 sweeps"):
        clf = RTMClassifier(max_iter=3).fit(ds.X, ds.y)
    assert not clf.converged_ and clf.n_iter_ == 3
    assert isinstance(clf.trace_, pd.DataFrame) and len(clf.trace_) == 3
    assert np.all(clf.trace_.seconds >= 0) and np.all(np.isfinite(clf.trace_.log_evidence))


def test_selector_budget_and_ard_flag():
    ds = make_rtm(n_samples=400, n_tags=60, n_relevant=6, min_effect=0.2, seed=3)
    top = RTMSelector(ard=False, n_features_to_select=6).fit(ds.X, ds.y)
    assert top.get_support().sum() == 6
    assert set(top.get_support(indices=True)) == set(top.order_[:6])
    fixed = RTMSelector(ard=False).fit(ds.X, ds.y)
    np.testing.assert_array_equal(fixed.get_support(), fixed.scores_ > 0)
