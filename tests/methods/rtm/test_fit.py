"""The training driver's progress protocol: every sweep of Power EP, EP and EM (with and without the
ARD step) reports ``progress(fraction, message)``, and a stop request ends training without a
result."""

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from fsengine.data.synthetic.rtm import make_rtm
from fsengine.methods.rtm import RTMSettings, fit_rtm, tags_from
from fsengine.methods.rtm.fit import fit_rtm_and_continue
from fsengine.progress import StopRequested


@pytest.fixture(scope="module")
def small():
    ds = make_rtm(n_samples=150, n_tags=15, n_relevant=3, tag_rate=0.15, min_effect=0.3, seed=1)
    return tags_from(ds.X), ds.y.astype(float)


@pytest.mark.parametrize("method", ["power_ep", "ep", "em"])
@pytest.mark.parametrize("ard", [False, True])
def test_every_sweep_reports_a_fraction_and_what_moved(small, method, ard):
    tags, y = small
    seen = []
    fit = fit_rtm(tags, y, RTMSettings(method=method, ard=ard, max_iter=400),
                  progress=lambda fraction, message: seen.append((fraction, message)))
    label = {"power_ep": "Power EP", "ep": "EP", "em": "EM"}[method] + (" + ARD" if ard else "")
    assert seen[0] == (0.0, f"starting {label} (at most 400 sweeps)")
    sweeps = seen[1:-1]
    assert len(sweeps) == fit.n_iter == len(fit.trace)
    for k, ((fraction, message), row) in enumerate(zip(sweeps, fit.trace.itertuples()), start=1):
        assert fraction == k / 400
        assert message.startswith(f"{label} sweep {k} of at most 400, max change {row.max_change:.1e}")
        assert ("1/alpha change" in message) == ard
        if ard:
            assert f"1/alpha change {row.alpha_change:.1e}" in message
    assert fit.converged and fit.message == f"RTM {label.removesuffix(' + ARD')} converged in {fit.n_iter} sweeps"
    assert seen[-1] == (1.0, fit.message.removeprefix("RTM "))
    assert not any("RTM" in message for _, message in seen)  # the caller names the method (fsengine.progress)


@pytest.mark.parametrize("method", ["power_ep", "em"])
def test_a_stop_request_propagates_without_a_result_or_a_warning(small, method):
    tags, y = small

    def stop(fraction, message):
        if fraction >= 2 / 300:
            raise StopRequested("enough")

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the stopped fit does not pretend to have ended
        with pytest.raises(StopRequested, match="enough"):
            fit_rtm(tags, y, RTMSettings(method=method, ard=True), progress=stop)


def test_progress_does_not_change_the_fit(small):
    tags, y = small
    quiet = fit_rtm(tags, y, RTMSettings(ard=True))
    heard = fit_rtm(tags, y, RTMSettings(ard=True), progress=lambda f, m: None)
    np.testing.assert_array_equal(quiet.A, heard.A)
    np.testing.assert_array_equal(quiet.alpha, heard.alpha)


def test_progress_is_keyword_only(small):
    tags, y = small
    with pytest.raises(TypeError):
        fit_rtm(tags, y, RTMSettings(), print)


@pytest.mark.parametrize("method, ard", [("power_ep", False), ("ep", True), ("em", True)])
def test_a_capped_fit_continued_equals_the_fits_restarted_with_each_cap(small, method, ard):
    """fit_rtm_and_continue: the state after the cap is fit_rtm's with that cap, and the continuation
    is fit_rtm's with the higher cap (the sweeps are deterministic), sweep for sweep."""
    tags, y = small
    settings = RTMSettings(method=method, ard=ard, alpha0=5.0, max_iter=3, tol=1e-12)
    capped, continued = fit_rtm_and_continue(tags, y, settings, continue_to=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        at_cap = fit_rtm(tags, y, settings)
        restarted = fit_rtm(tags, y, replace(settings, max_iter=7))
    for got, want in ((capped, at_cap), (continued, restarted)):
        for name in ("A", "B", "alpha"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        timing_free = [c for c in got.trace.columns if c != "seconds"]
        pd.testing.assert_frame_equal(got.trace[timing_free], want.trace[timing_free])
        assert (got.converged, got.message, got.settings) == (want.converged, want.message, want.settings)
    assert not capped.converged and capped.n_iter == 3 and continued.n_iter == 7


def test_a_fit_that_converges_before_its_cap_is_not_continued(small):
    tags, y = small
    settings = RTMSettings(method="em", alpha0=5.0, max_iter=500, tol=1e-3)
    capped, continued = fit_rtm_and_continue(tags, y, settings, continue_to=2500)
    alone = fit_rtm(tags, y, settings)
    assert capped.converged and continued is None and capped.n_iter < 500
    np.testing.assert_array_equal(capped.A, alone.A)
    assert (capped.message, capped.settings) == (alone.message, alone.settings)
    with pytest.raises(ValueError, match="continue_to=10 is below max_iter=500"):
        fit_rtm_and_continue(tags, y, settings, continue_to=10)
