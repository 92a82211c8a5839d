"""EM for the RTM: coordinate-wise ascent of a variational lower bound (slide "Other training
methods for the RTM").

q(theta) = prod_j Beta(theta_j | A_j, B_j). With m_j = A_j / (A_j + B_j), U_i = prod_{j in S_i} m_j
and W_i = prod_{j in S_i} (1 - m_j), Jensen's inequality on the log normaliser of (RTM),
E log(prod theta + prod (1 - theta)) <= log(U_i + W_i), gives the bound

    L(q) = sum_j [P_j E log theta_j + N_j E log(1 - theta_j) - KL(q_j || Beta(alpha_j, alpha_j))]
           - sum_i log(U_i + W_i)  <=  log p(c | X, alpha),                                  (ELBO)

(P_j, N_j: positive and negative objects carrying tag j). Writing log(U_i + W_i) <=
(U_i + W_i) / zeta_i + log zeta_i - 1 makes the bound linear in m_j for fixed zeta (the E-step
sets zeta_i = U_i + W_i); the M-step for tag j then maximises, over (A, B),

    G_j(A, B) = -KL(Beta(A, B) || Beta(alpha_j + P_j, alpha_j + N_j)) - kappa_j A / (A + B),
    kappa_j = sum_{i in column j} [rho_i / m_j - (1 - rho_i) / (1 - m_j)],  rho_i = U_i / (U_i + W_i),

by Newton's method (Fisher scoring where the Hessian is not negative definite) with step halving,
so every coordinate step raises the bound; zeta is refreshed after each tag. U_i and W_i are kept
in log form per object and updated through the tag's column (CSC).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine.methods.rtm.special import digamma, lbeta, sigmoid, tetragamma, trigamma

MAX_NEWTON = 50
STEP_TOL = 1e-13
#: G is a difference of log-gamma values of size ~S log S; steps within this relative noise pass
VALUE_NOISE = 1e-13


@njit(cache=True)
def _bound(A, B, a1, b1, kappa):
    S = A + B
    ds = digamma(S)
    return lbeta(A, B) - (A - a1) * (digamma(A) - ds) - (B - b1) * (digamma(B) - ds) - kappa * A / S


@njit(cache=True)
def maximise_tag_bound(A, B, a1, b1, kappa):
    """argmax over (A, B) > 0 of G(A, B) = -KL(Beta(A, B) || Beta(a1, b1)) - kappa A / (A + B)."""
    value = _bound(A, B, a1, b1, kappa)
    for _ in range(MAX_NEWTON):
        S = A + B
        t_a, t_b, t_s = trigamma(A), trigamma(B), trigamma(S)
        q_s = tetragamma(S)
        excess = S - a1 - b1
        ga = -(A - a1) * t_a + excess * t_s - kappa * B / (S * S)
        gb = -(B - b1) * t_b + excess * t_s + kappa * A / (S * S)
        common = t_s + excess * q_s
        haa = -t_a - (A - a1) * tetragamma(A) + common + 2.0 * kappa * B / (S * S * S)
        hbb = -t_b - (B - b1) * tetragamma(B) + common - 2.0 * kappa * A / (S * S * S)
        hab = common - kappa * (A - B) / (S * S * S)
        det = haa * hbb - hab * hab
        if haa < 0.0 and det > 0.0:  # Newton on a concave patch
            da = -(hbb * ga - hab * gb) / det
            db = -(-hab * ga + haa * gb) / det
        else:  # Fisher scoring: the Beta's Fisher information is positive definite
            f11, f22 = t_a - t_s, t_b - t_s
            fdet = f11 * f22 - t_s * t_s
            da = (f22 * ga + t_s * gb) / fdet
            db = (t_s * ga + f11 * gb) / fdet
        step = 1.0
        moved = False
        for _ in range(60):
            An, Bn = A + step * da, B + step * db
            if An > 0.0 and Bn > 0.0:
                new_value = _bound(An, Bn, a1, b1, kappa)
                if new_value >= value - VALUE_NOISE * (abs(value) + 1.0):
                    moved = True
                    break
            step *= 0.5
        if not moved:
            break
        A, B = An, Bn
        value = max(value, new_value)
        if abs(step * da) <= STEP_TOL * A and abs(step * db) <= STEP_TOL * B:
            break
    return A, B


@njit(cache=True)
def object_log_products(indptr, indices, A, B, log_u, log_w):
    """log U_i = sum_{j in S_i} log m_j and log W_i = sum log(1 - m_j), in place (the logs once per
    tag, then sums over each object's tags)."""
    log_m = np.empty(A.size)
    log_1m = np.empty(A.size)
    for j in range(A.size):
        ls = math.log(A[j] + B[j])
        log_m[j] = math.log(A[j]) - ls
        log_1m[j] = math.log(B[j]) - ls
    for i in range(indptr.size - 1):
        su = 0.0
        sw = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            su += log_m[j]
            sw += log_1m[j]
        log_u[i] = su
        log_w[i] = sw


@njit(cache=True)
def em_sweep(col_ptr, col_rows, pos, neg, alpha, A, B, log_u, log_w):
    """One coordinate-ascent pass over the tags (M-step per tag, zeta refreshed after each)."""
    for j in range(A.size):
        lo, hi = col_ptr[j], col_ptr[j + 1]
        if lo == hi:
            A[j] = alpha[j]
            B[j] = alpha[j]
            continue
        S = A[j] + B[j]
        m = A[j] / S
        kappa = 0.0
        for p in range(lo, hi):
            i = col_rows[p]
            rho = sigmoid(log_u[i] - log_w[i])
            kappa += rho / m - (1.0 - rho) / (1.0 - m)
        old_lm = math.log(A[j]) - math.log(S)
        old_l1m = math.log(B[j]) - math.log(S)
        A[j], B[j] = maximise_tag_bound(A[j], B[j], alpha[j] + pos[j], alpha[j] + neg[j], kappa)
        S = A[j] + B[j]
        d_lm = math.log(A[j]) - math.log(S) - old_lm
        d_l1m = math.log(B[j]) - math.log(S) - old_l1m
        for p in range(lo, hi):
            i = col_rows[p]
            log_u[i] += d_lm
            log_w[i] += d_l1m


@njit(cache=True)
def elbo(pos, neg, alpha, A, B, log_u, log_w):
    """The lower bound (ELBO) on log p(c | X, alpha) at q = prod Beta(A_j, B_j)."""
    total = 0.0
    for j in range(A.size):
        S = A[j] + B[j]
        ds = digamma(S)
        el = digamma(A[j]) - ds
        el1 = digamma(B[j]) - ds
        kl = lbeta(alpha[j], alpha[j]) - lbeta(A[j], B[j]) + (A[j] - alpha[j]) * el + (B[j] - alpha[j]) * el1
        total += pos[j] * el + neg[j] * el1 - kl
    for i in range(log_u.size):
        hi = max(log_u[i], log_w[i])
        total -= hi + math.log(math.exp(log_u[i] - hi) + math.exp(log_w[i] - hi))
    return total
