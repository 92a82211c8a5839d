"""Estimates with their intervals: the :class:`Estimate` every reported number is, the shared
defaults (:data:`LEVEL`, :data:`N_BOOTSTRAP`) and the interval methods: Wilson's score interval,
Student's t (and the corrected resampled t), the paired t, the percentile bootstrap of per-unit sums
and of column means (paired on the same resamples), Tukey's jackknife, chunk F1 / precision /
recall and ratios from counts, and the median with its range or interquartile range.

Internal: the names are public from :mod:`fsengine.stats`; the tests and verdicts built on these
intervals are in ``fsengine.stats.verdicts``, the comparison over many datasets in
``fsengine.stats.ranks``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

# the level and the bootstrap resamples of every interval unless said otherwise: public, and
# described where the API reference reads their comments (fsengine/stats/__init__.py)
LEVEL = 0.95
N_BOOTSTRAP = 2000


@dataclass(frozen=True)
class Estimate:
    """A number with its interval: ``value`` in ``[low, high]`` at ``level``, by ``method``.

    Examples
    --------
    >>> e = Estimate(93.014, 92.68, 93.33, 0.95, "sentence-level bootstrap")
    >>> e.format(2)
    '93.01 [92.68, 93.33]'
    >>> e.row()["interval"], e.contains(93.0)
    ([92.68, 93.33], True)
    """

    value: float
    low: float
    high: float
    level: float
    method: str

    def contains(self, x: float) -> bool:
        """Whether ``x`` lies inside the closed interval."""
        return bool(self.low <= x <= self.high)

    def excludes_zero(self) -> bool:
        return not self.contains(0.0)

    def scaled(self, factor: float) -> Estimate:
        """The same estimate in other units (e.g. a proportion as a percentage)."""
        lo, hi = sorted((self.low * factor, self.high * factor))
        return Estimate(self.value * factor, lo, hi, self.level, self.method)

    def format(self, digits: int = 3) -> str:
        """``value [low, high]`` with ``digits`` decimals."""
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def row(self) -> dict:
        """The fields a ``results.json`` row or a CSV line carries: ``ours``, ``interval``,
        ``level``, ``method``."""
        return {"ours": float(self.value), "interval": [float(self.low), float(self.high)],
                "level": float(self.level), "method": self.method}


def _check_level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level}: an interval's level lies strictly between 0 and 1")
    return float(level)


def wilson_interval(successes: int, n: int, level: float = LEVEL) -> Estimate:
    """Wilson's score interval of a proportion ``successes / n`` (e.g. an accuracy on ``n``
    held-out rows), which keeps its coverage near 0 and 1 where the normal interval does not:

    ``(p + z^2/2n ± z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``, ``z = Phi^-1((1+level)/2)``.

    Examples
    --------
    >>> wilson_interval(230, 250).format(4)
    '0.9200 [0.8797, 0.9476]'
    """
    level = _check_level(level)
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"a proportion needs 0 <= successes <= n and n > 0 (got {successes} of {n})")
    p = successes / n
    z = float(_st.norm.ppf(0.5 + level / 2))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), level,
                    f"Wilson score interval ({n:,} rows)")


def t_interval(values: Sequence[float], level: float = LEVEL, *, test_train_ratio: float | None = None,
               what: str = "repeats") -> Estimate:
    """Student's t interval of the mean of ``values`` (one per independent repeat).

    With ``test_train_ratio = n_test / n_train`` the repeats share training rows (CV folds,
    repeated random splits) and the variance of the mean is inflated as Nadeau & Bengio (2003,
    "Inference for the generalization error") propose: ``(1/J + n_test/n_train) s^2`` in place of
    ``s^2 / J``, with J - 1 degrees of freedom.

    Examples
    --------
    >>> round(t_interval([1.0, 2.0, 3.0]).high, 4)  # 2 + t_{0.975, 2} * 1 / sqrt(3)
    4.4841
    """
    level = _check_level(level)
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    J = x.size
    if J < 2:
        raise ValueError(f"a t interval needs at least 2 finite values (got {J})")
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    factor = 1.0 / J if test_train_ratio is None else 1.0 / J + float(test_train_ratio)
    half = float(_st.t.ppf(0.5 + level / 2, J - 1)) * sd * math.sqrt(factor)
    method = (f"t interval over {J} {what}" if test_train_ratio is None else
              f"corrected resampled t (Nadeau & Bengio 2003) over {J} {what}")
    return Estimate(mean, mean - half, mean + half, level, method)


def paired_t_interval(a: Sequence[float], b: Sequence[float], level: float = LEVEL, *,
                      test_train_ratio: float | None = None, what: str = "paired repeats") -> Estimate:
    """The t interval of the mean paired difference ``a - b`` (same folds / seeds / splits);
    see :func:`t_interval` for ``test_train_ratio``.

    Examples
    --------
    >>> paired_t_interval([0.9, 0.8, 0.85], [0.8, 0.7, 0.75]).format(2)
    '0.10 [0.10, 0.10]'
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same shape ({a.shape} vs {b.shape})")
    return t_interval(a - b, level, test_train_ratio=test_train_ratio, what=what)


def bootstrap_weights(n_units: int, n_resamples: int = N_BOOTSTRAP, seed: int = 0) -> np.ndarray:
    """How often each unit is drawn in each resample: an int array (n_resamples, n_units), each
    row a draw of ``n_units`` units with replacement (so statistics that are sums over units are
    one matrix product). The same ``seed`` gives the same resamples, which is what makes two
    models' bootstrap distributions paired.

    A matrix of up to :data:`WEIGHT_CACHE_BYTES` is drawn once and kept (read-only) for the next
    call with the same arguments: a record's intervals resample the same units with the same seed
    dozens of times (the Bayes-factor record: 164 accuracies on the same section-20 sentences)."""
    if _cacheable(n_units, n_resamples, seed):
        return _kept_weights(int(n_units), int(n_resamples), int(seed))
    return np.concatenate(list(bootstrap_weight_blocks(n_units, n_resamples, seed)))


#: resamples per block of :func:`bootstrap_weight_blocks` (bounds the memory for many units)
WEIGHT_BLOCK = 250
#: the largest weight matrix :func:`bootstrap_weights` keeps for reuse (four are kept at most)
WEIGHT_CACHE_BYTES = 16 * 2**20


def _cacheable(n_units, n_resamples, seed) -> bool:
    return (isinstance(seed, (int, np.integer)) and isinstance(n_units, (int, np.integer))
            and isinstance(n_resamples, (int, np.integer)) and 1 <= n_units and 1 <= n_resamples
            and 4 * int(n_units) * int(n_resamples) <= WEIGHT_CACHE_BYTES)


@functools.lru_cache(maxsize=4)
def _kept_weights(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    weights = np.concatenate(list(bootstrap_weight_blocks(n_units, n_resamples, seed)))
    weights.flags.writeable = False  # shared by every later call: nobody may change it
    return weights


def _weight_rows(n_units: int, n_resamples: int, seed: int):
    """The blocks of :func:`bootstrap_weight_blocks`, taken from the kept matrix when there is one."""
    if _cacheable(n_units, n_resamples, seed):
        weights = bootstrap_weights(n_units, n_resamples, seed)
        return (weights[start:start + WEIGHT_BLOCK] for start in range(0, n_resamples, WEIGHT_BLOCK))
    return bootstrap_weight_blocks(n_units, n_resamples, seed)


def bootstrap_weight_blocks(n_units: int, n_resamples: int = N_BOOTSTRAP, seed: int = 0,
                            block: int = WEIGHT_BLOCK):
    """The rows of :func:`bootstrap_weights` in blocks of at most ``block`` resamples: the same
    draws from the same generator, so the same resamples, without holding all of them at once."""
    if n_units < 1 or n_resamples < 1:
        raise ValueError("the bootstrap needs at least one unit and one resample")
    rng = np.random.default_rng(seed)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        draws = rng.integers(0, n_units, size=(rows, n_units))
        flat = (np.arange(rows)[:, None] * n_units + draws).ravel()
        yield np.bincount(flat, minlength=rows * n_units).reshape(rows, n_units).astype(np.int32)


def _percentile(point: float, replicates: np.ndarray, level: float, method: str) -> Estimate:
    replicates = replicates[np.isfinite(replicates)]
    lo, hi = np.quantile(replicates, [0.5 - level / 2, 0.5 + level / 2])
    return Estimate(float(point), float(lo), float(hi), level, method)


def bootstrap_interval(unit_sums: np.ndarray, statistic: Callable[[np.ndarray], np.ndarray], *,
                       n_resamples: int = N_BOOTSTRAP, level: float = LEVEL, seed: int = 0,
                       unit: str = "units") -> Estimate:
    """Percentile bootstrap of a statistic of per-unit sums.

    ``unit_sums`` is (n_units, n_quantities): what each unit (a sentence, a row, a document)
    contributes to the sums the statistic is computed from; ``statistic(totals)`` maps totals of
    shape (..., n_quantities) to the statistic (vectorised over leading axes). Units are
    resampled with replacement ``n_resamples`` times with ``seed``.

    Examples
    --------
    >>> rows = np.array([[1.0], [0.0], [1.0], [1.0]])          # correct or not, per row
    >>> e = bootstrap_interval(rows, lambda t: t[..., 0] / 4, n_resamples=500)
    >>> e.value, 0.0 <= e.low <= e.value <= e.high <= 1.0
    (0.75, True)
    """
    level = _check_level(level)
    sums = np.atleast_2d(np.asarray(unit_sums, dtype=np.float64))
    weights = bootstrap_weights(sums.shape[0], n_resamples, seed)
    replicates = statistic(weights @ sums)
    return _percentile(float(statistic(sums.sum(axis=0))), np.asarray(replicates, dtype=np.float64), level,
                       f"percentile bootstrap over {sums.shape[0]:,} {unit} ({n_resamples:,} resamples, seed {seed})")


def paired_bootstrap_interval(unit_sums_a: np.ndarray, unit_sums_b: np.ndarray,
                              statistic: Callable[[np.ndarray], np.ndarray], *, n_resamples: int = N_BOOTSTRAP,
                              level: float = LEVEL, seed: int = 0, unit: str = "units") -> Estimate:
    """The difference ``statistic(a) - statistic(b)`` of two models scored on the same units,
    with both evaluated on the SAME bootstrap resamples (a paired bootstrap).

    Examples
    --------
    Two classifiers scored on the same five rows (1: right), their accuracy difference on the same
    resamples:

    >>> import numpy as np
    >>> from fsengine.stats import paired_bootstrap_interval
    >>> a = np.array([[1.0], [1.0], [0.0], [1.0], [1.0]])
    >>> b = np.array([[1.0], [0.0], [0.0], [1.0], [0.0]])
    >>> e = paired_bootstrap_interval(a, b, lambda totals: totals[..., 0] / 5, n_resamples=1000)
    >>> round(e.value, 2), e.low <= e.value <= e.high
    (0.4, True)
    """
    level = _check_level(level)
    a = np.atleast_2d(np.asarray(unit_sums_a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(unit_sums_b, dtype=np.float64))
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"paired units differ in number ({a.shape[0]} vs {b.shape[0]})")
    weights = bootstrap_weights(a.shape[0], n_resamples, seed)
    replicates = statistic(weights @ a) - statistic(weights @ b)
    point = float(statistic(a.sum(axis=0)) - statistic(b.sum(axis=0)))
    return _percentile(point, np.asarray(replicates, dtype=np.float64), level,
                       f"paired percentile bootstrap over {a.shape[0]:,} {unit} ({n_resamples:,} resamples, "
                       f"seed {seed})")


def _mean_replicates(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_columns): each column's mean over each bootstrap resample of the rows."""
    n = values.shape[0]
    return np.concatenate([(w @ values) / n for w in _weight_rows(n, n_resamples, seed)])


def _column_values(values, name: str = "values") -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"{name} must be (n_units, n_columns) with at least one unit; got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} must be finite")
    return x


def bootstrap_means(values, *, n_resamples: int = N_BOOTSTRAP, level: float = LEVEL, seed: int = 0,
                    unit: str = "units") -> list[Estimate]:
    """Percentile bootstrap intervals of the column means of ``values`` (n_units, n_columns),
    every column on the SAME resamples of the units (so the intervals of two columns are paired,
    see :func:`paired_bootstrap_means`). Each column equals :func:`bootstrap_interval` of that
    column with the statistic ``total / n_units``; this is one matrix product per block of
    resamples for all columns at once.

    Examples
    --------
    >>> rows = np.array([[1, 1], [0, 1], [1, 1], [1, 1]])  # correct or not, two classifiers
    >>> [(e.value, e.low <= e.value <= e.high) for e in bootstrap_means(rows, n_resamples=500)]
    [(0.75, True), (1.0, True)]
    """
    level = _check_level(level)
    x = _column_values(values)
    replicates = _mean_replicates(x, n_resamples, seed)
    lo, hi = np.quantile(replicates, [0.5 - level / 2, 0.5 + level / 2], axis=0)
    method = f"percentile bootstrap over {x.shape[0]:,} {unit} ({n_resamples:,} resamples, seed {seed})"
    return [Estimate(float(v), float(a), float(b), level, method) for v, a, b in zip(x.mean(axis=0), lo, hi)]


def paired_bootstrap_means(a, b, *, n_resamples: int = N_BOOTSTRAP, level: float = LEVEL, seed: int = 0,
                           unit: str = "units") -> list[Estimate]:
    """Column by column, mean(a) - mean(b) of two models scored on the same units (rows of
    ``a`` and ``b``, shape (n_units, n_columns)), both on the SAME bootstrap resamples: the
    vectorised :func:`paired_bootstrap_interval` with the statistic ``total / n_units``. Two
    identical columns give exactly 0 [0, 0].

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import paired_bootstrap_means
    >>> a = np.array([[1, 1], [1, 0], [0, 1], [1, 1]])   # per row: right at k = 1 and at k = 2
    >>> b = np.array([[1, 1], [0, 0], [0, 1], [1, 1]])
    >>> first, second = paired_bootstrap_means(a, b, n_resamples=500)
    >>> first.value, first.low <= first.value <= first.high
    (0.25, True)
    >>> second.format(2)                                  # identical columns: exactly 0 [0, 0]
    '0.00 [0.00, 0.00]'
    """
    a, b = _column_values(a, "a"), _column_values(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same shape ({a.shape} vs {b.shape})")
    level = _check_level(level)
    replicates = _mean_replicates(a - b, n_resamples, seed)
    lo, hi = np.quantile(replicates, [0.5 - level / 2, 0.5 + level / 2], axis=0)
    method = f"paired percentile bootstrap over {a.shape[0]:,} {unit} ({n_resamples:,} resamples, seed {seed})"
    point = a.mean(axis=0) - b.mean(axis=0)
    return [Estimate(float(v), float(x), float(y), level, method) for v, x, y in zip(point, lo, hi)]


def jackknife_interval(point: float, leave_one_out, level: float = LEVEL, *, what: str = "units") -> Estimate:
    """Tukey's jackknife interval of a statistic from its ``n`` leave-one-out values
    ``theta_(i)`` (the statistic recomputed without unit i): standard error
    ``sqrt((n - 1)/n * sum_i (theta_(i) - mean theta_(.))^2)`` and ``point ± t_{n-1} SE``.
    For the mean it is exactly Student's t interval (a closed form the tests check); for a mean
    over pairs (a U-statistic) its variance is known to err on the large side.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 3.0])
    >>> round(jackknife_interval(2.0, [(x.sum() - v) / 2 for v in x]).high, 4)  # = t_interval(x)
    4.4841
    """
    level = _check_level(level)
    loo = np.asarray(leave_one_out, dtype=np.float64)
    n = loo.size
    if n < 2 or not np.isfinite(loo).all():
        raise ValueError(f"the jackknife needs at least 2 finite leave-one-out values (got {n})")
    se = math.sqrt((n - 1) / n * float(np.sum((loo - loo.mean()) ** 2)))
    half = float(_st.t.ppf(0.5 + level / 2, n - 1)) * se
    return Estimate(float(point), float(point) - half, float(point) + half, level,
                    f"jackknife t interval over {n} {what}")


def f1_from_counts(totals: np.ndarray) -> np.ndarray:
    """F1 = 2 TP / (2 TP + FP + FN) in percent from totals ``[..., (TP, FP, FN)]`` (CoNLL's
    chunk F1: the harmonic mean of precision and recall); 0 where there is nothing."""
    totals = np.asarray(totals, dtype=np.float64)
    tp, fp, fn = totals[..., 0], totals[..., 1], totals[..., 2]
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 200.0 * tp / np.where(denom > 0, denom, 1.0), 0.0)


def f1_interval(counts: np.ndarray, *, n_resamples: int = N_BOOTSTRAP, level: float = LEVEL,
                seed: int = 0) -> Estimate:
    """Chunking F1 (percent) with its sentence-level bootstrap interval; ``counts`` is
    (n_sentences, 3): true positives, false positives and false negatives of each sentence.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import f1_interval
    >>> counts = np.array([[3, 0, 1], [2, 1, 0], [4, 0, 0], [1, 1, 1]])   # TP, FP, FN per sentence
    >>> e = f1_interval(counts, n_resamples=1000)
    >>> round(e.value, 2), e.low <= e.value <= e.high                     # 2 TP / (2 TP + FP + FN)
    (83.33, True)
    """
    return bootstrap_interval(counts, f1_from_counts, n_resamples=n_resamples, level=level, seed=seed,
                              unit="sentences")


def f1_difference(counts_a: np.ndarray, counts_b: np.ndarray, *, n_resamples: int = N_BOOTSTRAP,
                  level: float = LEVEL, seed: int = 0) -> Estimate:
    """F1(a) - F1(b) (points) on the same sentences, by the paired sentence-level bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import f1_difference
    >>> a = np.array([[3, 0, 1], [2, 1, 0], [4, 0, 0], [1, 1, 1]])
    >>> b = np.array([[2, 1, 2], [2, 1, 0], [3, 1, 1], [1, 1, 1]])
    >>> e = f1_difference(a, b, n_resamples=1000)
    >>> e.value > 0, e.method.startswith("paired percentile bootstrap over 4 sentences")
    (True, True)
    """
    return paired_bootstrap_interval(counts_a, counts_b, f1_from_counts, n_resamples=n_resamples,
                                     level=level, seed=seed, unit="sentences")


def precision_from_counts(totals: np.ndarray) -> np.ndarray:
    """Chunk precision = TP / (TP + FP) in percent from totals ``[..., (TP, FP, FN)]``; 0 where
    nothing was guessed.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import precision_from_counts
    >>> float(precision_from_counts(np.array([8, 2, 4])))     # 8 of the 10 guessed chunks are right
    80.0
    """
    totals = np.asarray(totals, dtype=np.float64)
    guessed = totals[..., 0] + totals[..., 1]
    return np.where(guessed > 0, 100.0 * totals[..., 0] / np.where(guessed > 0, guessed, 1.0), 0.0)


def recall_from_counts(totals: np.ndarray) -> np.ndarray:
    """Chunk recall = TP / (TP + FN) in percent from totals ``[..., (TP, FP, FN)]``; 0 where
    there is no gold chunk.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import recall_from_counts
    >>> float(recall_from_counts(np.array([8, 2, 2])))        # 8 of the 10 gold chunks are found
    80.0
    """
    totals = np.asarray(totals, dtype=np.float64)
    gold = totals[..., 0] + totals[..., 2]
    return np.where(gold > 0, 100.0 * totals[..., 0] / np.where(gold > 0, gold, 1.0), 0.0)


def ratio_from_counts(totals: np.ndarray) -> np.ndarray:
    """``totals[..., 0] / totals[..., 1]``: e.g. a token accuracy from per-sentence (correct,
    tokens) sums, the statistic of a sentence-level bootstrap of an accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.stats import ratio_from_counts
    >>> float(ratio_from_counts(np.array([45, 50])))          # 45 of 50 tokens tagged right
    0.9
    """
    totals = np.asarray(totals, dtype=np.float64)
    return totals[..., 0] / np.where(totals[..., 1] > 0, totals[..., 1], np.nan)


def median_range(values: Sequence[float], *, what: str = "repeats") -> Estimate:
    """The median of ``n`` independent repeats with their range ``[min, max]``.

    The range of n draws from a continuous distribution holds that distribution's median unless
    all n fall on one side of it, so it is a distribution-free interval for the median at level
    ``1 - 2 * 0.5**n`` (0.9375 for n = 5; order statistics, e.g. David & Nagaraja, "Order
    statistics", section 7.1).

    Examples
    --------
    >>> e = median_range([3.0, 1.0, 2.0, 5.0, 4.0])
    >>> e.format(1), e.level
    ('3.0 [1.0, 5.0]', 0.9375)
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 2:
        raise ValueError(f"median_range needs at least 2 finite values (got {x.size})")
    level = 1.0 - 2.0 * 0.5 ** x.size
    return Estimate(float(np.median(x)), float(x.min()), float(x.max()), level,
                    f"median and range of {x.size} {what} (the range covers the median with probability "
                    f"1 - 2^(1-{x.size}), order statistics)")


def median_iqr(values: Sequence[float], *, what: str = "repeats") -> Estimate:
    """The median of repeated measurements (timings) with their interquartile range; the range
    holds the middle half of the repeats, so its level is 0.5.

    Examples
    --------
    >>> median_iqr([1.0, 2.0, 3.0, 4.0, 100.0]).format(1)
    '3.0 [2.0, 4.0]'
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 1:
        raise ValueError("median_iqr needs at least one finite value")
    q1, med, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    return Estimate(float(med), float(q1), float(q3), 0.5, f"median and interquartile range of {x.size} {what}")
