"""BIASelector: scikit-learn contract, the selector dialect (keyword-only parameters, registry
defaults, progress, stop requests), fitted attributes, path, and clear errors."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.methods.bia.memory import fit_bytes
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.progress import StopRequested
from fsengine.references.ising_exact import exact_magnetizations
from fsengine.selectors import BIASelector


@parametrize_with_checks(
    [BIASelector(family="linear", n_steps=20), BIASelector(family="poisson", n_steps=20),
     BIASelector(family="logistic", n_steps=20)],
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
    with pytest.raises(ValueError, match=r"404 x 404 coupling matrix") as info:
        BIASelector(max_memory_mb=1.0).fit(np.c_[X, rng.normal(size=(30, 400))], y)
    # the cap by brute force over the fit's arrays (fsengine.methods.bia.memory), float32 couplings;
    # 1 MB is the registry's smallest budget
    cap = max(p for p in range(1, 405) if fit_bytes(30, p, 200, 4) <= 1.0 * 2**20)
    assert f"memory budget of 1 MB (max_memory_mb, default 2,048 MB). At most {cap} features fit" in str(info.value)


# --- the selector dialect ----------------------------------------------------------------------

def test_parameters_are_keyword_only_and_default_to_the_registry():
    with pytest.raises(TypeError):
        BIASelector("linear")
    params = BIASelector().get_params()
    assert {k: params[k] for k in method_defaults("bia")} == method_defaults("bia")
    assert get_method("bia").build().get_params() == params  # the CLI's and the app's selector
    assert get_method("bia").parse([]) == method_defaults("bia")


#: order_ recorded before the redesign (fsengine 27782c1) on make_sparse_glm(family, n=200, p=12,
#: k=3, rho=0.4, seed=7) with n_steps=40; the relevant features are 2, 10 and 11
RECORDED_ORDER = {"logistic": [11, 10, 2, 9, 8, 3, 1, 6, 5, 4, 0, 7],
                  "linear": [11, 10, 2, 9, 3, 8, 1, 6, 7, 5, 4, 0]}


@pytest.mark.parametrize("family", sorted(RECORDED_ORDER))
def test_order_is_unchanged_and_the_three_routes_agree(family):
    ds = make_sparse_glm(family, n=200, p=12, k=3, rho=0.4, seed=7)
    sel = BIASelector(family=family, n_steps=40).fit(ds.X, ds.y)
    assert sel.order_.tolist() == RECORDED_ORDER[family]
    # the command line and the Compare page fit through the registry (fit_method)
    routed = fit_method("bia", {"family": family, "n_steps": 40}, ds)
    assert routed.order.tolist() == RECORDED_ORDER[family]
    np.testing.assert_array_equal(routed.scores, sel.scores_)


def test_progress_fractions_rise_from_0_to_1_and_do_not_change_the_fit():
    ds = make_sparse_glm("logistic", n=200, p=12, k=3, rho=0.4, seed=7)
    seen = []
    with_bar = BIASelector(n_steps=60).fit(ds.X, ds.y, progress=lambda f, m: seen.append((f, m)))
    fractions = np.array([f for f, _ in seen])
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and np.all(np.diff(fractions) >= 0)
    assert ((fractions >= 0) & (fractions <= 1)).all() and len(seen) > 20  # a report per block of path steps
    assert any(m.startswith("path step 60 of 60") for _, m in seen) and seen[-1][1] == "done"
    np.testing.assert_array_equal(with_bar.scores_, BIASelector(n_steps=60).fit(ds.X, ds.y).scores_)
    assert not hasattr(with_bar, "_progress")  # the callback is not kept


def test_a_stop_request_propagates_and_leaves_the_selector_unfitted():
    """The BIA is not greedy: a partial path is no result, so StopRequested is not caught."""
    ds = make_sparse_glm("logistic", n=200, p=12, k=3, rho=0.4, seed=7)

    def stop_halfway(fraction, message):
        if fraction >= 0.5:
            raise StopRequested

    sel = BIASelector(n_steps=60)
    with pytest.raises(StopRequested):
        sel.fit(ds.X, ds.y, progress=stop_halfway)
    with pytest.raises(NotFittedError):
        check_is_fitted(sel, "scores_")
    assert not {"classes_", "model_", "path_", "trace_", "scores_", "order_"} & set(vars(sel))
