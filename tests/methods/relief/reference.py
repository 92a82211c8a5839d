"""Brute-force ReliefF and MultiSURF written out from the papers' definitions with plain Python
loops (independent of :mod:`fsengine.methods.relief`), for tiny data.

ReliefF (I. Kononenko, "Estimating attributes: analysis and extensions of RELIEF", ECML 1994;
M. Robnik-Sikonja & I. Kononenko, Machine Learning 53 (2003) 23-69, Fig. 3): for each instance
R_i, its k nearest hits H_j and, for each other class C, its k nearest misses M_j(C);

    W[A] += -sum_j diff(A, R_i, H_j) / k + sum_{C != class(R_i)} P(C) / (1 - P(class(R_i)))
            * sum_j diff(A, R_i, M_j(C)) / k,

divided by the number of instances m at the end. diff(A, I1, I2) is 0 / 1 for a discrete
feature (equal / different values) and |a1 - a2| / (max A - min A) for a continuous one; the
distance between instances is the sum of the diffs over all features (Manhattan).

MultiSURF (R. J. Urbanowicz et al., J. Biomed. Inform. 85 (2018) 168-188): the neighbours of R_i
are the instances closer than T_i = mean_i - sd_i / 2, the mean and (population) standard
deviation of R_i's distances to the n - 1 other instances; hits and misses among them are
averaged separately (divided by their counts h_i and m_i).

Options reproduce a peer's conventions exactly where the peer differs (``tests/methods/relief/
test_skrebate.py`` shows each difference): the order in which equidistant neighbours are taken,
the weighting of the miss classes, skrebate's distance and diff for mixed data and its ReliefF
taking the instance itself as a hit when it has fewer than k others.
"""

from __future__ import annotations

import numpy as np


def feature_kinds(X, threshold=10):
    """True for a discrete feature: at most ``threshold`` distinct values (skrebate's and
    fast-select's rule)."""
    return [len(set(X[:, f].tolist())) <= threshold for f in range(X.shape[1])]


def diff(a, b, discrete, value_range, *, ramp_sd=None):
    """Kononenko's diff of one feature. ``ramp_sd``: skrebate's ramp for continuous features of
    mixed data (1 when |a - b| exceeds the feature's standard deviation)."""
    if discrete:
        return 0.0 if a == b else 1.0
    if value_range == 0:
        return 0.0
    if ramp_sd is not None and abs(a - b) > ramp_sd:
        return 1.0
    return abs(a - b) / value_range


def _setup(X, threshold):
    X = np.asarray(X, dtype=float)
    kinds = feature_kinds(X, threshold)
    ranges = [float(X[:, f].max() - X[:, f].min()) for f in range(X.shape[1])]
    return X, kinds, ranges


def distance(X, i, j, kinds, ranges, *, discrete_weight=1.0):
    """Sum of the diffs over the features (``discrete_weight`` scales discrete mismatches)."""
    total = 0.0
    for f in range(X.shape[1]):
        d = diff(X[i, f], X[j, f], kinds[f], ranges[f])
        total += discrete_weight * d if kinds[f] else d
    return total


def _is_hit(y, i, j, task, bound):
    return y[i] == y[j] if task == "classification" else abs(y[i] - y[j]) < bound


def _miss_group(y, j, task):
    return y[j] if task == "classification" else "miss"


def _class_weights(y, i, groups, task, present):
    """Kononenko's weight P(C) / (1 - P(class(R_i))) of each miss class in the update of instance i
    (1 for the one miss group of a real target)."""
    if task != "classification":
        return {g: 1.0 for g in groups}
    n = len(y)
    prior = {c: sum(1 for v in y if v == c) / n for c in set(y.tolist())}
    w = {g: prior[g] / (1.0 - prior[y[i]]) for g in groups}
    if present is not None:  # MultiSURF: renormalised over the classes with a miss inside
        total = sum(w[g] for g in present)
        w = {g: w[g] / total for g in present}
    return w


def _update(X, y, i, hits, misses, kinds, ranges, task, weighting, *, n_miss_classes, ramp=None,
            renormalise):
    """One instance's contribution: ``hits`` and ``misses`` map neighbour -> weight within its
    set (1 for a full neighbour, a share for a tied one); misses are grouped by class."""
    p = X.shape[1]

    def d(j, f):
        return diff(X[i, f], X[j, f], kinds[f], ranges[f], ramp_sd=None if ramp is None else ramp[f])

    u = np.zeros(p)
    h_total = sum(hits.values())
    if h_total > 0:
        for j, w in hits.items():
            for f in range(p):
                u[f] -= w * d(j, f) / h_total
    groups = {}
    for j, w in misses.items():
        groups.setdefault(_miss_group(y, j, task), {})[j] = w
    if not groups:
        return u
    if weighting == "skrebate" and task == "classification":
        # skrebate 0.8.4 scoring_utils.compute_score: sum_c diffsum_c * (cnt_c / m) * L / m
        m = sum(sum(g.values()) for g in groups.values())
        for members in groups.values():
            cnt = sum(members.values())
            for j, w in members.items():
                for f in range(p):
                    u[f] += w * d(j, f) * (cnt / m) * n_miss_classes / m
        return u
    cw = _class_weights(y, i, list(groups), task, list(groups) if renormalise else None)
    for g, members in groups.items():
        total = sum(members.values())
        for j, w in members.items():
            for f in range(p):
                u[f] += cw[g] * w * d(j, f) / total
    return u


def _conventions(X, kinds, conventions):
    """skrebate's distance and diff for mixed data (discrete mismatches weighted p / d in the
    distance, the ramp on continuous diffs); the papers' otherwise. (``conventions="skrebate"``
    also makes ReliefF count the instance as its own hit when it has fewer than k others.)"""
    mixed = any(kinds) and not all(kinds)
    if conventions == "skrebate" and mixed:
        return X.shape[1] / sum(kinds), [float(np.std(X[:, f])) for f in range(X.shape[1])]
    return 1.0, None


def relieff(X, y, k, *, threshold=10, task="classification", ties="share", weighting="prior",
            conventions="paper", instances=None):
    """ReliefF scores, brute force.

    ties: "share" (the equidistant candidates at the k-th distance share the remaining places
    equally), "index" (lower row index first) or a function ``order(distances) -> candidates in
    order`` (the distances hold ``sys.maxsize`` for the instance itself, as skrebate's do).
    """
    import sys

    X, kinds, ranges = _setup(X, threshold)
    y = np.asarray(y)
    n = X.shape[0]
    bound = float(np.std(y, ddof=1)) if task == "regression" else None
    dw, ramp = _conventions(X, kinds, conventions)
    classes = sorted(set(y.tolist())) if task == "classification" else None
    rows = range(n) if instances is None else instances
    total = np.zeros(X.shape[1])
    for i in rows:
        dist = [distance(X, i, j, kinds, ranges, discrete_weight=dw) if j != i else float(sys.maxsize)
                for j in range(n)]
        # candidate sets: hits, and misses per class (one miss set for a real target)
        sets = {}
        for j in range(n):
            if j == i:
                continue
            key = "hit" if _is_hit(y, i, j, task, bound) else _miss_group(y, j, task)
            sets.setdefault(key, []).append(j)
        chosen = {}
        for key, members in sets.items():
            if callable(ties) or ties == "index":
                order = ties(np.array(dist)) if callable(ties) else np.argsort(np.array(dist), kind="stable")
                picked = [j for j in order if j in set(members)][:k]
                chosen[key] = {j: 1.0 for j in picked}
            else:
                ds = sorted(dist[j] for j in members)
                if len(ds) <= k:
                    chosen[key] = {j: 1.0 for j in members}
                    continue
                dk = ds[k - 1]
                closer = [j for j in members if dist[j] < dk]
                tied = [j for j in members if dist[j] == dk]
                share = (k - len(closer)) / len(tied)
                chosen[key] = {**{j: 1.0 for j in closer}, **{j: share for j in tied}}
        hits = chosen.pop("hit", {})
        if conventions == "skrebate" and len(hits) < k:
            hits[i] = 1.0  # skrebate: short of k hits, the instance itself is taken as one (diff 0)
        misses = {j: w for members in chosen.values() for j, w in members.items()}
        total += _update(X, y, i, hits, misses, kinds, ranges, task, weighting,
                         n_miss_classes=len(classes) - 1 if classes else 1, ramp=ramp, renormalise=False)
    return total / len(rows)


def multisurf(X, y, *, threshold=10, task="classification", weighting="prior", conventions="paper",
              instances=None):
    """MultiSURF scores, brute force (neighbours strictly closer than mean - sd / 2)."""
    X, kinds, ranges = _setup(X, threshold)
    y = np.asarray(y)
    n = X.shape[0]
    bound = float(np.std(y, ddof=1)) if task == "regression" else None
    dw, ramp = _conventions(X, kinds, conventions)
    classes = sorted(set(y.tolist())) if task == "classification" else None
    rows = range(n) if instances is None else instances
    total = np.zeros(X.shape[1])
    for i in rows:
        others = [j for j in range(n) if j != i]
        dist = {j: distance(X, i, j, kinds, ranges, discrete_weight=dw) for j in others}
        values = np.array([dist[j] for j in others])
        threshold_i = values.mean() - values.std() / 2
        near = [j for j in others if dist[j] < threshold_i]
        hits = {j: 1.0 for j in near if _is_hit(y, i, j, task, bound)}
        misses = {j: 1.0 for j in near if not _is_hit(y, i, j, task, bound)}
        total += _update(X, y, i, hits, misses, kinds, ranges, task, weighting,
                         n_miss_classes=len(classes) - 1 if classes else 1, ramp=ramp, renormalise=True)
    return total / len(rows)
