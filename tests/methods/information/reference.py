"""Independent references for the information-theoretic family: entropies counted with
``collections.Counter`` over row tuples (no fsengine kernel, no count tables), every mutual
information written as a sum of entropies, and every member's greedy selection recomputed from its
published definition at every step (no running sums, nothing incremental).

Definitions (Brown, Pocock, Zhao & Luján, JMLR 13 (2012), Table 1 and Eq. 14-20; Yu & Liu, ICML
2003, Fig. 2):

    MIM    I(X_k; Y)
    MIFS   I(X_k; Y) - beta sum_j I(X_k; X_j)
    mRMR   I(X_k; Y) - (1/|S|) sum_j I(X_k; X_j)
    JMI    sum_j I(X_k X_j; Y)                        (reported as the family does: see ``jmi_bracket``)
    CIFE   I(X_k; Y) - sum_j I(X_k; X_j) + sum_j I(X_k; X_j | Y)
    CMIM   min_j I(X_k; Y | X_j)
    ICAP   I(X_k; Y) - sum_j max(0, I(X_k; X_j) - I(X_k; X_j | Y))
    DISR   sum_j I(X_k X_j; Y) / H(X_k X_j Y)
    FCBF   predominant features by symmetrical uncertainty
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np


def entropy(*columns) -> float:
    """H of the joint variable of ``columns`` (nats), by counting row tuples."""
    rows = list(zip(*(np.asarray(c).tolist() for c in columns)))
    n = len(rows)
    return -sum((c / n) * math.log(c / n) for c in Counter(rows).values())


def mi(a, b) -> float:
    return entropy(a) + entropy(b) - entropy(a, b)


def cmi(a, b, y) -> float:
    """I(A; B | Y) = H(A, Y) + H(B, Y) - H(A, B, Y) - H(Y)."""
    return entropy(a, y) + entropy(b, y) - entropy(a, b, y) - entropy(y)


def joint_mi(a, b, y) -> float:
    """I(A B; Y) = H(A, B) + H(Y) - H(A, B, Y)."""
    return entropy(a, b) + entropy(y) - entropy(a, b, y)


def conditional_relevance(a, y, b) -> float:
    """I(A; Y | B) = H(A, B) + H(Y, B) - H(A, Y, B) - H(B)."""
    return entropy(a, b) + entropy(y, b) - entropy(a, y, b) - entropy(b)


def su(a, b) -> float:
    """Symmetrical uncertainty 2 I(A; B) / (H(A) + H(B))."""
    total = entropy(a) + entropy(b)
    return 2.0 * mi(a, b) / total if total > 0 else 0.0


def criterion(member: str, F, y, k: int, S: list[int], beta: float = 0.5, gamma: float = 0.0) -> float:
    """J of feature k given the selected S, from the definition (F: (p, n) states)."""
    x = F[k]
    if not S:
        return mi(x, y)
    if member == "mim":
        return mi(x, y)
    if member == "mifs":
        return mi(x, y) - beta * sum(mi(x, F[j]) for j in S)
    if member == "mrmr":
        return mi(x, y) - sum(mi(x, F[j]) for j in S) / len(S)
    if member == "jmi":
        return sum(joint_mi(x, F[j], y) for j in S)
    if member == "cife":
        return mi(x, y) - sum(mi(x, F[j]) for j in S) + sum(cmi(x, F[j], y) for j in S)
    if member == "linear":
        return mi(x, y) - beta * sum(mi(x, F[j]) for j in S) + gamma * sum(cmi(x, F[j], y) for j in S)
    if member == "cmim":
        return min(conditional_relevance(x, y, F[j]) for j in S)
    if member == "icap":
        return mi(x, y) - sum(max(0.0, mi(x, F[j]) - cmi(x, F[j], y)) for j in S)
    if member == "disr":
        return sum(joint_mi(x, F[j], y) / entropy(x, F[j], y) for j in S)
    raise ValueError(member)


def jmi_bracket(F, y, k: int, S: list[int]) -> float:
    """What the family reports for JMI: (1/|S|) [sum_j I(X_k X_j; Y) - sum_j I(X_j; Y)], the same
    argmax as the definition (the subtracted sum does not depend on k)."""
    if not S:
        return mi(F[k], y)
    return (criterion("jmi", F, y, k, S) - sum(mi(F[j], y) for j in S)) / len(S)


def greedy(member: str, F, y, m: int, **params) -> tuple[list[int], list[float]]:
    """Greedy forward selection by the definition, every J recomputed from scratch each step; ties
    to the lower index (strict >)."""
    S: list[int] = []
    values: list[float] = []
    for _ in range(min(m, len(F))):
        best, best_j = -math.inf, -1
        for k in range(len(F)):
            if k in S:
                continue
            J = criterion(member, F, y, k, S, **params)
            if J > best:
                best, best_j = J, k
        values.append(jmi_bracket(F, y, best_j, S) if member == "jmi" else best)
        S.append(best_j)
    return S, values


def fcbf(F, y, delta: float = 0.0, sequence=None) -> list[int]:
    """Yu & Liu (2003), Fig. 2, line by line: S'_list = features with SU(X, C) > delta in
    descending SU (ties: lower index), or in ``sequence`` when given; F_p = first element; for each
    F_q after it: if SU(p, q) >= SU(q, c) remove F_q; F_p = next element after F_p."""
    su_c = [su(f, y) for f in F]
    if sequence is None:
        listed = sorted((j for j in range(len(F)) if su_c[j] > delta), key=lambda j: (-su_c[j], j))
    else:
        listed = [j for j in sequence if su_c[j] > delta]
    position = 0
    while position < len(listed):
        p = listed[position]
        listed = listed[:position + 1] + [q for q in listed[position + 1:] if su(F[p], F[q]) < su_c[q]]
        position += 1
    return listed
