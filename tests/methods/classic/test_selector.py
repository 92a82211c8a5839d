"""The four classic-criteria selectors: scikit-learn's estimator checks and the selector dialect
(keyword-only parameters, registry defaults, progress, stop requests, unchanged results)."""

import inspect

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data import load_dataset
from fsengine.data.transforms import binarize_features
from fsengine.methods.registry import get_method, method_defaults
from fsengine.progress import StopRequested
from fsengine.selectors import BoostingSelector, L1PathSelector, MDLSelector, MutualInfoSelector

# No exemptions left: the Naive Bayes criteria binarise the checks' continuous data by default
# (binarize="auto"), and the L1 path runs without cross-validation by default (cv=None; with cv set
# the checks' one-sample classes could not be split).
CHECKED = [
    MutualInfoSelector(),
    MutualInfoSelector(binarize=0.0, n_features_to_select=2),
    MDLSelector(max_features=5),
    L1PathSelector(n_Cs=5),
    BoostingSelector(n_estimators=5),
]
SELECTORS = {"mi": MutualInfoSelector, "mdl": MDLSelector, "l1": L1PathSelector, "boosting": BoostingSelector}


@parametrize_with_checks(CHECKED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("key", list(SELECTORS))
def test_parameters_are_keyword_only_and_default_to_the_registry(key):
    cls = SELECTORS[key]
    with pytest.raises(TypeError):
        cls(None)
    params = inspect.signature(cls.__init__).parameters
    assert all(p.kind is p.KEYWORD_ONLY for name, p in params.items() if name != "self")
    assert "progress" in inspect.signature(cls.fit).parameters
    assert inspect.signature(cls.fit).parameters["progress"].kind is inspect.Parameter.KEYWORD_ONLY
    defaults = cls().get_params()
    for name, value in method_defaults(key).items():
        assert defaults[name] == value, name
    assert get_method(key).factory == f"fsengine.selectors:{cls.__name__}"  # no adapter function
    assert type(get_method(key).build()) is cls and get_method(key).build().get_params() == defaults


def test_registry_wins_where_it_disagreed_with_the_class():
    """MDL max_features (registry 30, class 50 in fsengine 0.2) and L1 cv (registry 0 meaning
    "none", class 3): the values app and command-line users have been getting."""
    assert MDLSelector().max_features == 30
    assert L1PathSelector().cv is None
    l1 = get_method("l1")
    assert l1.parse(["cv=none"])["cv"] is None and l1.parse(["cv=NONE"])["cv"] is None
    assert l1.parse(["cv=4"])["cv"] == 4 and l1.build(l1.parse(["cv=4"])).cv == 4
    assert l1.build({"cv": None}).cv is None
    with pytest.raises(ValueError, match="cv=1: must be at least 2"):
        l1.parse(["cv=1"])
    with pytest.raises(ValueError, match="expected an int or none"):
        l1.parse(["cv=three"])


@pytest.fixture(scope="module")
def digits01():
    return binarize_features(load_dataset("digits"))


@pytest.fixture(scope="module")
def cancer():
    return load_dataset("breast_cancer")


# order_[:12] recorded with fsengine 0.2 (commit 27782c1, before the redesign) on the bundled data
RECORDED = {
    "mi": [42, 26, 34, 21, 28, 43, 20, 10, 61, 13, 36, 44],
    "mdl": [42, 26, 21, 44, 61, 27, 43, 10, 20, 30, 36, 60],
    "l1": [27, 20, 7, 21, 28, 10, 24, 26, 19, 1, 15, 9],
    "boosting": [20, 27, 21, 13, 26, 1, 24, 15, 23, 28, 18, 7],
}


def test_same_order_as_before_on_fixed_data(digits01, cancer):
    mi = MutualInfoSelector().fit(digits01.X, digits01.y)
    mdl = MDLSelector(max_features=30).fit(digits01.X, digits01.y)
    l1 = L1PathSelector(n_Cs=10, cv=None).fit(cancer.X, cancer.y)
    boosting = BoostingSelector(n_estimators=30).fit(cancer.X, cancer.y)
    for key, sel in (("mi", mi), ("mdl", mdl), ("l1", l1), ("boosting", boosting)):
        assert sel.order_[:12].tolist() == RECORDED[key], key
    assert mdl.best_size_ == 12 and l1.C_ == pytest.approx(4.580521223127455, rel=1e-12)
    assert boosting.stop_reason_ == "ran all 30 rounds"


def test_same_cross_validated_c_as_before(cancer):
    l1 = L1PathSelector(n_Cs=8, cv=3).fit(cancer.X, cancer.y)
    assert l1.order_[:12].tolist() == [27, 20, 21, 7, 10, 24, 28, 26, 19, 1, 15, 14]
    assert l1.C_ == pytest.approx(1.7074322147099201, rel=1e-12)


def _recorder():
    seen = []
    return seen, lambda fraction, message: seen.append((fraction, message))


def _assert_reports(seen):
    fractions = np.array([f for f, _ in seen])
    assert fractions.size and np.all((fractions >= 0) & (fractions <= 1))
    assert np.all(np.diff(fractions) >= -1e-12) and fractions[-1] == pytest.approx(1.0)
    assert all(isinstance(m, str) and m for _, m in seen)


@pytest.mark.parametrize("make", [lambda: MDLSelector(max_features=6), lambda: L1PathSelector(n_Cs=5, cv=2),
                                  lambda: BoostingSelector(n_estimators=7)])
def test_progress_fractions_rise_to_one(make, digits01):
    X, y = digits01.X[:300], digits01.y[:300] % 2
    seen, report = _recorder()
    make().fit(X, y, progress=report)
    _assert_reports(seen)


def _stop_after(calls: int):
    count = [0]

    def report(fraction, message):
        count[0] += 1
        if count[0] > calls:
            raise StopRequested

    return report


def test_stop_request_keeps_the_partial_mdl_and_boosting_result(digits01):
    X, y = digits01.X[:400], digits01.y[:400]
    full = MDLSelector(max_features=8).fit(X, y)
    mdl = MDLSelector(max_features=8).fit(X, y, progress=_stop_after(3))  # the start and 3 features
    assert mdl.stop_reason_ == "stop requested" and len(mdl.trace_) == 4
    assert mdl.order_[:3].tolist() == full.order_[:3].tolist()
    assert mdl.best_size_ == int(np.argmin(mdl.trace_["dl_total"])) and mdl.support_.sum() == mdl.best_size_
    assert full.stop_reason_ == "explored every subset size up to the largest, 8 features"
    boost_full = BoostingSelector(n_estimators=10).fit(X, y)
    boost = BoostingSelector(n_estimators=10).fit(X, y, progress=_stop_after(3))
    assert boost.stop_reason_ == "stop requested" and len(boost.trace_) == 4  # stopped after round 4's report
    np.testing.assert_array_equal(boost.trace_["feature"], boost_full.trace_["feature"][:4])
    assert boost.model_.alphas.size == 4 and boost.get_support().sum() == boost.trace_["feature"].nunique()


def test_stop_request_ends_the_l1_path_without_a_result(cancer):
    sel = L1PathSelector(n_Cs=6)
    with pytest.raises(StopRequested):
        sel.fit(cancer.X, cancer.y, progress=_stop_after(2))
    assert not hasattr(sel, "model_") and not hasattr(sel, "_progress")


def test_renamed_attributes_and_no_removed_alias(digits01):
    X, y = digits01.X[:300], digits01.y[:300]
    mi = MutualInfoSelector().fit(X, y)
    assert mi.pvalues_.shape == (64,) and not hasattr(mi, "p_values_")
    np.testing.assert_array_equal(mi.trace_["p_value"], mi.pvalues_[mi.order_])
    mdl = MDLSelector(max_features=5).fit(X, y)
    assert mdl.order_[:5].tolist() == mdl.trace_["feature"][1:].tolist()
    assert not hasattr(mdl, "forward_sequence_")  # the alias of fsengine 0.2 is removed (CHANGELOG)
    l1 = L1PathSelector(n_Cs=4).fit(X, y)
    assert l1.model_.coefs.shape == l1.coefs_.shape and not hasattr(l1, "l1_path_")
    boosting = BoostingSelector(n_estimators=3).fit(X, y)
    assert len(boosting.model_.stumps) == 3 and set(boosting.model_.predict(X)) <= set(y)
    assert not hasattr(boosting, "ensemble_") and not hasattr(boosting, "first_use_")
