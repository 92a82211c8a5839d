"""A plain numpy/scipy Power EP sweep and evidence: the yardsticks for the numba kernels
(benchmark and cross-check tests), written independently of :mod:`.sites`, :mod:`.power_ep`,
:mod:`.beta_projection` and :mod:`.special`.

Per factor (Python loop), everything over the factor's tags is vectorised: cavity (A + a_i,
B + b_i), mixture weight pi = w / (1 + w), target log-moments, then Newton on the new Beta
parameters with scipy's digamma/polygamma (solving for the totals, not the changes).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln, digamma, expit, polygamma

NEWTON_STEPS = 12


def _project(Ac, Bc, t1, t2):
    """Beta(A, B) with psi(A) - psi(A+B) = t1, psi(B) - psi(A+B) = t2, Newton from the cavity."""
    A, B = Ac.copy(), Bc.copy()
    for _ in range(NEWTON_STEPS):
        S = A + B
        f1 = digamma(A) - digamma(S) - t1
        f2 = digamma(B) - digamma(S) - t2
        ts = polygamma(1, S)
        j11, j22 = polygamma(1, A) - ts, polygamma(1, B) - ts
        det = j11 * j22 - ts * ts
        dA = -(j22 * f1 + ts * f2) / det
        dB = -(ts * f1 + j11 * f2) / det
        step = np.ones_like(A)
        while True:  # keep the parameters positive
            bad = (A + step * dA <= 0) | (B + step * dB <= 0)
            if not bad.any():
                break
            step[bad] *= 0.5
        A, B = A + step * dA, B + step * dB
    return A, B


def power_ep_sweep_numpy(indptr, indices, y, A, B, site_a, site_b, rho=0.0):
    """One sequential Power EP (eta = -1) sweep; returns (new sites a, b, skipped). A, B updated."""
    new_a, new_b = site_a.copy(), site_b.copy()
    skipped = 0
    for i in range(len(indptr) - 1):
        sl = slice(indptr[i], indptr[i + 1])
        j = indices[sl]
        if j.size == 0:
            continue
        Ac, Bc = A[j] + site_a[sl], B[j] + site_b[sl]
        if y[i] == 1:
            if np.any(Ac <= 1.0 + 1e-10) or np.any(Bc <= 0):
                skipped += 1
                continue
            pi = expit(np.sum(np.log(Bc) - np.log(Ac - 1.0)))
            t1 = digamma(Ac) - digamma(Ac + Bc) - pi / (Ac - 1.0)
            t2 = digamma(Bc) - digamma(Ac + Bc) + pi / Bc
        else:
            if np.any(Bc <= 1.0 + 1e-10) or np.any(Ac <= 0):
                skipped += 1
                continue
            pi = expit(np.sum(np.log(Ac) - np.log(Bc - 1.0)))
            t1 = digamma(Ac) - digamma(Ac + Bc) + pi / Ac
            t2 = digamma(Bc) - digamma(Ac + Bc) - pi / (Bc - 1.0)
        pa, pb = _project(Ac, Bc, t1, t2)
        new_a[sl] = rho * site_a[sl] + (1 - rho) * (Ac - pa)
        new_b[sl] = rho * site_b[sl] + (1 - rho) * (Bc - pb)
        A[j] += new_a[sl] - site_a[sl]
        B[j] += new_b[sl] - site_b[sl]
    return new_a, new_b, skipped


def power_ep_log_evidence_numpy(indptr, indices, y, alpha, A, B, site_a, site_b):
    """The Power EP evidence estimate (see :func:`~fsengine.methods.rtm.sites.log_evidence`) with
    scipy's ``betaln`` and a log-sum of the mixture weight, object by object: the yardstick of
    the vectorised numba evidence."""
    total = float(np.sum(betaln(A, B) - betaln(alpha, alpha)))
    for i in range(len(indptr) - 1):
        sl = slice(indptr[i], indptr[i + 1])
        j = indices[sl]
        if j.size == 0:
            total -= np.log(2.0)
            continue
        Ac, Bc = A[j] + site_a[sl], B[j] + site_b[sl]
        shift = np.sum(betaln(A[j], B[j]) - betaln(Ac, Bc))
        if y[i] == 1:
            logw = np.sum(np.log(Bc) - np.log(Ac - 1.0))
        else:
            logw = np.sum(np.log(Ac) - np.log(Bc - 1.0))
        total -= np.logaddexp(0.0, logw) - shift  # (log Z_i - shift) / eta with eta = -1
    return total
