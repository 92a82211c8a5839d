"""The selectors of the information-theoretic family: scikit-learn's estimator checks, the selector
dialect (keyword-only parameters, registry defaults and entries, progress naming each step, a stop
keeping the sequence so far), dense and sparse input agreeing, several classes, the trace against
the reference entropies, and mRMR's own checks (moved here from the toolbox tests with it)."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import mutual_info_score
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine import selectors
from fsengine.data import Dataset, Provenance
from fsengine.methods.information.discretise import discretise
from fsengine.methods.information.model import CountTerms
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.plots.style import METHOD_COLORS
from fsengine.progress import StopRequested
from fsengine.selectors import (
    CIFESelector,
    CMIMSelector,
    DISRSelector,
    FCBFSelector,
    ICAPSelector,
    JMISelector,
    MRMRSelector,
    MutualInfoSelector,
    UnifiedInformationSelector,
)
from tests.methods.information import reference as ref

FAMILY = {"mrmr": MRMRSelector, "jmi": JMISelector, "cmim": CMIMSelector, "disr": DISRSelector,
          "cife": CIFESelector, "icap": ICAPSelector, "fcbf": FCBFSelector, "unified": UnifiedInformationSelector}
GREEDY = [key for key in FAMILY if key != "fcbf"]


@parametrize_with_checks([JMISelector(max_features=3), CMIMSelector(max_features=3), DISRSelector(max_features=3),
                          CIFESelector(max_features=3), ICAPSelector(max_features=3, bins=4),
                          UnifiedInformationSelector(beta=0.5, gamma=0.2, normalise="sum", max_features=3),
                          FCBFSelector(), FCBFSelector(n_features_to_select=2, bins=3)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("key", list(FAMILY))
def test_dialect_keyword_only_registry_defaults_colour_and_entry(key):
    cls = FAMILY[key]
    with pytest.raises(TypeError):
        cls(None)
    params = inspect.signature(cls.__init__).parameters
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    defaults = cls().get_params()
    for name, value in method_defaults(key).items():
        assert defaults[name] == value, name
    assert defaults["bins"] == "mean_sd"
    spec = get_method(key)
    assert spec.factory == f"fsengine.selectors:{cls.__name__}" and type(spec.build()) is cls
    assert getattr(selectors, cls.__name__) is cls and cls.__name__ in selectors.__all__
    assert spec.label in METHOD_COLORS
    assert get_method(key).param("bins") is get_method("mrmr").param("bins")   # one fact, shared


def _planted(n=240, p=8, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = rng.integers(0, classes, n)
    X[:, 1] += 1.5 * (y == 1)
    X[:, 4] -= 1.5 * (y == classes - 1)
    X[:, 6] = X[:, 1] + 0.05 * rng.normal(size=n)           # a near copy of feature 1
    return X, y


@pytest.mark.parametrize("key", list(FAMILY))
def test_progress_rises_to_one_naming_each_step_and_a_stop_keeps_the_sequence_so_far(key):
    X, y = _planted()
    seen = []
    sel = FAMILY[key](**({} if key == "fcbf" else {"max_features": 4})).fit(
        X, y, progress=lambda f, m: seen.append((f, m)))
    fractions = np.array([f for f, _ in seen])
    assert fractions.size and np.all((fractions >= 0) & (fractions <= 1)) and fractions[-1] == pytest.approx(1.0)
    assert np.all(np.diff(fractions) >= 0) and f"feature {sel.order_[0]}" in seen[0][1]
    assert sel.order_[0] in (1, 4, 6)                                  # a planted feature first

    def stop(fraction, message):
        raise StopRequested

    fresh = FAMILY[key]().fit(X, y, progress=stop)
    assert fresh.stop_reason_ == "stop requested" and fresh.support_.sum() == 1
    assert fresh.order_[0] == sel.order_[0]


@pytest.mark.parametrize("key", list(FAMILY))
@pytest.mark.parametrize("bins", ["mean_sd", 4])
def test_dense_and_sparse_input_select_alike_with_several_classes(key, bins):
    X, y = _planted(classes=3)
    X[X < 0.3] = 0.0
    dense = FAMILY[key](bins=bins).fit(X, y)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        sparse = FAMILY[key](bins=bins).fit(fmt(X), y)
        np.testing.assert_array_equal(sparse.order_, dense.order_)
        np.testing.assert_array_equal(sparse.scores_, dense.scores_)
        np.testing.assert_array_equal(sparse.support_, dense.support_)
    assert dense.classes_.tolist() == [0, 1, 2]


@pytest.mark.parametrize("key", GREEDY)
def test_trace_has_one_row_per_step_with_the_terms_of_the_definition(key):
    X, y = _planted(n=150, p=7, classes=3, seed=4)
    sel = FAMILY[key](max_features=4).fit(X, y)
    F = discretise(X).dense()
    trace = sel.trace_
    assert trace.columns.tolist() == ["step", "feature", "relevance", "redundancy", "conditional_redundancy",
                                      "criterion"]
    assert trace["step"].tolist() == [1, 2, 3, 4] and trace["feature"].tolist() == sel.order_[:4].tolist()
    np.testing.assert_array_equal(trace["criterion"], sel.scores_[sel.order_[:4]])
    for i, k in enumerate(trace["feature"]):
        before = trace["feature"].tolist()[:i]
        assert trace["relevance"][i] == pytest.approx(ref.mi(F[k], y), abs=1e-12)
        want_red = np.mean([ref.mi(F[k], F[j]) for j in before]) if before else 0.0
        want_cond = np.mean([ref.cmi(F[k], F[j], y) for j in before]) if before else 0.0
        assert trace["redundancy"][i] == pytest.approx(want_red, abs=1e-12)
        assert trace["conditional_redundancy"][i] == pytest.approx(want_cond, abs=1e-12)


def test_fcbf_trace_and_support():
    X, y = _planted(seed=2)
    sel = FCBFSelector().fit(X, y)
    F = discretise(X).dense()
    predominant = ref.fcbf(F, y)
    assert sel.get_support(indices=True).tolist() == sorted(predominant)
    assert sel.trace_["feature"].tolist() == predominant == sel.order_[:len(predominant)].tolist()
    assert sel.trace_["removed"].sum() == np.sum(sel.removed_by_ >= 0)
    np.testing.assert_allclose(sel.scores_, [ref.su(f, y) for f in F], atol=1e-12)
    assert FCBFSelector(delta=0.99).fit(X, y).support_.sum() == 0     # nothing above delta
    assert FCBFSelector(n_features_to_select=3).fit(X, y).support_.sum() == 3


@pytest.mark.parametrize("key", list(FAMILY))
def test_registry_route_pipeline_and_bad_bins(key):
    X, y = _planted()
    ds = Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(X.shape[1])), provenance=Provenance("t"),
                 name="t")
    api = FAMILY[key]().fit(X, y)
    np.testing.assert_array_equal(fit_method(key, None, ds).order, api.order_)
    pipe = Pipeline([("sel", FAMILY[key](n_features_to_select=2)), ("clf", LogisticRegression())])
    assert pipe.fit(X, y).score(X, y) > 0.7
    with pytest.raises(ValueError, match="bins"):
        FAMILY[key](bins="quantile").fit(X, y)


def test_unified_selector_reaches_every_named_linear_member():
    X, y = _planted(seed=5)
    for cls, (beta, gamma, normalise) in ((MRMRSelector, (1.0, 0.0, "mean")), (JMISelector, (1.0, 1.0, "mean")),
                                          (CIFESelector, (1.0, 1.0, "sum"))):
        named = cls(max_features=6).fit(X, y)
        unified = UnifiedInformationSelector(beta=beta, gamma=gamma, normalise=normalise, max_features=6).fit(X, y)
        np.testing.assert_array_equal(named.order_, unified.order_)
        np.testing.assert_array_equal(named.scores_, unified.scores_)


# ----------------------------------------------------- mRMR (moved here from tests/methods/toolbox)

def _data(n=200, p=8, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * np.arange(1, p + 1) + 10.0
    y = rng.integers(0, classes, n)
    X[:, 2] += 1.5 * y
    return X, y


def test_mrmr_mutual_information_kernels_equal_sklearn_on_the_states():
    X, y = _data(n=150, p=5, classes=3)
    states = discretise(X).dense()
    mean, std = X.mean(axis=0), X.std(axis=0)
    np.testing.assert_array_equal(states.T, (X > mean - std).astype(int) + (X > mean + std))
    np.testing.assert_array_equal(discretise(sp.csr_matrix(np.where(X > 12, X, 0.0))).dense(),
                                  discretise(np.where(X > 12, X, 0.0)).dense())
    terms = CountTerms(discretise(X), y)
    np.testing.assert_allclose(terms.relevance, [mutual_info_score(s, y) for s in states], atol=1e-12)
    np.testing.assert_allclose(terms.pair(2, np.arange(5), 0).mi, [mutual_info_score(s, states[2]) for s in states],
                               atol=1e-12)


def test_mrmr_follows_the_mid_criterion_step_by_step():
    X, y = _data(n=200, p=7, classes=2)
    X[:, 5] = X[:, 2] + 0.3 * np.random.default_rng(9).normal(size=200)   # redundant with the best
    sel = MRMRSelector(max_features=5).fit(X, y)
    states = discretise(X).dense()
    rel = np.array([mutual_info_score(s, y) for s in states])
    chosen = []
    for _ in range(5):                                                      # brute-force MID
        crit = [rel[j] - (np.mean([mutual_info_score(states[j], states[i]) for i in chosen]) if chosen else 0.0)
                if j not in chosen else -np.inf for j in range(7)]
        chosen.append(int(np.argmax(crit)))
    assert sel.order_[:5].tolist() == chosen
    np.testing.assert_allclose(sel.relevance_, rel, atol=1e-12)
    assert sel.trace_["feature"].tolist() == chosen and sel.support_.sum() == 5


def test_mrmr_never_keeps_both_copies_of_a_duplicate_while_mi_does():
    rng = np.random.default_rng(5)
    n = 400
    y = rng.integers(0, 2, n)
    X = (rng.random((n, 8)) < 0.3).astype(float)
    X[:, 3] = np.where(rng.random(n) < 0.85, y, 1 - y)       # the most relevant feature
    X[:, 6] = X[:, 3]                                         # its exact duplicate
    X[:, 1] = np.where(rng.random(n) < 0.65, y, 1 - y)       # weaker, independent evidence
    mi = MutualInfoSelector().fit(X, y)
    assert set(mi.order_[:2].tolist()) == {3, 6}              # MI ranks both copies on top
    mrmr = MRMRSelector(max_features=4).fit(X, y)
    assert mrmr.order_[0] == 3 and 6 not in mrmr.order_[:2].tolist() and mrmr.order_[1] == 1
    # through the registry, on the same data (binary: neither method changes it)
    ds = Dataset(X=X, y=y, feature_names=tuple(f"w{j}" for j in range(8)), provenance=Provenance("t"), name="dup")
    assert set(fit_method("mi", None, ds).order[:2].tolist()) == {3, 6}
    assert 6 not in fit_method("mrmr", None, ds).order[:2].tolist()
    for key in ("jmi", "cmim", "icap", "fcbf"):                        # so do these relatives
        assert 6 not in fit_method(key, None, ds).order[:2].tolist(), key
    # DISR does not: a copy's joint entropy with the original, H(X_3 X_3 Y) = H(X_3 Y), is the
    # smallest there is, so its symmetric relevance I(X_3; Y) / H(X_3 Y) beats the weaker feature's
    # I(X_1 X_3; Y) / H(X_1 X_3 Y) (the definition, checked in test_model.py, says so too)
    assert fit_method("disr", None, ds).order[:2].tolist() == [3, 6]


def test_bins_on_the_command_line_and_in_the_registry():
    spec = get_method("jmi")
    assert spec.parse(["bins=5"])["bins"] == 5 and spec.parse(["bins=mean_sd"])["bins"] == "mean_sd"
    with pytest.raises(ValueError, match="bins=1: must be at least 2"):
        spec.parse(["bins=1"])
    X, y = _planted()
    five = fit_method("jmi", {"bins": 5}, Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(8)),
                                                  provenance=Provenance("t"), name="t"))
    np.testing.assert_array_equal(five.order, JMISelector(bins=5).fit(X, y).order_)
