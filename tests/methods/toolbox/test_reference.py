"""The toolbox methods against independent computations: scikit-learn's statistics and estimators,
the trees' own impurity decreases, hand-made selection probabilities and planted truth (mRMR's
tests moved with it to ``tests/methods/information``)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.feature_selection import RFE, chi2, f_classif, f_regression
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsengine.data import Dataset, Provenance
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.methods.adapt import adapt
from fsengine.methods.registry import get_method
from fsengine.methods.run import fit_method
from fsengine.methods.toolbox.stability import error_bound, half_samples, penalty_grid, standardise
from fsengine.selectors import (
    ANOVASelector,
    Chi2Selector,
    ForestSelector,
    PermutationSelector,
    RFESelector,
    StabilitySelector,
)


def _data(n=200, p=8, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * np.arange(1, p + 1) + 10.0
    y = rng.integers(0, classes, n)
    X[:, 2] += 1.5 * y
    return X, y


# --------------------------------------------------------------------------------------- ANOVA F
@pytest.mark.parametrize("sparse", [False, True])
def test_anova_equals_f_classif_and_f_regression_to_1e_10(sparse):
    X, y = _data()
    Xs = sp.csr_matrix(X) if sparse else X
    sel = ANOVASelector().fit(Xs, y)
    F, pval = f_classif(X, y)
    np.testing.assert_allclose(sel.scores_, F, rtol=1e-10)
    np.testing.assert_allclose(sel.pvalues_, pval, rtol=1e-10, atol=1e-300)
    assert sel.order_[0] == 2 and sel.task_ == "classification"
    target = 0.4 * X[:, 5] + np.random.default_rng(1).normal(size=len(y))
    reg = ANOVASelector().fit(Xs, target)
    F, pval = f_regression(X, target)
    np.testing.assert_allclose(reg.scores_, F, rtol=1e-10)
    np.testing.assert_allclose(reg.pvalues_, pval, rtol=1e-10, atol=1e-300)
    assert reg.order_[0] == 5 and reg.task_ == "regression"


def test_anova_perfect_separator_ranks_first_constant_last():
    X, y = _data(classes=2)
    X[:, 6] = y * 3.0            # constant within each class: F = inf, the strongest evidence
    X[:, 0] = 1.0                # constant: F undefined (NaN)
    with np.errstate(divide="ignore", invalid="ignore"):
        sel = ANOVASelector().fit(X, y)
    assert np.isposinf(sel.scores_[6]) and np.isnan(sel.scores_[0])
    assert sel.order_[0] == 6 and sel.order_[-1] == 0 and sel.support_[6] and not sel.support_[0]


# ------------------------------------------------------------------------------------- chi-squared
@pytest.mark.parametrize("sparse", [False, True])
def test_chi2_equals_sklearn_chi2(sparse):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    X = rng.poisson(1.5, size=(300, 7)).astype(float)
    X[:, 4] += 2 * (y == 1)
    sel = Chi2Selector().fit(sp.csr_matrix(X) if sparse else X, y)
    stat, pval = chi2(X, y)
    np.testing.assert_allclose(sel.scores_, stat, rtol=1e-10)
    np.testing.assert_allclose(sel.pvalues_, pval, rtol=1e-10, atol=1e-300)
    assert sel.order_[0] == 4


def test_chi2_refuses_negative_data_in_one_line_and_the_comparison_rescales_with_a_note():
    X, y = _data(classes=2)
    X -= 10.0
    with pytest.raises(ValueError, match=r"^Negative values in data: chi-squared needs non-negative features") as err:
        Chi2Selector().fit(X, y)
    assert "\n" not in str(err.value)
    ds = Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(8)), provenance=Provenance("t"), name="t")
    adapted = adapt(get_method("chi2"), ds)
    lo, hi = X.min(axis=0), X.max(axis=0)
    np.testing.assert_allclose(adapted.ds.X, (X - lo) / (hi - lo))
    assert adapted.notes == ("Chi² needs non-negative features: 8 feature(s) had negative values: every feature "
                             "rescaled to [0, 1] as (x - min) / (max - min).",)
    np.testing.assert_allclose(fit_method("chi2", None, ds).scores, chi2(adapted.ds.X, y)[0], rtol=1e-10)
    sparse = Dataset(X=sp.csr_matrix(X), y=y, feature_names=ds.feature_names, provenance=Provenance("t"), name="t")
    with pytest.raises(ValueError, match="Chi² needs non-negative features .* sparse with negative values"):
        adapt(get_method("chi2"), sparse)
    counts = Dataset(X=X - X.min(), y=y, feature_names=ds.feature_names, provenance=Provenance("t"), name="t")
    assert adapt(get_method("chi2"), counts).notes == ()   # non-negative data: untouched


# ------------------------------------------------------------------------------------------ forest
def _mdi(forest, p):
    """Mean decrease in impurity from the trees' own node arrays (independent of sklearn's
    feature_importances_): weighted impurity decrease per feature, normalised per tree, averaged."""
    per_tree = []
    for est in forest.estimators_:
        t = est.tree_
        imp = np.zeros(p)
        for v in range(t.node_count):
            left, right = t.children_left[v], t.children_right[v]
            if left == -1:
                continue
            w = t.weighted_n_node_samples
            imp[t.feature[v]] += (w[v] * t.impurity[v] - w[left] * t.impurity[left] - w[right] * t.impurity[right])
        per_tree.append(imp / imp.sum() if imp.sum() > 0 else imp)
    mean = np.mean(per_tree, axis=0)
    return mean / mean.sum()


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_forest_is_the_seeded_forests_impurity_importance(task):
    X, y = _data(classes=2)
    target = y if task == "classification" else X[:, 3] * 0.5 + np.random.default_rng(0).normal(size=len(y))
    sel = ForestSelector(n_estimators=25, random_state=7).fit(X, target)
    cls = RandomForestClassifier if task == "classification" else RandomForestRegressor
    theirs = cls(n_estimators=25, random_state=7).fit(X, target)
    np.testing.assert_allclose(sel.scores_, theirs.feature_importances_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sel.scores_, _mdi(theirs, X.shape[1]), rtol=1e-9)
    assert sel.task_ == task and sel.order_[0] == (2 if task == "classification" else 3)
    np.testing.assert_array_equal(sel.support_, sel.scores_ > sel.scores_.mean())


# ------------------------------------------------------------------------------------ permutation
@pytest.mark.parametrize("model", ["linear", "forest"])
def test_permutation_is_sklearns_on_the_held_out_part(model):
    X, y = _data(n=160, classes=2)
    X[:, 2] += 3.0 * y  # a clear signal, so that every model ranks it first
    sel = PermutationSelector(model=model, n_repeats=3, n_estimators=15, random_state=4).fit(X, y)
    train, test = train_test_split(np.arange(len(y)), test_size=0.25, random_state=4, stratify=y)
    if model == "forest":
        fitted = RandomForestClassifier(n_estimators=15, random_state=4).fit(X[train], y[train])
    else:
        fitted = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[train], y[train])
    theirs = permutation_importance(fitted, X[test], y[test], n_repeats=3, random_state=4)
    np.testing.assert_allclose(sel.scores_, theirs.importances_mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sel.importances_, theirs.importances)
    assert sel.baseline_score_ == pytest.approx(fitted.score(X[test], y[test]))
    assert sel.order_[0] == 2 and sel.support_[2]
    np.testing.assert_array_equal(sel.support_, theirs.importances_mean - 2 * theirs.importances_std > 0)


# -------------------------------------------------------------------------------------------- RFE
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_rfe_ranking_is_sklearns_and_the_order_follows_it(task):
    X, y = _data(classes=3)
    target = y if task == "classification" else X[:, 4] - 0.5 * X[:, 1]
    sel = RFESelector(C=0.5, step=1).fit(X, target)  # one feature per round: scikit-learn's ranking, untouched
    model = LogisticRegression(C=0.5, max_iter=5000) if task == "classification" else Ridge(alpha=2.0)
    theirs = RFE(make_pipeline(StandardScaler(), model), n_features_to_select=1, step=1,
                 importance_getter=f"named_steps.{type(model).__name__.lower()}.coef_").fit(X, target)
    np.testing.assert_array_equal(sel.ranking_, theirs.ranking_)
    np.testing.assert_array_equal(sel.rfe_ranking_, theirs.ranking_)
    np.testing.assert_array_equal(sel.order_, np.argsort(theirs.ranking_))
    assert sel.support_.sum() == X.shape[1] // 2 and sel.support_[sel.order_[:4]].all()


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("step, p", [(0.3, 10), ("registry", 60)])
def test_rfe_fractional_step_is_sklearns_and_orders_a_round_by_the_criterion_it_removed_them_by(step, p, classes):
    """A fraction removes int(step * p) features per round (0.3 on 10: 3; the registry's default
    0.05 on 60: 3), and scikit-learn's RFE with the same step ties them in ``ranking_``. The order
    within a round is the squared coefficient (summed over the classes) of that round's fit,
    refitted here by hand on the features left at each round: larger first, as a smaller step
    would have removed them later."""
    X, y = _data(p=p, classes=classes)
    sel = RFESelector(step=step).fit(X, y) if step != "registry" else RFESelector().fit(X, y)
    step = get_method("rfe").resolve({})["step"] if step == "registry" else step
    assert sel.step == step and step < 1
    theirs = RFE(make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)), n_features_to_select=1,
                 step=step, importance_getter="named_steps.logisticregression.coef_").fit(X, y)
    np.testing.assert_array_equal(sel.rfe_ranking_, theirs.ranking_)
    assert len(set(theirs.ranking_)) < p and sorted(sel.ranking_) == list(range(1, p + 1))
    assert np.all(np.diff(sel.rfe_ranking_[sel.order_]) >= 0)  # the order never contradicts sklearn's ranking
    per_round = max(1, int(step * p))
    alive, expected = np.arange(p), []
    while alive.size > 1:  # the elimination by hand: fit, remove the per_round smallest w^2 (or all but one)
        coef = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(X[:, alive], y)[-1].coef_
        criterion = (coef ** 2).sum(axis=0)
        out = np.argsort(criterion, kind="stable")[:min(per_round, alive.size - 1)]
        expected = [alive[j] for j in out[np.argsort(-criterion[out], kind="stable")]] + expected
        np.testing.assert_allclose(sel.removal_criterion_[alive[out]], criterion[out], rtol=1e-6)
        alive = np.delete(alive, out)
    assert sel.order_.tolist() == [alive[0], *expected]
    assert np.isinf(sel.removal_criterion_[alive[0]])


# ------------------------------------------------------------------------------------- stability
def test_stability_probabilities_equal_hand_made_half_sample_fits():
    X, y = _data(n=120, p=6, classes=2)
    sel = StabilitySelector(n_resamples=6, n_Cs=3, C_span=20.0, random_state=3).fit(X, y)
    Xs = standardise(X)
    Cs = penalty_grid(Xs, y, classification=True, n_Cs=3, C_span=20.0)
    np.testing.assert_allclose(sel.path_.index.to_numpy(), Cs)
    rows = half_samples(y, 6, 3, stratify=True)
    assert all(r.size == 60 and np.bincount(y[r]).tolist() == (np.bincount(y) // 2).tolist() for r in rows)
    # the intercept is unpenalised: liblinear at a tight tolerance with intercept_scaling 1e4 (its
    # intercept penalty lambda |theta_0| / 1e4) is the hand-made reference
    chosen = np.array([[LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, tol=1e-12, max_iter=100_000,
                                           intercept_scaling=1e4, random_state=0).fit(Xs[r], y[r]).coef_[0] != 0
                        for C in Cs] for b, r in enumerate(rows)])       # (B, L, p)
    np.testing.assert_allclose(sel.path_.to_numpy(), chosen.mean(axis=0))
    np.testing.assert_allclose(sel.scores_, chosen.mean(axis=0).max(axis=0))
    q = chosen.any(axis=1).sum(axis=1).mean()
    assert sel.q_ == pytest.approx(q) and sel.error_bound_ == pytest.approx(q**2 / ((2 * 0.75 - 1) * 6))
    np.testing.assert_array_equal(sel.support_, sel.scores_ >= 0.75)


def test_error_bound_is_theorem_1():
    assert error_bound(5.0, 0.9, 100) == pytest.approx(25 / 80)
    with pytest.raises(ValueError, match=r"threshold in \(0.5, 1\]"):
        error_bound(5.0, 0.5, 100)


@pytest.mark.parametrize("family", ["logistic", "linear"])
def test_stability_finds_the_planted_five_of_fifty(family):
    ds = make_sparse_glm(family, n=300, p=50, k=5, signal=2.0, seed=0)
    sel = StabilitySelector(n_resamples=30).fit(ds.X, ds.y)
    assert set(sel.order_[:5].tolist()) == set(np.flatnonzero(ds.truth).tolist())
    assert sel.task_ == ("classification" if family == "logistic" else "regression")
    assert 5 <= sel.q_ <= 50 and sel.error_bound_ == pytest.approx(sel.q_**2 / (0.5 * 50))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stability_finds_the_planted_five_on_more_seeds(seed):
    for family in ("logistic", "linear"):
        ds = make_sparse_glm(family, n=300, p=50, k=5, signal=2.0, seed=seed)
        sel = StabilitySelector().fit(ds.X, ds.y)
        assert set(sel.order_[:5].tolist()) == set(np.flatnonzero(ds.truth).tolist()), family
