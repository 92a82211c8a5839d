"""The numbers the Classic criteria page shows (methods/classic/study.py), against direct
computations on the fitted selectors."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats as st
from sklearn.linear_model import LogisticRegression

from fsengine.data import load_dataset
from fsengine.data.transforms import binarize_features, split
from fsengine.methods.classic import study
from fsengine.selectors import BoostingSelector, MDLSelector, MutualInfoSelector


@pytest.fixture(scope="module")
def digits01():
    return binarize_features(load_dataset("digits"))


def test_mean_image_dense_and_sparse():
    X = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(study.mean_image(X), [4.5, 5.5, 6.5])
    np.testing.assert_allclose(study.mean_image(sp.csr_matrix(X)), [4.5, 5.5, 6.5])


def test_mi_and_mdl_summaries(digits01):
    names = list(digits01.feature_names)
    mi = MutualInfoSelector().fit(digits01.X, digits01.y)
    s = study.mi_summary(mi, names)
    assert s.largest == max(mi.scores_) and s.best == names[int(np.argmax(mi.scores_))]
    assert s.significant == int(np.sum(mi.trace_["p_bonferroni"] < 0.01))
    mdl = MDLSelector(max_features=15).fit(digits01.X, digits01.y)
    m = study.mdl_summary(mdl, names)
    totals = mdl.trace_["dl_total"].to_numpy()
    assert m.best_size == int(np.argmin(totals)) and m.dl_at_minimum == totals.min() and m.dl_empty == totals[0]
    assert m.at_largest_size == (m.best_size == 15)
    assert m.table["name"].tolist() == [names[j] for j in mdl.order_[:15]]
    assert m.table["size"].tolist() == list(range(1, 16))


def test_l1_summary_reports_the_accuracy_at_the_cv_chosen_c_only():
    """Issue 31: the page's headline was the best held-out accuracy over the C path, a choice made
    on the rows that report it. Now: the accuracy at the C chosen by CV on the training part, with
    its Wilson interval (scipy's), checked against a refit at that C; without CV, none."""
    ds = load_dataset("breast_cancer")
    fit = study.l1_held_out(ds, n_Cs=8, C_span=100.0, cv=None, test_size=0.25)
    assert (fit.n_train, fit.n_test) == (426, 143)
    s = study.l1_summary(fit)
    assert s.accuracy is None and s.active_at_chosen is None and s.converged
    fit = study.l1_held_out(ds, n_Cs=8, C_span=100.0, cv=3, test_size=0.25)
    s = study.l1_summary(fit)
    sel = fit.selector
    chosen = int(np.argmax(sel.trace_["cv_accuracy"].to_numpy()))
    assert sel.C_ == sel.Cs_[chosen]
    # the model at the CV-chosen C, refitted with scikit-learn on the same standardised training part
    train, test = split(ds, test_size=0.25, seed=0)
    model = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=sel.Cs_[chosen], tol=1e-6, max_iter=1000,
                               intercept_scaling=100.0, random_state=0)
    model.fit(sel.scaler_.transform(train.X), train.y)
    assert s.active_at_chosen == int(np.count_nonzero(model.coef_))
    correct = int(np.sum(model.predict(sel.scaler_.transform(test.X)) == test.y))
    ci = st.binomtest(correct, fit.n_test).proportion_ci(method="wilson")
    assert s.accuracy.value == pytest.approx(correct / fit.n_test)
    assert [s.accuracy.low, s.accuracy.high] == pytest.approx([ci.low, ci.high], rel=1e-9)
    assert s.n_selected == int(sel.support_.sum())


def test_the_largest_mutual_information_is_said_to_be_biased_upward():
    """Issue 31: 'Largest I(X; Y)' is the maximum of plug-in estimates: on independent noise its
    true value is 0, yet the plug-in maximum is positive, about the size the note gives."""
    rng = np.random.default_rng(0)
    n, p = 400, 200
    X, y = rng.integers(0, 2, size=(n, p)), rng.integers(0, 2, size=n)
    mi = MutualInfoSelector().fit(X, y)
    s = study.mi_summary(mi, [str(j) for j in range(p)])
    assert s.largest > 3 * (1 / (2 * n))  # the largest of 200 plug-ins clears one plug-in's bias several times
    assert np.mean(mi.scores_) == pytest.approx(1 / (2 * n), rel=0.35)  # Miller's (|X|-1)(|Y|-1)/2n
    assert "biased upward" in study.LARGEST_MI_NOTE and "Miller" in study.LARGEST_MI_NOTE


def test_boosting_summary_and_gini_rounds():
    ds = load_dataset("breast_cancer")
    sel = BoostingSelector(n_estimators=8).fit(ds.X, ds.y)
    s = study.boosting_summary(sel, 8)
    assert (s.rounds, s.stopped_early) == (8, False)
    assert s.n_features_used == sel.trace_["feature"].nunique()
    assert s.train_error == pytest.approx(np.mean(sel.model_.predict(ds.X) != ds.y))
    table = study.same_weights(ds.X, ds.y, sel.model_)
    assert study.rounds_with_another_feature(table) == int((table["gini_feature"] != table["feature"]).sum())
    assert study.rounds_with_another_feature(pd.DataFrame({"same_feature": [True, False, False]})) == 2
