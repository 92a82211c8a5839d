"""Site bookkeeping shared by Power EP (eta = -1) and EP (eta = 1): sweeps and the evidence.

Sites are stored per non-zero of the CSR tag matrix: site p = (object i, tag j) is the factor
theta_j^{site_a[p]} (1 - theta_j)^{site_b[p]}. Totals: A_j = alpha_j + sum_p site_a[p] (same for
B). In Power EP with power eta the cavity is q / t~_i^eta, i.e. (A, B) - eta (a_i, b_i). The projection
proj[q^{\\i} t_i^eta] = q^{\\i} (t~_i^new)^eta fixes the new site, (a_i, b_i) = (proj - cavity) / eta,
and q_new = q t~_i^new / t~_i (equal to the projection only for eta = 1).

The four convergence tricks of the slides ("Convergence tricks"):
1. damping gamma: after a sweep t~_i := (t~_i^old)^gamma (t~_i^new)^(1 - gamma) (``damp_sites``);
2. sequential update of factors: q is refreshed after each factor (``sequential=True``);
3. more damping rho inside the sweep: t~_i^new := t~_i^rho (projected update)^(1 - rho);
4. a fixed prior factor p(theta | alpha) kept exactly in q (the alpha in the totals).

The per-factor targets are :func:`.power_ep.factor_site_targets` (closed form, then the Beta
projections in SIMD lanes) and :func:`.ep.factor_site_targets` (a numerical integral per site,
its node loops SIMD loops); both are compiled into :func:`sweep` and :func:`log_evidence`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine.methods.rtm import ep, power_ep
from fsengine.methods.rtm.beta_projection import LANES, WORK_SIZE
from fsengine.methods.rtm.special import (
    ASYMPTOTIC_FROM,
    LOG1P_SERIES_MAX,
    lbeta,
    log_gamma_change,
    stirling_tail_inv,
)
from fsengine.sparse_kernels import longest_segment

POWER_EP = -1
EP = 1


@njit(cache=True)
def totals_from_sites(indices, site_a, site_b, alpha, A, B):
    """A_j = alpha_j + sum of site_a over tag j's sites (same for B), in place."""
    A[:] = alpha
    B[:] = alpha
    for p in range(indices.size):
        A[indices[p]] += site_a[p]
        B[indices[p]] += site_b[p]


@njit(cache=True)
def _targets(eta, Ac, Bc, c, ta, tb, quad, work):
    if eta == POWER_EP:
        return power_ep.factor_site_targets(Ac, Bc, c, ta, tb, work)
    return ep.factor_site_targets(Ac, Bc, c, ta, tb, quad, work)


@njit(cache=True)
def _log_normaliser(eta, Ac, Bc, c, quad):
    if eta == POWER_EP:
        return power_ep.factor_log_normaliser(Ac, Bc, c)
    return ep.factor_log_normaliser(Ac, Bc, c, quad)


@njit(cache=True)
def sweep(indptr, indices, y, A, B, site_a, site_b, new_a, new_b, rho, sequential, eta, quad):
    """One pass over the factors; returns how many were skipped (tilted distribution undefined).

    Reads the sites (site_a, site_b) and writes the inner-damped new ones into (new_a, new_b);
    a skipped factor keeps its sites. With ``sequential`` the totals (A, B) are refreshed after
    every factor, otherwise every cavity comes from the totals at the sweep's start.
    """
    width = longest_segment(indptr)
    Ac = np.empty(width)
    Bc = np.empty(width)
    ta = np.empty(width)
    tb = np.empty(width)
    work = np.empty(WORK_SIZE)
    skipped = 0
    for i in range(indptr.size - 1):
        lo = indptr[i]
        k = indptr[i + 1] - lo
        if k == 0:
            continue
        for q in range(k):
            j = indices[lo + q]
            Ac[q] = A[j] - eta * site_a[lo + q]
            Bc[q] = B[j] - eta * site_b[lo + q]
        if not _targets(eta, Ac[:k], Bc[:k], y[i], ta, tb, quad, work):
            skipped += 1
            for q in range(k):
                new_a[lo + q] = site_a[lo + q]
                new_b[lo + q] = site_b[lo + q]
            continue
        for q in range(k):
            p = lo + q
            new_a[p] = rho * site_a[p] + (1.0 - rho) * ta[q]
            new_b[p] = rho * site_b[p] + (1.0 - rho) * tb[q]
            if sequential:  # q = prior prod_l t~_l: swap the old site of factor i for the new
                j = indices[p]
                A[j] += new_a[p] - site_a[p]
                B[j] += new_b[p] - site_b[p]
    return skipped


#: fields of the evidence's lane buffer (each ``LANES`` long): per (object, tag) site of one chunk,
#: the tag's totals A, B, for each of A, B and S = A + B its log, inverse and Stirling tail, the
#: cavity's changes of A and B, and the result
(_TOTAL_A, _TOTAL_B, _LOG_A, _LOG_B, _LOG_S, _INV_A, _INV_B, _INV_S, _TAIL_A, _TAIL_B, _TAIL_S,
 _CHANGE_A, _CHANGE_B, _LBETA_CHANGE) = range(14)
#: per-tag columns the lane buffer is filled from (log, inverse and Stirling tail of A, B and S)
_PER_TAG = (_LOG_A, _LOG_B, _LOG_S, _INV_A, _INV_B, _INV_S, _TAIL_A, _TAIL_B, _TAIL_S)


@njit(cache=True, error_model="numpy")
def _lbeta_changes(lanes, m):
    """log B(A + dA, B + dB) - log B(A, B) for lanes 0..m-1 (fields above), by Stirling's series
    where every argument is >= 10 and every move at most a tenth of it (a SIMD loop), else by
    ``lgamma``."""
    L = LANES
    for q in range(m):
        A, B = lanes[_TOTAL_A * L + q], lanes[_TOTAL_B * L + q]
        da, db = lanes[_CHANGE_A * L + q], lanes[_CHANGE_B * L + q]
        asymptotic = ((A >= ASYMPTOTIC_FROM) & (B >= ASYMPTOTIC_FROM) & (A + da >= ASYMPTOTIC_FROM)
                      & (B + db >= ASYMPTOTIC_FROM) & (abs(da) <= LOG1P_SERIES_MAX * A)
                      & (abs(db) <= LOG1P_SERIES_MAX * B))
        change = (log_gamma_change(A, lanes[_LOG_A * L + q], lanes[_INV_A * L + q], lanes[_TAIL_A * L + q], da)
                  + log_gamma_change(B, lanes[_LOG_B * L + q], lanes[_INV_B * L + q], lanes[_TAIL_B * L + q], db)
                  - log_gamma_change(A + B, lanes[_LOG_S * L + q], lanes[_INV_S * L + q], lanes[_TAIL_S * L + q],
                                     da + db))
        lanes[_LBETA_CHANGE * L + q] = change if asymptotic else np.nan
    for q in range(m):
        if np.isnan(lanes[_LBETA_CHANGE * L + q]):
            A, B = lanes[_TOTAL_A * L + q], lanes[_TOTAL_B * L + q]
            lanes[_LBETA_CHANGE * L + q] = (lbeta(A + lanes[_CHANGE_A * L + q], B + lanes[_CHANGE_B * L + q])
                                            - lbeta(A, B))


@njit(cache=True)
def log_evidence(indptr, indices, y, alpha, A, B, site_a, site_b, eta, quad):
    """EP / Power EP estimate of log p(c | X, alpha) at the current sites (nan if undefined).

    log Z = sum_j [log B(A_j, B_j) - log B(alpha_j, alpha_j)] + sum_i log s_i with the site scale
    fixed by s_i^eta int q^{\\i} t~_i^eta = int q^{\\i} t_i^eta = Z_i (Minka, "Power EP", 2004):

        log s_i = (1 / eta) [log Z_i - sum_{j in S_i} (log B(A_j, B_j) - log B(A^{\\i}_j, B^{\\i}_j))].

    Exact for objects with a single tag. Objects without tags have t_i = 1/2 and add log(1/2).
    The per-site differences of log B go through :func:`_lbeta_changes` (no lgamma per site).
    """
    d = A.size
    total = 0.0
    per_tag = np.full((len(_PER_TAG), d), np.nan)  # rows in the order of _PER_TAG
    for j in range(d):
        total += lbeta(A[j], B[j]) - lbeta(alpha[j], alpha[j])
        for row, x in enumerate((A[j], B[j], A[j] + B[j])):
            if x > 0.0:
                per_tag[row, j] = math.log(x)
                per_tag[3 + row, j] = 1.0 / x
                per_tag[6 + row, j] = stirling_tail_inv(1.0 / x)
    width = longest_segment(indptr)
    Ac = np.empty(width)
    Bc = np.empty(width)
    L = LANES
    lanes = np.empty(14 * L)
    for i in range(indptr.size - 1):
        lo = indptr[i]
        k = indptr[i + 1] - lo
        if k == 0:
            total -= math.log(2.0)
            continue
        shift = 0.0
        for start in range(0, k, L):
            m = min(L, k - start)
            for q in range(m):
                p = lo + start + q
                j = indices[p]
                lanes[_TOTAL_A * L + q] = A[j]
                lanes[_TOTAL_B * L + q] = B[j]
                for row in range(len(_PER_TAG)):
                    lanes[_PER_TAG[row] * L + q] = per_tag[row, j]
                lanes[_CHANGE_A * L + q] = -eta * site_a[p]
                lanes[_CHANGE_B * L + q] = -eta * site_b[p]
                Ac[start + q] = A[j] - eta * site_a[p]
                Bc[start + q] = B[j] - eta * site_b[p]
            _lbeta_changes(lanes, m)
            for q in range(m):
                shift -= lanes[_LBETA_CHANGE * L + q]
        log_z = _log_normaliser(eta, Ac[:k], Bc[:k], y[i], quad)
        if not np.isfinite(log_z):
            return np.nan
        total += (log_z - shift) / eta
    return total


def initial_sites(indptr: np.ndarray, y01: np.ndarray, site_init: float) -> tuple[np.ndarray, np.ndarray]:
    """Sites started away from zero: theta^s for positive objects, (1 - theta)^s for negative ones.

    With alpha = 1 and zero sites the eta = -1 cavity sits on the boundary A = 1 and nothing moves.
    """
    lengths = np.diff(indptr)
    c = np.repeat(np.asarray(y01, dtype=np.float64), lengths)
    return site_init * c, site_init * (1.0 - c)


@njit(cache=True)
def carried_sites(indptr, indices, y, site_init, from_indptr, from_indices, from_a, from_b, rows, site_a, site_b):
    """Warm-start sites: object k of (indptr, indices) is object ``rows[k]`` of the earlier fit
    (``from_indptr``, ``from_indices``, its sites ``from_a``, ``from_b``); each of its (object,
    tag) sites is copied from there, and a tag the earlier object did not carry, or every tag of
    an object the earlier fit did not see (``rows[k] = -1``: another train/test split), gets the
    cold start's site (:func:`initial_sites`). Returns how many sites were copied."""
    copied = 0
    for k in range(indptr.size - 1):
        src = rows[k]
        p, p_end = (from_indptr[src], from_indptr[src + 1]) if src >= 0 else (0, 0)
        for q in range(indptr[k], indptr[k + 1]):
            j = indices[q]
            while p < p_end and from_indices[p] < j:  # both rows are sorted by tag
                p += 1
            if p < p_end and from_indices[p] == j:
                site_a[q] = from_a[p]
                site_b[q] = from_b[p]
                copied += 1
            else:
                site_a[q] = site_init * y[k]
                site_b[q] = site_init * (1.0 - y[k])
    return copied


@njit(cache=True)
def damp_sites(indices, site_a, site_b, new_a, new_b, gamma, alpha, A, B):
    """Outer damping (trick 1) in place: the sites become the parameters of (t~^old)^gamma
    (t~^new)^(1 - gamma), gamma old + (1 - gamma) new; and the totals A, B of the damped sites
    (as :func:`totals_from_sites`), in the same pass."""
    A[:] = alpha
    B[:] = alpha
    for p in range(indices.size):
        site_a[p] = gamma * site_a[p] + (1.0 - gamma) * new_a[p]
        site_b[p] = gamma * site_b[p] + (1.0 - gamma) * new_b[p]
        A[indices[p]] += site_a[p]
        B[indices[p]] += site_b[p]
