"""Automatic relevance determination: evidence maximisation over the prior strengths alpha_j.

Slide "ARD": theta_j ~ Beta(alpha_j, alpha_j), alpha_j in [1, inf); alpha_j -> inf pins theta_j
at 0.5 and removes tag j. The update maximises the evidence over alpha_j inside [floor, cap] with
the likelihood's contribution to q_j held fixed as a Beta-shaped "site" theta^a (1 - theta)^b,
q_j = Beta(alpha + a_j, alpha + b_j):

    h(alpha) = log B(alpha + a_j, alpha + b_j) - log B(alpha, alpha),
    h'(alpha) = [psi(alpha + a) - psi(alpha)] + [psi(alpha + b) - psi(alpha)]
                - 2 [psi(2 alpha + a + b) - psi(2 alpha)]      (cancellation-free differences).

For EP and Power EP, (a_j, b_j) are the summed sites and h is their evidence estimate's
dependence on alpha_j; for EM, (a_j, b_j) = (A_j - alpha_j, B_j - alpha_j), the effective sites
of the variational posterior (MacKay's style of update, much faster than the EM fixed point
2 psi(alpha) - 2 psi(2 alpha) = E_q[log theta (1 - theta)], whose alpha creeps towards the cap
over hundreds of sweeps). h need not be concave (a local maximum at small alpha and a plateau
towards alpha = inf), so the global maximum is found on a log grid and refined by bisection on h'.

A tag seen in a handful of objects has an almost flat evidence in alpha: on sentence polarity
(min df 2) h(2) and h(1e5) differ by 0.005-0.05 nats, and the argmax flips between the floor and
the cap as the sites move by a few hundredths. So alpha_j moves only when the move gains at
least ``MIN_GAIN`` nats, and ``ArdStepper`` halves a tag's step whenever its direction reverses.
A floor of 2-3 (not the slides' 1) keeps the eta = -1 cavities defined; convergence is judged on
1/alpha, which stays finite for pinned tags.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine.methods.rtm.special import digamma_diff, lbeta

BISECTIONS = 60
GRID = 48
#: smallest evidence gain (nats) for which a prior strength is moved
MIN_GAIN = 1e-3


@njit(cache=True)
def _ep_objective(alpha, a, b):
    return lbeta(alpha + a, alpha + b) - lbeta(alpha, alpha)


@njit(cache=True)
def _ep_slope(alpha, a, b):
    return digamma_diff(alpha, a) + digamma_diff(alpha, b) - 2.0 * digamma_diff(2.0 * alpha, a + b)


@njit(cache=True)
def _bisect_slope(lo, hi, a, b):
    """A zero of h' on [lo, hi] (h' > 0 at lo, < 0 at hi), by bisection on log alpha."""
    left, right = math.log(lo), math.log(hi)
    for _ in range(BISECTIONS):
        mid = 0.5 * (left + right)
        if _ep_slope(math.exp(mid), a, b) > 0.0:
            left = mid
        else:
            right = mid
    return math.exp(0.5 * (left + right))


@njit(cache=True)
def ard_update_sites(a_sum, b_sum, current, floor, cap, out):
    """EP/Power EP: out_j = the global argmax of h over [floor, cap] for site sums (a_j, b_j),
    unless it beats h(current_j) by less than MIN_GAIN. The prior's log B(alpha, alpha) on the grid
    over [floor, cap], shared by every tag whose range starts at the floor, is computed once."""
    shared_hi = max(cap, floor)
    shared_step = (math.log(shared_hi) - math.log(floor)) / (GRID - 1)
    prior_on_grid = np.empty(GRID)
    for k in range(GRID):
        alpha = math.exp(math.log(floor) + k * shared_step)
        prior_on_grid[k] = lbeta(alpha, alpha)
    for j in range(a_sum.size):
        a, b = a_sum[j], b_sum[j]
        if a == 0.0 and b == 0.0:  # an unseen tag carries no evidence: remove it
            out[j] = cap
            continue
        lo = max(floor, 1e-9 - min(a, b, 0.0))
        hi = max(cap, lo)
        step = (math.log(hi) - math.log(lo)) / (GRID - 1)
        best_k = 0
        best_h = -np.inf
        for k in range(GRID):
            alpha = math.exp(math.log(lo) + k * step)
            if lo == floor:  # the same grid point as the shared one: h = log B(alpha + a, alpha + b) - prior
                h = lbeta(alpha + a, alpha + b) - prior_on_grid[k]
            else:
                h = _ep_objective(alpha, a, b)
            if h > best_h:
                best_k, best_h = k, h
        best = lo if best_k == 0 else (hi if best_k == GRID - 1 else math.exp(math.log(lo) + best_k * step))
        if 0 < best_k < GRID - 1:
            left = math.exp(math.log(lo) + (best_k - 1) * step)
            right = math.exp(math.log(lo) + (best_k + 1) * step)
            if _ep_slope(left, a, b) > 0.0 and _ep_slope(right, a, b) < 0.0:
                cand = _bisect_slope(left, right, a, b)
                h = _ep_objective(cand, a, b)
                if h > best_h:
                    best, best_h = cand, h
        now = min(max(current[j], lo), hi)
        out[j] = best if best_h - _ep_objective(now, a, b) >= MIN_GAIN else now


class ArdStepper:
    """Per-tag step sizes on log alpha that halve whenever the proposed move reverses direction.

    With the sites fixed, the argmax of h ignores how the sites answer a new alpha; for a tag seen
    in two objects of opposite classes the answer flips the argmax between the floor and the cap
    every sweep (Power EP on sentence polarity: 27 tags, 0.03-0.06 nats each way). Halving the
    step on every reversal (as Rprop does) stops such cycles at the alpha where the direction
    changes, instead of alternating forever.
    """

    def __init__(self, n_tags: int):
        self.step = np.ones(n_tags)
        self.direction = np.zeros(n_tags)

    def move(self, alpha: np.ndarray, target: np.ndarray) -> np.ndarray:
        delta = np.log(target) - np.log(alpha)
        direction = np.sign(delta)
        reversed_ = (direction != 0) & (direction == -self.direction)
        self.step[reversed_] *= 0.5
        self.direction = np.where(direction != 0, direction, self.direction)
        moved = np.exp(np.log(alpha) + self.step * delta)
        return np.clip(moved, np.minimum(alpha, target), np.maximum(alpha, target))  # no overshoot

    def update(self, A: np.ndarray, B: np.ndarray, alpha: np.ndarray, floor: float,
               cap: float) -> tuple[np.ndarray, float]:
        """One ARD step from the posterior totals (A, B): the new alpha (a fresh array) and the
        largest change of 1/alpha, the quantity the stopping rule watches."""
        target = np.empty_like(alpha)
        ard_update_sites(A - alpha, B - alpha, alpha, floor, cap, target)
        new_alpha = self.move(alpha, target)
        return new_alpha, float(np.max(np.abs(1.0 / new_alpha - 1.0 / alpha)))


def relevant_by_ard(alpha: np.ndarray, floor: float, cap: float) -> np.ndarray:
    """Tags the ARD keeps: alpha_j below the geometric middle sqrt(floor * cap) of its range.

    Power EP and EP pin irrelevant tags at the cap exactly; EM's variational update only creeps
    towards it (alpha ~ 10^3-10^4 after a few hundred sweeps), so "pinned" means "more than half
    way to the cap on a log scale".
    """
    return np.asarray(alpha) < np.sqrt(floor * cap)
