"""Your own selector: scikit-learn selectors and models as methods (scores from scores_,
feature_importances_, |coef_|, ranking_, else get_support), MODULE:CLASS paths, literal parameter
values, register_method, and run_comparison with estimator objects."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import RFE, SelectFromModel, SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression

from fsengine.compare import CompareSettings, run_comparison
from fsengine.data import Dataset, Provenance
from fsengine.methods.custom import (
    EstimatorSelector,
    NoRankingWarning,
    class_method,
    import_class,
    method_from_argument,
    parse_value,
    resolve_methods,
)
from fsengine.methods.registry import METHODS, MethodSpec, get_method, register_method
from fsengine.methods.run import fit_method
from fsengine.params import Param


class ExposesNothing(BaseEstimator):
    """fit, and nothing to rank by."""

    def fit(self, X, y):
        self.fitted_ = True
        return self


class SupportOnly(BaseEstimator):
    """Selects the first two features and exposes only get_support()."""

    def fit(self, X, y):
        self.mask_ = np.arange(np.shape(X)[1]) < 2
        return self

    def get_support(self):
        return self.mask_


def _data(n=120, p=6, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 3] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    if classes == 3:
        y = np.digitize(X[:, 3] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, y


def _ds(X, y, name="toy"):
    return Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(X.shape[1])), provenance=Provenance("t"),
                   name=name)


def test_select_k_best_scores_and_support_are_its_own():
    X, y = _data()
    sel = EstimatorSelector(estimator=SelectKBest(k=2)).fit(X, y)
    np.testing.assert_allclose(sel.scores_, f_classif(X, y)[0])
    np.testing.assert_array_equal(sel.support_, SelectKBest(k=2).fit(X, y).get_support())
    assert sel.score_source_ == "scores_" and sel.order_[:2].tolist() == [3, 1]


def test_select_from_model_logistic_regression_ranks_by_its_coefficients():
    X, y = _data(classes=3)
    sel = EstimatorSelector(estimator=SelectFromModel(LogisticRegression(max_iter=1000))).fit(X, y)
    theirs = SelectFromModel(LogisticRegression(max_iter=1000)).fit(X, y)
    np.testing.assert_allclose(sel.scores_, np.abs(theirs.estimator_.coef_).sum(axis=0))
    np.testing.assert_array_equal(sel.support_, theirs.get_support())
    assert sel.score_source_ == "estimator_.|coef_| summed over classes" and sel.order_[0] == 3


def test_models_ranking_and_the_order_of_sources():
    X, y = _data()
    forest = EstimatorSelector(estimator=RandomForestClassifier(n_estimators=10, random_state=0)).fit(X, y)
    np.testing.assert_allclose(forest.scores_, RandomForestClassifier(n_estimators=10, random_state=0)
                               .fit(X, y).feature_importances_)
    assert forest.score_source_ == "feature_importances_" and forest.support_.all() == (forest.scores_ > 0).all()
    logistic = EstimatorSelector(estimator=LogisticRegression()).fit(X, y)
    np.testing.assert_allclose(logistic.scores_, np.abs(LogisticRegression().fit(X, y).coef_[0]))
    assert logistic.score_source_ == "|coef_|"
    rfe = EstimatorSelector(estimator=RFE(LogisticRegression(), n_features_to_select=2)).fit(X, y)
    ranking = RFE(LogisticRegression(), n_features_to_select=2).fit(X, y).ranking_
    assert rfe.score_source_ == "ranking_"          # its own ranking_ before its inner estimator_'s coef_
    np.testing.assert_allclose(rfe.scores_, ranking.max() + 1 - ranking)
    assert set(rfe.order_[:2].tolist()) == set(np.flatnonzero(ranking == 1).tolist())


def test_support_only_says_no_ranking_and_nothing_is_a_one_line_error():
    X, y = _data()
    with pytest.warns(NoRankingWarning, match="no ranking was available"):
        sel = EstimatorSelector(estimator=SupportOnly()).fit(X, y)
    assert sel.score_source_ == "get_support()" and sel.scores_.tolist() == [1, 1, 0, 0, 0, 0]
    assert sel.order_[:2].tolist() == [0, 1] and sel.support_.tolist() == [True, True, False, False, False, False]
    fit = fit_method(resolve_methods([SupportOnly()])[0][0], None, _ds(X, y))
    assert any("no ranking was available" in note for note in fit.notes)
    with pytest.raises(ValueError, match=r"^ExposesNothing exposes none of scores_, feature_importances_, coef_, "
                                         r"ranking_ or get_support\(\) after fit") as err:
        EstimatorSelector(estimator=ExposesNothing()).fit(X, y)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("path, message", [
    ("nosuchmodule_xyz:Thing", "nosuchmodule_xyz:Thing: cannot import nosuchmodule_xyz (ModuleNotFoundError"),
    ("sklearn.feature_selection:Nope", "sklearn.feature_selection has no attribute 'Nope'"),
    ("sklearn.feature_selection:chi2", "sklearn.feature_selection:chi2 is a function, not an estimator class"),
    ("collections:OrderedDict", "collections:OrderedDict is a class without fit(X, y), not an estimator"),
    ("SelectKBest", "write MODULE:CLASS"),
])
def test_import_errors_are_one_line(path, message):
    with pytest.raises(ValueError) as err:
        import_class(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_parameters_of_a_class_parse_by_literal_rules_and_are_checked():
    assert parse_value("1e-3") == 0.001 and parse_value("'a b'") == "a b" and parse_value("True") is True
    assert parse_value("[1, 2]") == [1, 2] and parse_value("{'a': 1}") == {"a": 1} and parse_value("none") is None
    assert isinstance(parse_value("sklearn.linear_model:LogisticRegression"), LogisticRegression)
    assert parse_value("sklearn.feature_selection:chi2").__name__ == "chi2"
    spec = class_method("sklearn.feature_selection:SelectKBest")
    assert spec.key == "sklearn.feature_selection:SelectKBest" and spec.label == "SelectKBest"
    assert spec.parse(["k=3", "score_func=sklearn.feature_selection:f_classif"])["k"] == 3
    with pytest.raises(ValueError, match="SelectKBest has no parameter 'kk'; it takes: score_func, k"):
        spec.parse(["kk=3"])
    with pytest.raises(ValueError, match="must look like name=value"):
        spec.parse(["k"])
    assert method_from_argument("anova") is get_method("anova")
    X, y = _data()
    fit = fit_method(spec, spec.parse(["k=2"]), _ds(X, y))
    assert fit.support.sum() == 2 and fit.order[0] == 3 and fit.selector.model_.k == 2


def test_register_method_offers_a_method_everywhere_a_key_is_used():
    spec = MethodSpec("kbest_test", "SelectKBest (test)", "ANOVA F of SelectKBest",
                      "sklearn.feature_selection:SelectKBest", params=(Param("k", "Features kept", 2, min=1, max=100),))
    try:
        assert register_method(spec) is spec and get_method("kbest_test") is spec
        assert register_method(spec) is spec                         # a rerun of the entry script
        with pytest.raises(ValueError, match="registered already"):
            register_method(MethodSpec("kbest_test", "Other", "other", "sklearn.feature_selection:SelectKBest"))
        X, y = _data()
        fit = fit_method("kbest_test", {"k": 3}, _ds(X, y))
        assert isinstance(fit.selector, EstimatorSelector) and fit.support.sum() == 3
    finally:
        METHODS.pop("kbest_test", None)
    with pytest.raises(ValueError, match="'anova' is a built-in method"):
        register_method(MethodSpec("anova", "Mine", "mine", "sklearn.feature_selection:SelectKBest"))
    with pytest.raises(ValueError, match="no ':', ',', '.' or spaces"):
        register_method(MethodSpec("a.b", "Mine", "mine", "sklearn.feature_selection:SelectKBest"))
    with pytest.raises(TypeError):
        register_method("kbest")


def test_run_comparison_takes_estimator_objects_next_to_keys():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(160, 12))
    y = (X[:, 5] - X[:, 7] + 0.4 * rng.normal(size=160) > 0).astype(int)
    ds = _ds(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_comparison(ds, ["anova", SelectKBest(k=3), (SelectKBest(k=2), {"k": 5}),
                                     SelectFromModel(LogisticRegression()), ExposesNothing()],
                                CompareSettings(n_bootstrap=2, max_k=6))
    assert result.labels == ["ANOVA F", "SelectKBest", "SelectKBest-2", "SelectFromModel"]
    assert list(result.failures) == ["ExposesNothing"] and "exposes none of" in result.failures["ExposesNothing"]
    for label in ("SelectKBest", "SelectFromModel"):
        assert set(result.run(label).order[:2].tolist()) == {5, 7}
    assert result.run("SelectKBest").support.sum() == 3 and result.run("SelectKBest-2").support.sum() == 5
    assert result.run("SelectKBest-2").params == {"k": 5}
    assert "score_SelectKBest-2" in result.scores_table().columns
    with pytest.raises(ValueError, match="Unknown method 'sklearn.feature_selection:SelectKBest'"):
        run_comparison(ds, ["sklearn.feature_selection:SelectKBest"])   # paths are for the command line only


@pytest.mark.slow
def test_estimator_objects_and_registered_methods_run_on_worker_processes():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 8))
    y = (X[:, 2] > 0).astype(int)
    spec = MethodSpec("kbest_workers", "KBest", "k best", "sklearn.feature_selection:SelectKBest",
                      params=(Param("k", "k", 2, min=1, max=8),))
    register_method(spec)
    try:
        methods = ["kbest_workers", SelectFromModel(LogisticRegression())]
        serial = run_comparison(_ds(X, y), methods, CompareSettings(n_bootstrap=2, max_k=4))
        parallel = run_comparison(_ds(X, y), methods, CompareSettings(n_bootstrap=2, max_k=4), n_jobs=2)
    finally:
        METHODS.pop("kbest_workers", None)
    assert not parallel.failures and parallel.labels == serial.labels
    for a, b in zip(serial.runs, parallel.runs):
        np.testing.assert_array_equal(a.order, b.order)
        np.testing.assert_array_equal(a.boot_top, b.boot_top)
