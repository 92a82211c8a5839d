"""Warm starts of the RTM (:mod:`fsengine.warm_start`): the sites are carried object by object, a
warm fit reaches the cold fit's fixed point, a fit started from itself stops at once, and ARD
fits (whose answer depends on where they start) refuse."""

import numpy as np
import pytest

from fsengine.compare.runner import stratified_bootstrap
from fsengine.data.synthetic.rtm import make_rtm
from fsengine.methods.rtm import METHODS, RTMSettings, fit_rtm, sites, tags_from
from fsengine.methods.rtm.fit import _fit
from fsengine.ranking import order_from
from fsengine.selectors import RTMClassifier, RTMSelector
from fsengine.warm_start import WarmStart, can_warm_start

#: run to this tolerance, a fit is at its fixed point to ~1e-9 in every posterior mean
TIGHT = 1e-10


@pytest.fixture(scope="module")
def data():
    ds = make_rtm(n_samples=300, n_tags=60, n_relevant=8, tag_rate=0.1, seed=1)
    return ds.X.toarray(), ds.y.astype(float), stratified_bootstrap(ds.y, 2, 0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 20 sweeps: any sites will do
def test_carried_sites_are_the_earlier_fits_sites_of_the_same_object_and_tag(data):
    X, y, resamples = data
    full = fit_rtm(tags_from(X), y, RTMSettings(max_iter=20))
    rows = resamples[0]
    Xb = X[rows].copy()
    Xb[0, np.flatnonzero(X[rows[0]] == 0)[0]] = 1  # a tag the earlier object did not carry
    boot = tags_from(Xb)
    sa, sb = sites.initial_sites(boot.indptr, y[rows], 0.5)
    copied = sites.carried_sites(boot.indptr, boot.indices, y[rows], 0.5, full.state.indptr, full.state.indices,
                                 full.state.site_a, full.state.site_b, rows.astype(np.int64), sa, sb)
    earlier = {(i, j): (full.state.site_a[p], full.state.site_b[p])
               for i in range(full.state.n_objects)
               for p, j in zip(range(full.state.indptr[i], full.state.indptr[i + 1]),
                               full.state.indices[full.state.indptr[i]:full.state.indptr[i + 1]])}
    new = 0
    for k, i in enumerate(rows):
        for p in range(boot.indptr[k], boot.indptr[k + 1]):
            key = (i, boot.indices[p])
            if key in earlier:
                assert (sa[p], sb[p]) == earlier[key]
            else:  # the cold start's site: theta^0.5 for a positive object, (1 - theta)^0.5 for a negative
                new += 1
                assert (sa[p], sb[p]) == (0.5 * y[i], 0.5 * (1 - y[i]))
    assert new == 1 and copied == boot.nnz - 1


def _same_ranking_where_not_tied(a, b, gap=1e-6):
    """The tags in the same order wherever a's scores are more than ``gap`` apart."""
    order = order_from(a)
    blocks = np.split(order, np.flatnonzero(np.abs(np.diff(a[order])) > gap) + 1)
    start = 0
    ranked_b = order_from(b)
    for block in blocks:
        assert set(ranked_b[start:start + block.size]) == set(block)
        start += block.size


#: EP integrates every site numerically (the slow one); Power EP and EM keep the fast suite's check
WARM_METHODS = [pytest.param(m, marks=pytest.mark.slow) if m == "ep" else m for m in METHODS]


@pytest.mark.parametrize("method", WARM_METHODS)
def test_a_warm_start_reaches_the_cold_fits_fixed_point(data, method):
    """Bootstrap resamples fitted from the fit on all objects and from scratch, both to a tight
    tolerance: the same posterior, the same selected tags and the same ranking."""
    X, y, resamples = data
    settings = RTMSettings(method=method, tol=TIGHT, max_iter=20_000)
    full = fit_rtm(tags_from(X), y, settings)
    for rows in resamples:
        boot = tags_from(X[rows])
        cold = fit_rtm(boot, y[rows], settings)
        warm = fit_rtm(boot, y[rows], settings, start=full.state, rows=rows)
        assert cold.converged and warm.converged and "warm start" in warm.message
        np.testing.assert_allclose(warm.theta_mean, cold.theta_mean, rtol=0, atol=1e-7)
        np.testing.assert_array_equal(warm.active(), cold.active())
        _same_ranking_where_not_tied(cold.relevance(), warm.relevance())


@pytest.mark.parametrize("method", WARM_METHODS)
def test_a_fit_on_another_split_warm_starts_to_the_cold_fits_fixed_point(data, method):
    """The comparison's repeated train/test splits (n_repeats >= 2): the fit on a second training
    part started from the fit on the first (rows it did not see start cold, rows = -1) and from
    scratch, both to a tight tolerance: the same posterior, selected tags and ranking, in fewer
    sweeps."""
    from fsengine.compare.runner import _rows_in
    from fsengine.data.transforms import split_rows

    X, y, _ = data
    ds = make_rtm(n_samples=300, n_tags=60, n_relevant=8, tag_rate=0.1, seed=1)  # the fixture's data
    first, second = (split_rows(ds, 0.25, seed)[0] for seed in (0, 1))
    rows = _rows_in(first, second)
    assert 0 < np.count_nonzero(rows < 0) < rows.size  # the two training parts overlap, not entirely
    np.testing.assert_array_equal(first[rows[rows >= 0]], second[rows >= 0])
    # the plain sweeps: with the Anderson step both fits reach tol 1e-10 in about 40 sweeps, and which
    # needs a couple fewer is chance (its fixed point is tested in test_anderson.py)
    settings = RTMSettings(method=method, tol=TIGHT, max_iter=20_000, anderson_memory=0)
    full = fit_rtm(tags_from(X[first]), y[first], settings)
    tags = tags_from(X[second])
    cold = fit_rtm(tags, y[second], settings)
    warm = fit_rtm(tags, y[second], settings, start=full.state, rows=rows)
    assert cold.converged and warm.converged and warm.n_iter < cold.n_iter
    np.testing.assert_allclose(warm.theta_mean, cold.theta_mean, rtol=0, atol=1e-7)
    np.testing.assert_array_equal(warm.active(), cold.active())
    _same_ranking_where_not_tied(cold.relevance(), warm.relevance())


@pytest.mark.parametrize("method", METHODS)
def test_a_fit_started_from_itself_stops_at_once(data, method):
    """The state carries the fit: restarted from it on the same objects, the first sweep moves no
    posterior mean by the tolerance (a cold start needs more than five, with the Anderson step)."""
    X, y, _ = data
    tags = tags_from(X)
    settings = RTMSettings(method=method)
    fit = fit_rtm(tags, y, settings)
    again = fit_rtm(tags, y, settings, start=fit.state)
    assert fit.n_iter > 5 and again.n_iter == 1 and again.converged
    np.testing.assert_allclose(again.theta_mean, fit.theta_mean, rtol=0, atol=settings.tol)


def test_the_selector_warm_starts_through_fit(data):
    X, y, resamples = data
    rows = resamples[1]
    # max_iter within the registry's range (5,000 sweeps at most); every fit converges
    full = RTMSelector(tol=TIGHT, max_iter=5000).fit(X, y)
    cold = RTMSelector(tol=TIGHT, max_iter=5000).fit(X[rows], y[rows])
    warm = RTMSelector(tol=TIGHT, max_iter=5000).fit(X[rows], y[rows], warm_start=WarmStart(full.warm_state_, rows))
    assert full.model_.converged_ and cold.model_.converged_ and warm.model_.converged_
    # the warm start reached the fit: the selector's fit is fit_rtm's from the same start (the sweeps
    # to tol 1e-10 are no measure: with the Anderson step warm and cold both take about 40)
    direct = fit_rtm(tags_from(X[rows]), y[rows], RTMSettings(tol=TIGHT, max_iter=5000), start=full.warm_state_,
                     rows=rows)
    assert warm.n_iter_ == direct.n_iter and warm.n_iter_ != cold.n_iter_
    np.testing.assert_array_equal(warm.model_.A_, direct.A)
    np.testing.assert_allclose(warm.model_.theta_mean_, cold.model_.theta_mean_, rtol=0, atol=1e-7)
    np.testing.assert_array_equal(warm.support_, cold.support_)
    assert not hasattr(warm, "_warm_start")  # the start is not kept after fit


def test_ard_fits_do_not_warm_start(data):
    """The ARD halves a tag's step whenever its move reverses, so where it stops depends on where
    it started: warm and cold ARD fits of the same resample end apart even at a tight tolerance.
    Such fits refuse a start, and the selectors say they cannot warm start with ARD."""
    X, y, resamples = data
    rows = resamples[0]
    settings = RTMSettings(ard=True, tol=TIGHT, max_iter=20_000)
    full = fit_rtm(tags_from(X), y, settings)
    boot = tags_from(X[rows])
    with pytest.raises(ValueError, match="ARD"):
        fit_rtm(boot, y[rows], settings, start=full.state, rows=rows)
    cold = fit_rtm(boot, y[rows], settings)
    warm, _ = _fit(boot, y[rows], settings, None, None, (full.state, rows.astype(np.int64)))
    assert np.abs(warm.theta_mean - cold.theta_mean).max() > 1e-3
    assert can_warm_start(RTMSelector()) and can_warm_start(RTMClassifier(method="em"))
    assert not can_warm_start(RTMSelector(ard=True)) and not can_warm_start(RTMClassifier(ard=True))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 5 sweeps: any state will do
def test_a_start_that_does_not_fit_the_data_is_refused(data):
    X, y, resamples = data
    tags = tags_from(X)
    state = fit_rtm(tags, y, RTMSettings(max_iter=5)).state
    with pytest.raises(ValueError, match="tags"):
        fit_rtm(tags_from(X[:, :30]), y, start=state)
    with pytest.raises(ValueError, match="give rows"):
        fit_rtm(tags_from(X[:100]), y[:100], start=state)
    with pytest.raises(ValueError, match="index"):
        fit_rtm(tags, y, start=state, rows=np.arange(300) + 1)
    with pytest.raises(ValueError, match="index"):
        fit_rtm(tags, y, start=state, rows=np.arange(300) - 2)
    with pytest.raises(ValueError, match="give start"):
        fit_rtm(tags, y, rows=np.arange(300))
    with pytest.raises(TypeError, match="RTMState"):
        fit_rtm(tags, y, start=state.A)
    em_state = fit_rtm(tags, y, RTMSettings(method="em", max_iter=5)).state
    with pytest.raises(ValueError, match="has none"):
        fit_rtm(tags, y, start=em_state)
