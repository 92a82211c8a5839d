"""The Relief family's mathematics: ReliefF (I. Kononenko, "Estimating attributes: analysis and
extensions of RELIEF", ECML 1994, pp. 171-182; the algorithm as written out by M. Robnik-Sikonja
and I. Kononenko, Machine Learning 53 (2003) 23-69, Fig. 3) and MultiSURF (R. J. Urbanowicz,
R. S. Olson, P. Schmitt, M. Meeker, J. H. Moore, "Benchmarking relief-based feature selection
methods for bioinformatics data mining", J. Biomed. Inform. 85 (2018) 168-188).

Both estimate, for every feature A, how much better A tells an instance from its nearest
instances of other classes ("misses") than from its nearest instances of its own class
("hits"). Over the m scored instances R_i,

    W[A] = (1/m) sum_i [ - sum_{H in hits(i)} diff(A, R_i, H) / |hits(i)|
                         + sum_{C != class(R_i)} w_i(C) sum_{M in misses(i, C)} diff(A, R_i, M) / |misses(i, C)| ]

with Kononenko's diff: 0 / 1 for a discrete feature (equal / different values) and
``|a - b| / (max A - min A)`` for a continuous one, and the distance between instances the sum of the
diffs over all features (Manhattan). A feature is discrete when it takes at most
``discrete_threshold`` distinct values (skrebate's and fast-select's rule; 10 by default).

- **ReliefF**: hits(i) are the k nearest instances of R_i's class, misses(i, C) the k nearest of
  class C (all of them when a class has k or fewer), and w_i(C) = P(C) / (1 - P(class(R_i))) with
  the class priors P estimated by the class frequencies (Kononenko's multi-class ReliefF).
- **MultiSURF**: the neighbours of R_i are the instances closer than T_i = mean_i - sd_i / 2, the
  mean and population standard deviation of R_i's distances to the other n - 1 instances; hits and
  misses among them are averaged separately. With more than two classes the class means are
  weighted by the priors, renormalised over the classes that have a miss inside T_i:
  w_i(C) = P(C) / sum_{C' with a miss inside T_i} P(C') (with two classes: the mean over the misses).
- **A real target** (regression): as skrebate does, a neighbour is a "hit" when its target is
  within one standard deviation of R_i's, |y_i - y_j| < sd(y) (sample sd), a "miss" otherwise
  (one miss group, w = 1).

Ties: among the candidates of one set (hits, or misses of one class), ReliefF's k-th place may be
shared by several equidistant instances. They share the places left equally (see
:func:`fsengine.methods.relief.kernels.relieff_weights`): the average over every row order of
"lower index first", so the scores do not depend on the order of the rows. MultiSURF's
neighbourhood is strict (d < T_i) and needs no tie rule.

Memory and time: instances are scored in blocks of ``b`` rows. For each block the kernels compute
the ``(b, n)`` distances to every instance, the ``(b, n)`` neighbour weights and the ``(b, p)``
updates, so memory is about ``8 b (2 n + p)`` bytes (``b`` chosen from :data:`BLOCK_BYTES`), never
an ``n x n`` matrix beyond :data:`PAIRWISE_BYTES`. Scoring every instance, each pair's distance
is computed once (ReliefF: offered to both instances' buffers of their smallest distances, O(n k)
memory; MultiSURF: the mirrored matrix, when it fits :data:`PAIRWISE_BYTES`, n <= 4,096): dense
time n^2 p / 2 for the distances. Dense MultiSURF then also evaluates each pair's diffs once for
both instances' updates (:func:`fsengine.methods.relief.kernels.multisurf_pair_updates`): the pairs
that are neighbours at least one way, instead of every instance's neighbours. A sample of m
instances costs m n p. Sparse X is never densified: its distances cost sum_f c_f^2 (c_f: the
stored entries of column f) and an update the neighbours' or the columns' stored entries
(:mod:`fsengine.methods.relief.kernels`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsengine.methods.relief import kernels
from fsengine.progress import Progress, report_to

#: the memory one block of instances may take (distances, weights and updates), in bytes
BLOCK_BYTES = 64 * 1024**2
#: the work of one block of instances, in vectorised element operations (about 0.1-0.2 s on one
#: core): progress is reported after every block, and fewer, larger blocks start fewer threads
BLOCK_WORK = 2 * 10**9
#: the largest block of instances
MAX_BLOCK_ROWS = 4096
#: the running top features the trace compares with the final top (``top_agreement``)
TOP = 10
#: the memory the pairwise pass may take for ReliefF's buffers or MultiSURF's whole distance matrix
#: (else every instance's row of distances is computed: twice the distance work)
PAIRWISE_BYTES = 128 * 1024**2
#: room for candidates tied at the k-th distance in the pairwise pass's buffers (at least)
TIE_ROOM = 5
#: the share of the progress bar the pairwise distance pass takes
PAIRWISE_SHARE = 0.8
METHODS = {"relieff": "ReliefF", "multisurf": "MultiSURF"}


def distinct_counts(X, cap: int | None = None) -> np.ndarray:
    """Number of distinct values of every column of X (the zeros of sparse X included); with ``cap``,
    ``min(count, cap)`` (dense X: a numba scan that stops comparing a column at ``cap`` values
    instead of sorting every column).

    >>> distinct_counts(np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 2.0]])).tolist()
    [1, 2]
    """
    if cap is not None and not sp.issparse(X):
        counts = np.empty(X.shape[1], dtype=np.int64)
        kernels.capped_distinct_counts(np.asarray(X, dtype=np.float64), int(cap), counts)
        return counts
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        Xc.eliminate_zeros()
        counts = np.zeros(Xc.shape[1], dtype=np.int64)
        lengths = np.diff(Xc.indptr)
        cols = np.repeat(np.arange(Xc.shape[1]), lengths)
        order = np.lexsort((Xc.data, cols))
        values, cols = Xc.data[order], cols[order]
        new = np.ones(values.size, dtype=bool)
        new[1:] = (values[1:] != values[:-1]) | (cols[1:] != cols[:-1])
        np.add.at(counts, cols[new], 1)
        return counts + (lengths < Xc.shape[0])
    X = np.sort(np.asarray(X), axis=0)
    return 1 + (X[1:] != X[:-1]).sum(axis=0) if X.shape[0] else np.zeros(X.shape[1], dtype=np.int64)


def value_ranges(X) -> np.ndarray:
    """max - min of every column (zeros included for sparse X)."""
    if sp.issparse(X):
        return np.asarray(X.max(axis=0).todense()).ravel() - np.asarray(X.min(axis=0).todense()).ravel()
    return X.max(axis=0) - X.min(axis=0)


@dataclass(frozen=True)
class DenseFeatures:
    """Dense X as the kernels read it: ``Xc`` (n, pc) continuous features divided by their range
    and two-valued features coded 0 / 1 (``|a - b|`` is then the diff), ``Xd`` (n, pd) features with
    3 or more discrete values; ``columns`` (pc + pd,) the feature of each kernel column (constant
    features are left out: their diff is always 0)."""

    Xc: np.ndarray
    Xd: np.ndarray
    columns: np.ndarray

    @property
    def work_per_row(self) -> float:
        """Element operations of one instance's distances to all n."""
        return float(self.Xc.shape[0] * self.columns.size)

    def distances(self, rows, out, first=0, upper=False):
        """``out[r, j - first]``: the distance of instance rows[r] to every instance j >= first (only
        j > rows[r] needed when ``upper``; rows ascending)."""
        kernels.dense_distances(self.Xc, self.Xd, rows, first, upper, out, numba.get_num_threads())

    def block_update(self, rows, weights, scratch) -> np.ndarray:
        """sum over the block's instances of their updates (per kernel column)."""
        kernels.dense_updates(self.Xc, self.Xd, rows, weights, scratch)
        return scratch.sum(axis=0)

    def pair_updates(self, full, start, stop, target, neighbourhoods, block_starts, partial):
        """MultiSURF's updates of the pairs (i, j > i), start <= i < stop, added into ``partial`` (tasks,
        blocks, features) (:func:`kernels.multisurf_pair_updates`)."""
        kernels.multisurf_pair_updates(self.Xc, self.Xd, full, start, stop, target.values, target.bound, target.group,
                                       target.n_groups, neighbourhoods.threshold, neighbourhoods.factor, block_starts,
                                       partial)


@dataclass(frozen=True)
class SparseFeatures:
    """Sparse X as the kernels read it: CSR and CSC arrays with continuous values divided by their
    range, ``discrete`` (p,) per feature, ``base`` (n,) each row's distance to the zero row,
    ``to_zero`` the CSR matrix of diff(0, x) (1 for a discrete entry, |x| for a continuous one) and
    ``col_cost`` (n,) the stored entries of the columns of each row (sum_{f in S_i} c_f)."""

    csr: sp.csr_matrix
    csc: sp.csc_matrix
    discrete: np.ndarray
    base: np.ndarray
    to_zero: sp.csr_matrix
    col_cost: np.ndarray
    columns: np.ndarray

    @classmethod
    def build(cls, csr: sp.csr_matrix, discrete: np.ndarray) -> SparseFeatures:
        csc = csr.tocsc()
        csc.sort_indices()
        flags = np.ascontiguousarray(discrete, dtype=np.bool_)
        to_zero = csr.copy()
        to_zero.data = np.where(flags[csr.indices], 1.0, np.abs(csr.data))
        entry_rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
        col_cost = np.bincount(entry_rows, weights=np.diff(csc.indptr)[csr.indices], minlength=csr.shape[0])
        return cls(csr, csc, flags, kernels.sparse_base(csr.indptr, csr.indices, csr.data, flags), to_zero,
                   np.ascontiguousarray(col_cost, dtype=np.int64), np.arange(csr.shape[1]))

    @property
    def work_per_row(self) -> float:
        """One instance's distances to all n in vectorised element operations: a scattered update of
        the column walk costs about ten."""
        return 10.0 * (float(self.col_cost.mean()) + self.base.size)

    def distances(self, rows, out, first=0, upper=False):
        r, c = self.csr, self.csc
        kernels.sparse_distances(r.indptr, r.indices, r.data, c.indptr, c.indices, c.data, self.discrete,
                                 self.base, rows, first, upper, out)

    def block_update(self, rows, weights, scratch) -> np.ndarray:
        """sum over the block's instances of their updates, the deferred terms of the instances
        updated through their columns added from the column sums of their weights."""
        r, c = self.csr, self.csc
        deferred = np.zeros(rows.size, dtype=np.bool_)
        kernels.sparse_updates(r.indptr, r.indices, r.data, c.indptr, c.indices, c.data, self.discrete,
                               self.col_cost, rows, weights, scratch, deferred, kernels.COLUMN_COST)
        total = scratch.sum(axis=0)
        if deferred.any():
            total += self.to_zero.T @ weights[deferred].sum(axis=0)
        return total


def prepare_features(X, discrete: np.ndarray, counts: np.ndarray) -> DenseFeatures | SparseFeatures:
    """X for the kernels, with ``discrete`` (p,) the features compared by equality and ``counts``
    (p,) the number of distinct values of each (or at least 3 where there are more than 2)."""
    ranges = value_ranges(X)
    scale = np.where(discrete | (ranges == 0), 1.0, 1.0 / np.where(ranges == 0, 1.0, ranges))
    if sp.issparse(X):
        csr = sp.csr_matrix(X, dtype=np.float64, copy=True)
        csr.eliminate_zeros()
        csr.sort_indices()
        csr.data *= scale[csr.indices]
        return SparseFeatures.build(csr, discrete)
    X = np.asarray(X, dtype=np.float64)
    two = discrete & (counts == 2)
    continuous = ~discrete & (ranges > 0)
    multi = discrete & (counts > 2)
    cont_cols, two_cols = np.flatnonzero(continuous), np.flatnonzero(two)
    coded = np.empty((X.shape[0], cont_cols.size + two_cols.size))
    kernels.code_columns(X, cont_cols, scale[cont_cols], two_cols, X[:, two_cols].max(axis=0), coded)
    multi_cols = np.flatnonzero(multi)
    return DenseFeatures(coded, np.ascontiguousarray(X[:, multi_cols]),
                         np.concatenate([cont_cols, two_cols, multi_cols]))


@dataclass(frozen=True)
class Target:
    """The target as the kernels read it: neighbour j is a hit of instance i when
    |values[i] - values[j]| < bound, else a miss of group ``group[j]``; ``class_weight[g_i, g]``
    weights the misses of group g in the update of an instance of group g_i."""

    values: np.ndarray
    bound: float
    group: np.ndarray
    class_weight: np.ndarray

    @property
    def n_groups(self) -> int:
        return self.class_weight.shape[0]


def make_target(y, task: str) -> Target:
    """Class labels: codes 0..K-1 (hits: the same code, bound 1/2) and Kononenko's prior weights
    P(C) / (1 - P(c)); a real target: hits within one sample standard deviation, one miss group.

    >>> make_target(np.array(["a", "b", "b", "b"]), "classification").class_weight.tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    n = len(y)
    if task == "regression":
        values = np.asarray(y, dtype=np.float64)
        bound = float(np.std(values, ddof=1)) if n > 1 else 0.0
        return Target(values, bound, np.zeros(n, dtype=np.int64), np.ones((1, 1)))
    _, codes = np.unique(y, return_inverse=True)
    prior = np.bincount(codes) / n
    with np.errstate(divide="ignore", invalid="ignore"):  # one class only: no misses, no weights
        weight = np.nan_to_num(prior[None, :] / (1.0 - prior[:, None]), posinf=0.0)
    np.fill_diagonal(weight, 0.0)
    return Target(codes.astype(np.float64), 0.5, codes.astype(np.int64), weight)


@dataclass(frozen=True)
class ReliefResult:
    """scores (p,) the feature weights W[A]; discrete (p,) the features compared by equality;
    instances (m,) the scored rows; trace one row per block of instances."""

    scores: np.ndarray
    discrete: np.ndarray
    instances: np.ndarray
    trace: pd.DataFrame


def block_rows(n: int, p: int, m: int, work_per_row: float) -> int:
    """Instances per block: as many as :data:`BLOCK_BYTES` holds for the (b, n) distances and weights
    and the (b, p) updates and :data:`BLOCK_WORK` allows, at most :data:`MAX_BLOCK_ROWS` and m."""
    return int(max(1, min(m, MAX_BLOCK_ROWS, BLOCK_BYTES // (8 * (2 * n + p)), BLOCK_WORK // max(work_per_row, 1))))


class _Scratch:
    """The block arrays, allocated once: distances and weights (b, n), updates (b, p)."""

    def __init__(self, b: int, n: int, p: int):
        self.size = b * n
        self.flat = None
        self.weights = np.empty((b, n))
        self.updates = np.empty((b, p))

    def distances(self, rows: int, width: int) -> np.ndarray:
        """A C-contiguous (rows, width) view of the distance block (allocated at the first call)."""
        if self.flat is None:
            self.flat = np.empty(self.size)
        return self.flat[:rows * width].reshape(rows, width)


def _row_weights(method, features, target, k, rows, scratch, weights, record, dist=None) -> np.ndarray:
    """``weights`` (len(rows), n): the neighbour weights of ``rows`` from their distances to all n
    instances (computed here unless given; the trace's columns written into ``record``)."""
    size, n = rows.size, target.values.size
    if dist is None:
        dist = scratch.distances(size, n)
        features.distances(rows, dist)
    if method == "relieff":
        tied = np.zeros(size, dtype=np.bool_)
        kernels.relieff_weights(dist, rows, target.values, target.bound, target.group, target.n_groups,
                                target.class_weight, k, weights, tied)
        record["tied_instances"] = int(tied.sum())
    else:
        threshold, hits, misses = np.empty(size), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
        kernels.multisurf_weights(dist, rows, target.values, target.bound, target.group, target.n_groups,
                                  target.class_weight, weights, threshold, hits, misses)
        _record_neighbourhoods(record, threshold, hits, misses)
    return weights


def _record_neighbourhoods(record, threshold, hits, misses):
    """The trace's columns of a block of MultiSURF instances."""
    record.update(mean_threshold=float(threshold.mean()), mean_hits=float(hits.mean()),
                  mean_misses=float(misses.mean()))


@dataclass(frozen=True)
class _Neighbourhoods:
    """Every instance's MultiSURF threshold T_i, factor of each neighbour set (miss groups, then hits)
    and numbers of hits and misses (:func:`kernels.multisurf_neighbourhoods`)."""

    threshold: np.ndarray
    factor: np.ndarray
    hits: np.ndarray
    misses: np.ndarray

    @classmethod
    def of(cls, full: np.ndarray, target: Target) -> _Neighbourhoods:
        n = full.shape[0]
        out = cls(np.empty(n), np.empty((n, target.n_groups + 1)), np.empty(n, dtype=np.int64),
                  np.empty(n, dtype=np.int64))
        kernels.multisurf_neighbourhoods(full, target.values, target.bound, target.group, target.n_groups,
                                         target.class_weight, out.threshold, out.factor, out.hits, out.misses)
        return out


@dataclass
class _Buffers:
    """Per instance and neighbour set (the miss groups, then the hits): the smallest distances
    offered (sorted), their instances, and how many were offered."""

    distance: np.ndarray
    instance: np.ndarray
    count: np.ndarray


def buffer_capacity(n: int, k: int) -> int:
    """Candidates kept per instance and set by the pairwise pass: k and room for ties at the k-th
    distance (:data:`TIE_ROOM`); an instance whose tie fills the room is recomputed."""
    return int(min(max(n - 1, 1), k + max(TIE_ROOM, k // 2)))


def _pairwise_buffers(features, target, k, b, scratch, report) -> _Buffers:
    """Every pair's distance computed once (blocks of rows against the rows from their first on),
    each offered to both instances' buffers. Reports ``PAIRWISE_SHARE`` of the progress."""
    n = target.values.size
    capacity = buffer_capacity(n, k)
    sets = target.n_groups + 1
    buffers = _Buffers(np.empty((n, sets, capacity)), np.empty((n, sets, capacity), dtype=np.int64),
                       np.zeros((n, sets), dtype=np.int64))
    done, total = 0, n * (n + 1) / 2
    for start in range(0, n, b):
        rows = np.arange(start, min(n, start + b), dtype=np.int64)
        dist = scratch.distances(rows.size, n - start)
        features.distances(rows, dist, first=start, upper=True)
        args = (target.values, target.bound, target.group, target.n_groups, buffers.distance, buffers.instance,
                buffers.count)
        kernels.offer_to_rows(dist, rows, start, *args, numba.get_num_threads())
        kernels.offer_to_columns(dist, rows, start, *args, numba.get_num_threads())
        done += rows.size * (n - start) - rows.size * (rows.size - 1) / 2
        report(PAIRWISE_SHARE * done / total, f"distances of {start + rows.size:,} of {n:,} instances")
    return buffers


def _mirrored_distances(features, n, b, report) -> np.ndarray:
    """The whole (n, n) distance matrix with each pair computed once: blocks of rows against the rows
    from their first on, mirrored below the diagonal. Reports ``PAIRWISE_SHARE`` of the progress."""
    full = np.empty((n, n))
    done, total = 0, n * (n + 1) / 2
    for start in range(0, n, b):
        size = min(b, n - start)
        features.distances(np.arange(start, start + size, dtype=np.int64), full[start:start + size, start:],
                           first=start, upper=True)
        kernels.mirror_rows(full, start, start + size, numba.get_num_threads())
        done += size * (n - start) - size * (size - 1) / 2
        report(PAIRWISE_SHARE * done / total, f"distances of {start + size:,} of {n:,} instances")
    return full


def relief_scores(X, y, *, method: str, discrete_threshold: int, task: str = "classification",
                  n_neighbors: int | None = None, instances=None, progress: Progress | None = None,
                  block: int | None = None, pairwise: bool = True) -> ReliefResult:
    """ReliefF (``method="relieff"``, ``n_neighbors`` = k) or MultiSURF (``"multisurf"``) weights of the
    features of X (dense or sparse, finite) for the target y, as the module says.

    ``instances``: the rows scored (default every row; each is compared with all n rows).
    ``progress(fraction, message)`` is told after every block; ``block`` overrides the block size
    (the scores do not depend on it). Scoring every row, each pair's distance is computed once:
    ReliefF offers it to both instances' buffers of the smallest distances (:func:`_pairwise_buffers`),
    MultiSURF keeps the whole mirrored matrix when it fits :data:`PAIRWISE_BYTES` (n <= 4,096).
    Otherwise, with a sample of instances or ``pairwise=False``, every scored instance's row of
    distances is computed: the same weights for twice the distance work.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, not {method!r}")
    if method == "relieff" and (n_neighbors is None or n_neighbors < 1):
        raise ValueError(f"ReliefF needs n_neighbors >= 1, not {n_neighbors!r}")
    report = report_to(progress)
    n, p = X.shape
    rows_all = np.arange(n, dtype=np.int64) if instances is None else np.asarray(instances, dtype=np.int64)
    m = rows_all.size
    counts = distinct_counts(X, cap=max(discrete_threshold, 2) + 1)  # enough for <= threshold, == 2 and > 2
    discrete = counts <= discrete_threshold
    features = prepare_features(X, discrete, counts)
    target = make_target(y, task)
    k = int(n_neighbors or 0)
    b = block or block_rows(n, features.columns.size, m, features.work_per_row)
    scratch = _Scratch(b, n, features.columns.size)
    buffers = full = None
    if pairwise and m == n and np.array_equal(rows_all, np.arange(n)):
        if method == "relieff" and 16 * n * (target.n_groups + 1) * buffer_capacity(n, k) <= PAIRWISE_BYTES:
            buffers = _pairwise_buffers(features, target, k, b, scratch, report)
        elif method == "multisurf" and 8 * n * n <= PAIRWISE_BYTES:
            full = _mirrored_distances(features, n, b, report)
    offset = PAIRWISE_SHARE if buffers is not None or full is not None else 0.0
    total = np.zeros(features.columns.size)
    block_starts = np.append(np.arange(0, m, b), m).astype(np.int64)
    pairs = None
    if (full is not None and isinstance(features, DenseFeatures)
            and 8 * kernels.PAIR_TASKS * (block_starts.size - 1) * features.columns.size <= BLOCK_BYTES):
        # MultiSURF, each pair's diffs once: the partial updates of every block from each block's pairs
        pairs = _Neighbourhoods.of(full, target)
        partial = np.empty((kernels.PAIR_TASKS, block_starts.size - 1, features.columns.size))
        pending = np.zeros((block_starts.size - 1, features.columns.size))
    records, running_top = [], []
    for start in range(0, m, b):
        rows = rows_all[start:start + b]
        size = rows.size
        record = {"block": len(records) + 1, "first": start + 1, "last": start + size}
        if pairs is not None:
            block = len(records)
            features.pair_updates(full, start, start + size, target, pairs, block_starts, partial)
            pending[block:] += partial[:, block:].sum(axis=0)
            update = pending[block]
            _record_neighbourhoods(record, pairs.threshold[rows], pairs.hits[rows], pairs.misses[rows])
        else:
            if buffers is None:
                weights = _row_weights(method, features, target, k, rows, scratch, scratch.weights[:size], record,
                                       dist=None if full is None else full[start:start + size])
            else:
                weights = scratch.weights[:size]
                tied, overflow = np.zeros(size, dtype=np.bool_), np.zeros(size, dtype=np.bool_)
                kernels.buffer_weights(rows, buffers.distance, buffers.instance, buffers.count, k, target.group,
                                       target.class_weight, weights, tied, overflow)
                if overflow.any():  # a tie reaching past the buffer: those instances' rows of distances
                    weights[overflow] = _row_weights(method, features, target, k, rows[overflow], scratch,
                                                     np.empty((int(overflow.sum()), n)), {})
                    tied[overflow] = True
                record["tied_instances"] = int(tied.sum())
            update = features.block_update(rows, weights, scratch.updates[:size])
        total += update
        running_top.append(np.argsort(-total, kind="stable")[:TOP])
        records.append(record)
        report(offset + (1 - offset) * (start + size) / m, f"{start + size:,} of {m:,} instances scored")
    scores = np.zeros(p)
    scores[features.columns] = total / m
    trace = pd.DataFrame(records)
    final = set(np.argsort(-total, kind="stable")[:TOP].tolist())
    trace["top_agreement"] = [len(final.intersection(top.tolist())) / max(len(final), 1) for top in running_top]
    return ReliefResult(scores, discrete, rows_all, trace)
