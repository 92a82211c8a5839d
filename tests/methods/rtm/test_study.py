"""What the page and the reproduction compute (``methods/rtm/study.py``): the page's split, fits,
baselines and the numbers its captions and tables show, checked against the scikit-learn route
(:class:`RTMClassifier`) and plain counts; progress of the studies through their tasks."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.stats import binomtest

from fsengine.data import load_dataset
from fsengine.data.synthetic.rtm import make_rtm
from fsengine.methods.rtm import RTMSettings
from fsengine.methods.rtm import study as rtm_study
from fsengine.selectors import RTMClassifier

PAGE_SETTINGS = RTMSettings(alpha0=5.0, inner_damping=0.5, damping=0.5, tol=1e-3, max_iter=200)


@pytest.fixture(scope="module")
def synthetic():
    return load_dataset("synthetic_rtm", n_samples=300, n_tags=60, n_relevant=8, tag_rate=0.1, seed=0)


def test_tag_counts_on_sparse_and_dense_tags(synthetic):
    dense = synthetic.X.toarray()
    on, per_object = rtm_study.tag_counts(synthetic)
    assert on == int(dense.sum()) and per_object == pytest.approx(dense.sum(1).mean())
    ds = load_dataset("digits")
    from fsengine.data.transforms import binarize_features

    binary = binarize_features(ds)
    assert not sp.issparse(binary.X)
    on, per_object = rtm_study.tag_counts(binary)
    assert on == int(np.count_nonzero(binary.X)) and per_object == pytest.approx(on / binary.n_samples)


def test_page_split_keeps_the_pair_binarises_and_holds_out_a_quarter():
    ds = load_dataset("digits")
    train, test = rtm_study.page_split(ds, ("3", "8"))
    assert set(np.unique(train.y)) == set(np.unique(test.y)) == {0, 1}
    n = train.n_samples + test.n_samples
    assert n == int(np.isin(ds.y, (3, 8)).sum()) and test.n_samples == pytest.approx(n / 4, abs=1)
    assert set(np.unique(train.X)) <= {0.0, 1.0}


def test_page_fit_is_what_the_classifier_fits_on_the_split(synthetic):
    train, test = rtm_study.page_split(synthetic, tuple(synthetic.target_names))
    seen = []
    fit = rtm_study.page_fit(train, test, PAGE_SETTINGS, "em", progress=lambda f, m: seen.append(f))
    clf = RTMClassifier(method="em", alpha0=5.0, inner_damping=0.5, damping=0.5, tol=1e-3, max_iter=200)
    clf.fit(train.X, train.y)
    np.testing.assert_allclose(fit.relevance, clf.relevance_)
    np.testing.assert_allclose(fit.theta, clf.theta_mean_)
    assert fit.accuracy == pytest.approx(clf.score(test.X, test.y))
    assert fit.n_active == int(clf.active_.sum()) and fit.converged == clf.converged_
    assert len(fit.trace) == clf.n_iter_ and seen == sorted(seen) and seen[-1] == 1.0
    assert len(fit.top) == rtm_study.PAGE_TOP_TAGS
    np.testing.assert_allclose(fit.top["log_bf"], np.sort(clf.relevance_)[::-1][:rtm_study.PAGE_TOP_TAGS])
    assert list(fit.top["tag"][:3]) == [train.feature_names[j] for j in np.argsort(-clf.relevance_)[:3]]


def test_threshold_counts_against_a_plain_count():
    rng = np.random.default_rng(0)
    relevance, truth = rng.normal(size=200), rng.random(200) < 0.2
    for threshold in (-1.0, 0.0, 0.5, 5.0):
        counts = rtm_study.threshold_counts(relevance, truth, threshold)
        above = [j for j in range(200) if relevance[j] > threshold]
        assert counts == {"above": len(above), "relevant_above": sum(truth[j] for j in above),
                          "relevant": int(truth.sum()), "irrelevant_above": sum(not truth[j] for j in above)}
    assert rtm_study.threshold_counts(relevance, None, 0.0) == {"above": int((relevance > 0).sum())}


def test_page_tables_keep_the_methods_order(synthetic):
    train, test = rtm_study.page_split(synthetic, tuple(synthetic.target_names))
    fits = {rtm_study.RTM_LABELS[m]: rtm_study.page_fit(train, test, PAGE_SETTINGS, m) for m in ("em", "power_ep")}
    table = rtm_study.convergence_table(fits)
    assert list(table.index) == ["RTM EM", "RTM Power EP"]
    assert list(table.columns) == ["sweeps", "converged", "seconds", "final log evidence"]
    assert table["sweeps"].tolist() == [len(f.trace) for f in fits.values()]
    assert table["final log evidence"].tolist() == [f.trace.log_evidence.iloc[-1] for f in fits.values()]
    acc = rtm_study.page_accuracy(fits, {"BernoulliNB": 0.5, "L1": 0.25})
    assert list(acc.index) == ["RTM EM", "RTM Power EP", "BernoulliNB", "L1"]
    assert acc["test accuracy"].tolist() == [fits["RTM EM"].accuracy, fits["RTM Power EP"].accuracy, 0.5, 0.25]
    n_test = test.n_samples  # every method on the same test objects: scipy's Wilson interval of its count
    assert {f.n_test for f in fits.values()} == {n_test}
    for label, row in acc.iterrows():
        ci = binomtest(round(row["test accuracy"] * n_test), n_test).proportion_ci(0.95, method="wilson")
        assert (row["low"], row["high"]) == pytest.approx((ci.low, ci.high), rel=1e-9), label
    base_acc, base_scores = rtm_study.page_baselines(train, test)
    assert set(base_acc) == {"BernoulliNB", "L1"} and set(base_scores) == {"MI", "L1"}
    curves, auc = rtm_study.page_roc(synthetic.truth, fits, base_scores)
    assert list(auc) == ["RTM EM", "RTM Power EP", "MI", "L1"]
    from sklearn.metrics import roc_auc_score

    assert auc["RTM EM"] == pytest.approx(roc_auc_score(synthetic.truth, fits["RTM EM"].relevance))


def test_relevance_scores_report_every_fit_in_its_share():
    ds = make_rtm(n_samples=150, n_tags=15, n_relevant=3, tag_rate=0.15, min_effect=0.3, seed=1)
    seen = []
    scores, traces, _, outcomes = rtm_study.relevance_scores(
        ds.X, ds.y, RTMSettings(), methods=("power_ep", ("em", True)), baselines=False,
        progress=lambda f, m: seen.append((f, m)))
    assert list(scores) == ["RTM Power EP", "RTM EM + ARD"]
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert (0.5, "starting EM + ARD (at most 300 sweeps)") in seen  # the second fit fills [0.5, 1]
    assert sum(m.startswith("Power EP sweep") for _, m in seen) == len(traces["RTM Power EP"])


def test_synthetic_roc_reports_sweeps_inside_its_tasks_and_keeps_its_numbers():
    seen = []
    kw = dict(n_samples=120, n_tags=20, n_relevant=3, methods=("em",))
    heard = rtm_study.synthetic_roc((0, 1), **kw, progress=lambda f, m: seen.append((f, m)))
    quiet = rtm_study.synthetic_roc((0, 1), **kw)
    pd.testing.assert_frame_equal(heard.auc, quiet.auc)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(m.startswith("synthetic seed 1, EM sweep 1 of at most 300") for _, m in seen)


# --- the cross-validation study: baselines on the same folds, the grid, refits at a higher cap ------

def test_grid_cells_skip_the_corpus_setting_and_em_has_no_damping():
    grid = rtm_study.Grid(("power_ep", "em"), alpha0=(2.0, 5.0), damping=(0.5, 0.7))
    specs = grid.specs(RTMSettings(alpha0=5.0, damping=0.5))
    assert [(s.method, s.alpha0, s.damping) for s in specs] == [
        ("power_ep", 2.0, 0.5), ("power_ep", 2.0, 0.7), ("power_ep", 5.0, 0.7), ("em", 2.0, 0.5)]
    assert all(s.role == "sensitivity" and not s.ard for s in specs)
    s = specs[1].settings(RTMSettings(alpha0=5.0, inner_damping=0.8, max_iter=77))
    assert (s.method, s.alpha0, s.damping, s.inner_damping, s.max_iter) == ("power_ep", 2.0, 0.7, 0.8, 77)


def test_accuracy_intervals_are_the_corrected_resampled_t_over_folds():
    from scipy import stats as st

    df = pd.DataFrame({"fold": [0, 1, 2, 0, 1, 2], "method": ["A"] * 3 + ["B"] * 3,
                       "accuracy": [0.70, 0.74, 0.72, 0.69, 0.70, 0.71], "n_train": [200] * 6, "n_test": [100] * 6})
    assert rtm_study.train_test_ratio(df) == 0.5
    est = rtm_study.accuracy_estimate(df, "A")
    half = st.t.ppf(0.975, 2) * 0.02 * np.sqrt(1 / 3 + 0.5)  # sd of (0.70, 0.74, 0.72) is 0.02
    assert (est.value, est.low, est.high) == pytest.approx((0.72, 0.72 - half, 0.72 + half))
    d = rtm_study.accuracy_difference(df, "A", "B")
    x = np.array([0.01, 0.04, 0.01])
    half = st.t.ppf(0.975, 2) * x.std(ddof=1) * np.sqrt(1 / 3 + 0.5)
    assert (d.value, d.low, d.high) == pytest.approx((x.mean(), x.mean() - half, x.mean() + half))
    with pytest.raises(ValueError, match="same folds"):
        rtm_study.accuracy_difference(df.iloc[:5], "A", "B")


def test_cv_study_scores_every_method_on_the_same_folds_and_refits_at_the_cap():
    from fsengine.data.corpora import read_sentence_polarity
    from tests.conftest import require_real

    require_real(read_sentence_polarity)
    grid = rtm_study.Grid(("power_ep", "em"), alpha0=(2.0, 5.0), damping=(0.5,))
    res = rtm_study.cv_study("sentence_polarity", folds=2, max_docs=240, methods=("em", "power_ep"),
                             settings=RTMSettings(alpha0=5.0, max_iter=4), grid=grid)
    folds = res.folds
    assert list(folds.method.unique()) == ["RTM EM", "RTM Power EP", *rtm_study.BASELINES]
    assert folds.groupby("fold").method.count().tolist() == [6, 6] and (folds.n_train + folds.n_test == 240).all()
    assert (folds.accuracy == folds.n_correct / folds.n_test).all()
    # four sweeps are too few: every RTM fit stopped at the cap and was fitted again with five times it
    rtm = folds[folds.method.str.startswith("RTM")]
    assert not rtm.converged.any() and (rtm.sweeps == 4).all()
    assert sorted(zip(res.reruns.fold, res.reruns.method)) == sorted(zip(rtm.fold, rtm.method))
    assert (res.reruns.max_iter == 4 * rtm_study.CAP_RERUN_FACTOR).all() and (res.reruns.sweeps > 4).all()
    # the grid: the corpus' own cell comes from the protocol's fits, EM has no damping
    cells = res.sensitivity.groupby(["method", "alpha0"], dropna=False).fold.count()
    assert cells.to_dict() == {("RTM EM", 2.0): 2, ("RTM EM", 5.0): 2, ("RTM Power EP", 2.0): 2,
                               ("RTM Power EP", 5.0): 2}
    assert res.sensitivity[res.sensitivity.method == "RTM EM"].damping.isna().all()
    own = res.sensitivity[(res.sensitivity.alpha0 == 5.0) & (res.sensitivity.method == "RTM Power EP")]
    assert own.accuracy.tolist() == folds[folds.method == "RTM Power EP"].accuracy.tolist()
    # without a refit factor (cv_accuracy) nothing is fitted twice
    plain = rtm_study.cv_accuracy("sentence_polarity", folds=2, max_docs=240, methods=("em",),
                                  settings=RTMSettings(alpha0=5.0, max_iter=4))
    pd.testing.assert_frame_equal(plain.drop(columns="seconds"),
                                  folds[folds.method != "RTM Power EP"].reset_index(drop=True).drop(columns="seconds"))
