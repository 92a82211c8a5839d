"""Data larger than memory: the sufficient statistics of MI and BIA as reductions over the row
blocks of a ``dask.array``.

Both methods need only sums over rows. Naive Bayes mutual information (Jaakkola, lecture 12,
Eq. 2) needs the class sizes and ``ones[j, c] = #{t : x_tj = 1, y_t = c}``. The Bayesian Ising
Approximation (Fisher & Mehta, Eq. 25-28 on standardised features) needs the column means and
standard deviations, ``b = Z'(y - mean y)`` and the Gram ``G = Z'Z``; per row block we take the
block's mean and its *centred* cross-products and merge blocks pairwise with the exact update of
Chan, Golub & LeVeque (1979)::

    n = na + nb,  d = mean_b - mean_a,  M2 = M2a + M2b + d d' na nb / n

which avoids the cancellation of ``X'X - n mean mean'``. Only p x p results travel between
workers; peak memory is a few row blocks (each cast to float64) plus p x p arrays, whatever n is.
The reduction is a fixed binary tree over the blocks, so the numbers do not depend on which
scheduler runs it: dask's default (threads), or the active ``distributed.Client``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: rows per block when this module chooses (about 64 MB of float64 per block)
BLOCK_BYTES = 64 * 1024**2


def is_dask_array(X) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "to_delayed")


def _check_shape(X, y):
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (rows x features); the dask array has shape {X.shape}.")
    n = X.shape[0]
    if y is None:
        raise ValueError("y is required: these selectors are supervised.")
    if getattr(y, "ndim", 1) != 1 or y.shape[0] != n:
        raise ValueError(f"y must be a vector with one label per row of X ({n}); it has shape {y.shape}.")
    if n < 2 or X.shape[1] < 1:
        raise ValueError(f"X has shape {X.shape}: need at least 2 rows and 1 feature.")


def _row_blocks(X, y) -> list[tuple]:
    """(delayed X block with all columns, y block) pairs, row-aligned."""
    import dask.array as da

    X = X.rechunk({1: -1}) if X.numblocks[1] > 1 else X
    xs = X.to_delayed().ravel()
    if is_dask_array(y):
        ys = da.asarray(y).rechunk((X.chunks[0],)).to_delayed().ravel()
    else:
        y = np.asarray(y)
        edges = np.cumsum((0, *X.chunks[0]))
        ys = [y[a:b] for a, b in zip(edges[:-1], edges[1:])]
    return list(zip(xs, ys))


def _tree(parts: list, combine):
    """Reduce delayed ``parts`` pairwise in a fixed order (a balanced binary tree)."""
    while len(parts) > 1:
        parts = [combine(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def _reduce(X, y, block, combine, *args):
    import dask

    parts = [dask.delayed(block, pure=True)(xb, yb, *args) for xb, yb in _row_blocks(X, y)]
    (total,) = dask.compute(_tree(parts, dask.delayed(combine, pure=True)))
    return total


def classes_of(y) -> np.ndarray:
    """Sorted distinct labels of y (NumPy or dask; a dask y is reduced on the workers)."""
    if is_dask_array(y):
        import dask.array as da

        return np.asarray(da.unique(y).compute())
    return np.unique(np.asarray(y))


# --- mutual information ------------------------------------------------------------------------

@dataclass
class ClassCounts:
    """``ones`` (p, K): rows with x_j == 1 per class; ``above`` (p, K): rows with x_j above the
    threshold (None without one); ``class_sizes`` (K,); whether every value was in {0, 1}
    (``zero_one``) or in {-1, 1} (``plus_minus``)."""

    ones: np.ndarray
    above: np.ndarray | None
    class_sizes: np.ndarray
    zero_one: bool
    plus_minus: bool

    @property
    def binary(self) -> bool:
        return self.zero_one or self.plus_minus


def _count_block(xb, yb, classes, threshold):
    xb = np.asarray(xb, dtype=np.float64)
    codes = np.searchsorted(classes, np.asarray(yb))
    onehot = np.zeros((codes.size, classes.size))
    onehot[np.arange(codes.size), codes] = 1.0
    above = None if threshold is None else (xb > threshold).T.astype(np.float64) @ onehot
    return ClassCounts(ones=(xb == 1.0).T.astype(np.float64) @ onehot, above=above, class_sizes=onehot.sum(axis=0),
                       zero_one=bool(np.all((xb == 0.0) | (xb == 1.0))),
                       plus_minus=bool(np.all((xb == -1.0) | (xb == 1.0))))


def _merge_counts(a: ClassCounts, b: ClassCounts) -> ClassCounts:
    return ClassCounts(a.ones + b.ones, None if a.above is None else a.above + b.above,
                       a.class_sizes + b.class_sizes, a.zero_one and b.zero_one, a.plus_minus and b.plus_minus)


def class_counts(X, y, classes: np.ndarray, threshold: float | None = None) -> ClassCounts:
    """Per-class counts of features equal to 1 (and above ``threshold`` when given) over the row
    blocks of a dask X."""
    _check_shape(X, y)
    return _reduce(X, y, _count_block, _merge_counts, np.asarray(classes), threshold)


# --- BIA: means, centred cross-products -------------------------------------------------------

@dataclass
class Moments:
    """Row count, column means, centred cross-products ``M2 = sum (x - mean)(x - mean)'``, the
    same with y (``cxy``, ``m2y``), column minima and maxima, and y's range and integrality."""

    n: float
    mean: np.ndarray
    m2: np.ndarray
    mean_y: float
    cxy: np.ndarray
    m2y: float
    x_min: np.ndarray
    x_max: np.ndarray
    y_min: float
    y_max: float
    y_integer: bool


def _moments_block(xb, yb, positive):
    xb = np.asarray(xb, dtype=np.float64)
    yb = np.asarray(yb)
    yb = (yb == positive).astype(np.float64) if positive is not None else yb.astype(np.float64)
    mean, mean_y = xb.mean(axis=0), float(yb.mean())
    xc, yc = xb - mean, yb - mean_y
    return Moments(n=float(yb.size), mean=mean, m2=xc.T @ xc, mean_y=mean_y, cxy=xc.T @ yc, m2y=float(yc @ yc),
                   x_min=xb.min(axis=0), x_max=xb.max(axis=0), y_min=float(yb.min()), y_max=float(yb.max()),
                   y_integer=bool(np.all(yb == np.round(yb))))


def _merge_moments(a: Moments, b: Moments) -> Moments:
    """Chan, Golub & LeVeque's pairwise update of means and centred cross-products."""
    n = a.n + b.n
    w = a.n * b.n / n
    d, dy = b.mean - a.mean, b.mean_y - a.mean_y
    return Moments(n=n, mean=a.mean + d * (b.n / n), m2=a.m2 + b.m2 + np.outer(d, d) * w,
                   mean_y=a.mean_y + dy * (b.n / n), cxy=a.cxy + b.cxy + d * dy * w, m2y=a.m2y + b.m2y + dy * dy * w,
                   x_min=np.minimum(a.x_min, b.x_min), x_max=np.maximum(a.x_max, b.x_max),
                   y_min=min(a.y_min, b.y_min), y_max=max(a.y_max, b.y_max), y_integer=a.y_integer and b.y_integer)


def moments(X, y, positive=None) -> Moments:
    """:class:`Moments` over the row blocks of a dask X; ``positive``: y becomes (y == positive)."""
    _check_shape(X, y)
    return _reduce(X, y, _moments_block, _merge_moments, positive)


def block_rows(n_features: int, itemsize: int = 8) -> int:
    """Rows per block so that one block is about :data:`BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // max(1, n_features * itemsize))
