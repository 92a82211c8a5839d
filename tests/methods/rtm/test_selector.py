"""RTMClassifier / RTMSelector: scikit-learn contract, the selector dialect (keyword-only
parameters, progress, stop requests, ``model_``), pipelines on sparse tags, predictive
probabilities against quadrature, traces and loud failures."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import integrate
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.naive_bayes import BernoulliNB
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from fsengine.data.synthetic.rtm import make_rtm
from fsengine.progress import StopRequested
from fsengine.selectors import RTMClassifier, RTMSelector


@parametrize_with_checks([RTMClassifier(), RTMClassifier(method="em"), RTMSelector(), RTMSelector(ard=True),
                          RTMSelector(method="ep", ard=False, n_features_to_select=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _small(seed=0):
    return make_rtm(n_samples=200, n_tags=20, n_relevant=3, tag_rate=0.15, min_effect=0.3, seed=seed)


@pytest.mark.parametrize("cls", [RTMClassifier, RTMSelector])
def test_parameters_are_keyword_only(cls):
    with pytest.raises(TypeError):
        cls("em")
    assert cls(method="em").method == "em"


@pytest.mark.parametrize("make", [lambda: RTMClassifier(method="em", ard=True), lambda: RTMSelector(method="power_ep")],
                         ids=["classifier-em-ard", "selector-power-ep"])
def test_progress_reports_every_sweep_as_fractions(make):
    ds = _small()
    seen = []
    est = make().fit(ds.X, ds.y, progress=lambda fraction, message: seen.append((fraction, message)))
    fractions = [f for f, _ in seen]
    assert all(0.0 <= f <= 1.0 for f in fractions) and fractions == sorted(fractions)
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    n_iter = est.n_iter_
    assert len(seen) == n_iter + 2  # start, one per sweep, the verdict
    assert fractions[1:-1] == [k / est.max_iter for k in range(1, n_iter + 1)]
    assert "sweep 1 of at most 300" in seen[1][1] and seen[-1][1].endswith(f"converged in {n_iter} sweeps")


def test_positional_progress_is_refused():
    ds = _small()
    with pytest.raises(TypeError):
        RTMClassifier().fit(ds.X, ds.y, print)
    with pytest.raises(TypeError):
        RTMSelector().fit(ds.X, ds.y, print)


@pytest.mark.parametrize("cls", [RTMClassifier, RTMSelector])
def test_stop_request_propagates_and_leaves_the_estimator_unfitted(cls):
    """A partial RTM posterior is not a result: StopRequested propagates, nothing fitted is left
    (also when the estimator held an earlier fit), and no ConvergenceWarning is raised."""
    ds = _small()
    calls = []

    def stop_at_third_sweep(fraction, message):
        calls.append(message)
        if "sweep 3 " in message:
            raise StopRequested

    est = cls().fit(ds.X, ds.y)  # an earlier fit must not survive the stopped one either
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(StopRequested):
            est.fit(ds.X[:, :10], ds.y, progress=stop_at_third_sweep)
    assert len(calls) == 4  # start, sweeps 1-3
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert not [name for name in vars(est) if name.endswith("_")]
    assert cls().fit(ds.X, ds.y).n_features_in_ == 20  # a later fit works as usual


def test_model_is_the_fitted_classifier():
    ds = _small()
    sel = RTMSelector().fit(ds.X, ds.y)
    assert isinstance(sel.model_, RTMClassifier)
    np.testing.assert_array_equal(sel.scores_, sel.model_.relevance_)
    assert not hasattr(sel, "estimator_")  # the alias of fsengine 0.2 is removed (CHANGELOG)
    assert sel.model_.run_label_ == "RTM Power EP"  # how figures name the fit (fsengine.plots.select)
    with pytest.warns(ConvergenceWarning, match="RTM EM did not converge in 5 sweeps"):
        assert RTMClassifier(method="em", ard=True, max_iter=5).fit(ds.X, ds.y).run_label_ == "RTM EM + ARD"


def test_default_selector_is_the_fixed_prior_and_its_support_is_positive_evidence():
    """The registry's defaults (ard=False, alpha0 "auto") are the class's: with a fixed prior
    every alpha_j is alpha0, and the support is log Bayes factor > 0 computed from the posterior."""
    from scipy.special import betaln

    ds = _small(2)
    sel = RTMSelector().fit(ds.X, ds.y)
    assert sel.ard is False and sel.alpha0 == "auto"
    clf = sel.model_
    assert clf.alpha0_ == 5.0 and np.all(clf.alpha_ == 5.0)  # 3 tags per object on average: short objects
    A, B, a = clf.A_, clf.B_, clf.alpha_
    log_bf = (A + B - 2 * a) * np.log(2) + betaln(A, B) - betaln(a, a)  # Savage-Dickey, written out
    np.testing.assert_allclose(sel.scores_, log_bf, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sel.support_, log_bf > 0)
    assert sorted(sel.order_[:3]) == sorted(np.flatnonzero(ds.truth))


def test_pipeline_with_bernoulli_nb_on_sparse_tags():
    ds = make_rtm(n_samples=900, n_tags=200, n_relevant=20, min_effect=0.25, tag_rate=0.08, seed=0)
    X = sp.csr_matrix(ds.X)
    pipe = Pipeline([("rtm", RTMSelector(ard=True)), ("nb", BernoulliNB())]).fit(X[:600], ds.y[:600])
    sel = pipe.named_steps["rtm"]
    kept = sel.get_support()
    assert 0 < kept.sum() < 200 and sel.transform(X[:5]).shape == (5, kept.sum())
    # deterministic (measured: 18 of 20 relevant and 32 of 180 irrelevant tags kept)
    assert kept[ds.truth].sum() == pytest.approx(18, abs=1) and kept[~ds.truth].sum() == pytest.approx(32, abs=3)
    all_tags = BernoulliNB().fit(X[:600], ds.y[:600]).score(X[600:], ds.y[600:])
    assert pipe.score(X[600:], ds.y[600:]) == pytest.approx(0.7733, abs=0.004)  # 232 of 300 (deterministic)
    assert pipe.score(X[600:], ds.y[600:]) > all_tags  # dropping noise tags helps Naive Bayes (0.697)
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
