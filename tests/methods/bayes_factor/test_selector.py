"""BayesFactorSelector: scikit-learn contract, pair-to-column mapping, options, errors."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.selectors import BayesFactorSelector


@parametrize_with_checks([BayesFactorSelector(),
                          BayesFactorSelector(n_features_to_select=2, features_per_round=1)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def planted():
    ds = make_planted_maxent(n_samples=1000, n_predicates=60, n_classes=3, n_true=8, n_test=10,
                             min_rate=0.05, max_rate=0.25, seed=0)
    labels = np.array(["a", "b", "c"])[ds.y]  # string labels: pairs carry the label, not the index
    return ds.X, labels, ds


def test_pairs_map_to_columns_and_recover_the_planted_features(planted):
    X, labels, ds = planted
    sel = BayesFactorSelector(features_per_round=2).fit(X, labels)
    pairs = sel.selected_pairs_
    assert list(sel.classes_) == ["a", "b", "c"]
    assert len(pairs) == sel.n_at_stop_ and sel.stop_reason_ == "beta_0 beats every candidate"
    assert set(pairs["class"]) <= {"a", "b", "c"} and (pairs["margin"] > 0).all()
    assert np.all(np.diff(pairs["beta"].to_numpy()) > 0)  # beta_0 <- beta_g grows with each addition
    # support_ = the columns of the selected pairs; order_ starts with them in selection order
    cols = list(dict.fromkeys(pairs["predicate"].tolist()))
    assert sel.get_support(indices=True).tolist() == sorted(cols)
    assert sel.order_[:len(cols)].tolist() == cols
    # every planted predicate is found
    assert set(np.flatnonzero(ds.truth)) <= set(cols)
    # scores_: selected columns carry their selection margin, the rest the margin of adding them
    # now, which the automatic stop guarantees is not positive for proposed pairs
    np.testing.assert_allclose(sel.scores_[pairs["predicate"].iloc[0]], pairs["margin"].iloc[0])
    assert sel.trace_["n_added"].sum() == len(pairs)
    assert sel.model_.n_features == len(pairs) + 2  # plus the bias of classes 1, 2
    np.testing.assert_allclose(
        pairs["weight"], [dict(zip(zip(sel.model_.predicates, sel.model_.classes), sel.model_.weights))[
            (j, list(sel.classes_).index(c))] for j, c in zip(pairs["predicate"], pairs["class"])])


def test_budget_continues_past_the_stop_and_validation_split_reports_heldout(planted):
    X, labels, _ = planted
    auto = BayesFactorSelector(features_per_round=2).fit(X, labels)
    more = BayesFactorSelector(features_per_round=2, n_features_to_select=auto.n_at_stop_ + 6).fit(X, labels)
    assert len(more.selected_pairs_) == auto.n_at_stop_ + 6 and more.n_at_stop_ == auto.n_at_stop_
    assert more.trace_["bayes_stop"].sum() == 1
    assert more.selected_pairs_["margin"].iloc[auto.n_at_stop_] <= 0
    held = BayesFactorSelector(features_per_round=2, validation_fraction=0.25).fit(X, labels)
    acc = held.trace_["heldout_accuracy"]
    assert acc.notna().all() and acc.iloc[-1] > acc.iloc[0] + 0.1
    assert auto.trace_["heldout_accuracy"].isna().all()


def test_printed_sign_selects_more_and_log_prior_odds_fewer(planted):
    X, labels, _ = planted
    lap = BayesFactorSelector(features_per_round=2).fit(X, labels)
    printed = BayesFactorSelector(features_per_round=2, sign="printed", max_features=40).fit(X, labels)
    strict = BayesFactorSelector(features_per_round=2, log_prior_odds=-3.0).fit(X, labels)
    assert len(printed.selected_pairs_) > len(lap.selected_pairs_) >= len(strict.selected_pairs_)
    assert printed.support_.sum() > lap.support_.sum()
    # a per-column prior that forbids column 0 in practice
    odds = np.zeros(X.shape[1])
    first = lap.selected_pairs_["predicate"].iloc[0]
    odds[first] = -1e3
    vetoed = BayesFactorSelector(features_per_round=2, log_prior_odds=odds).fit(X, labels)
    assert first not in vetoed.selected_pairs_["predicate"].tolist()


def test_dense_sparse_dataframe_and_pipeline_agree(planted):
    X, labels, _ = planted
    X = X[:400]
    labels = labels[:400]
    df = pd.DataFrame(X.toarray(), columns=[f"tag{j}" for j in range(X.shape[1])])
    a = BayesFactorSelector().fit(X, labels)
    b = BayesFactorSelector().fit(df, labels)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6)
    assert b.selected_pairs_["predicate_name"].iloc[0].startswith("tag")
    assert " => " in b.trace_["added"].iloc[0][0]
    pipe = Pipeline([("bf", BayesFactorSelector()), ("clf", LogisticRegression(max_iter=500))])
    assert pipe.fit(X, labels).score(X, labels) > 0.45


def test_bad_parameters_have_clear_errors(planted):
    X, labels, _ = planted
    with pytest.raises(ValueError, match="prior_variance must be a scalar, one value per feature"):
        BayesFactorSelector(prior_variance=np.ones(3)).fit(X, labels)
    with pytest.raises(ValueError, match="prior_variance must be positive"):
        BayesFactorSelector(prior_variance=np.r_[0.0, np.ones(X.shape[1] - 1)]).fit(X, labels)
    with pytest.raises(ValueError, match="sign"):
        BayesFactorSelector(sign="plus").fit(X, labels)
    tiny = np.r_[labels[:20], ["z"]]
    with pytest.raises(ValueError, match="validation_fraction"):
        BayesFactorSelector(validation_fraction=0.2).fit(X[:21], tiny)
    with pytest.raises(ValueError, match="NaN"):
        Xn = X[:50].toarray()
        Xn[3, 2] = np.nan
        BayesFactorSelector().fit(Xn, labels[:50])
