"""ReliefF and MultiSURF against skrebate (scikit-rebate, the reference package of the Relief family;
a test-only dependency): the same weights to round-off on the same settings, and every difference
shown, reproduced exactly by the brute force of ``reference.py`` with skrebate's convention, and
explained (the docstrings of ReliefFSelector and MultiSURFSelector say which is right and why).

skrebate scores every instance (m = n) with n_neighbors hits and misses; its feature typing is
``categorical_threshold`` (our ``discrete_threshold``), 10 by default for both."""

import warnings

import numpy as np
import pytest
import skrebate

from fsengine.selectors import MultiSURFSelector, ReliefFSelector
from tests.methods.relief import reference as ref

ROUND_OFF = dict(rtol=1e-10, atol=1e-13)
K = 10


def _skrebate(method, X, y, **kw):
    cls = skrebate.ReliefF if method == "relieff" else skrebate.MultiSURF
    kw = {"n_neighbors": K, **kw} if method == "relieff" else kw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(n_jobs=1, **kw).fit(X, y).feature_importances_


def _ours(method, X, y, **kw):
    cls = ReliefFSelector if method == "relieff" else MultiSURFSelector
    return cls(**kw).fit(X, y)


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    X[:, 3] = rng.uniform(size=n) ** 3  # skewed
    score = X[:, 0] - X[:, 1] + 0.5 * X[:, 3] + 0.5 * rng.normal(size=n)
    return X, score


def _balanced_classes(score, k):
    order = np.argsort(score, kind="stable")
    y = np.empty(score.size, dtype=int)
    y[order] = np.arange(score.size) * k // score.size  # equal class sizes
    return y


METHODS = ["relieff", "multisurf"]


@pytest.mark.parametrize("method", METHODS)
def test_continuous_features_two_classes(method):
    X, score = _data()
    y = (score > np.median(score)).astype(int)
    ours = _ours(method, X, y)
    np.testing.assert_allclose(ours.scores_, _skrebate(method, X, y), **ROUND_OFF)
    assert not ours.discrete_.any()


@pytest.mark.parametrize("method", METHODS)
def test_a_real_target(method):
    """skrebate's continuous endpoint: a hit is a neighbour within one sample sd of the target
    (k = 5: every instance has at least 5 such neighbours here, see the skrebate-only case below)."""
    X, score = _data()
    kw = {"n_neighbors": 5} if method == "relieff" else {}
    ours = _ours(method, X, score, **kw)
    assert ours.task_ == "regression"
    np.testing.assert_allclose(ours.scores_, _skrebate(method, X, score, **kw), **ROUND_OFF)


def _prototypes(seed=1, m=8, p=300, copies=3):
    """m prototypes of 4-valued features, two classes, each row repeated ``copies`` times. For every
    prototype, the nearest, second and third nearest other prototypes of each class are at distinct
    distances (a fact of this seed, asserted): so every contested k-th place (k = 5) is contested
    only by copies of one prototype, identical rows, and any order among them gives the same weights."""
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 4, size=(m, p)).astype(float)
    labels = np.arange(m) % 2
    D = (P[:, None, :] != P[None, :, :]).sum(axis=-1)
    for g in range(m):
        for c in (0, 1):
            near = sorted(D[g, h] for h in range(m) if h != g and labels[h] == c)
            assert near[0] < near[1] < near[2]
    return np.repeat(P, copies, axis=0), np.repeat(labels, copies)


def test_discrete_features():
    """Discrete (4-valued) features: ReliefF's k = 5 nearest are 2 copies of the instance and 3 of
    the nearest prototype of its class (hits), 3 + 2 copies of the two nearest of the other class
    (misses); MultiSURF's strict threshold never needs a tie rule."""
    X, y = _prototypes()
    relieff = _ours("relieff", X, y, n_neighbors=5)
    assert relieff.discrete_.all() and relieff.trace_["tied_instances"].sum() > 0  # ties, among identical rows
    np.testing.assert_allclose(relieff.scores_, _skrebate("relieff", X, y, n_neighbors=5), **ROUND_OFF)
    np.testing.assert_allclose(_ours("multisurf", X, y).scores_, _skrebate("multisurf", X, y), **ROUND_OFF)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(90, 12)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 90) > 2).astype(int)
    np.testing.assert_allclose(_ours("multisurf", X, y).scores_, _skrebate("multisurf", X, y), **ROUND_OFF)


def test_balanced_multiclass():
    """With equal class sizes Kononenko's P(C) / (1 - P(c)) is 1 / (K - 1), skrebate's equal weight."""
    X, score = _data(n=150)
    y = _balanced_classes(score, 3)
    np.testing.assert_allclose(_ours("relieff", X, y).scores_, _skrebate("relieff", X, y), **ROUND_OFF)


def test_the_feature_typing_is_skrebates():
    rng = np.random.default_rng(2)
    X = np.c_[rng.integers(0, 10, 80), rng.integers(0, 11, 80), rng.normal(size=80), rng.integers(0, 2, 80)]
    X[:11, 1] = np.arange(11)  # exactly 11 values: continuous
    X[:10, 0] = np.arange(10)  # exactly 10 values: discrete
    y = rng.integers(0, 2, 80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = skrebate.ReliefF(n_neighbors=K, n_jobs=1).fit(X, y)
    kinds = [theirs.attr[h][0] == "categorical" for h in theirs._headers]
    assert _ours("relieff", X, y).discrete_.tolist() == kinds == [True, False, False, True]


# -------------------------------------------------------------------------- the differences

def test_ties_skrebate_takes_equidistant_neighbours_in_argsort_order():
    """Binary features with few distinct rows: the k-th neighbour place is shared by several
    equidistant candidates. skrebate takes them in the order ``numpy.argsort`` returns (its
    default sort is not stable: the order among ties is unspecified) and so its weights change
    when the rows are shuffled; the brute force with that same order reproduces it exactly. Ours
    share the place: the brute force of the share rule, and the same weights in any row order."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(60, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] + (rng.random(60) < 0.3) > 1).astype(int)
    k = 5
    theirs = _skrebate("relieff", X, y, n_neighbors=k)
    np.testing.assert_allclose(theirs, ref.relieff(X, y, k, ties=np.argsort), **ROUND_OFF)
    ours = _ours("relieff", X, y, n_neighbors=k)
    assert ours.trace_["tied_instances"].sum() > 30
    np.testing.assert_allclose(ours.scores_, ref.relieff(X, y, k), **ROUND_OFF)
    assert np.abs(ours.scores_ - theirs).max() > 1e-3
    shuffled = [rng.permutation(60) for _ in range(4)]
    theirs_shuffled = [_skrebate("relieff", X[q], y[q], n_neighbors=k) for q in shuffled]
    assert max(np.abs(t - theirs).max() for t in theirs_shuffled) > 1e-3  # depends on the row order
    for q in shuffled:
        np.testing.assert_allclose(_ours("relieff", X[q], y[q], n_neighbors=k).scores_, ours.scores_, **ROUND_OFF)


def test_unequal_classes_skrebate_ignores_the_priors():
    """ReliefF on classes of sizes 60 / 30 / 15: skrebate weights the misses of each other class
    equally (its class frequencies are computed but unused, scikit-rebate issue #78); Kononenko
    weights them by P(C) / (1 - P(class)). The brute force with either weighting reproduces each."""
    X, score = _data(n=105)
    order = np.argsort(score, kind="stable")
    y = np.empty(105, dtype=int)
    y[order] = np.repeat([0, 1, 2], [60, 30, 15])
    theirs = _skrebate("relieff", X, y)
    ours = _ours("relieff", X, y).scores_
    np.testing.assert_allclose(theirs, ref.relieff(X, y, K, weighting="skrebate"), **ROUND_OFF)
    np.testing.assert_allclose(ours, ref.relieff(X, y, K), **ROUND_OFF)
    assert np.abs(ours - theirs).max() > 1e-3


def test_multiclass_multisurf_skrebate_weights_are_no_average():
    """MultiSURF with three classes (even balanced): skrebate's miss term L sum_C q_C^2 mbar_C (q_C:
    class C's share of the misses inside the threshold) has weights that sum to more than one
    unless the classes are equally represented inside; ours is the prior-weighted average of the
    class means. The brute force reproduces both."""
    X, score = _data(n=150)
    y = _balanced_classes(score, 3)
    theirs = _skrebate("multisurf", X, y)
    ours = _ours("multisurf", X, y).scores_
    np.testing.assert_allclose(theirs, ref.multisurf(X, y, weighting="skrebate"), **ROUND_OFF)
    np.testing.assert_allclose(ours, ref.multisurf(X, y), **ROUND_OFF)
    assert np.abs(ours - theirs).max() > 1e-3


@pytest.mark.parametrize("method", METHODS)
def test_mixed_features_skrebate_counts_a_discrete_mismatch_p_over_d_times_and_ramps(method):
    """4 continuous and 2 discrete features: skrebate's distance multiplies its Hamming fraction over
    the d = 2 discrete features by all p = 6 (a mismatch counts 3, not 1, against a continuous
    feature's |a - b| / range <= 1) and its continuous diff is 1 beyond one standard deviation.
    Its missing-value path and Kononenko count a mismatch once and use |a - b| / range."""
    X, score = _data()
    rng = np.random.default_rng(4)
    X = np.c_[X[:, :4], rng.integers(0, 3, size=(120, 2))]
    y = (score + X[:, 4] > np.median(score) + 1).astype(int)
    theirs = _skrebate(method, X, y)
    ours = _ours(method, X, y).scores_
    kw = {"k": K} if method == "relieff" else {}
    np.testing.assert_allclose(theirs, getattr(ref, method)(X, y, conventions="skrebate", **kw), **ROUND_OFF)
    np.testing.assert_allclose(ours, getattr(ref, method)(X, y, **kw), **ROUND_OFF)
    assert np.abs(ours - theirs).max() > 1e-3


def test_too_few_hits_skrebate_takes_the_instance_as_its_own_hit():
    """ReliefF with k = 10 on a real target: instances at the ends of the target's range have fewer
    than 10 neighbours within one sd. skrebate then walks its whole sorted list, reaches the
    instance itself (its distance set to ``sys.maxsize`` "to ensure that target instance is never
    selected as neighbor") and takes it as a hit with diff 0, which shrinks that instance's hit
    term; Kononenko's hits are other instances (all of them when there are fewer than k). The
    brute force with skrebate's rule reproduces it."""
    X, score = _data(n=60)
    sd = np.std(score, ddof=1)
    short = sum((np.abs(score - s) < sd).sum() - 1 < K for s in score)
    assert short > 0
    theirs = _skrebate("relieff", X, score)
    ours = _ours("relieff", X, score).scores_
    np.testing.assert_allclose(theirs, ref.relieff(X, score, K, task="regression", conventions="skrebate"),
                               **ROUND_OFF)
    np.testing.assert_allclose(ours, ref.relieff(X, score, K, task="regression"), **ROUND_OFF)
    assert np.abs(ours - theirs).max() > 1e-3
