"""The one discretisation of the information-theoretic family: every member (mRMR, JMI, CIFE, CMIM,
ICAP, DISR, the unified (beta, gamma) criterion and FCBF) estimates its mutual informations from
the counts of these states, and every selector takes it as the parameter ``bins``.

A feature's state is the number of its cut points the value exceeds,

    state(x) = #{i : x > c_i},    c_1 <= ... <= c_{K-1},

so a value equal to a cut point goes to the lower state and equal values always share a state.
Two choices of cut points:

``"mean_sd"`` (the family default)
    c = (μ - σ, μ + σ), the column's mean and population standard deviation: three states
    (x <= μ - σ, μ - σ < x <= μ + σ, x > μ + σ), the discretisation of Peng, Long & Ding's
    continuous experiments (IEEE TPAMI 27, 2005) and of this project's mRMR since it was added.
``K`` (an int, 2 <= K <= 127)
    equal-frequency bins: c_i the i/K quantile of the column (linear interpolation between order
    statistics, numpy's default), K states.

Why ``"mean_sd"`` is the default (the choice is the family's, so the members differ only by their
criterion and never by how they count):

* it keeps mRMR's answers as they were before the family existed (the same 30 features in the same
  order as the fastest peer's mRMR on notMNIST B vs D);
* it reads two moments, no sort: a sparse column is discretised from its non-zeros and the count
  of its zeros, never densified, in one pass;
* it never collapses the information a skewed column carries: a 0/1 feature keeps its two values
  as two states, and a word's count keeps "absent" apart from "frequent" however rare the word;
  equal-frequency cut points of a column that is 98% zeros are all 0, which the ``x > c``
  convention still separates (absent vs present) but spends K - 1 cut points on doing so;
* three states keep the joint count tables small (3 x 3 x C cells for I(X_j; X_k | Y)), so the
  plug-in estimates stay close on a few hundred rows, where the bias of a K x K x C table grows
  with K^2 C / n.

Equal-frequency bins spread a continuous column evenly over its states (the most entropy per
state) and are robust to outliers that stretch σ; choose them (``bins=5`` say) for continuous
data with many rows.

Storage (:class:`States`): per feature its most frequent state plus the rows whose state differs
(a CSC-like list of exceptions). Count tables are built from a class total and the exceptions
only (:mod:`fsengine.methods.information.kernels`), so the work per feature is the number of its
exceptions, not the number of rows: for a sparse word-count column, its documents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

#: the family default (see the module docstring for why)
MEAN_SD = "mean_sd"
DEFAULT_BINS = MEAN_SD
#: the largest number of equal-frequency bins (states are stored in one signed byte)
MAX_BINS = 127
#: the largest exception list (4-byte row + 1-byte state each) the discretisation builds
MAX_STATE_BYTES = 4 * 1024**3
#: dense columns sorted per block for the equal-frequency cut points
_BLOCK = 512


@dataclass(frozen=True)
class States:
    """Discretised features: state ``default[j]`` everywhere except at ``rows[indptr[j]:indptr[j+1]]``,
    where feature j takes ``values[...]``.

    n_rows    n, the rows
    n_states  K, states 0..K-1 (3 for ``"mean_sd"``)
    default   (p,) int8, each feature's most frequent state (the lowest on a tie)
    indptr    (p + 1,) int64; rows (nnz,) int32; values (nnz,) int8
    counts    (p, K) int64, how many rows hold each state
    """

    n_rows: int
    n_states: int
    default: np.ndarray
    indptr: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    counts: np.ndarray

    @property
    def n_features(self) -> int:
        return self.default.size

    def column(self, j: int) -> np.ndarray:
        """(n,) int8 states of feature j."""
        out = np.full(self.n_rows, self.default[j], dtype=np.int8)
        lo, hi = self.indptr[j], self.indptr[j + 1]
        out[self.rows[lo:hi]] = self.values[lo:hi]
        return out

    def dense(self) -> np.ndarray:
        """(p, n) int8 state matrix (for small data and tests)."""
        return np.stack([self.column(j) for j in range(self.n_features)]) if self.n_features else \
            np.zeros((0, self.n_rows), dtype=np.int8)

    def entropy(self) -> np.ndarray:
        """(p,) H(X_j) in nats, from the state counts."""
        prob = self.counts / self.n_rows
        with np.errstate(divide="ignore", invalid="ignore"):
            return -np.where(prob > 0, prob * np.log(prob), 0.0).sum(axis=1)


def check_bins(bins) -> int:
    """The number of states ``bins`` gives, or a ValueError saying what is allowed."""
    if isinstance(bins, str) and bins == MEAN_SD:
        return 3
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool) and 2 <= bins <= MAX_BINS:
        return int(bins)
    raise ValueError(f"bins={bins!r}: use {MEAN_SD!r} (three states at the mean ± one standard deviation) or "
                     f"an int from 2 to {MAX_BINS} (that many equal-frequency bins)")


def discretise(X, bins=DEFAULT_BINS) -> States:
    """The states of the columns of X (dense or scipy-sparse, n x p) under ``bins`` (see the module
    docstring). Sparse X is read column by column from its non-zeros; dense X row by row, twice
    (state counts, then the exceptions), without a state matrix.

    >>> X = np.array([[0.0, 1.0], [0.0, 5.0], [1.0, 3.0], [1.0, 3.0]])
    >>> discretise(X).dense().tolist()
    [[0, 0, 1, 1], [0, 2, 1, 1]]
    >>> discretise(X, bins=2).dense().tolist()
    [[0, 0, 1, 1], [0, 1, 0, 0]]
    """
    n_states = check_bins(bins)
    n, p = X.shape
    if sp.issparse(X):
        Xc = sp.csc_matrix(X, dtype=np.float64)
        Xc.sort_indices()
        indptr, indices, data = Xc.indptr.astype(np.int64), Xc.indices.astype(np.int64), Xc.data
        cuts = _sparse_mean_sd_cuts(Xc) if bins == MEAN_SD else _sparse_quantile_cuts(indptr, data, n, n_states)
        counts = _sparse_counts(indptr, indices, data, cuts, n)
        default = _modal(counts)
        sizes = _sparse_exception_sizes(indptr, indices, data, cuts, default, n)
        indptr_out = _indptr(sizes, n, p)
        rows, values = _empty(indptr_out[-1])
        _sparse_exceptions(indptr, indices, data, cuts, default, n, indptr_out, rows, values)
        return States(n, n_states, default, indptr_out, rows, values, counts)
    X = np.asarray(X, dtype=np.float64)
    if bins == MEAN_SD:
        mean, std = X.mean(axis=0), X.std(axis=0)
        cuts = np.ascontiguousarray(np.stack([mean - std, mean + std], axis=1))
    else:
        cuts = np.empty((p, n_states - 1))
        for start in range(0, p, _BLOCK):
            cuts[start:start + _BLOCK] = _dense_quantile_cuts(np.sort(X[:, start:start + _BLOCK], axis=0), n_states)
    X = np.ascontiguousarray(X)  # row by row: both passes read X in memory order
    counts = _dense_counts(X, cuts)
    default = _modal(counts)
    indptr_out = _indptr(n - counts[np.arange(p), default], n, p)
    rows, values = _empty(indptr_out[-1])
    _dense_exceptions(X, cuts, default, indptr_out, rows, values)
    return States(n, n_states, default, indptr_out, rows, values, counts)


# ------------------------------------------------------------------------------------- cut points

def _sparse_mean_sd_cuts(Xc) -> np.ndarray:
    """(p, 2) μ ∓ σ of the columns of a CSC matrix from its non-zeros and zero counts (no densifying)."""
    return _sparse_moments(Xc.indptr.astype(np.int64), Xc.data, Xc.shape[0])


@njit(cache=True)
def _sparse_moments(indptr, data, n):
    """Mean and two-pass population standard deviation of each column: μ = sum / n,
    σ² = (sum over non-zeros (x - μ)² + zeros · μ²) / n (as ``np.std`` of the dense column)."""
    p = indptr.size - 1
    cuts = np.empty((p, 2))
    for j in range(p):
        total = 0.0
        for e in range(indptr[j], indptr[j + 1]):
            total += data[e]
        mean = total / n
        square = (n - (indptr[j + 1] - indptr[j])) * mean * mean
        for e in range(indptr[j], indptr[j + 1]):
            square += (data[e] - mean) ** 2
        std = np.sqrt(square / n)
        cuts[j, 0] = mean - std
        cuts[j, 1] = mean + std
    return cuts


def _quantile_positions(n: int, n_states: int):
    """Lower order statistic and interpolation weight of the i/K quantiles, i = 1..K-1 (numpy's
    'linear' method: position h = (n - 1) i / K)."""
    h = (n - 1) * np.arange(1, n_states) / n_states
    low = np.floor(h).astype(np.int64)
    return low, h - low


def _dense_quantile_cuts(sorted_block: np.ndarray, n_states: int) -> np.ndarray:
    """(b, K-1) quantile cut points of the columns of an (n, b) column-sorted block."""
    n = sorted_block.shape[0]
    low, weight = _quantile_positions(n, n_states)
    high = np.minimum(low + 1, n - 1)
    a, b = sorted_block[low], sorted_block[high]
    return np.ascontiguousarray((a + weight[:, None] * (b - a)).T)


def _sparse_quantile_cuts(indptr, data, n: int, n_states: int) -> np.ndarray:
    low, weight = _quantile_positions(n, n_states)
    return _sparse_quantiles(indptr, data, n, low, weight)


@njit(cache=True)
def _virtual(sorted_values, n_neg, n_zero, i):
    """The i-th order statistic of a column whose non-zeros are ``sorted_values`` (n_neg negative
    ones first) and which holds ``n_zero`` zeros."""
    if i < n_neg:
        return sorted_values[i]
    if i < n_neg + n_zero:
        return 0.0
    return sorted_values[i - n_zero]


@njit(cache=True)
def _sparse_quantiles(indptr, data, n, low, weight):
    p = indptr.size - 1
    m = low.size
    cuts = np.empty((p, m))
    for j in range(p):
        values = np.sort(data[indptr[j]:indptr[j + 1]])
        n_neg = 0
        while n_neg < values.size and values[n_neg] < 0.0:
            n_neg += 1
        n_zero = n - values.size
        for i in range(m):
            a = _virtual(values, n_neg, n_zero, low[i])
            b = _virtual(values, n_neg, n_zero, min(low[i] + 1, n - 1))
            cuts[j, i] = a + weight[i] * (b - a)
    return cuts


# --------------------------------------------------------------------------------------- states

@njit(cache=True)
def _state(x, cuts, j):
    """The number of feature j's cut points below x."""
    s = 0
    for i in range(cuts.shape[1]):
        if x > cuts[j, i]:
            s += 1
    return s


def _modal(counts: np.ndarray) -> np.ndarray:
    return np.argmax(counts, axis=1).astype(np.int8)


def _indptr(sizes, n: int, p: int) -> np.ndarray:
    indptr = np.zeros(p + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    need = int(indptr[-1]) * 5
    if need > MAX_STATE_BYTES:
        raise ValueError(f"Discretising {n:,} rows x {p:,} features would store {need / 1024**3:.1f} GB of states; "
                         "use fewer features (e.g. a larger minimum document frequency) or fewer rows.")
    return indptr


def _empty(nnz):
    return np.empty(int(nnz), dtype=np.int32), np.empty(int(nnz), dtype=np.int8)


@njit(cache=True)
def _dense_counts(X, cuts):
    n, p = X.shape
    counts = np.zeros((p, cuts.shape[1] + 1), dtype=np.int64)
    for t in range(n):
        for j in range(p):
            counts[j, _state(X[t, j], cuts, j)] += 1
    return counts


@njit(cache=True)
def _dense_exceptions(X, cuts, default, indptr, rows, values):
    """Rows whose state differs from the feature's default, reading X row by row (one write
    cursor per feature, so each feature's rows come out ascending)."""
    n, p = X.shape
    cursor = indptr[:-1].copy()
    for t in range(n):
        for j in range(p):
            s = _state(X[t, j], cuts, j)
            if s != default[j]:
                e = cursor[j]
                rows[e] = t
                values[e] = s
                cursor[j] = e + 1


@njit(cache=True)
def _sparse_counts(indptr, indices, data, cuts, n):
    p = indptr.size - 1
    counts = np.zeros((p, cuts.shape[1] + 1), dtype=np.int64)
    for j in range(p):
        lo, hi = indptr[j], indptr[j + 1]
        counts[j, _state(0.0, cuts, j)] += n - (hi - lo)
        for e in range(lo, hi):
            counts[j, _state(data[e], cuts, j)] += 1
    return counts


@njit(cache=True)
def _sparse_exception_sizes(indptr, indices, data, cuts, default, n):
    p = indptr.size - 1
    sizes = np.zeros(p, dtype=np.int64)
    for j in range(p):
        lo, hi = indptr[j], indptr[j + 1]
        if _state(0.0, cuts, j) != default[j]:
            sizes[j] += n - (hi - lo)
        for e in range(lo, hi):
            if _state(data[e], cuts, j) != default[j]:
                sizes[j] += 1
    return sizes


@njit(cache=True)
def _sparse_exceptions(indptr, indices, data, cuts, default, n, indptr_out, rows, values):
    """Rows (ascending) whose state differs from the default, walking each column's sorted
    non-zeros and the implicit zeros between them."""
    p = indptr.size - 1
    for j in range(p):
        e = indptr_out[j]
        zero_state = _state(0.0, cuts, j)
        k = indptr[j]
        hi = indptr[j + 1]
        if zero_state == default[j]:  # only non-zeros can differ: no walk over the rows
            for q in range(k, hi):
                s = _state(data[q], cuts, j)
                if s != default[j]:
                    rows[e] = indices[q]
                    values[e] = s
                    e += 1
            continue
        for t in range(n):  # a column mostly non-zero: its zero rows are the exceptions
            if k < hi and indices[k] == t:
                s = _state(data[k], cuts, j)
                k += 1
            else:
                s = zero_state
            if s != default[j]:
                rows[e] = t
                values[e] = s
                e += 1
