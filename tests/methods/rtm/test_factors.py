"""Single-factor updates against numerical integration of the product-form likelihood.

Power EP (eta = -1): the projected Beta must have the log-moments of q^{\\i} t_i^{-1} computed by
quadrature (1-D for one tag, tensor grids for two and three). EP (eta = 1): the one-dimensional
reduction is exact for one tag and close for two or three.
"""

import numpy as np
import pytest
from scipy import integrate, special

from fsengine.methods.rtm import ep, power_ep
from fsengine.methods.rtm.quadrature import tilted_log_moments


def _log_moments(A, B):
    return special.digamma(A) - special.digamma(A + B), special.digamma(B) - special.digamma(A + B)


def _projection(Ac, Bc, site_a, site_b, eta):
    """Parameters of proj[q^{\\i} t^eta] implied by new sites: cavity + eta * site."""
    return Ac + eta * site_a, Bc + eta * site_b


CAVITIES = [
    ([3.0], [4.0]),
    ([6.0, 9.0], [5.5, 3.0]),
    ([4.0, 7.0, 3.5], [5.0, 6.0, 8.0]),
    ([25.0, 40.0, 12.0], [30.0, 20.0, 14.0]),
]


def test_power_ep_single_tag_by_one_dimensional_integration():
    A, B = 3.0, 4.0
    for c in (1, 0):
        dens = lambda th: th ** (A - 1) * (1 - th) ** (B - 1) / special.beta(A, B)
        inv_t = (lambda th: 1.0 / th) if c == 1 else (lambda th: 1.0 / (1 - th))
        z = integrate.quad(lambda th: dens(th) * inv_t(th), 0, 1)[0]
        el = integrate.quad(lambda th: dens(th) * inv_t(th) * np.log(th), 0, 1)[0] / z
        el1 = integrate.quad(lambda th: dens(th) * inv_t(th) * np.log1p(-th), 0, 1)[0] / z
        ta, tb = np.empty(1), np.empty(1)
        assert power_ep.factor_site_targets(np.array([A]), np.array([B]), c, ta, tb)
        pa, pb = _projection(A, B, ta[0], tb[0], -1)
        np.testing.assert_allclose(_log_moments(pa, pb), [el, el1], atol=1e-10)
        assert power_ep.factor_log_normaliser(np.array([A]), np.array([B]), c) == pytest.approx(np.log(z), abs=1e-10)
        # one tag makes the likelihood theta (or 1 - theta) itself: the site is exact
        np.testing.assert_allclose([ta[0], tb[0]], [1.0, 0.0] if c == 1 else [0.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("Ac, Bc", CAVITIES)
@pytest.mark.parametrize("c", [1, 0])
def test_power_ep_moment_matching_against_tensor_quadrature(Ac, Bc, c):
    Ac, Bc = np.array(Ac), np.array(Bc)
    ref = tilted_log_moments(Ac, Bc, c, power=-1)
    ta, tb = np.empty(Ac.size), np.empty(Ac.size)
    assert power_ep.factor_site_targets(Ac, Bc, c, ta, tb)
    pa, pb = _projection(Ac, Bc, ta, tb, -1)
    el, el1 = _log_moments(pa, pb)
    np.testing.assert_allclose(el, ref["elog"], atol=2e-8)
    np.testing.assert_allclose(el1, ref["elog1m"], atol=2e-8)
    assert power_ep.factor_log_normaliser(Ac, Bc, c) == pytest.approx(ref["log_z"], abs=1e-8)


def test_power_ep_undefined_tilted_distribution_is_reported():
    # c = 1 needs every cavity A > 1: int theta^(A - 2) diverges at 0 otherwise
    ta, tb = np.empty(2), np.empty(2)
    assert not power_ep.factor_site_targets(np.array([0.9, 5.0]), np.array([3.0, 3.0]), 1, ta, tb)
    assert power_ep.factor_site_targets(np.array([0.9, 5.0]), np.array([3.0, 3.0]), 0, ta, tb)
    assert not power_ep.factor_site_targets(np.array([3.0, 5.0]), np.array([1.0, 3.0]), 0, ta, tb)
    assert np.isnan(power_ep.factor_log_normaliser(np.array([1.0]), np.array([3.0]), 1))


@pytest.mark.parametrize("A, B", [(3.0, 4.0), (1.5, 2.0), (1.1, 30.0), (30.0, 1.1), (8.0, 8000.0),
                                  (90.0, 700.0), (5000.0, 5100.0)])
def test_ep_single_tag_is_exact(A, B):
    """One tag: t = theta (c = 1), so the tilted distribution is Beta(A + 1, B) and the site (1, 0)."""
    ta, tb = np.empty(1), np.empty(1)
    assert ep.factor_site_targets(np.array([A]), np.array([B]), 1, ta, tb, ep.QUADRATURE)
    np.testing.assert_allclose([ta[0], tb[0]], [1.0, 0.0], atol=2e-4 if min(A, B) < 2 else 5e-8)
    log_z = ep.factor_log_normaliser(np.array([A]), np.array([B]), 0, ep.QUADRATURE)
    assert log_z == pytest.approx(np.log(B / (A + B)), abs=1e-6 if min(A, B) < 2 else 1e-8)


@pytest.mark.parametrize("Ac, Bc", CAVITIES[1:])
@pytest.mark.parametrize("c", [1, 0])
def test_ep_tilted_moments_against_tensor_quadrature(Ac, Bc, c):
    """Two or three tags: the Gaussian reduction of the other tags' log-odds is an approximation.

    We compare the *changes* of the log-moments from the cavity (what the site carries): within 5%
    of the largest change, and the log normaliser within 5e-3."""
    Ac, Bc = np.array(Ac), np.array(Bc)
    ref = tilted_log_moments(Ac, Bc, c, power=1)
    ta, tb = np.empty(Ac.size), np.empty(Ac.size)
    assert ep.factor_site_targets(Ac, Bc, c, ta, tb, ep.QUADRATURE)
    pa, pb = _projection(Ac, Bc, ta, tb, 1)
    el, el1 = _log_moments(pa, pb)
    cav, cav1 = _log_moments(Ac, Bc)
    true_change = np.concatenate([ref["elog"] - cav, ref["elog1m"] - cav1])
    ours = np.concatenate([el - cav, el1 - cav1])
    assert np.max(np.abs(ours - true_change)) < 0.05 * np.max(np.abs(true_change))
    assert ep.factor_log_normaliser(Ac, Bc, c, ep.QUADRATURE) == pytest.approx(ref["log_z"], abs=5e-3)
