"""Count kernels of the information-theoretic family: every mutual information the members use,
from the count tables of discretised features (:class:`~fsengine.methods.information.discretise.States`).

Plug-in estimates in nats from the counts N of n rows (Cover & Thomas, ch. 2):

    I(A; B)     = sum_{a,b}   N_ab/n  log(N_ab n / (N_a N_b))
    I(A; B | Y) = sum_{a,b,y} N_aby/n log(N_aby N_y / (N_ay N_by))
    I(AB; Y)    = sum_{a,b,y} N_aby/n log(N_aby n / (N_ab N_y))
    H(ABY)      = -sum_{a,b,y} N_aby/n log(N_aby / n)

:func:`pair_terms` is the one kernel a greedy step runs: the table N_{x_k, x_s, y} of every
candidate k against the feature s selected last and the class, built from s's class totals and
k's exceptions only (the rows where k leaves its most frequent state), O(exceptions of k + K^2 C)
per candidate. The selection adds its terms to running sums (:mod:`fsengine.methods.information.model`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: what :func:`pair_terms` computes besides I(X_k; X_s): bit flags
NEED_CONDITIONAL = 1  # I(X_k; X_s | Y)
NEED_JOINT = 2        # I(X_k X_s; Y) and H(X_k X_s Y)


@njit(cache=True)
def _mi_from_joint(joint, n):
    """Mutual information (nats) of a table of joint counts summing to n."""
    a, b = joint.shape
    row = np.zeros(a)
    col = np.zeros(b)
    for i in range(a):
        for k in range(b):
            row[i] += joint[i, k]
            col[k] += joint[i, k]
    mi = 0.0
    for i in range(a):
        for k in range(b):
            c = joint[i, k]
            if c > 0.0:
                mi += (c / n) * np.log(c * n / (row[i] * col[k]))
    return max(mi, 0.0)


@njit(cache=True)
def label_terms(default, indptr, rows, values, n_states, codes, n_classes):
    """(p,) I(X_k; Y) of every feature: the table N_{x_k, y} from the class totals and k's exceptions."""
    p = default.size
    n = codes.size
    totals = np.zeros(n_classes)
    for t in range(n):
        totals[codes[t]] += 1.0
    out = np.empty(p)
    joint = np.zeros((n_states, n_classes))
    for k in range(p):
        joint[:, :] = 0.0
        joint[default[k], :] = totals
        for e in range(indptr[k], indptr[k + 1]):
            c = codes[rows[e]]
            joint[default[k], c] -= 1.0
            joint[values[e], c] += 1.0
        out[k] = _mi_from_joint(joint, n)
    return out


@njit(cache=True)
def pair_terms(default, indptr, rows, values, n_states, codes, n_classes, s_states, candidates, need,
               mi, cmi, joint_mi, joint_h):
    """For every k in ``candidates``, from the table N_{x_k, x_s, y} against the feature s whose
    (n,) states are ``s_states``: ``mi[i]`` = I(X_k; X_s); with ``need & NEED_CONDITIONAL``
    ``cmi[i]`` = I(X_k; X_s | Y); with ``need & NEED_JOINT`` ``joint_mi[i]`` = I(X_k X_s; Y) and
    ``joint_h[i]`` = H(X_k X_s Y) (i the candidate's position; arrays not asked for are left alone).
    With ``need == 0`` only the K x K table N_{x_k, x_s} is counted."""
    n = codes.size
    K = n_states
    C = n_classes
    KC = K * C
    cell_of = np.empty(n, dtype=np.int64)   # the (x_s, y) cell of each row, a * C + c
    base = np.zeros(KC)                     # N_{x_s, y}
    s_count = np.zeros(K)                   # N_{x_s}
    class_n = np.zeros(C)                   # N_y
    for t in range(n):
        cell_of[t] = s_states[t] * C + codes[t]
        base[cell_of[t]] += 1.0
        s_count[s_states[t]] += 1.0
        class_n[codes[t]] += 1.0
    ab = np.zeros((K, K))
    table = np.zeros((K, KC))
    k_given_y = np.zeros((K, C))
    for i in range(candidates.size):
        k = candidates[i]
        z = default[k]
        lo, hi = indptr[k], indptr[k + 1]
        if need == 0:
            ab[:, :] = 0.0
            ab[z, :] = s_count
            for e in range(lo, hi):
                a = s_states[rows[e]]
                ab[z, a] -= 1.0
                ab[values[e], a] += 1.0
            mi[i] = _mi_from_joint(ab, n)
            continue
        table[:, :] = 0.0
        table[z, :] = base
        for e in range(lo, hi):
            cell = cell_of[rows[e]]
            table[z, cell] -= 1.0
            table[values[e], cell] += 1.0
        k_given_y[:, :] = 0.0
        for b in range(K):
            for a in range(K):
                total = 0.0
                for c in range(C):
                    total += table[b, a * C + c]
                    k_given_y[b, c] += table[b, a * C + c]
                ab[b, a] = total
        mi[i] = _mi_from_joint(ab, n)
        if need & NEED_CONDITIONAL:
            value = 0.0
            for b in range(K):
                for a in range(K):
                    for c in range(C):
                        cell = table[b, a * C + c]
                        if cell > 0.0:
                            value += (cell / n) * np.log(cell * class_n[c] / (k_given_y[b, c] * base[a * C + c]))
            cmi[i] = max(value, 0.0)
        if need & NEED_JOINT:
            value = 0.0
            h = 0.0
            for b in range(K):
                for a in range(K):
                    for c in range(C):
                        cell = table[b, a * C + c]
                        if cell > 0.0:
                            value += (cell / n) * np.log(cell * n / (ab[b, a] * class_n[c]))
                            h -= (cell / n) * np.log(cell / n)
            joint_mi[i] = max(value, 0.0)
            joint_h[i] = h
