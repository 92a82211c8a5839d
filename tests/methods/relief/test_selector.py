"""ReliefFSelector and MultiSURFSelector: scikit-learn's estimator checks, the selector dialect
(keyword-only parameters, registry defaults, progress naming the method after every block, stop
requests), the trace, the instance sample and the task of the target."""

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
from fsengine.methods.relief import model
from fsengine.methods.run import fit_method
from fsengine.progress import StopRequested
from fsengine.selectors import MultiSURFSelector, ReliefFSelector
from tests.methods.relief import reference as ref

SELECTORS = {"relieff": ReliefFSelector, "multisurf": MultiSURFSelector}
LABELS = {"relieff": "ReliefF", "multisurf": "MultiSURF"}


@parametrize_with_checks([ReliefFSelector(), ReliefFSelector(n_neighbors=2, n_features_to_select=2),
                          ReliefFSelector(n_instances=5), MultiSURFSelector(),
                          MultiSURFSelector(discrete_threshold=0, n_features_to_select=1)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("key", list(SELECTORS))
def test_keyword_only_registry_defaults_entry_and_export(key):
    cls = SELECTORS[key]
    with pytest.raises(TypeError):
        cls(None)
    params = inspect.signature(cls.__init__).parameters
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    assert inspect.signature(cls.fit).parameters["progress"].kind is inspect.Parameter.KEYWORD_ONLY
    defaults = cls().get_params()
    registry = method_defaults(key)
    assert registry["n_instances"] is None and registry["discrete_threshold"] == 10
    assert all(defaults[name] == value for name, value in registry.items())
    spec = get_method(key)
    assert spec.label == LABELS[key] and spec.factory == f"fsengine.selectors:{cls.__name__}"
    assert type(spec.build()) is cls and getattr(selectors, cls.__name__) is cls and cls.__name__ in selectors.__all__
    assert spec.needs.sparse_ok and "regression" in spec.needs.tasks
    if key == "relieff":
        assert registry["n_neighbors"] == 10


def _xor(n=240, p=8, seed=0):
    """An XOR pair (features 2 and 5) among uniform noise: no feature tells the class alone."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p))
    y = ((X[:, 2] > 0.5) ^ (X[:, 5] > 0.5)).astype(int)
    return X, y


@pytest.mark.parametrize("key", list(SELECTORS))
def test_progress_after_every_block_in_the_method_s_own_words_and_a_stop_leaves_no_result(key, monkeypatch):
    X, y = _xor()
    monkeypatch.setattr(model, "MAX_BLOCK_ROWS", 50)
    seen = []
    sel = SELECTORS[key]().fit(X, y, progress=lambda f, m: seen.append((f, m)))
    # every pair's distance once (blocks of 50 rows against the rows from their first on), then scoring
    ends = [50, 100, 150, 200, 240]
    # the progress protocol: the caller names the method, so the method's messages do not
    assert [m for _, m in seen] == ([f"distances of {e} of 240 instances" for e in ends]
                                    + [f"{e} of 240 instances scored" for e in ends])
    pairs = np.cumsum([(e - s) * (240 - s) - (e - s) * (e - s - 1) / 2 for s, e in zip([0, *ends[:-1]], ends)])
    assert [f for f, _ in seen] == pytest.approx([*(model.PAIRWISE_SHARE * pairs / (240 * 241 / 2)),
                                                  *(model.PAIRWISE_SHARE + (1 - model.PAIRWISE_SHARE) * np.array(ends)
                                                    / 240)])
    assert sorted(sel.order_[:2].tolist()) == [2, 5]  # the interaction no univariate filter sees
    # the trace: one row per block, the ranking settled by the last block
    assert sel.trace_["block"].tolist() == [1, 2, 3, 4, 5]
    assert sel.trace_["first"].tolist() == [1, 51, 101, 151, 201] and sel.trace_["last"].iloc[-1] == 240
    assert sel.trace_["top_agreement"].iloc[-1] == 1.0
    assert ((sel.trace_["top_agreement"] >= 0) & (sel.trace_["top_agreement"] <= 1)).all()

    def stop(fraction, message):
        raise StopRequested

    fresh = SELECTORS[key]()
    with pytest.raises(StopRequested):
        fresh.fit(X, y, progress=stop)
    assert not hasattr(fresh, "scores_")


def test_the_trace_counts_ties_and_multisurf_neighbourhoods():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(60, 4)).astype(float)  # 16 distinct rows: ties everywhere
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    relieff = ReliefFSelector(n_neighbors=5).fit(X, y)
    assert 0 < relieff.trace_["tied_instances"].sum() <= 60
    ms = MultiSURFSelector().fit(X + rng.normal(scale=0.01, size=X.shape), y)
    assert ms.discrete_.sum() == 0 and (ms.trace_["mean_hits"] + ms.trace_["mean_misses"] < 59).all()
    assert (ms.trace_["mean_hits"] > 0).all() and (ms.trace_["mean_threshold"] > 0).all()
    assert relieff.discrete_.all()


def test_support_is_the_positive_weights_or_the_budget_and_a_pipeline_works():
    X, y = _xor()
    sel = ReliefFSelector().fit(X, y)
    np.testing.assert_array_equal(sel.support_, sel.scores_ > 0)
    assert ReliefFSelector(n_features_to_select=2).fit(X, y).get_support(indices=True).tolist() == [2, 5]
    pipe = Pipeline([("sel", MultiSURFSelector(n_features_to_select=2)), ("clf", LogisticRegression())])
    assert pipe.fit(X, y).named_steps["sel"].get_support(indices=True).tolist() == [2, 5]


def test_a_sample_of_instances_is_seeded_and_scores_those_rows_against_all():
    X, y = _xor(n=60, p=6)
    sel = ReliefFSelector(n_neighbors=3, n_instances=20, random_state=7).fit(X, y)
    again = ReliefFSelector(n_neighbors=3, n_instances=20, random_state=7).fit(X, y)
    other = ReliefFSelector(n_neighbors=3, n_instances=20, random_state=8).fit(X, y)
    assert sel.instances_.size == 20 and np.array_equal(sel.instances_, again.instances_)
    assert not np.array_equal(sel.instances_, other.instances_)
    np.testing.assert_allclose(sel.scores_, ref.relieff(X, y, 3, instances=sel.instances_.tolist()), atol=1e-14)
    assert ReliefFSelector(n_instances=1000).fit(X, y).instances_.tolist() == list(range(60))  # m >= n: all


@pytest.mark.parametrize("key", list(SELECTORS))
def test_task_auto_takes_a_real_target_and_fit_method_passes_the_dataset_task(key):
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(80, 4))
    y = 2.0 * X[:, 2] + 0.1 * rng.normal(size=80)
    sel = SELECTORS[key]().fit(X, y)
    assert sel.task_ == "regression" and sel.order_[0] == 2
    np.testing.assert_allclose(sel.scores_, getattr(ref, key)(X, y, **({"k": 10} if key == "relieff" else {}),
                                                              task="regression"), atol=1e-14)
    counts = np.round(np.exp(2 * X[:, 2]) * 3)  # whole numbers: classes to "auto", a target to the Dataset
    ds = Dataset(X=X, y=counts, feature_names=tuple("abcd"), provenance=Provenance("test"), name="counts",
                 task="regression")
    fit = fit_method(key, {}, ds)
    assert fit.selector.task_ == "regression" and fit.order[0] == 2


@pytest.mark.parametrize("key", list(SELECTORS))
def test_sparse_and_dense_input_give_the_same_weights(key):
    X, y = _xor(n=90, p=6)
    Xs = X * (X > 0.4)  # zeros for the sparse form
    dense = SELECTORS[key]().fit(Xs, y)
    sparse = SELECTORS[key]().fit(sp.csr_matrix(Xs), y)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(sparse.order_, dense.order_)


def test_bad_parameters_are_refused_by_name():
    X, y = _xor(n=30, p=6)
    for bad in ({"n_neighbors": 0}, {"discrete_threshold": -1}, {"n_instances": 0}, {"task": "ranking"}):
        with pytest.raises(ValueError, match=list(bad)[0]):
            (MultiSURFSelector if "n_neighbors" not in bad else ReliefFSelector)(**bad).fit(X, y)
