"""The wrapper selectors in the project's dialect: scikit-learn's estimator checks, keyword-only
parameters with the registry's defaults, the registry route, progress that names the iteration or
step, stop requests, and Boruta's decisions reported in scores_, order_, ranking_ and support_."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine import selectors
from fsengine.data import Dataset, Provenance
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.progress import StopRequested
from fsengine.selectors import BorutaSelector, SequentialForwardSelector

WRAPPERS = {"boruta": BorutaSelector, "sfs": SequentialForwardSelector}
FAST = {"boruta": {"n_estimators": 20, "max_iter": 10}, "sfs": {"n_features_to_select": 3, "n_candidates": 5}}


@parametrize_with_checks([BorutaSelector(n_estimators=5, max_iter=3),
                          BorutaSelector(n_features_to_select=2, n_estimators=5, max_iter=3, two_step=False),
                          SequentialForwardSelector(n_features_to_select=2, n_candidates=3),
                          SequentialForwardSelector(n_features_to_select=1, n_candidates=None, scoring="accuracy")])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("key", list(WRAPPERS))
def test_dialect_keyword_only_registry_defaults_and_entry(key):
    cls = WRAPPERS[key]
    with pytest.raises(TypeError):
        cls(None)
    params = inspect.signature(cls.__init__).parameters
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    assert inspect.signature(cls.fit).parameters["progress"].kind is inspect.Parameter.KEYWORD_ONLY
    defaults = cls().get_params()
    for name, value in method_defaults(key).items():
        assert defaults[name] == value, name
    spec = get_method(key)
    assert spec.factory == f"fsengine.selectors:{cls.__name__}" and type(spec.build()) is cls
    assert getattr(selectors, cls.__name__) is cls and cls.__name__ in selectors.__all__


def _classes(n=200, p=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (1.5 * X[:, 1] - 1.5 * X[:, 4] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("key", list(WRAPPERS))
def test_progress_names_the_iteration_or_step_and_a_stop_behaves_as_the_contract_says(key):
    X, y = _classes()
    seen = []
    sel = WRAPPERS[key](**FAST[key]).fit(X, y, progress=lambda f, m: seen.append((f, m)))
    fractions = np.array([f for f, _ in seen])
    assert np.all((fractions >= 0) & (fractions <= 1)) and fractions[-1] == pytest.approx(1.0)
    assert np.all(np.diff(fractions) >= -1e-12)
    word = {"boruta": "iteration", "sfs": "step"}[key]
    assert seen[0][1].startswith(f"{word} 1 of "), seen[0]
    assert set(sel.order_[:2].tolist()) == {1, 4}  # both find the two planted features first
    assert isinstance(sel.trace_, type(sel.path_)) and len(sel.path_) == len(sel.trace_)

    def stop(fraction, message):
        raise StopRequested

    fresh = WRAPPERS[key](**FAST[key])
    if key == "sfs":  # greedy: the features added so far are a valid, shorter answer
        fresh.fit(X, y, progress=stop)
        assert fresh.stop_reason_ == "stop requested" and fresh.support_.sum() <= 1
    else:
        with pytest.raises(StopRequested):
            fresh.fit(X, y, progress=stop)
        assert not hasattr(fresh, "scores_")


def test_boruta_reports_confirmed_tentative_and_rejected_consistently():
    X, y = _classes(n=300, p=12, seed=1)
    X[:, 7] = X[:, 1] + 2.0 * np.random.default_rng(9).normal(size=300)  # a weak proxy of a planted feature
    sel = BorutaSelector(n_estimators=30, max_iter=12, random_state=2).fit(X, y)
    decision = sel.decision_
    assert set(decision) <= {"confirmed", "tentative", "rejected"}
    np.testing.assert_array_equal(sel.support_, decision == "confirmed")
    assert {1, 4} <= set(np.flatnonzero(sel.support_))
    # order_: confirmed, then tentative, then rejected, each by decreasing score; ranking_ follows
    groups = np.array([{"confirmed": 0, "tentative": 1, "rejected": 2}[d] for d in decision[sel.order_]])
    assert np.all(np.diff(groups) >= 0)
    for g in range(3):
        scores = sel.scores_[sel.order_][groups == g]
        assert np.all(np.diff(scores) <= 0)
    np.testing.assert_array_equal(sel.ranking_[sel.order_], np.arange(1, 13))
    # the score is the median relative importance; a hit is a relative importance above 1
    np.testing.assert_allclose(sel.scores_, np.nanmedian(sel.path_.to_numpy(), axis=0))
    np.testing.assert_array_equal(sel.hits_, np.nansum(sel.path_.to_numpy() > 1, axis=0))
    ratio = sel.importance_history_ / sel.trace_["shadow_max"].to_numpy()[:, None]
    np.testing.assert_allclose(sel.path_.to_numpy(), ratio)
    trace = sel.trace_
    assert (trace["confirmed"] + trace["rejected"] + trace["tentative"] == 12).all()
    assert trace["in_play"].iloc[0] == 12 and (np.diff(trace["in_play"]) <= 0).all()
    assert sel.n_iter_ == len(trace) <= 12
    tentative = (decision == "tentative").sum()
    assert sel.stop_reason_ == (f"max_iter = 12 iterations reached with {tentative} tentative feature"
                                f"{'s' if tentative != 1 else ''}" if tentative else
                                f"every feature decided after {sel.n_iter_} iterations")
    # a budget: the first k of the order instead of the confirmed set
    top = BorutaSelector(n_features_to_select=3, n_estimators=30, max_iter=12, random_state=2).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(top.support_), np.sort(top.order_[:3]))
    np.testing.assert_array_equal(top.order_, sel.order_)


def test_boruta_on_sparse_data_and_in_a_pipeline():
    X, y = _classes(n=300, p=10, seed=3)
    X[np.abs(X) < 0.5] = 0.0
    sel = BorutaSelector(n_estimators=30, max_iter=12).fit(sp.csr_matrix(X), y)
    assert {1, 4} <= set(np.flatnonzero(sel.support_))
    again = BorutaSelector(n_estimators=30, max_iter=12).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sel.scores_, again.scores_)  # seeded
    pipe = Pipeline([("sel", BorutaSelector(n_estimators=20, max_iter=10)), ("clf", LogisticRegression())])
    assert pipe.fit(X, y).score(X, y) > 0.8


@pytest.mark.parametrize("key", list(WRAPPERS))
def test_registry_route_fits_the_dataset(key):
    X, y = _classes(seed=4)
    ds = Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(X.shape[1])), provenance=Provenance("test"),
                 name="toy", task="classification")
    fit = fit_method(key, FAST[key], ds)
    direct = WRAPPERS[key](**FAST[key]).fit(X, y)
    np.testing.assert_array_equal(fit.order, direct.order_)
