"""Automatic relevance determination: evidence maximisation over the prior strengths alpha_j.

Slide "ARD": theta_j ~ Beta(alpha_j, alpha_j), alpha_j in [1, inf); alpha_j -> inf pins theta_j
at 0.5 and removes tag j. Two updates, each the exact maximiser of the method's own evidence
estimate over alpha_j with the rest held fixed:

EP / Power EP (sites fixed, q_j = Beta(alpha + a_j, alpha + b_j)): maximise
    h(alpha) = log B(alpha + a_j, alpha + b_j) - log B(alpha, alpha),
    h'(alpha) = [psi(alpha + a) - psi(alpha)] + [psi(alpha + b) - psi(alpha)]
                - 2 [psi(2 alpha + a + b) - psi(2 alpha)]      (cancellation-free differences).
EM (q fixed): the ELBO's prior term (alpha - 1) E[log theta (1 - theta)] - log B(alpha, alpha)
    is concave in alpha with stationarity 2 psi(alpha) - 2 psi(2 alpha) = E_q[log theta_j(1 - theta_j)].

Each is solved by bisection on log alpha inside [floor, cap]; a derivative that keeps its sign
pins alpha_j at that end. A floor of 2-3 (not the slides' 1) keeps the eta = -1 cavities defined
and stops the evidence from 2-cycling between alpha = 1 and the cap; convergence is judged on
1/alpha, which stays finite for pinned tags.

"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .special import digamma, digamma_diff

BISECTIONS = 80


@njit(cache=True)
def _ep_slope(alpha, a, b):
    return digamma_diff(alpha, a) + digamma_diff(alpha, b) - 2.0 * digamma_diff(2.0 * alpha, a + b)


@njit(cache=True)
def _slope(kind, x, a, b, target):
    if kind == 0:
        return _ep_slope(x, a, b)
    return target - 2.0 * (digamma(x) - digamma(2.0 * x))


@njit(cache=True)
def _root_on_log_scale(kind, lo, hi, a, b, target):
    """Root of the decreasing-through-zero slope on [lo, hi] (lo if negative there, hi if positive)."""
    if _slope(kind, hi, a, b, target) >= 0.0:
        return hi
    if _slope(kind, lo, a, b, target) <= 0.0:
        return lo
    left, right = math.log(lo), math.log(hi)
    for _ in range(BISECTIONS):
        mid = 0.5 * (left + right)
        if _slope(kind, math.exp(mid), a, b, target) > 0.0:
            left = mid
        else:
            right = mid
    return math.exp(0.5 * (left + right))


@njit(cache=True)
def ard_update_sites(a_sum, b_sum, floor, cap, out):
    """EP/Power EP update: out_j = argmax_alpha h(alpha) for site sums (a_j, b_j)."""
    for j in range(a_sum.size):
        a, b = a_sum[j], b_sum[j]
        if a == 0.0 and b == 0.0:  # an unseen tag carries no evidence: remove it
            out[j] = cap
            continue
        lo = max(floor, 1e-9 - min(a, b, 0.0))
        out[j] = _root_on_log_scale(0, lo, max(cap, lo), a, b, 0.0)


@njit(cache=True)
def ard_update_variational(elog_sum, seen, floor, cap, out):
    """EM update: out_j solves 2 psi(alpha) - 2 psi(2 alpha) = E_q[log theta_j (1 - theta_j)]."""
    for j in range(elog_sum.size):
        if not seen[j]:
            out[j] = cap
            continue
        out[j] = _root_on_log_scale(1, floor, cap, 0.0, 0.0, elog_sum[j])


def relevant_by_ard(alpha: np.ndarray, floor: float, cap: float) -> np.ndarray:
    """Tags the ARD keeps: alpha_j below the geometric middle sqrt(floor * cap) of its range.

    Power EP and EP pin irrelevant tags at the cap exactly; EM's variational update only creeps
    towards it (alpha ~ 10^3-10^4 after a few hundred sweeps), so "pinned" means "more than half
    way to the cap on a log scale".
    """
    return np.asarray(alpha) < np.sqrt(floor * cap)
