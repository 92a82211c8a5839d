"""Standard EP (eta = 1) for the RTM, with an approximation of the tilted moments.

Sites and q as in :mod:`.power_ep`; the cavity is q^{\\i} = q / t~_i, i.e. (A - a_i, B - b_i),
and the tilted distribution is q^{\\i}(theta) sigmoid(+-s), s = sum_{j in S_i} logit theta_j
(+ for c = 1, - for c = 0). The normaliser couples every tag of the object, so its log-moments
have no closed form (the slides' reason for Power EP). Our approximation, a one-dimensional
reduction over the log-odds sum: for tag j of the object,

    E~[f(theta_j)] = E_j[f(theta_j) g_j(logit theta_j)] / E_j[g_j(logit theta_j)],
    g_j(l) = E[sigmoid(+-(l + s_-j))],   s_-j = sum_{k != j} logit theta_k ~ N(m_-j, v_-j),

where the sum of the *other* tags' log-odds is replaced by a Gaussian with its exact mean
sum_k psi(A_k) - psi(B_k) and variance sum_k psi'(A_k) + psi'(B_k) under the cavity; tag j itself
is integrated exactly.

Inner expectation g_j: the probit-mixture form of :mod:`.logistic_normal`, equally accurate
(7e-7) for every variance; for a single tag (v = 0) the exact sigmoid.

Outer integral over l = logit theta_j, whose cavity density sigmoid(l)^A sigmoid(-l)^B is
log-concave with mode log(A/B), Laplace width sqrt((A + B)/(AB)) and exponential tails of rates
A and B: for min(A, B) >= 20, 16-node Gauss-Hermite in Laplace coordinates (the density ratio
folded into the weights); otherwise composite Gauss-Legendre (32 nodes on +-6 Laplace widths
around the mode, 12 on each of two tail panels long enough, at least 4 widths, for the tails to
fall by e^-36). Single-tag sites (exact answer: theta^1 or (1 - theta)^1) come out within 3e-6
of exact for B/A <= 10 and 5e-4 for B/A = 1000 (A >= 20, Gauss-Hermite), within 2e-8 for
3 <= A < 20 up to B/A = 1000 (panels); the panels lose accuracy only for very skewed cavities
such as Beta(1.1, 110) (2e-3). With more tags the error is the Gaussian approximation of s_-j
(tested against tensor quadrature for one to three tags).

Cost: a site's integral is 16-56 nodes, each with three exp/log1p for the cavity density and five
erfc for g_j, over 95% of an EP sweep. Those per-node loops (:func:`_node_densities`,
:func:`~.logistic_normal.expected_sigmoids`) are SIMD loops over the nodes, with the branch-free
exp, log1p and erfc of :mod:`.special`; the sums over the nodes keep their order. The answers are
libm's to round-off (tested against a numpy/scipy transcription of this integral,
:func:`~.reference_sweep.ep_tilted_numpy`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

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
from fsengine.methods.rtm.logistic_normal import (
    PROBIT_SCALES,
    PROBIT_WEIGHTS,
    expected_sigmoids,
    log_expected_sigmoid,
    scaled_probits,
)
from fsengine.methods.rtm.special import digamma, exp_lane, log1p_unit, log_sigmoid, trigamma

_CORE = np.polynomial.legendre.leggauss(32)
_TAIL = np.polynomial.legendre.leggauss(12)
_HERMITE = np.polynomial.hermite.hermgauss(16)

#: rules handed to the kernels: Gauss-Legendre core (x, w) and tail (x, w) panels, Gauss-Hermite
#: nodes x and weights w e^{x^2} (the Gaussian factor is divided out: the kernel multiplies by the
#: cavity density itself), and the probit mixture (weights, scales)
QUADRATURE = (_CORE[0], _CORE[1], _TAIL[0], _TAIL[1], _HERMITE[0], _HERMITE[1] * np.exp(_HERMITE[0] ** 2),
              PROBIT_WEIGHTS, PROBIT_SCALES)
#: cavities with min(A, B) at least this use the Gauss-Hermite rule
HERMITE_FROM = 20.0
#: below this tilted mass the weights are recomputed in log space
TINY = 1e-250
CORE_WIDTHS = 6.0
TAIL_WIDTHS = 4.0
TAIL_EFOLDS = 36.0


@njit(cache=True, error_model="numpy", fastmath={"contract"})
def _node_densities(rule, count, A, B, log_peak):
    """For the nodes l = rule[0, :count]: multiply the rule's weights rule[1] by the unnormalised
    logit-Beta density sigmoid(l)^A sigmoid(-l)^B / peak and store log sigmoid(+-l) (rows 2, 3) and
    theta = sigmoid(l) (row 4). One SIMD loop (``exp_lane``, ``log1p_unit`` of :mod:`.special`)."""
    for k in range(count):
        x = rule[0, k]
        e = exp_lane(-abs(x))
        l1p = log1p_unit(e)
        lsp = -l1p if x >= 0.0 else x - l1p
        lsm = lsp - x  # log sigmoid(-x) = log sigmoid(x) - x
        rule[1, k] *= exp_lane(A * lsp + B * lsm - log_peak)
        rule[2, k] = lsp
        rule[3, k] = lsm
        rule[4, k] = 1.0 / (1.0 + e) if x >= 0.0 else e / (1.0 + e)


@njit(cache=True)
def logit_beta_rule(A, B, quad, rule):
    """Quadrature for l = logit theta, theta ~ Beta(A, B), whose density is proportional to
    sigmoid(l)^A sigmoid(-l)^B (log-concave, mode log(A/B), Laplace width sqrt((A+B)/(AB))).

    Fills the rows of ``rule`` with the nodes l, the normalised weights, log sigmoid(l),
    log sigmoid(-l) and theta; returns the number of nodes. Near-Gaussian cavities (min(A, B) >=
    HERMITE_FROM) get 16-node Gauss-Hermite in Laplace coordinates with the density ratio folded
    into the weights; the others the three Gauss-Legendre panels described above.
    """
    core_x, core_w, tail_x, tail_w, gh_x, gh_w = quad[0], quad[1], quad[2], quad[3], quad[4], quad[5]
    mode = math.log(A / B)
    sd = math.sqrt((A + B) / (A * B))
    log_peak = A * log_sigmoid(mode) + B * log_sigmoid(-mode)
    count = 0
    if min(A, B) >= HERMITE_FROM:
        scale = math.sqrt(2.0) * sd
        for k in range(gh_x.size):
            rule[0, count] = mode + scale * gh_x[k]
            rule[1, count] = gh_w[k]
            count += 1
    else:
        half = CORE_WIDTHS * sd
        tail_min = TAIL_WIDTHS * sd
        for panel in range(3):
            if panel == 0:
                lo, hi, xs, ws = mode - half, mode + half, core_x, core_w
            elif panel == 1:
                lo, hi, xs, ws = mode - half - max(TAIL_EFOLDS / A, tail_min), mode - half, tail_x, tail_w
            else:
                lo, hi, xs, ws = mode + half, mode + half + max(TAIL_EFOLDS / B, tail_min), tail_x, tail_w
            mid = 0.5 * (lo + hi)
            rad = 0.5 * (hi - lo)
            for k in range(xs.size):
                rule[0, count] = mid + rad * xs[k]
                rule[1, count] = ws[k] * rad
                count += 1
    _node_densities(rule, count, A, B, log_peak)
    total = 0.0
    for k in range(count):
        total += rule[1, k]
    for k in range(count):
        rule[1, k] /= total
    return count


@njit(cache=True)
def _tilted_one_tag(A, B, sign, m_other, v_other, quad, rule, scaled, out):
    """Tilted expectations for one tag: fills out = (r1, r2, mean, second) and returns log Z.

    r1, r2 are the changes of E[log theta], E[log(1 - theta)] from cavity to tilted; mean and
    second are the tilted E[theta], E[theta^2] (for the projection's starting point).
    """
    probit_w, probit_s = quad[6], quad[7]
    count = logit_beta_rule(A, B, quad, rule)
    scaled_probits(v_other, probit_s, scaled)
    c1 = 0.0
    c2 = 0.0
    for k in range(count):
        c1 += rule[1, k] * rule[2, k]
        c2 += rule[1, k] * rule[3, k]
    expected_sigmoids(rule[0], count, m_other, sign, v_other, probit_w, scaled, rule[5])
    z = 0.0
    for k in range(count):
        z += rule[1, k] * rule[5, k]
    if z > TINY:
        log_z = math.log(z)
        for k in range(count):
            rule[5, k] *= rule[1, k] / z
    else:  # the class is very improbable under the cavity: redo the weights in log space
        top = -np.inf
        for k in range(count):
            rule[5, k] = -np.inf if rule[1, k] <= 0.0 else math.log(rule[1, k]) + log_expected_sigmoid(
                sign * (rule[0, k] + m_other), v_other, probit_w, scaled)
            top = max(top, rule[5, k])
        total = 0.0
        for k in range(count):
            total += math.exp(rule[5, k] - top)
        log_z = top + math.log(total)
        for k in range(count):
            rule[5, k] = math.exp(rule[5, k] - log_z)
    t1 = 0.0
    t2 = 0.0
    mean = 0.0
    second = 0.0
    for k in range(count):  # rule[5] now holds the normalised tilted weights
        p = rule[5, k]
        t1 += p * (rule[2, k] - c1)
        t2 += p * (rule[3, k] - c2)
        mean += p * rule[4, k]
        second += p * rule[4, k] * rule[4, k]
    out[0] = t1
    out[1] = t2
    out[2] = mean
    out[3] = second
    return log_z


@njit(cache=True)
def _logit_moments(Ac, Bc, m, v):
    for q in range(Ac.size):
        m[q] = digamma(Ac[q]) - digamma(Bc[q])
        v[q] = trigamma(Ac[q]) + trigamma(Bc[q])


@njit(cache=True)
def factor_site_targets(Ac, Bc, c, out_a, out_b, quad, work=None):
    """Undamped new EP sites of one factor from its cavity; False when the cavity is improper.

    The tilted moments are integrated tag by tag; the projections then run
    :data:`~.beta_projection.LANES` at a time (:func:`~.beta_projection.solve_beta_changes`, with
    ``work`` its buffer, allocated when None)."""
    k = Ac.size
    for q in range(k):
        if Ac[q] <= 0.0 or Bc[q] <= 0.0:
            return False
    if work is None:
        work = np.empty(WORK_SIZE)
    sign = 1.0 if c == 1 else -1.0
    m = np.empty(k)
    v = np.empty(k)
    _logit_moments(Ac, Bc, m, v)
    m_sum = m.sum()
    v_sum = v.sum()
    rule = np.empty((6, max(quad[0].size + 2 * quad[2].size, quad[4].size)))
    scaled = np.empty(quad[6].size)
    out = np.empty(4)
    L = LANES
    for start in range(0, k, L):
        n = min(L, k - start)
        for lane in range(n):
            q = start + lane
            _tilted_one_tag(Ac[q], Bc[q], sign, m_sum - m[q], max(v_sum - v[q], 0.0), quad, rule, scaled, out)
            u0, v0 = moment_matched_change(Ac[q], Bc[q], out[2], out[3])
            work[A_ * L + lane] = Ac[q]
            work[B_ * L + lane] = Bc[q]
            work[R1 * L + lane] = out[0]
            work[R2 * L + lane] = out[1]
            work[U0 * L + lane] = u0
            work[V0 * L + lane] = v0
        solve_beta_changes(work, n)
        for lane in range(n):
            out_a[start + lane] = work[U * L + lane]
            out_b[start + lane] = work[V * L + lane]
    return True


@njit(cache=True)
def factor_log_normaliser(Ac, Bc, c, quad):
    """log Z_i = log E_{q^{\\i}}[sigmoid(+-s)], integrating exactly the tag of largest log-odds
    variance and the rest as a Gaussian (nan when the cavity is improper)."""
    k = Ac.size
    for q in range(k):
        if Ac[q] <= 0.0 or Bc[q] <= 0.0:
            return np.nan
    m = np.empty(k)
    v = np.empty(k)
    _logit_moments(Ac, Bc, m, v)
    best = 0
    for q in range(1, k):
        if v[q] > v[best]:
            best = q
    rule = np.empty((6, max(quad[0].size + 2 * quad[2].size, quad[4].size)))
    scaled = np.empty(quad[6].size)
    out = np.empty(4)
    sign = 1.0 if c == 1 else -1.0
    return _tilted_one_tag(Ac[best], Bc[best], sign, m.sum() - m[best], max(v.sum() - v[best], 0.0),
                           quad, rule, scaled, out)
