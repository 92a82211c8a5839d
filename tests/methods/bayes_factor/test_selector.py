"""BayesFactorSelector: scikit-learn contract, the selector dialect, pair-to-column mapping,
options, errors."""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData, fit_map
from fsengine.methods.bayes_factor.model import STOP_REQUESTED, add_bias_column, bias_features
from fsengine.methods.bayes_factor.selector import pairs_from_trace
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.progress import StopRequested
from fsengine.selectors import BayesFactorSelector

#: ``order_`` of ``BayesFactorSelector(features_per_round=2)`` on the ``planted`` fixture, recorded
#: with fsengine 0.2 (before the dialect redesign): the redesign must not change the selection
ORDER_BEFORE = [30, 36, 5, 21, 53, 34, 54, 11, 7, 4, 38, 55, 44, 49, 3, 39, 40, 13, 51, 31, 19, 47, 14, 58, 32,
                59, 35, 1, 46, 50, 29, 0, 15, 48, 18, 6, 56, 2, 28, 22, 41, 9, 25, 8, 42, 20, 43, 24, 57, 27, 17,
                45, 37, 33, 16, 23, 26, 12, 52, 10]
#: the same with ``features_per_round=3, log_prior_odds="multiplicity"`` (8 pairs at the stop)
ORDER_BEFORE_MULTIPLICITY = [30, 36, 5, 21, 53, 34, 54, 11, 7, 38, 49, 44, 3, 39, 55, 14, 35, 40, 4, 51, 47, 19, 13,
                             59, 46, 32, 58, 31, 50, 15, 0, 29, 48, 6, 1, 2, 18, 41, 28, 9, 25, 8, 56, 42, 20, 22,
                             43, 17, 45, 16, 57, 26, 23, 24, 33, 37, 12, 27, 52, 10]


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


# --------------------------------------------------------------------------- the dialect
def test_parameters_are_keyword_only_and_fit_takes_keyword_only_extras(planted):
    X, labels, _ = planted
    with pytest.raises(TypeError):
        BayesFactorSelector(10)
    with pytest.raises(TypeError):
        BayesFactorSelector().fit(X, labels, None)
    with pytest.raises(TypeError, match="max_features"):  # renamed max_pairs (MDL's max_features means another thing)
        BayesFactorSelector(max_features=40)
    fit = inspect.signature(BayesFactorSelector.fit).parameters
    assert [n for n, p in fit.items() if p.kind is p.KEYWORD_ONLY] == ["progress", "predicate_names"]


def test_defaults_are_the_registry_s_and_three_routes_select_the_same(planted):
    X, labels, ds = planted
    defaults = method_defaults("bayes")
    assert set(defaults) == {"features_per_round", "prior_variance", "sign", "log_prior_odds"}
    assert {k: v for k, v in BayesFactorSelector().get_params().items() if k in defaults} == defaults
    spec = get_method("bayes")
    api = BayesFactorSelector().fit(X, labels)
    registry = spec.build().fit(X, labels)
    cli = spec.make(**spec.parse([])).fit(X, labels)   # what `fsengine select --method bayes` builds
    app = fit_method("bayes", None, ds)                 # what the Compare page runs
    for other in (registry.order_, cli.order_, app.order):
        np.testing.assert_array_equal(other, api.order_)
    # the registry also offers the multiplicity prior by name
    assert spec.parse(["log_prior_odds=multiplicity"])["log_prior_odds"] == "multiplicity"


def test_order_is_the_one_recorded_before_the_redesign(planted):
    X, labels, _ = planted
    np.testing.assert_array_equal(BayesFactorSelector(features_per_round=2).fit(X, labels).order_, ORDER_BEFORE)
    sel = BayesFactorSelector(features_per_round=3, log_prior_odds="multiplicity").fit(X, labels)
    np.testing.assert_array_equal(sel.order_, ORDER_BEFORE_MULTIPLICITY)
    assert sel.n_at_stop_ == 8


def test_progress_reports_fractions_after_every_round(planted):
    X, labels, _ = planted
    seen = []
    sel = BayesFactorSelector(features_per_round=2).fit(X, labels, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert len(seen) == len(sel.trace_) + 1               # every round, then "done"
    assert all(0.0 <= f <= 1.0 for f in fractions) and fractions[-1] == 1.0
    assert np.all(np.diff(fractions) >= 0) and fractions[len(fractions) // 2] < 1.0
    assert seen[0][1] == "round 0: 2 features, " + f"{sel.trace_['n_proposals'].iloc[0]} proposals"
    assert seen[-1][1] == f"done: {sel.n_at_stop_} features, beta_0 beats every candidate"
    # the budget drives the fraction when there is one
    seen.clear()
    BayesFactorSelector(features_per_round=5, n_features_to_select=20).fit(X, labels,
                                                                          progress=lambda f, m: seen.append(f))
    assert seen[:2] == [0.25, 0.5]


def test_stop_requested_keeps_a_valid_partial_selection(planted):
    X, labels, _ = planted
    full = BayesFactorSelector(features_per_round=2).fit(X, labels)
    calls = []

    def stop_after_three_rounds(fraction, message):
        calls.append(fraction)
        if len(calls) == 3:
            raise StopRequested

    part = BayesFactorSelector(features_per_round=2).fit(X, labels, progress=stop_after_three_rounds)
    assert part.stop_reason_ == STOP_REQUESTED == "stop requested" and part.stop_round_ is None
    pairs, all_pairs = pairs_from_trace(part.trace_), pairs_from_trace(full.trace_)
    assert len(pairs) == 6 == part.n_at_stop_ and len(part.trace_) == 4   # 3 rounds of 2, then the fitted end
    pd.testing.assert_frame_equal(pairs, all_pairs.head(6))               # the same first pairs
    cols = list(dict.fromkeys(pairs["predicate"]))
    assert part.order_[:len(cols)].tolist() == cols and part.get_support(indices=True).tolist() == sorted(cols)
    # model_ is the MAP model of exactly those pairs (plus the bias): fit independently
    classes = [list(part.classes_).index(c) for c in pairs["class"]]
    data = MaxentData(add_bias_column(X), np.unique(labels, return_inverse=True)[1], 3)
    bp, bc, bv = bias_features(X.shape[1], 3)
    ref = fit_map(data, np.r_[bp, pairs["predicate"]], np.r_[bc, classes], prior_variance=np.r_[bv, np.ones(6)],
                  tol=1e-9)
    np.testing.assert_allclose(part.model_.weights, ref.model.weights, atol=1e-4)
    assert part.trace_["n_selected"].iloc[-1] == 6 and part.trace_["n_added"].iloc[-1] == 0
    assert part.trace_["train_accuracy"].iloc[-1] == pytest.approx(
        np.mean(part.model_.predict(add_bias_column(X)) == data.y))


def test_the_pairs_in_trace_are_the_selected_pairs_of_the_final_model(planted):
    X, labels, _ = planted
    sel = BayesFactorSelector(features_per_round=2).fit(X, labels, predicate_names=[f"p{j}" for j in range(60)])
    pairs = pairs_from_trace(sel.trace_)
    assert list(pairs.columns) == ["round", "predicate", "class", "pair", "mu", "margin", "beta"]
    assert pairs["pair"].tolist() == [f"p{j} => {c}" for j, c in zip(pairs["predicate"], pairs["class"])]
    final = {(j, c) for j, c in zip(sel.model_.predicates.tolist(), sel.classes_[sel.model_.classes].tolist())
             if j < X.shape[1]}  # the model's bias column is no selected pair
    assert set(zip(pairs["predicate"], pairs["class"])) == final
    assert not hasattr(sel, "selected_pairs_")  # the alias of fsengine 0.2 is removed (CHANGELOG)


# --------------------------------------------------------------------------- what it selects
def test_pairs_map_to_columns_and_recover_the_planted_features(planted):
    X, labels, ds = planted
    sel = BayesFactorSelector(features_per_round=2).fit(X, labels)
    pairs = pairs_from_trace(sel.trace_)
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
    assert (sel.trace_["n_added"] == sel.trace_["predicate_added"].map(len)).all()


def test_budget_continues_past_the_stop_and_validation_split_reports_heldout(planted):
    X, labels, _ = planted
    auto = BayesFactorSelector(features_per_round=2).fit(X, labels)
    more = BayesFactorSelector(features_per_round=2, n_features_to_select=auto.n_at_stop_ + 6).fit(X, labels)
    pairs = pairs_from_trace(more.trace_)
    assert len(pairs) == auto.n_at_stop_ + 6 and more.n_at_stop_ == auto.n_at_stop_
    assert more.trace_["bayes_stop"].sum() == 1
    assert pairs["margin"].iloc[auto.n_at_stop_] <= 0
    held = BayesFactorSelector(features_per_round=2, validation_fraction=0.25).fit(X, labels)
    acc = held.trace_["heldout_accuracy"]
    assert acc.notna().all() and acc.iloc[-1] > acc.iloc[0] + 0.1
    assert auto.trace_["heldout_accuracy"].isna().all()


def test_printed_sign_selects_more_and_log_prior_odds_fewer(planted):
    X, labels, _ = planted
    n_pairs = lambda sel: int(sel.trace_["n_added"].sum())
    lap = BayesFactorSelector(features_per_round=2).fit(X, labels)
    printed = BayesFactorSelector(features_per_round=2, sign="printed", max_pairs=40).fit(X, labels)
    strict = BayesFactorSelector(features_per_round=2, log_prior_odds=-3.0).fit(X, labels)
    assert n_pairs(printed) == 40 and printed.stop_reason_ == "feature budget reached"  # the cap
    assert n_pairs(printed) > n_pairs(lap) >= n_pairs(strict)
    assert printed.support_.sum() > lap.support_.sum()
    # a per-column prior that forbids column 0 in practice
    odds = np.zeros(X.shape[1])
    first = pairs_from_trace(lap.trace_)["predicate"].iloc[0]
    odds[first] = -1e3
    vetoed = BayesFactorSelector(features_per_round=2, log_prior_odds=odds).fit(X, labels)
    assert first not in pairs_from_trace(vetoed.trace_)["predicate"].tolist()


def test_dense_sparse_dataframe_and_pipeline_agree(planted):
    X, labels, _ = planted
    X = X[:400]
    labels = labels[:400]
    df = pd.DataFrame(X.toarray(), columns=[f"tag{j}" for j in range(X.shape[1])])
    a = BayesFactorSelector().fit(X, labels)
    b = BayesFactorSelector().fit(df, labels)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6)
    assert pairs_from_trace(b.trace_)["pair"].iloc[0].startswith("tag")
    assert " => " in b.trace_["added"].iloc[0][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new names warn about nothing
        pairs_from_trace(b.trace_), b.order_, b.model_, b.stop_reason_
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
    with pytest.raises(ValueError, match="max_pairs"):
        BayesFactorSelector(max_pairs=0).fit(X, labels)
    with pytest.raises(ValueError, match="3 predicate names for 60 columns"):
        BayesFactorSelector().fit(X, labels, predicate_names=["a", "b", "c"])
    tiny = np.r_[labels[:20], ["z"]]
    with pytest.raises(ValueError, match="validation_fraction"):
        BayesFactorSelector(validation_fraction=0.2).fit(X[:21], tiny)
    with pytest.raises(ValueError, match="NaN"):
        Xn = X[:50].toarray()
        Xn[3, 2] = np.nan
        BayesFactorSelector().fit(Xn, labels[:50])
