"""numba kernels of the Relief family, on plain arrays: the distances of a block of instances to
all n instances, each instance's neighbour weights (ReliefF's k nearest, MultiSURF's threshold)
and each instance's update of the feature weights.

Every kernel works on one block of ``b`` instances (``rows``) at a time, so memory is a few
``(b, n)`` and ``(b, p)`` arrays, never ``(n, n)`` (except MultiSURF's pairwise pass, on the whole
distance matrix when it fits ``model.PAIRWISE_BYTES``). Results do not depend on the number of threads:
each output element is computed by one thread in a fixed order. Where the work per element is
the same whatever thread computes it (a distance, one instance's buffers or update), the parallel
loops split it into ``parts`` contiguous ranges of about equal cost (:func:`balanced_bounds`; the
caller passes ``numba.get_num_threads()``: the pairs of an upper triangle are not spread evenly over
its columns, and numba's own split of a ``prange`` is into equal counts); where partial sums are
added (:func:`multisurf_pair_updates`), the split is a fixed number of tasks, whatever the threads.

Features arrive prepared by :mod:`fsengine.methods.relief.model`: continuous values divided by
their range (so that ``|a - b|`` is Kononenko's diff) and two-valued features coded 0 / 1 in the
"continuous" block ``Xc`` of dense data, features with 3 or more discrete values in ``Xd``
(compared by equality); sparse data keeps its CSR / CSC arrays with a per-feature ``discrete``
flag.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: fastmath flags that let LLVM vectorise the sums (reassociation); no assumptions on NaN / inf
_FAST = {"reassoc", "contract", "arcp", "nsz"}
#: columns of the distance block handled by one parallel task
_COLUMN_CHUNK = 64
#: fixed chunks of rows for the sparse updates (independent of the number of threads)
_ROW_CHUNKS = 16
#: fixed tasks of rows whose partial sums :func:`multisurf_pair_updates` adds (independent of the threads)
PAIR_TASKS = 16


@njit(cache=True)
def balanced_bounds(cost, parts):
    """``bounds`` (parts + 1,): task t belongs to range q when bounds[q] <= t < bounds[q + 1]; the
    ranges are contiguous and their summed ``cost`` about equal (a task goes to the range where its
    midpoint falls)."""
    total = 0.0
    for t in range(cost.size):
        total += cost[t]
    bounds = np.empty(parts + 1, dtype=np.int64)
    bounds[0] = 0
    done = 0.0
    t = 0
    for q in range(1, parts):
        target = total * q / parts
        while t < cost.size and done + cost[t] / 2.0 < target:
            done += cost[t]
            t += 1
        bounds[q] = t
    bounds[parts] = cost.size
    return bounds


# ---------------------------------------------------------------------------------- preparation

@njit(cache=True, parallel=True)
def capped_distinct_counts(X, cap, out):
    """``out[f] = min(number of distinct values of X[:, f], cap)``: the rows scanned in order, at most
    ``cap`` values kept per column (a column stops being compared once it has ``cap``)."""
    n, p = X.shape
    n_chunks = (p + _COLUMN_CHUNK - 1) // _COLUMN_CHUNK
    for c in prange(n_chunks):
        f0 = c * _COLUMN_CHUNK
        f1 = min(p, f0 + _COLUMN_CHUNK)
        seen = np.empty((f1 - f0, max(cap, 1)))
        count = np.zeros(f1 - f0, dtype=np.int64)
        for i in range(n):
            for f in range(f0, f1):
                k = count[f - f0]
                if k >= cap:
                    continue
                v = X[i, f]
                new = True
                for q in range(k):
                    if seen[f - f0, q] == v:
                        new = False
                        break
                if new:
                    seen[f - f0, k] = v
                    count[f - f0] = k + 1
        out[f0:f1] = count


@njit(cache=True, parallel=True)
def code_columns(X, continuous, scale, two, top, out):
    """The rows of ``Xc``: ``out[i, q] = X[i, continuous[q]] * scale[q]`` for the continuous columns,
    then ``1`` where ``X[i, two[q]] == top[q]`` (else 0) for the two-valued ones."""
    n = X.shape[0]
    pc = continuous.size
    for i in prange(n):
        for q in range(pc):
            out[i, q] = X[i, continuous[q]] * scale[q]
        for q in range(two.size):
            out[i, pc + q] = 1.0 if X[i, two[q]] == top[q] else 0.0


# ------------------------------------------------------------------------------------ distances

@njit(cache=True, fastmath=_FAST)
def _distance_four_two(Xc, Xd, i0, i1, i2, i3, j, first, out, r):
    """Distances of instances i0..i3 (rows r..r+3 of ``out``) to instances j and j + 1: each loaded
    value serves several sums (the register block that makes the loop compute-bound)."""
    a0, a1, a2, a3 = Xc[i0], Xc[i1], Xc[i2], Xc[i3]
    b, e = Xc[j], Xc[j + 1]
    s0 = s1 = s2 = s3 = t0 = t1 = t2 = t3 = 0.0
    for f in range(b.size):
        v = b[f]
        w = e[f]
        x0, x1, x2, x3 = a0[f], a1[f], a2[f], a3[f]
        s0 += abs(x0 - v)
        s1 += abs(x1 - v)
        s2 += abs(x2 - v)
        s3 += abs(x3 - v)
        t0 += abs(x0 - w)
        t1 += abs(x1 - w)
        t2 += abs(x2 - w)
        t3 += abs(x3 - w)
    c0, c1, c2, c3 = Xd[i0], Xd[i1], Xd[i2], Xd[i3]
    b, e = Xd[j], Xd[j + 1]
    for f in range(b.size):
        v = b[f]
        w = e[f]
        x0, x1, x2, x3 = c0[f], c1[f], c2[f], c3[f]
        s0 += 1.0 if x0 != v else 0.0
        s1 += 1.0 if x1 != v else 0.0
        s2 += 1.0 if x2 != v else 0.0
        s3 += 1.0 if x3 != v else 0.0
        t0 += 1.0 if x0 != w else 0.0
        t1 += 1.0 if x1 != w else 0.0
        t2 += 1.0 if x2 != w else 0.0
        t3 += 1.0 if x3 != w else 0.0
    col = j - first
    out[r, col], out[r + 1, col], out[r + 2, col], out[r + 3, col] = s0, s1, s2, s3
    out[r, col + 1], out[r + 1, col + 1], out[r + 2, col + 1], out[r + 3, col + 1] = t0, t1, t2, t3


@njit(cache=True, fastmath=_FAST)
def _distance_one(Xc, Xd, i, j, first, out, r):
    a, b = Xc[i], Xc[j]
    s = 0.0
    for f in range(b.size):
        s += abs(a[f] - b[f])
    c, e = Xd[i], Xd[j]
    for f in range(e.size):
        s += 1.0 if c[f] != e[f] else 0.0
    out[r, j - first] = s


@njit(cache=True, fastmath=_FAST)
def _distance_chunk(Xc, Xd, rows, first, upper, out, j0, j1):
    """The columns j0 <= j < j1 of :func:`dense_distances`, four rows by two columns at a time."""
    b = rows.size
    r = 0
    while r + 4 <= b:
        j = max(j0, rows[r]) if upper else j0
        while j + 2 <= j1:
            _distance_four_two(Xc, Xd, rows[r], rows[r + 1], rows[r + 2], rows[r + 3], j, first, out, r)
            j += 2
        if j < j1:
            for q in range(4):
                _distance_one(Xc, Xd, rows[r + q], j, first, out, r + q)
        r += 4
    while r < b:
        for j in range(max(j0, rows[r]) if upper else j0, j1):
            _distance_one(Xc, Xd, rows[r], j, first, out, r)
        r += 1


@njit(cache=True, fastmath=_FAST, parallel=True)
def dense_distances(Xc, Xd, rows, first, upper, out, parts):
    """``out[r, j - first] = sum_f |Xc[i, f] - Xc[j, f]| + #{f : Xd[i, f] != Xd[j, f]}`` for i = rows[r]
    and every instance j >= first (Kononenko's distance: the sum of the diffs of all features).
    ``upper`` (rows ascending): only j >= i is needed, each group of four rows starts at its first
    row's column (the entries left of it are not written)."""
    n = Xc.shape[0]
    b = rows.size
    n_chunks = (n - first + _COLUMN_CHUNK - 1) // _COLUMN_CHUNK
    cost = np.empty(n_chunks)
    for c in range(n_chunks):
        j0 = first + c * _COLUMN_CHUNK
        j1 = min(n, j0 + _COLUMN_CHUNK)
        cost[c] = 0.0
        for r in range(b):
            cost[c] += max(0, j1 - (max(j0, rows[r]) if upper else j0))
    bounds = balanced_bounds(cost, parts)
    for part in prange(bounds.size - 1):
        for c in range(bounds[part], bounds[part + 1]):
            _distance_chunk(Xc, Xd, rows, first, upper, out, first + c * _COLUMN_CHUNK,
                            min(n, first + (c + 1) * _COLUMN_CHUNK))


@njit(cache=True)
def _diff(a, b, discrete):
    """Kononenko's diff of two prepared values: equal / different for a discrete feature, ``|a - b|``
    (values already divided by the range) for a continuous one."""
    if discrete:
        return 1.0 if a != b else 0.0
    return abs(a - b)


@njit(cache=True)
def sparse_base(indptr, indices, data, discrete):
    """``base[i] = sum_{f in S_i} diff_f(x_if, 0)``: the distance of instance i to the all-zero row
    (S_i: its stored entries)."""
    n = indptr.size - 1
    base = np.zeros(n)
    for i in range(n):
        s = 0.0
        for t in range(indptr[i], indptr[i + 1]):
            s += _diff(data[t], 0.0, discrete[indices[t]])
        base[i] = s
    return base


@njit(cache=True)
def _first_at_least(col_rows, lo, hi, first):
    """The first position in the sorted ``col_rows[lo:hi]`` holding a row >= first."""
    while lo < hi:
        mid = (lo + hi) // 2
        if col_rows[mid] < first:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, parallel=True)
def sparse_distances(indptr, indices, data, col_ptr, col_rows, col_vals, discrete, base, rows, first, upper, out):
    """Distances of sparse instances to the instances j >= first (``out[r, j - first]``) without
    densifying: a feature where both rows are zero adds nothing, so

        d(i, j) = base[i] + base[j] - sum_{f in S_i and S_j} [diff_f(x_if, 0) + diff_f(0, x_jf) - diff_f(x_if, x_jf)],

    the correction found by walking, for each stored entry (i, f), the rows j >= first of column f
    (CSC, rows sorted). Cost: sum over f of (column count)^2 for all pairs, instead of n^2 p.
    ``upper``: only the instances j > i (the entries left of them are not written)."""
    n = base.size
    b = rows.size
    for r in prange(b):
        i = rows[r]
        lo = max(first, i + 1) if upper else first
        bi = base[i]
        for j in range(lo, n):
            out[r, j - first] = bi + base[j]
        for t in range(indptr[i], indptr[i + 1]):
            f = indices[t]
            a = data[t]
            disc = discrete[f]
            a0 = _diff(a, 0.0, disc)
            for u in range(_first_at_least(col_rows, col_ptr[f], col_ptr[f + 1], lo), col_ptr[f + 1]):
                v = col_vals[u]
                out[r, col_rows[u] - first] -= a0 + _diff(0.0, v, disc) - _diff(a, v, disc)
        if lo <= i < n:
            out[r, i - first] = 0.0


# ---------------------------------------------------------------------------- neighbour weights

@njit(cache=True)
def _insert(buf, s, count, d):
    """Insert distance d into the sorted first ``count`` entries of ``buf[s]`` (length k; when full,
    the largest falls off)."""
    k = buf.shape[1]
    pos = count if count < k else k - 1
    while pos > 0 and buf[s, pos - 1] > d:
        buf[s, pos] = buf[s, pos - 1]
        pos -= 1
    buf[s, pos] = d


@njit(cache=True)
def _neighbour_sets(y, bound, group, n_groups, i):
    """The set every instance j belongs to as a neighbour of instance i: ``n_groups`` for a hit
    (|y_i - y_j| < bound), else the miss group of j (its class; 0 for a real target); -1 for i."""
    n = y.size
    sets = np.empty(n, dtype=np.int64)
    yi = y[i]
    for j in range(n):
        sets[j] = n_groups if abs(y[j] - yi) < bound else group[j]
    sets[i] = -1
    return sets


@njit(cache=True)
def _set_factors(count, eff, class_weight, own, n_groups):
    """Per set: the factor of a full neighbour in the instance's update. Hits: -1 / eff (the
    mean over the hits). Miss group g: w_g / (sum of w over the groups present) / eff_g, with
    w_g = class_weight[own, g] (Kononenko's P(g) / (1 - P(own)); 1 for a real target)."""
    factor = np.zeros(n_groups + 1)
    total = 0.0
    for g in range(n_groups):
        if count[g] > 0:
            total += class_weight[own, g]
    for g in range(n_groups):
        if count[g] > 0:
            factor[g] = class_weight[own, g] / total / eff[g]
    if count[n_groups] > 0:
        factor[n_groups] = -1.0 / eff[n_groups]
    return factor


@njit(cache=True, parallel=True)
def relieff_weights(dist, rows, y, bound, group, n_groups, class_weight, k, out, tied):
    """ReliefF's neighbours (Kononenko 1994) as weights ``out[r, j]``: instance i = rows[r] takes its k
    nearest hits and its k nearest misses of every miss group (all of a set that has k or fewer).

    Equidistant candidates at the k-th distance share the places left: with a candidates strictly
    closer and t at the k-th distance, each of the t counts (k - a) / t. This is the average of
    "take the lower row index first" over every order of the rows, so the weights do not depend
    on how the rows are ordered. ``tied[r]`` is set when a share was split (t > k - a).
    """
    b, n = dist.shape
    n_sets = n_groups + 1
    for r in prange(b):
        i = rows[r]
        own = group[i]
        sets = _neighbour_sets(y, bound, group, n_groups, i)
        buf = np.empty((n_sets, k))
        count = np.zeros(n_sets, dtype=np.int64)
        for j in range(n):
            s = sets[j]
            if s >= 0:
                d = dist[r, j]
                if count[s] < k or d < buf[s, k - 1]:
                    _insert(buf, s, count[s], d)
                count[s] += 1
        kth = np.full(n_sets, np.inf)
        for s in range(n_sets):
            if count[s] > k:
                kth[s] = buf[s, k - 1]
        closer = np.zeros(n_sets)
        at = np.zeros(n_sets)
        for j in range(n):
            s = sets[j]
            if s >= 0:
                d = dist[r, j]
                if d < kth[s]:
                    closer[s] += 1.0
                elif d == kth[s]:
                    at[s] += 1.0
        share = np.ones(n_sets)
        eff = np.empty(n_sets)
        split = False
        for s in range(n_sets):
            eff[s] = min(k, count[s])
            if at[s] > 0:
                share[s] = (k - closer[s]) / at[s]
                split = split or at[s] > k - closer[s]
        tied[r] = split
        factor = _set_factors(count, eff, class_weight, own, n_groups)
        for j in range(n):
            w = 0.0
            s = sets[j]
            if s >= 0:
                d = dist[r, j]
                if d < kth[s]:
                    w = factor[s]
                elif d == kth[s]:
                    w = factor[s] * share[s]
            out[r, j] = w


# ----------------------------------------------- ReliefF with each pair's distance computed once

@njit(cache=True)
def _insert_sorted(buf_d, buf_j, i, s, size, d, j):
    """Insert (d, j) into the sorted first ``size`` entries of instance i's buffer of set s (when
    the buffer is full, ``size`` is its capacity and the largest entry falls off)."""
    pos = min(size, buf_d.shape[2] - 1)
    while pos > 0 and buf_d[i, s, pos - 1] > d:
        buf_d[i, s, pos] = buf_d[i, s, pos - 1]
        buf_j[i, s, pos] = buf_j[i, s, pos - 1]
        pos -= 1
    buf_d[i, s, pos] = d
    buf_j[i, s, pos] = j


@njit(cache=True)
def _bars(buf_d, count, i):
    """The distance a candidate must beat to enter each of instance i's buffers (inf where the
    buffer is not full)."""
    capacity = buf_d.shape[2]
    bar = np.full(buf_d.shape[1], np.inf)
    for s in range(bar.size):
        if count[i, s] >= capacity:
            bar[s] = buf_d[i, s, capacity - 1]
    return bar


@njit(cache=True, parallel=True)
def offer_to_rows(dist, rows, first, y, bound, group, n_groups, buf_d, buf_j, count, parts):
    """Every instance j > rows[r] (``dist[r, j - first]``) offered to instance rows[r]'s buffers:
    ``buf_d[i, s]`` keeps the smallest distances offered to set s of instance i (sorted, their
    instances in ``buf_j``) and ``count[i, s]`` counts the offers."""
    b, width = dist.shape
    capacity = buf_d.shape[2]
    cost = np.empty(b)
    for r in range(b):
        cost[r] = max(0, width - (rows[r] + 1 - first))
    bounds = balanced_bounds(cost, parts)
    for part in prange(bounds.size - 1):
        for r in range(bounds[part], bounds[part + 1]):
            i = rows[r]
            bar = _bars(buf_d, count, i)
            seen = count[i].copy()
            yi = y[i]
            for c in range(i + 1 - first, width):
                j = first + c
                s = n_groups if abs(y[j] - yi) < bound else group[j]
                d = dist[r, c]
                offered = seen[s]
                seen[s] = offered + 1
                if d < bar[s]:
                    _insert_sorted(buf_d, buf_j, i, s, min(offered, capacity), d, j)
                    if offered + 1 >= capacity:
                        bar[s] = buf_d[i, s, capacity - 1]
            count[i] = seen


@njit(cache=True, parallel=True)
def offer_to_columns(dist, rows, first, y, bound, group, n_groups, buf_d, buf_j, count, parts):
    """The block's instances rows[r] < j offered to every instance j >= first (the other half of each
    pair whose distance the block computed), as :func:`offer_to_rows` does (rows ascending)."""
    # the offer (count, insert, move the bar) is written out here and in offer_to_rows on purpose: a
    # shared @njit helper for it made ReliefF 36% slower on notMNIST B vs D (0.241 against 0.177 s)
    b, width = dist.shape
    capacity = buf_d.shape[2]
    cost = np.empty(width)
    r = 0
    for col in range(width):
        while r < b and rows[r] < first + col:
            r += 1
        cost[col] = r
    bounds = balanced_bounds(cost, parts)
    for part in prange(bounds.size - 1):
        for col in range(max(1, bounds[part]), bounds[part + 1]):
            j = first + col
            bar = _bars(buf_d, count, j)
            seen = count[j].copy()
            yj = y[j]
            for r in range(b):
                i = rows[r]
                if i >= j:
                    break
                s = n_groups if abs(y[i] - yj) < bound else group[i]
                d = dist[r, col]
                offered = seen[s]
                seen[s] = offered + 1
                if d < bar[s]:
                    _insert_sorted(buf_d, buf_j, j, s, min(offered, capacity), d, i)
                    if offered + 1 >= capacity:
                        bar[s] = buf_d[j, s, capacity - 1]
            count[j] = seen


@njit(cache=True, parallel=True)
def buffer_weights(rows, buf_d, buf_j, count, k, group, class_weight, out, tied, overflow):
    """ReliefF's weights (as :func:`relieff_weights`, ties shared) from the buffers of the smallest
    distances. When a set's tie at the k-th distance may reach past the buffer (full, its last
    entry at the k-th distance), ``overflow[r]`` is set and the caller recomputes that instance."""
    b, n = out.shape
    n_sets = buf_d.shape[1]
    n_groups = n_sets - 1
    capacity = buf_d.shape[2]
    for r in prange(b):
        i = rows[r]
        out[r, :] = 0.0
        eff = np.empty(n_sets)
        kth = np.full(n_sets, np.inf)
        share = np.ones(n_sets)
        split = False
        overflow[r] = False
        for s in range(n_sets):
            c = count[i, s]
            eff[s] = min(k, c)
            if c > k:
                kth[s] = buf_d[i, s, k - 1]
                closer = 0.0
                at = 0.0
                for t in range(min(c, capacity)):
                    if buf_d[i, s, t] < kth[s]:
                        closer += 1.0
                    elif buf_d[i, s, t] == kth[s]:
                        at += 1.0
                share[s] = (k - closer) / at
                split = split or at > k - closer
                overflow[r] = overflow[r] or (c > capacity and buf_d[i, s, capacity - 1] == kth[s])
        tied[r] = split
        factor = _set_factors(count[i], eff, class_weight, group[i], n_groups)
        for s in range(n_sets):
            for t in range(min(count[i, s], capacity)):
                d = buf_d[i, s, t]
                if d < kth[s]:
                    out[r, buf_j[i, s, t]] = factor[s]
                elif d == kth[s]:
                    out[r, buf_j[i, s, t]] = factor[s] * share[s]


@njit(cache=True)
def _multisurf_neighbourhood(dist, r, i, y, bound, group, n_groups, class_weight):
    """Instance i's MultiSURF neighbourhood from its distances ``dist[r]`` to all n instances: the
    threshold T_i = mean_i - sd_i / 2 (mean and population standard deviation over the n - 1
    others), the number of neighbours d < T_i of every set and the factor of each set
    (:func:`_set_factors`: hits averaged, the misses of each group averaged and the groups weighted)."""
    n = dist.shape[1]
    m = n - 1
    total = 0.0
    for j in range(n):
        if j != i:
            total += dist[r, j]
    mean = total / m if m > 0 else 0.0
    spread = 0.0
    for j in range(n):
        if j != i:
            spread += (dist[r, j] - mean) ** 2
    t = mean - np.sqrt(spread / m) / 2.0 if m > 0 else -np.inf
    yi = y[i]
    count = np.zeros(n_groups + 1, dtype=np.int64)
    for j in range(n):
        if j != i and dist[r, j] < t:
            count[n_groups if abs(y[j] - yi) < bound else group[j]] += 1
    return t, count, _set_factors(count, count.astype(np.float64), class_weight, group[i], n_groups)


@njit(cache=True, parallel=True)
def multisurf_weights(dist, rows, y, bound, group, n_groups, class_weight, out, threshold, n_hits, n_misses):
    """MultiSURF's neighbours (Urbanowicz et al. 2018) as weights ``out[r, j]``: instance i = rows[r]
    takes every instance closer than T_i = mean_i - sd_i / 2, the mean and population standard
    deviation of its distances to the n - 1 others. Hits are averaged; the misses of each group
    are averaged and the groups weighted as in :func:`_set_factors`, over the groups with a miss
    inside T_i. Records T_i and the numbers of hits and misses."""
    b, n = dist.shape
    for r in prange(b):
        i = rows[r]
        t, count, factor = _multisurf_neighbourhood(dist, r, i, y, bound, group, n_groups, class_weight)
        sets = _neighbour_sets(y, bound, group, n_groups, i)
        for j in range(n):
            w = 0.0
            if sets[j] >= 0 and dist[r, j] < t:
                w = factor[sets[j]]
            out[r, j] = w
        threshold[r] = t
        n_hits[r] = count[n_groups]
        n_misses[r] = count[:n_groups].sum()


@njit(cache=True, parallel=True)
def multisurf_neighbourhoods(dist, y, bound, group, n_groups, class_weight, threshold, factor, n_hits, n_misses):
    """Every instance's MultiSURF neighbourhood (:func:`_multisurf_neighbourhood`) from the whole
    (n, n) distance matrix: ``threshold[i]`` = T_i, ``factor[i, s]`` the factor of set s (miss
    groups, then hits) and the numbers of hits and misses, as :func:`multisurf_weights` records them."""
    n = dist.shape[0]
    for i in prange(n):
        t, count, f = _multisurf_neighbourhood(dist, i, i, y, bound, group, n_groups, class_weight)
        threshold[i] = t
        factor[i, :] = f
        n_hits[i] = count[n_groups]
        n_misses[i] = count[:n_groups].sum()


@njit(cache=True, parallel=True)
def mirror_rows(full, start, stop, parts):
    """``full[j, i] = full[i, j]`` for start <= i < stop and every j > i (the lower triangle of those
    columns from the upper one), ``full[i, i] = 0``; rows of j in tiles of :data:`_COLUMN_CHUNK`."""
    n = full.shape[0]
    n_tiles = (n - start + _COLUMN_CHUNK - 1) // _COLUMN_CHUNK
    cost = np.empty(n_tiles)
    for c in range(n_tiles):
        j0 = start + c * _COLUMN_CHUNK
        cost[c] = (min(n, j0 + _COLUMN_CHUNK) - j0) * (min(stop, j0 + _COLUMN_CHUNK) - start)
    bounds = balanced_bounds(cost, parts)
    for part in prange(bounds.size - 1):
        for c in range(bounds[part], bounds[part + 1]):
            j0 = start + c * _COLUMN_CHUNK
            j1 = min(n, j0 + _COLUMN_CHUNK)
            for i in range(start, min(stop, j1)):
                for j in range(max(j0, i + 1), j1):
                    full[j, i] = full[i, j]
                if i >= j0:
                    full[i, i] = 0.0


# ------------------------------------------------------------------------------------ updates

@njit(cache=True)
def _pad(neighbours, coef, count):
    """Fill the three places after the ``count`` listed neighbours with the first one at
    coefficient 0, so that the update kernels take four at a time to the end."""
    for t in range(count, count + 3):
        neighbours[t] = neighbours[0]
        coef[t] = 0.0


@njit(cache=True, fastmath=_FAST)
def _dense_update(Xc, Xd, i, neighbours, coef, count, acc):
    """acc[f] += sum_t coef[t] diff_f(i, j_t) over the ``count`` listed neighbours j_t (padded by
    :func:`_pad`), four per pass over the features (a last one alone)."""
    pc = Xc.shape[1]
    a = Xc[i]
    c = Xd[i]
    if count % 4 == 1:
        j = neighbours[count - 1]
        w = coef[count - 1]
        bj = Xc[j]
        for f in range(pc):
            acc[f] += w * abs(a[f] - bj[f])
        ej = Xd[j]
        for f in range(c.size):
            acc[pc + f] += w if c[f] != ej[f] else 0.0
        count -= 1
    for t in range(0, count, 4):
        j0, j1, j2, j3 = neighbours[t], neighbours[t + 1], neighbours[t + 2], neighbours[t + 3]
        w0, w1, w2, w3 = coef[t], coef[t + 1], coef[t + 2], coef[t + 3]
        b0, b1, b2, b3 = Xc[j0], Xc[j1], Xc[j2], Xc[j3]
        for f in range(pc):
            x = a[f]
            acc[f] += w0 * abs(x - b0[f]) + w1 * abs(x - b1[f]) + w2 * abs(x - b2[f]) + w3 * abs(x - b3[f])
        e0, e1, e2, e3 = Xd[j0], Xd[j1], Xd[j2], Xd[j3]
        for f in range(c.size):
            x = c[f]
            acc[pc + f] += ((w0 if x != e0[f] else 0.0) + (w1 if x != e1[f] else 0.0)
                            + (w2 if x != e2[f] else 0.0) + (w3 if x != e3[f] else 0.0))


@njit(cache=True, fastmath=_FAST)
def _dense_update_both(Xc, Xd, i, neighbours, coef, coef_back, count, acc, acc_back):
    """:func:`_dense_update` of two sums from one evaluation of each diff: ``acc`` with ``coef``
    (instance i's weights of its neighbours) and ``acc_back`` with ``coef_back`` (the neighbours'
    weights of instance i)."""
    pc = Xc.shape[1]
    a = Xc[i]
    c = Xd[i]
    for t in range(0, count, 4):
        j0, j1, j2, j3 = neighbours[t], neighbours[t + 1], neighbours[t + 2], neighbours[t + 3]
        w0, w1, w2, w3 = coef[t], coef[t + 1], coef[t + 2], coef[t + 3]
        v0, v1, v2, v3 = coef_back[t], coef_back[t + 1], coef_back[t + 2], coef_back[t + 3]
        b0, b1, b2, b3 = Xc[j0], Xc[j1], Xc[j2], Xc[j3]
        for f in range(pc):
            x = a[f]
            d0, d1, d2, d3 = abs(x - b0[f]), abs(x - b1[f]), abs(x - b2[f]), abs(x - b3[f])
            acc[f] += w0 * d0 + w1 * d1 + w2 * d2 + w3 * d3
            acc_back[f] += v0 * d0 + v1 * d1 + v2 * d2 + v3 * d3
        e0, e1, e2, e3 = Xd[j0], Xd[j1], Xd[j2], Xd[j3]
        for f in range(c.size):
            x = c[f]
            d0, d1 = (1.0 if x != e0[f] else 0.0), (1.0 if x != e1[f] else 0.0)
            d2, d3 = (1.0 if x != e2[f] else 0.0), (1.0 if x != e3[f] else 0.0)
            acc[pc + f] += w0 * d0 + w1 * d1 + w2 * d2 + w3 * d3
            acc_back[pc + f] += v0 * d0 + v1 * d1 + v2 * d2 + v3 * d3


@njit(cache=True, parallel=True)
def dense_updates(Xc, Xd, rows, weights, out):
    """``out[r, f] = sum_j weights[r, j] diff_f(rows[r], j)``: each instance's update of the feature
    weights (features in the order of ``Xc`` then ``Xd``). The neighbours are walked in tiles of
    :data:`_COLUMN_CHUNK` rows of X, each tile serving every instance of a chunk of
    :data:`_COLUMN_CHUNK` rows while it is in cache (the chunk's updates stay in cache too)."""
    b, n = weights.shape
    n_chunks = (b + _COLUMN_CHUNK - 1) // _COLUMN_CHUNK
    for c in prange(n_chunks):
        r0 = c * _COLUMN_CHUNK
        r1 = min(b, r0 + _COLUMN_CHUNK)
        neighbours = np.empty(_COLUMN_CHUNK + 3, dtype=np.int64)
        coef = np.empty(_COLUMN_CHUNK + 3)
        for r in range(r0, r1):
            out[r, :] = 0.0
        for j0 in range(0, n, _COLUMN_CHUNK):
            j1 = min(n, j0 + _COLUMN_CHUNK)
            for r in range(r0, r1):
                count = 0
                for j in range(j0, j1):
                    if weights[r, j] != 0.0:
                        neighbours[count] = j
                        coef[count] = weights[r, j]
                        count += 1
                if count:
                    _pad(neighbours, coef, count)
                    _dense_update(Xc, Xd, rows[r], neighbours, coef, count, out[r])


@njit(cache=True, parallel=True)
def multisurf_pair_updates(Xc, Xd, dist, start, stop, y, bound, group, n_groups, threshold, factor, block_starts,
                           partial):
    """MultiSURF's updates with each pair's diffs evaluated once. The update of a block B of
    instances is U_B[f] = sum_{i in B} sum_j w_ij diff_f(i, j) with w_ij = factor[i, set of j] when
    d(i, j) < T_i (:func:`multisurf_neighbourhoods`), else 0. The pair {i, j} serves both terms: for
    the instances start <= i < stop (one block B, ``block_starts`` (n_blocks + 1,) the first instance of
    every block and n) and every j > i,

        partial[task, B] += (w_ij + w_ji) diff(i, j)                      (j in B),
        partial[task, B] += w_ij diff(i, j),  partial[task, B'] += w_ji diff(i, j)   (j in a later block B'),

    so that U_B is complete once the blocks up to B have been passed and the partials summed over
    the tasks (fixed ranges of rows, balanced by their pairs: the same sums on any number of
    threads). ``dist[i, j]``: d(i, j) for j > i."""
    n = dist.shape[0]
    n_tasks = partial.shape[0]
    cost = np.empty(stop - start)
    for i in range(start, stop):
        cost[i - start] = n - 1 - i
    tasks = balanced_bounds(cost, n_tasks)
    own = 0
    while block_starts[own + 1] <= start:
        own += 1
    for task in prange(n_tasks):
        acc = partial[task]
        acc[:] = 0.0
        neighbours = np.empty(_COLUMN_CHUNK + 3, dtype=np.int64)
        coef = np.empty(_COLUMN_CHUNK + 3)
        coef_back = np.empty(_COLUMN_CHUNK + 3)
        i0, i1 = start + tasks[task], start + tasks[task + 1]
        block = own
        j0 = i0 + 1
        while j0 < n and i0 < i1:
            while block_starts[block + 1] <= j0:
                block += 1
            j1 = min(n, (j0 // _COLUMN_CHUNK + 1) * _COLUMN_CHUNK, block_starts[block + 1])
            for i in range(i0, min(i1, j1 - 1)):
                yi, ti = y[i], threshold[i]
                count = 0
                for j in range(max(j0, i + 1), j1):
                    d = dist[i, j]
                    hit = abs(y[j] - yi) < bound
                    w_ij = factor[i, n_groups if hit else group[j]] if d < ti else 0.0
                    w_ji = factor[j, n_groups if hit else group[i]] if d < threshold[j] else 0.0
                    if w_ij != 0.0 or w_ji != 0.0:
                        neighbours[count] = j
                        if block == own:
                            coef[count] = w_ij + w_ji
                        else:
                            coef[count] = w_ij
                            coef_back[count] = w_ji
                        count += 1
                if count == 0:
                    continue
                _pad(neighbours, coef, count)
                if block == own:
                    _dense_update(Xc, Xd, i, neighbours, coef, count, acc[own])
                else:
                    _pad(neighbours, coef_back, count)
                    _dense_update_both(Xc, Xd, i, neighbours, coef, coef_back, count, acc[own], acc[block])
            j0 = j1


@njit(cache=True, fastmath=_FAST)
def _update_through_columns(indptr, indices, data, col_ptr, col_rows, col_vals, discrete, i, weights, r, total,
                            acc):
    """u_f for f in S_i without the deferred term (see :func:`sparse_updates`)."""
    for t in range(indptr[i], indptr[i + 1]):
        f = indices[t]
        a = data[t]
        s = 0.0
        if discrete[f]:
            for u in range(col_ptr[f], col_ptr[f + 1]):
                s += weights[r, col_rows[u]] * ((1.0 if a != col_vals[u] else 0.0) - 2.0)
            acc[f] += total + s
        else:
            a0 = abs(a)
            for u in range(col_ptr[f], col_ptr[f + 1]):
                v = col_vals[u]
                s += weights[r, col_rows[u]] * (abs(a - v) - a0 - abs(v))
            acc[f] += total * a0 + s


@njit(cache=True)
def _update_through_neighbours(indptr, indices, data, discrete, i, weights, r, total, own, mark, acc):
    """u_f of every f (see :func:`sparse_updates`); ``own`` and ``mark`` are zero on entry and exit."""
    for t in range(indptr[i], indptr[i + 1]):
        own[indices[t]] = data[t]
        mark[indices[t]] = True
    for j in range(weights.shape[1]):
        w = weights[r, j]
        if w == 0.0:
            continue
        for t in range(indptr[j], indptr[j + 1]):
            f = indices[t]
            v = data[t]
            disc = discrete[f]
            if mark[f]:
                acc[f] += w * (_diff(own[f], v, disc) - _diff(own[f], 0.0, disc))
            else:
                acc[f] += w * _diff(0.0, v, disc)
    for t in range(indptr[i], indptr[i + 1]):
        f = indices[t]
        acc[f] += total * _diff(own[f], 0.0, discrete[f])
        own[f] = 0.0
        mark[f] = False


#: an entry walked through the columns costs about this fraction of one walked through the neighbours
#: (a vectorised gather against a scattered read-modify-write)
COLUMN_COST = 0.3


@njit(cache=True, parallel=True)
def sparse_updates(indptr, indices, data, col_ptr, col_rows, col_vals, discrete, col_cost, rows, weights, out,
                   deferred, column_cost):
    """The updates of :func:`dense_updates` for sparse instances, by the cheaper of two exact routes
    per instance i (W_i = sum_j w_ij, S_i: the stored entries of row i):

    - through the neighbours (each costs its stored entries; row i is scattered into a scratch):
      u_f = W_i diff_f(x_if, 0) [f in S_i] + sum_j w_ij (diff_f(x_if, x_jf) - diff_f(x_if, 0)) [f in S_i and S_j]
            + sum_j w_ij diff_f(0, x_jf) [f in S_j, not in S_i];
    - through the columns of S_i (``col_cost[i]`` = sum_{f in S_i} c_f entries, whatever the number
      of neighbours: MultiSURF's case): for f in S_i,
      u_f = W_i diff_f(x_if, 0) + sum_{j in column f} w_ij (diff_f(x_if, x_jf) - diff_f(x_if, 0) - diff_f(0, x_jf)),
      and the term sum_j w_ij diff_f(0, x_jf) of every f is left to the caller (``deferred[r]`` is
      set), who adds it for the whole block at once from the column sums of the weights.

    The columns are taken when ``column_cost * col_cost[i]`` is below the neighbours' entries.
    """
    b, n = weights.shape
    p = out.shape[1]
    n_chunks = min(b, _ROW_CHUNKS)
    for c in prange(n_chunks):
        own = np.zeros(p)
        mark = np.zeros(p, dtype=np.bool_)
        for r in range(c * b // n_chunks, (c + 1) * b // n_chunks):
            i = rows[r]
            acc = out[r]
            acc[:] = 0.0
            total = 0.0
            through_neighbours = 0
            for j in range(n):
                if weights[r, j] != 0.0:
                    total += weights[r, j]
                    through_neighbours += indptr[j + 1] - indptr[j]
            deferred[r] = column_cost * col_cost[i] < through_neighbours
            if deferred[r]:
                _update_through_columns(indptr, indices, data, col_ptr, col_rows, col_vals, discrete, i, weights, r,
                                        total, acc)
            else:
                _update_through_neighbours(indptr, indices, data, discrete, i, weights, r, total, own, mark, acc)
