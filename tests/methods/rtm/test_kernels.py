"""RTM numeric kernels against independent references: scipy's polygamma, scipy's root finder,
exact series, and the closed-form answers for single-tag objects."""

import math

import numpy as np
import pytest
from scipy import optimize, special

from fsengine.methods.rtm import ard, em
from fsengine.methods.rtm.beta_projection import solve_beta_change
from fsengine.methods.rtm.logistic_normal import PROBIT_SCALES, PROBIT_WEIGHTS, expected_sigmoid, scaled_probits
from fsengine.methods.rtm.special import digamma, digamma_diff, lbeta, tetragamma, trigamma

XS = np.concatenate([np.logspace(-3, 6, 120), [0.5, 1.0, 9.999, 10.0, 10.001]])


@pytest.mark.parametrize("kernel, order", [(digamma, 0), (trigamma, 1), (tetragamma, 2)])
def test_polygamma_matches_scipy(kernel, order):
    ours = np.array([kernel(x) for x in XS])
    ref = special.polygamma(order, XS)
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-300)


def _digamma_diff_series(x, d, terms=200_000):
    """psi(x + d) - psi(x) = sum_k d / ((x + k)(x + k + d)) plus an Euler-Maclaurin tail."""
    k = np.arange(terms, dtype=np.float64)
    y = x + terms
    return np.sum(np.sort(d / ((x + k) * (x + k + d)))) + np.log1p(d / y) + 0.5 * d / (y * (y + d))


@pytest.mark.parametrize("x, d", [(0.3, -0.2), (3.0, 0.5), (12.0, 3.0), (1e3, -0.2), (1e4, 0.5),
                                  (1e6, 3.0), (1e4, 1e-3)])
def test_digamma_diff_keeps_digits_that_plain_subtraction_loses(x, d):
    ref = _digamma_diff_series(x, d)
    assert digamma_diff(x, d) == pytest.approx(ref, rel=1e-12)
    if abs(d) / x < 1e-6:  # a small move of a large total: the naive difference loses ~log10(x/d) digits
        naive = special.digamma(x + d) - special.digamma(x)
        assert abs(naive - ref) > 1e-10 * abs(ref)


def test_lbeta():
    for a, b in [(0.5, 0.5), (3.0, 7.0), (1e4, 2e4)]:
        assert lbeta(a, b) == pytest.approx(special.betaln(a, b), rel=1e-13)


def test_logistic_normal_integral_against_adaptive_quadrature():
    from scipy import integrate

    scaled = np.empty(PROBIT_SCALES.size)
    for v in (0.0, 0.3, 4.0, 50.0, 400.0):
        scaled_probits(v, PROBIT_SCALES, scaled)
        for t in (-6.0, -0.5, 0.0, 1.3, 8.0):
            sd = np.sqrt(v)
            if v == 0:
                ref = special.expit(t)
            else:
                ref = integrate.quad(lambda z: special.expit(t + sd * z) * np.exp(-z * z / 2),
                                     -12, 12, points=[-t / sd], limit=400)[0] / np.sqrt(2 * np.pi)
            assert expected_sigmoid(t, v, PROBIT_WEIGHTS, scaled) == pytest.approx(ref, abs=1e-6)


@pytest.mark.parametrize("A, B, r1, r2", [(3.0, 4.0, -0.1, 0.05), (1.5, 20.0, 0.3, -0.01),
                                         (40.0, 35.0, 0.002, -0.003), (2.0, 2.0, -1.5, 0.2)])
def test_beta_projection_matches_scipy_root(A, B, r1, r2):
    target = np.array([special.digamma(A) - special.digamma(A + B) + r1,
                       special.digamma(B) - special.digamma(A + B) + r2])

    def equations(log_ab):
        a, b = np.exp(log_ab)
        return [special.digamma(a) - special.digamma(a + b) - target[0],
                special.digamma(b) - special.digamma(a + b) - target[1]]

    ref = np.exp(optimize.root(equations, np.log([A, B]), tol=1e-14).x)
    u, v, iters, res = solve_beta_change(A, B, r1, r2, 0.0, 0.0)
    np.testing.assert_allclose([A + u, B + v], ref, rtol=1e-9)
    assert iters <= 12 and res < 1e-10


def test_beta_projection_solves_for_the_change_at_large_totals():
    """Pitfall: a tag seen in thousands of objects has A ~ 1e4; one factor moves it by about 1.

    Exact answer: the Beta(A, B) whose log-moments moved by those of Beta(A + 1, B) vs Beta(A, B)
    is Beta(A + 1, B), i.e. the change (1, 0)."""
    A, B = 12000.0, 12500.0
    r1 = 1.0 / A - 1.0 / (A + B)  # psi(A+1) - psi(A) - [psi(S+1) - psi(S)]
    r2 = -1.0 / (A + B)
    u, v, _, _ = solve_beta_change(A, B, r1, r2, 0.0, 0.0)
    assert abs(u - 1.0) < 1e-7 and abs(v) < 1e-7
    # the naive route: solve for the new totals with scipy, then subtract
    target = [special.digamma(A + 1) - special.digamma(A + B + 1), special.digamma(B) - special.digamma(A + B + 1)]
    sol = optimize.fsolve(lambda ab: [special.digamma(ab[0]) - special.digamma(ab.sum()) - target[0],
                                      special.digamma(ab[1]) - special.digamma(ab.sum()) - target[1]],
                          [A, B], xtol=1e-14)
    assert abs(sol[0] - A - 1.0) > 100 * abs(u - 1.0)


def test_ard_update_finds_the_global_maximum_of_the_site_evidence():
    a_sum = np.array([12.0, 3.0, 0.4, 0.0, 30.0, 0.06])
    b_sum = np.array([2.0, 3.5, 0.5, 0.0, 1.0, 1.17])
    out = np.empty(6)
    floor, cap = 2.0, 1e5
    current = np.full(6, 5.0)
    ard.ard_update_sites(a_sum, b_sum, current, floor, cap, out)
    grid = np.exp(np.linspace(np.log(floor), np.log(cap), 20001))
    for j in range(6):
        h = special.betaln(grid + a_sum[j], grid + b_sum[j]) - special.betaln(grid, grid)
        h_now = special.betaln(5.0 + a_sum[j], 5.0 + b_sum[j]) - special.betaln(5.0, 5.0)
        if a_sum[j] == 0 and b_sum[j] == 0:
            assert out[j] == cap  # unseen: removed
        elif h.max() - h_now < ard.MIN_GAIN:
            assert out[j] == 5.0  # flat evidence: alpha stays
        else:
            assert out[j] == pytest.approx(grid[np.argmax(h)], rel=2e-3)
    assert out[0] < 10 and out[1] == pytest.approx(cap)  # strong tag: small alpha; balanced: pinned
    assert out[5] == 5.0  # seen twice: h(2) and h(cap) differ by < 0.01 nats


def test_ard_stepper_halves_on_reversal():
    stepper = ard.ArdStepper(2)
    alpha = np.array([2.0, 2.0])
    cap = np.array([1e5, 1e5])
    floor = np.array([2.0, 2.0])
    alpha = stepper.move(alpha, cap)  # full step up
    assert np.allclose(alpha, cap)
    alpha = stepper.move(alpha, np.array([2.0, 1e5]))  # tag 0 reverses: half a step (log scale)
    assert alpha[0] == pytest.approx(np.sqrt(2.0 * 1e5)) and alpha[1] == 1e5
    for _ in range(30):  # a floor <-> cap 2-cycle of targets settles instead of alternating
        target = np.where(alpha > np.sqrt(2e5), floor, cap)
        alpha = stepper.move(alpha, target)
    assert stepper.step[0] < 1e-6


def test_em_tag_step_is_the_maximiser_of_its_bound():
    a1, b1, kappa = 9.0, 4.0, 3.5

    def G(ab):
        A, B = ab
        S = A + B
        kl = (special.betaln(a1, b1) - special.betaln(A, B) + (A - a1) * (special.digamma(A) - special.digamma(S))
              + (B - b1) * (special.digamma(B) - special.digamma(S)))
        return -kl - kappa * A / S

    A, B = em.maximise_tag_bound(5.0, 5.0, a1, b1, kappa)
    ref = optimize.minimize(lambda x: -G(np.exp(x)), np.log([5.0, 5.0]), method="Nelder-Mead",
                            options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 5000})
    np.testing.assert_allclose([A, B], np.exp(ref.x), rtol=1e-5)


def test_log_space_fallback_for_very_improbable_classes():
    from scipy import integrate

    from fsengine.methods.rtm import ep
    from fsengine.methods.rtm.logistic_normal import log_expected_sigmoid

    scaled = np.empty(PROBIT_SCALES.size)
    for v in (0.5, 9.0, 60.0):
        scaled_probits(v, PROBIT_SCALES, scaled)
        for t in (-700.0, -80.0, -5.0, 2.0):
            shift = min(0.0, t + v / 2)  # log E[e^(t + s)], the size of the answer for t << 0
            f = lambda s: np.exp(special.log_expit(t + s) - s * s / (2 * v) - shift) / np.sqrt(2 * np.pi * v)
            ref = np.log(integrate.quad(f, -40 * np.sqrt(v) + min(v, -t), 40 * np.sqrt(v) + v,
                                        points=[v, -t], limit=400, epsabs=0, epsrel=1e-12)[0]) + shift
            assert log_expected_sigmoid(t, v, PROBIT_WEIGHTS, scaled) == pytest.approx(ref, abs=1e-5)
    # a long document whose 300 tags all point to class 0, labelled 1: tilted mass ~ e^-650
    Ac, Bc = np.full(300, 20.0), np.full(300, 180.0)
    ta, tb = np.empty(300), np.empty(300)
    assert ep.factor_site_targets(Ac, Bc, 1, ta, tb, ep.QUADRATURE)
    assert np.all(np.isfinite(ta)) and np.all(ta > 0)  # every tag is pushed towards class 1
    m = 300 * (special.digamma(20.0) - special.digamma(180.0))
    v = 300 * (special.polygamma(1, 20.0) + special.polygamma(1, 180.0))
    log_z = ep.factor_log_normaliser(Ac, Bc, 1, ep.QUADRATURE)
    assert log_z == pytest.approx(m + v / 2, abs=0.5)  # E[sigmoid(s)] ~ E[e^s] down there


@pytest.mark.parametrize("eta", [-1, 1], ids=["power_ep", "ep"])
def test_numba_sweep_matches_the_numpy_reference(eta):
    """A sequential sweep (Power EP or EP, inner damping 0.3) against the numpy/scipy transcription:
    EP's per-site integrals through scipy's erfc and log_expit against the SIMD node loops."""
    from fsengine.data.synthetic.rtm import make_rtm
    from fsengine.methods.rtm import ep, sites, tags_from
    from fsengine.methods.rtm.reference_sweep import ep_sweep_numpy, power_ep_sweep_numpy

    ds = make_rtm(n_samples=150, n_tags=40, n_relevant=5, tag_rate=0.1, seed=3)
    tags = tags_from(ds.X)
    y = ds.y.astype(np.int64)
    alpha = np.full(40, 5.0)
    sa, sb = sites.initial_sites(tags.indptr, ds.y, 0.5)
    A, B = np.empty(40), np.empty(40)
    sites.totals_from_sites(tags.indices, sa, sb, alpha, A, B)
    A2, B2 = A.copy(), B.copy()
    na, nb = np.empty_like(sa), np.empty_like(sb)
    skipped = sites.sweep(tags.indptr, tags.indices, y, A, B, sa, sb, na, nb, 0.3, True, eta, ep.QUADRATURE)
    reference = power_ep_sweep_numpy if eta == -1 else ep_sweep_numpy
    ra, rb, rskipped = reference(tags.indptr, tags.indices, y, A2, B2, sa, sb, rho=0.3)
    assert skipped == rskipped
    np.testing.assert_allclose(na, ra, atol=1e-9)
    np.testing.assert_allclose(nb, rb, atol=1e-9)
    np.testing.assert_allclose(A, A2, rtol=1e-10)


def test_digamma_diff_for_vanishing_moves():
    """A well-classified object moves its tags by ~1e-60: x + d rounds to x, the answer must not."""
    for x, d in [(50.0, 1e-60), (3000.0, -2e-9), (12.5, 1e-20)]:
        assert digamma_diff(x, d) == pytest.approx(d * special.polygamma(1, x), rel=1e-12)


def test_asymptotic_series_match_scipy():
    """The loop-free series the SIMD kernels inline, against scipy for x >= 10 and |z| <= 1/10."""
    from fsengine.methods.rtm.special import (
        log1p_series,
        psi_tail_inv,
        stirling_tail_inv,
        tetragamma_inv,
        trigamma_inv,
    )

    x = np.concatenate([np.linspace(10.0, 12.0, 7), np.logspace(1.1, 5, 40)])
    inv = 1.0 / x
    # the reference psi(x) - log(x) itself cancels to ~1e-15 absolute at large x
    np.testing.assert_allclose([psi_tail_inv(v) for v in inv], special.digamma(x) - np.log(x), rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose([trigamma_inv(v) for v in inv], special.polygamma(1, x), rtol=1e-13)
    np.testing.assert_allclose([tetragamma_inv(v) for v in inv], special.polygamma(2, x), rtol=1e-12)
    small = x[x < 300]
    stirling_main = (small - 0.5) * np.log(small) - small + 0.5 * np.log(2 * np.pi)
    # the reference is a difference of numbers as large as (x - 1/2) log x (22 at x = 10, 1,386 at
    # x = 251): it is exact only to their last bits, so each value is held to two units in the last
    # place of that term (7e-15 at x = 10, 4.5e-13 at x = 251, where scipy 1.11's gammaln is 3.2e-13 off)
    error = np.abs([stirling_tail_inv(v) for v in 1.0 / small] - (special.gammaln(small) - stirling_main))
    assert np.all(error <= 2 * np.spacing((small - 0.5) * np.log(small))), (small, error)
    z = np.concatenate([np.linspace(-0.1, 0.1, 41), [1e-300, -1e-20, 3e-9]])
    np.testing.assert_allclose([log1p_series(v) for v in z], np.log1p(z), rtol=5e-16, atol=0)


def _projection_problems(n, seed):
    """Beta projections of every kind the sweeps meet: large and small totals, moves of every size
    (a change of the targets by pi / A for pi from 1 down to 1e-40, where the Taylor branch
    holds), and no move at all."""
    rng = np.random.default_rng(seed)
    A = np.where(rng.random(n) < 0.8, rng.uniform(10, 400, n), rng.uniform(1.5, 12, n))
    B = np.where(rng.random(n) < 0.8, rng.uniform(10, 400, n), rng.uniform(1.5, 12, n))
    pi = 10.0 ** rng.uniform(-40, 0, n)
    pi[::17] = 0.0
    S = A + B
    r1, r2 = -pi / (A - 1.0), pi / B
    mean, second = (A - pi) / S, A * (A + 1.0 - 2.0 * pi) / (S * (S + 1.0))
    return A, B, r1, r2, mean, second


@pytest.mark.parametrize("k", [64, 37, 1])
def test_lane_projection_matches_the_scalar_solver(k):
    """solve_beta_changes (SIMD lanes) against solve_beta_change (itself checked against scipy's
    root finder above) on the same problems: equal to the solver's tolerance."""
    from fsengine.methods.rtm.beta_projection import (
        A_,
        B_,
        LANES,
        R1,
        R2,
        U0,
        V0,
        WORK_SIZE,
        U,
        V,
        moment_matched_change,
        solve_beta_changes,
    )

    A, B, r1, r2, mean, second = _projection_problems(k, seed=k)
    work = np.full(WORK_SIZE, np.nan)
    ours_u, ours_v, ref_u, ref_v = (np.empty(k) for _ in range(4))
    for q in range(k):
        u0, v0 = moment_matched_change(A[q], B[q], mean[q], second[q])
        for field, value in ((A_, A[q]), (B_, B[q]), (R1, r1[q]), (R2, r2[q]), (U0, u0), (V0, v0)):
            work[field * LANES + q] = value
        ref_u[q], ref_v[q], _, _ = solve_beta_change(A[q], B[q], r1[q], r2[q], u0, v0)
    solve_beta_changes(work, k)
    ours_u, ours_v = work[U * LANES:U * LANES + k], work[V * LANES:V * LANES + k]
    scale = np.abs(ref_u) + np.abs(ref_v)
    assert np.all(np.abs(ours_u - ref_u) <= 1e-9 * scale) and np.all(np.abs(ours_v - ref_v) <= 1e-9 * scale)
    assert np.all(ours_u[r1[:k] == 0] == 0) and np.all(ours_v[r1[:k] == 0] == 0)


def _long_objects():
    """Objects with ~18 tags each and a prior of 60: every Beta total lies in the asymptotic region,
    where the sweep and the evidence take their SIMD lanes."""
    from fsengine.data.synthetic.rtm import make_rtm
    from fsengine.methods.rtm import sites, tags_from

    ds = make_rtm(n_samples=200, n_tags=60, n_relevant=8, tag_rate=0.3, seed=5)
    tags = tags_from(ds.X)
    alpha = np.full(60, 60.0)
    sa, sb = sites.initial_sites(tags.indptr, ds.y, 0.5)
    A, B = np.empty(60), np.empty(60)
    sites.totals_from_sites(tags.indices, sa, sb, alpha, A, B)
    return tags, ds.y.astype(np.int64), alpha, A, B, sa, sb


def test_numba_sweep_matches_the_numpy_reference_on_large_totals():
    from fsengine.methods.rtm import ep, sites
    from fsengine.methods.rtm.reference_sweep import power_ep_sweep_numpy

    tags, y, alpha, A, B, sa, sb = _long_objects()
    for _ in range(3):  # three sweeps, as a fit runs them (inner and outer damping)
        A2, B2 = A.copy(), B.copy()
        na, nb = np.empty_like(sa), np.empty_like(sb)
        assert sites.sweep(tags.indptr, tags.indices, y, A, B, sa, sb, na, nb, 0.8, True, -1, ep.QUADRATURE) == 0
        ra, rb, _ = power_ep_sweep_numpy(tags.indptr, tags.indices, y, A2, B2, sa, sb, rho=0.8)
        # the reference solves for the new totals (~80) with scipy: its sites carry ~1e-12 of
        # their round-off, and a tag's total sums ~60 of them
        np.testing.assert_allclose(na, ra, rtol=0, atol=1e-10)
        np.testing.assert_allclose(nb, rb, rtol=0, atol=1e-10)
        np.testing.assert_allclose(A, A2, rtol=1e-11)
        sites.damp_sites(tags.indices, sa, sb, na, nb, 0.5, alpha, A, B)


def test_power_ep_evidence_matches_the_numpy_reference():
    """The evidence with Stirling's series in SIMD lanes against scipy's betaln, object by object,
    on large totals (asymptotic lanes) and on small ones (lgamma fallback)."""
    from fsengine.methods.rtm import ep, sites
    from fsengine.methods.rtm.reference_sweep import power_ep_log_evidence_numpy, power_ep_sweep_numpy

    tags, y, alpha, A, B, sa, sb = _long_objects()
    power_ep_sweep_numpy(tags.indptr, tags.indices, y, A, B, sa, sb, rho=0.5)  # sites away from the start
    for scale in (1.0, 0.05):  # alpha 60: every lane asymptotic; alpha 3: most below 10
        a = alpha * scale
        A2, B2 = A - alpha + a, B - alpha + a
        ours = sites.log_evidence(tags.indptr, tags.indices, y, a, A2, B2, sa, sb, -1, ep.QUADRATURE)
        ref = power_ep_log_evidence_numpy(tags.indptr, tags.indices, y, a, A2, B2, sa, sb)
        assert ours == pytest.approx(ref, rel=1e-12, abs=1e-9)


def test_branch_free_special_functions_match_libm():
    """exp_lane, log1p_unit and erfc_lane (EP's SIMD node loops) against libm's (``math``; numpy's own
    log1p differs between numpy versions by an ulp or two) and scipy's erfc, in a loop numba
    vectorises: exp to 2 ulps, log1p to 3 ulps (its series rounds a few times), erfc as its docstring
    states."""
    from numba import njit

    from fsengine.methods.rtm.special import erfc_lane, exp_lane, log1p_unit

    @njit(error_model="numpy", fastmath={"contract"})
    def apply(kind, x, out):
        for k in range(x.size):
            out[k] = exp_lane(x[k]) if kind == 0 else (log1p_unit(x[k]) if kind == 1 else erfc_lane(x[k]))

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-708, 709, 20_000), np.linspace(-5, 5, 2001), [0.0, -708.0, 709.0]])
    out = np.empty_like(x)
    apply(0, x, out)
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(out, [math.exp(v) for v in x], rtol=2 * eps)
    apply(0, np.array([-708.5, -800.0, np.nan]), out[:3])
    assert np.all(out[:2] == 0.0) and np.isnan(out[2])  # below the normal range: 0, not a subnormal
    e = np.concatenate([rng.uniform(0, 1, 20_000), np.geomspace(1e-300, 1, 301), [np.sqrt(2) - 1, 1.0]])
    out = np.empty_like(e)
    apply(1, e, out)
    np.testing.assert_allclose(out, [math.log1p(v) for v in e], rtol=3 * eps, atol=0)
    z = np.concatenate([rng.uniform(-8, 26, 20_000), np.linspace(-6, 6, 1201)])
    out = np.empty_like(z)
    apply(2, z, out)
    ref = special.erfc(z)
    rel = np.abs(out / ref - 1)
    near = np.abs(z) <= 6
    assert rel[near].max() < 5e-15
    assert (rel[~near] / (z[~near] ** 2 + 1)).max() < 2e-16  # the rounding of z^2 in exp(-z^2)


@pytest.mark.parametrize("A, B", [(63.0, 70.0), (25.0, 400.0), (300.0, 20.5), (3.0, 7.0), (1.5, 30.0),
                                  (12.0, 12.0), (19.9, 80.0), (5.0, 2.0)])
def test_ep_tilted_moments_match_a_scipy_transcription(A, B):
    """EP's per-site integral (Gauss-Hermite and Gauss-Legendre panels, SIMD node loops) against the
    same integral written with scipy's erfc, expit and log_expit
    (:func:`~fsengine.methods.rtm.reference_sweep.ep_tilted_numpy`): libm's answers, to round-off
    (the engine before the SIMD loops agreed with it to 3e-15 as well)."""
    from fsengine.methods.rtm import ep
    from fsengine.methods.rtm.reference_sweep import ep_tilted_numpy

    rule, scaled, out = np.empty((6, 56)), np.empty(PROBIT_SCALES.size), np.empty(4)
    for c in (0, 1):
        for m_other in (-8.0, -1.0, 0.0, 2.5, 9.0):
            for v_other in (0.0, 0.4, 12.0, 150.0):
                log_z = ep._tilted_one_tag(A, B, 1.0 if c else -1.0, m_other, v_other, ep.QUADRATURE, rule,
                                           scaled, out)
                np.testing.assert_allclose([*out, log_z], ep_tilted_numpy(A, B, c, m_other, v_other),
                                           rtol=0, atol=2e-14)
