"""The numbers the Classic criteria page shows (methods/classic/study.py), against direct
computations on the fitted selectors."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
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


def test_l1_held_out_and_summary_against_a_refit_at_the_best_c():
    ds = load_dataset("breast_cancer")
    fit = study.l1_held_out(ds, n_Cs=8, C_span=100.0, cv=None, test_size=0.25)
    assert (fit.n_train, fit.n_test) == (426, 143)
    s = study.l1_summary(fit)
    best = int(np.argmax(fit.held_out.to_numpy()))
    assert s.best_accuracy == fit.held_out.max() and s.converged
    # the model at the best C, refitted with scikit-learn on the same standardised training part
    train, test = split(ds, test_size=0.25, seed=0)
    sel = fit.selector
    model = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=sel.Cs_[best], tol=1e-6, max_iter=1000,
                               intercept_scaling=100.0, random_state=0)
    model.fit(sel.scaler_.transform(train.X), train.y)
    assert s.active_at_best == int(np.count_nonzero(model.coef_))
    assert s.best_accuracy == pytest.approx(model.score(sel.scaler_.transform(test.X), test.y))
    assert s.n_selected == int(sel.support_.sum()) == int(sel.trace_["n_active"].iloc[-1])


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
