"""BIASelector: scikit-learn contract, fitted attributes, path, and clear errors."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.methods.bia.model import max_features_for_memory
from fsengine.references.ising_exact import exact_magnetizations
from fsengine.selectors import BIASelector

_MULTICLASS = "sklearn's data for these checks has 3-4 classes; logistic BIA needs exactly two"
#: checks that feed a logistic BIA multi-class targets (they pass for family="linear"/"poisson")
LOGISTIC_EXEMPT = {name: _MULTICLASS for name in (
    "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self", "check_readonly_memmap_input",
    "check_n_features_in_after_fitting", "check_positive_only_tag_during_fit", "check_dtype_object",
    "check_estimator_sparse_tag", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
    "check_f_contiguous_array_estimator", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_dict_unchanged", "check_fit2d_predict1d",
)}


def _expected_failures(estimator):
    return LOGISTIC_EXEMPT if estimator.family == "logistic" else {}


@parametrize_with_checks(
    [BIASelector(family="linear", n_steps=20), BIASelector(family="poisson", n_steps=20),
     BIASelector(family="logistic", n_steps=20)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def fitted():
    ds = make_sparse_glm("logistic", n=400, p=15, k=3, rho=0.5, signal=1.2, seed=10)
    X = pd.DataFrame(ds.X, columns=ds.feature_names)
    return ds, BIASelector(family="logistic", lambda_ratio=1.0).fit(X, ds.y)


def test_fitted_attributes(fitted):
    ds, sel = fitted
    p = ds.n_features
    assert sel.path_.shape == (200, p) and list(sel.path_.columns) == list(ds.feature_names)
    assert sel.path_.index.name == "lambda_ratio"
    np.testing.assert_allclose(sel.path_.index[[0, 19, 199]], [20.0, 1.0, 0.1])
    assert sel.trace_.shape[0] == 200
    assert set(sel.trace_.columns) >= {"lambda_ratio", "max_abs_dm", "mean_m", "n_selected", "breakdown"}
    assert sel.trace_["breakdown"].tolist() == (sel.path_.index < 1.0).tolist()
    # Lambda* = n (1 + p r) with r the RMS off-diagonal correlation
    corr = np.corrcoef(ds.X.T)
    r = np.sqrt(np.mean(corr[~np.eye(p, dtype=bool)] ** 2))
    assert sel.lambda_star_ == pytest.approx(400 * (1 + p * r), rel=1e-10)
    # scores: the self-consistent solution at Lambda*; the path at the same grid point is close
    assert np.abs(sel.scores_ - sel.path_.iloc[19].to_numpy()).max() < 0.01
    m = sel.magnetization_
    np.testing.assert_allclose(m, np.tanh(sel.fields_ + sel.couplings_ @ m), atol=1e-9)
    assert set(np.flatnonzero(ds.truth)) == set(sel.order_[:3].tolist())
    assert sel.get_support().tolist() == (sel.scores_ > 0.5).tolist()
    # the fitted Ising model is small enough here to check mean field against enumeration
    exact, _ = exact_magnetizations(sel.fields_, sel.couplings_)
    assert np.abs(exact - m).max() < 0.02


def test_top_k_support_pipeline_and_sparse(fitted):
    ds, sel = fitted
    k3 = BIASelector(n_features_to_select=3, n_steps=40).fit(ds.X, ds.y)
    assert k3.get_support(indices=True).tolist() == sorted(k3.order_[:3].tolist())
    sparse = BIASelector(n_steps=40).fit(sp.csr_matrix(ds.X), ds.y)
    np.testing.assert_allclose(sparse.scores_, k3.scores_, atol=1e-9)
    pipe = Pipeline([("bia", BIASelector(n_features_to_select=3, n_steps=40)),
                     ("clf", LogisticRegression())]).fit(ds.X, ds.y)
    assert pipe.score(ds.X, ds.y) > 0.7
    # labels need not be 0/1: any two classes, the second sorted label is the positive one
    named = BIASelector(n_steps=40).fit(ds.X, np.where(ds.y == 1, "yes", "no"))
    np.testing.assert_allclose(named.scores_, k3.scores_)


def test_clear_errors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    X[:, 2] = 7.0
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=r"1 constant feature\(s\).*px2"):
        BIASelector().fit(pd.DataFrame(X, columns=["px0", "px1", "px2", "px3"]), y)
    X[:, 2] = rng.normal(size=30)
    with pytest.raises(ValueError, match="at least 2 classes"):
        BIASelector().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="exactly two classes, got 3"):
        BIASelector().fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="non-negative integer counts"):
        BIASelector(family="poisson").fit(X, X[:, 0])
    with pytest.raises(ValueError, match=r"At most 100 features fit") as info:
        BIASelector(max_memory_mb=0.1).fit(np.c_[X, rng.normal(size=(30, 400))], y)
    assert "404 x 404 coupling matrix" in str(info.value)
    assert max_features_for_memory(0.1, 30) == 100
