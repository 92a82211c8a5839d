"""Plain numpy/scipy Power EP and EP sweeps and the Power EP evidence: the yardsticks for the
numba kernels (benchmark and cross-check tests), written independently of :mod:`.sites`,
:mod:`.power_ep`, :mod:`.ep`, :mod:`.logistic_normal`, :mod:`.beta_projection` and :mod:`.special`
(EP takes only the definition of its integral from :mod:`.ep`: the rule's widths and the
Gauss-Hermite threshold, and the probit mixture's weights and scales).

Per factor (Python loop), everything over the factor's tags is vectorised: cavity (A - eta a_i,
B - eta b_i), target log-moments (Power EP: mixture weight pi = w / (1 + w); EP: the tilted
integral of :mod:`.ep` over its nodes with scipy's ``erfc``, ``log_expit``), then Newton on the new
Beta parameters with scipy's digamma/polygamma (solving for the totals, not the changes).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln, digamma, erfc, expit, log_expit, polygamma

from fsengine.methods.rtm.ep import CORE_WIDTHS, HERMITE_FROM, TAIL_EFOLDS, TAIL_WIDTHS
from fsengine.methods.rtm.logistic_normal import PROBIT_SCALES, PROBIT_WEIGHTS

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


def _sweep_numpy(indptr, indices, y, A, B, site_a, site_b, rho, eta, targets):
    """One sequential sweep with power eta; ``targets(Ac, Bc, c)`` gives a factor's tilted log-moments
    (t1, t2) or None (undefined: the factor is skipped). Returns (new sites a, b, skipped); A, B
    updated. The new site is (projection - cavity) / eta, inner-damped by rho."""
    new_a, new_b = site_a.copy(), site_b.copy()
    skipped = 0
    for i in range(len(indptr) - 1):
        sl = slice(indptr[i], indptr[i + 1])
        j = indices[sl]
        if j.size == 0:
            continue
        Ac, Bc = A[j] - eta * site_a[sl], B[j] - eta * site_b[sl]
        moments = targets(Ac, Bc, y[i])
        if moments is None:
            skipped += 1
            continue
        pa, pb = _project(Ac, Bc, *moments)
        new_a[sl] = rho * site_a[sl] + (1 - rho) * (pa - Ac) / eta
        new_b[sl] = rho * site_b[sl] + (1 - rho) * (pb - Bc) / eta
        A[j] += new_a[sl] - site_a[sl]
        B[j] += new_b[sl] - site_b[sl]
    return new_a, new_b, skipped


def _power_ep_targets(Ac, Bc, c):
    """Tilted log-moments of q^{\\i} t_i^{-1}, the two-Beta mixture of :mod:`.power_ep`."""
    if c == 1:
        if np.any(Ac <= 1.0 + 1e-10) or np.any(Bc <= 0):
            return None
        pi = expit(np.sum(np.log(Bc) - np.log(Ac - 1.0)))
        return (digamma(Ac) - digamma(Ac + Bc) - pi / (Ac - 1.0), digamma(Bc) - digamma(Ac + Bc) + pi / Bc)
    if np.any(Bc <= 1.0 + 1e-10) or np.any(Ac <= 0):
        return None
    pi = expit(np.sum(np.log(Ac) - np.log(Bc - 1.0)))
    return digamma(Ac) - digamma(Ac + Bc) + pi / Ac, digamma(Bc) - digamma(Ac + Bc) - pi / (Bc - 1.0)


def power_ep_sweep_numpy(indptr, indices, y, A, B, site_a, site_b, rho=0.0):
    """One sequential Power EP (eta = -1) sweep; returns (new sites a, b, skipped). A, B updated."""
    return _sweep_numpy(indptr, indices, y, A, B, site_a, site_b, rho, -1, _power_ep_targets)


def _logit_beta_nodes(A, B):
    """Nodes l and normalised weights of :func:`.ep.logit_beta_rule` for Beta(A, B) in logit space:
    16-node Gauss-Hermite in Laplace coordinates for min(A, B) >= HERMITE_FROM, else 32-node
    Gauss-Legendre on +-CORE_WIDTHS Laplace widths and 12 nodes on each tail panel."""
    mode, sd = np.log(A / B), np.sqrt((A + B) / (A * B))
    if min(A, B) >= HERMITE_FROM:
        x, w = np.polynomial.hermite.hermgauss(16)
        nodes, weights = mode + np.sqrt(2.0) * sd * x, w * np.exp(x * x)
    else:
        half = CORE_WIDTHS * sd
        panels = [(mode - half, mode + half, 32),
                  (mode - half - max(TAIL_EFOLDS / A, TAIL_WIDTHS * sd), mode - half, 12),
                  (mode + half, mode + half + max(TAIL_EFOLDS / B, TAIL_WIDTHS * sd), 12)]
        parts = [((lo + hi) / 2 + (hi - lo) / 2 * x, (hi - lo) / 2 * w)
                 for lo, hi, n in panels for x, w in [np.polynomial.legendre.leggauss(n)]]
        nodes, weights = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    log_density = A * log_expit(nodes) + B * log_expit(-nodes)
    weights = weights * np.exp(log_density - (A * log_expit(mode) + B * log_expit(-mode)))
    return nodes, weights / weights.sum()


def ep_tilted_numpy(A, B, c, m_other, v_other):
    """EP's tilted moments for one tag with cavity Beta(A, B) in an object of class c whose other
    tags' log-odds sum is N(m_other, v_other) (:mod:`.ep`): returns (r1, r2, mean, second, log Z),
    the changes of E[log theta], E[log(1 - theta)] from cavity to tilted, the tilted E[theta],
    E[theta^2] and the log of the tilted mass."""
    nodes, weights = _logit_beta_nodes(A, B)
    t = (1.0 if c == 1 else -1.0) * (nodes + m_other)
    if v_other <= 0:
        g = expit(t)
    else:
        scales = PROBIT_SCALES / np.sqrt(1.0 + PROBIT_SCALES**2 * v_other) / np.sqrt(2.0)
        g = 0.5 * erfc(-np.outer(t, scales)) @ PROBIT_WEIGHTS
    z = weights @ g
    tilted = weights * g / z
    lp, lm, theta = log_expit(nodes), log_expit(-nodes), expit(nodes)
    return (tilted @ lp - weights @ lp, tilted @ lm - weights @ lm, tilted @ theta, tilted @ theta**2, np.log(z))


def _ep_targets(Ac, Bc, c):
    """Tilted log-moments of q^{\\i} t_i for every tag of a factor (:func:`ep_tilted_numpy` with the
    others' log-odds moments under the cavity); None when the cavity is improper."""
    if np.any(Ac <= 0) or np.any(Bc <= 0):
        return None
    m = digamma(Ac) - digamma(Bc)
    v = polygamma(1, Ac) + polygamma(1, Bc)
    moments = np.array([ep_tilted_numpy(a, b, c, m.sum() - m[q], max(v.sum() - v[q], 0.0))[:2]
                        for q, (a, b) in enumerate(zip(Ac, Bc))])
    return digamma(Ac) - digamma(Ac + Bc) + moments[:, 0], digamma(Bc) - digamma(Ac + Bc) + moments[:, 1]


def ep_sweep_numpy(indptr, indices, y, A, B, site_a, site_b, rho=0.0):
    """One sequential EP (eta = 1) sweep; returns (new sites a, b, skipped). A, B updated."""
    return _sweep_numpy(indptr, indices, y, A, B, site_a, site_b, rho, 1, _ep_targets)


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
