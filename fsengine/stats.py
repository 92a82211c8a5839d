"""Intervals, paired differences and verdicts: the one statistics module behind every reported
estimate (the reproductions' ``results.json``, the comparison's tables and page, the toolbox
report).

Every function returns an :class:`Estimate`: the value, its interval, the interval's level and a
sentence naming the method, so a number is never reported without its uncertainty and how it
was obtained. The verdicts are computed from intervals, never from point values:

* against a paper's value or a target (:func:`versus_value`): ``"consistent"`` when the value
  lies inside our interval, ``"above"`` / ``"below"`` when our whole interval lies above / below it;
* for a difference between two methods (:func:`difference_verdict`): ``"better"`` /
  ``"worse"`` when the interval excludes 0, ``"not resolved"`` otherwise; for an ordering named
  in a paper (:func:`ordering_verdict`): ``"resolved"`` (with the sign) or ``"not resolved"``.

Methods
-------
=============================  ===================================================================
:func:`wilson_interval`        a proportion (an accuracy on n rows): Wilson's score interval.
:func:`t_interval`             the mean of independent repeats (seeds): Student's t; with
                               ``test_train_ratio`` the corrected resampled t of Nadeau & Bengio
                               (2003) for repeats that share training rows (CV folds, repeated
                               splits), which inflates the variance by ``1/J + n_test/n_train``.
:func:`paired_t_interval`      the mean difference of paired repeats (same folds, same seeds).
:func:`bootstrap_interval`     a statistic of resampled units (sentences, rows): percentile
                               bootstrap with a fixed seed; :func:`paired_bootstrap_interval` puts
                               two models on the SAME resamples and reports their difference.
:func:`bootstrap_means`        many means at once (columns of per-unit values, e.g. per held-out row
                               whether a classifier was right at each k), every column on the same
                               resamples; :func:`paired_bootstrap_means` their paired differences.
:func:`jackknife_interval`     Tukey's jackknife from leave-one-out estimates (a statistic of a few
                               resamples, e.g. a stability index averaged over pairs of fits).
:func:`f1_interval`            chunking F1 from per-sentence true/false positives and false
                               negatives, by the sentence-level bootstrap; :func:`f1_difference`.
:func:`median_iqr`             repeated timings: the median and the interquartile range (a 50% range).
:func:`median_range`           repeats of a whole procedure (e.g. development splits): the median and
                               the range, a distribution-free interval for the median.
:func:`precision_from_counts`  statistics of per-unit sums for :func:`bootstrap_interval`: chunk
                               precision,
:func:`recall_from_counts`     chunk recall,
:func:`ratio_from_counts`      a token accuracy from per-sentence (correct, tokens).
:func:`bonferroni_level`       the per-comparison level that keeps m comparisons at a family level.
:func:`holm_adjust`            Holm's step-down adjusted p-values.
=============================  ===================================================================

Methods over many datasets (Demšar, JMLR 7, 2006; Benavoli, Corani & Mangili, JMLR 17, 2016):

============================ ======================================================================
:func:`rank_rows`            each dataset's methods ranked 1..k with mid-ranks for ties.
:func:`friedman_test`        average ranks, the Friedman statistic and its Iman-Davenport F form.
:func:`nemenyi_cd`           Nemenyi's critical difference of average ranks (studentized range / sqrt 2).
:func:`signed_rank_test`     Wilcoxon's signed-rank test of two methods over datasets (exact, ties and
                             zeros included, or normal).
:func:`pairwise_signed_rank` that test for every pair of methods, or for every method against one
                             control, Holm-corrected, with verdicts.
:func:`signed_rank_reach`    what a family of such tests on N datasets can resolve at all: the smallest
                             attainable p against Holm's first-step threshold, the largest statistic
                             that passes it and the fewest datasets that could.
============================ ======================================================================

How selected sets agree (from :mod:`fsengine.selection_metrics`, public here): :func:`jaccard` and
:func:`jaccard_matrix` (overlap), :func:`kuncheva_index` and :func:`kuncheva_stability` (Kuncheva's
consistency index), :func:`nogueira_stability` and :func:`nogueira_difference` (Nogueira et al.'s
stability with its interval and test), :func:`roc_curve` and :func:`roc_auc` (feature scores
against a known relevant set).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

#: how selected sets agree, public here (:mod:`fsengine.selection_metrics`, which builds on this
#: module, is imported on first use)
_SELECTION_METRICS = ("jaccard", "jaccard_matrix", "kuncheva_index", "kuncheva_stability", "nogueira_stability",
                      "nogueira_difference", "roc_auc", "roc_curve")

__all__ = [
    "LEVEL", "N_BOOTSTRAP", "Estimate",
    "wilson_interval", "t_interval", "paired_t_interval", "bootstrap_interval", "paired_bootstrap_interval",
    "bootstrap_means", "paired_bootstrap_means", "jackknife_interval", "f1_interval", "f1_difference",
    "precision_from_counts", "recall_from_counts", "ratio_from_counts", "median_iqr", "median_range",
    "bonferroni_level", "holm_adjust", "versus_value", "difference_verdict", "ordering_verdict",
    "FriedmanTest", "PairwiseTest", "SignedRankTest", "rank_rows", "friedman_test", "nemenyi_q", "nemenyi_cd",
    "signed_rank_test", "pairwise_signed_rank", "signed_rank_interval", "SignedRankReach", "signed_rank_reach",
    *_SELECTION_METRICS,
]


def __getattr__(name: str):
    if name in _SELECTION_METRICS:
        from fsengine import selection_metrics

        return getattr(selection_metrics, name)
    raise AttributeError(f"module 'fsengine.stats' has no attribute {name!r}")

#: the level of every interval unless said otherwise
LEVEL = 0.95
#: bootstrap resamples unless said otherwise (the issue asks for at least 1,000)
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


def bonferroni_level(level: float, m: int) -> float:
    """The per-comparison level that keeps ``m`` comparisons at family level ``level``
    (every interval at ``1 - (1 - level)/m``).

    Examples
    --------
    >>> bonferroni_level(0.95, 10)
    0.995
    """
    if m < 1:
        raise ValueError("m must be at least 1")
    return 1.0 - (1.0 - _check_level(level)) / m


def holm_adjust(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: sort ascending, multiply the i-th smallest by
    ``m - i`` (i from 0), take the running maximum, cap at 1, and put back in the input order.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out


def versus_value(estimate: Estimate, value: float) -> str:
    """Our estimate against a paper's value or a target: ``consistent`` when the value lies
    inside our interval, ``above`` when our whole interval lies above it, ``below`` when below.

    Examples
    --------
    >>> versus_value(Estimate(93.0, 92.7, 93.3, 0.95, "m"), 92.9993)
    'consistent'
    >>> versus_value(Estimate(91.0, 90.7, 91.3, 0.95, "m"), 92.9993)
    'below'
    """
    if estimate.contains(value):
        return "consistent"
    return "above" if estimate.low > value else "below"


def difference_verdict(difference: Estimate) -> str:
    """``better`` / ``worse`` when the interval of (method - reference) excludes 0, else
    ``not resolved``.

    Examples
    --------
    >>> from fsengine.stats import Estimate, difference_verdict
    >>> difference_verdict(Estimate(0.02, 0.01, 0.03, 0.95, "paired bootstrap"))
    'better'
    >>> difference_verdict(Estimate(0.01, -0.01, 0.03, 0.95, "paired bootstrap"))
    'not resolved'
    """
    if difference.low > 0:
        return "better"
    if difference.high < 0:
        return "worse"
    return "not resolved"


def ordering_verdict(difference: Estimate, first: str, second: str) -> str:
    """An ordering ``first > second`` judged from the interval of (first - second): ``resolved:
    FIRST > SECOND``, ``resolved: SECOND > FIRST`` (the reverse of the claim) or ``not resolved``.

    Examples
    --------
    >>> from fsengine.stats import Estimate, ordering_verdict
    >>> ordering_verdict(Estimate(-0.02, -0.03, -0.01, 0.95, "t"), "IFS", "SGC")  # the claim IFS > SGC reversed
    'resolved: SGC > IFS'
    """
    if difference.low > 0:
        return f"resolved: {first} > {second}"
    if difference.high < 0:
        return f"resolved: {second} > {first}"
    return "not resolved"


# --- comparing methods over many datasets (Demšar 2006; Benavoli, Corani & Mangili 2016) ------------

def _score_table(scores) -> np.ndarray:
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(f"scores must be (n_datasets >= 2, n_methods >= 2); got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("scores must be finite: leave out the datasets where a method has no result first")
    return x


def rank_rows(scores, *, higher_is_better: bool = True) -> np.ndarray:
    """Each row's values ranked 1 (best) to k, ties sharing the mean of the ranks they span
    (mid-ranks, as Demšar 2006 section 3.2.2 ranks the methods on each dataset).

    Examples
    --------
    >>> rank_rows([[0.9, 0.8, 0.9], [0.1, 0.2, 0.3]]).tolist()
    [[1.5, 3.0, 1.5], [3.0, 2.0, 1.0]]
    """
    x = np.asarray(scores, dtype=np.float64)
    return _st.rankdata(-x if higher_is_better else x, axis=1, method="average")


@dataclass(frozen=True)
class FriedmanTest:
    """The Friedman test of k methods on N datasets and its Iman-Davenport F form.

    average_ranks (k,), chi2 (the Friedman statistic, tie-corrected unless ``tie_correction`` is
    False), f (Iman-Davenport), df1 = k - 1, df2 = (k - 1)(N - 1), pvalue of F against
    F(df1, df2), chi2_pvalue of chi2 against chi2(k - 1).

    Examples
    --------
    >>> from fsengine.stats import friedman_test
    >>> result = friedman_test([[0.90, 0.80, 0.70], [0.85, 0.80, 0.60], [0.95, 0.90, 0.80]])
    >>> result.average_ranks.tolist(), result.df1, result.df2
    ([1.0, 2.0, 3.0], 2, 4)
    """

    average_ranks: np.ndarray
    chi2: float
    chi2_pvalue: float
    f: float
    df1: int
    df2: int
    pvalue: float
    n_datasets: int
    n_methods: int
    tie_correction: bool


def friedman_test(scores, *, higher_is_better: bool = True, tie_correction: bool = True) -> FriedmanTest:
    """Friedman's test of equal performance of k methods over N datasets (rows of ``scores``,
    (N, k)), in the Iman & Davenport (1980) form Demšar (JMLR 7, 2006, Eqs. (1)-(2)) recommends:

    ``chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]`` with R_j the average ranks,
    ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)`` ~ F(k - 1, (k - 1)(N - 1)).

    With ``tie_correction`` (the default) chi2_F is divided by ``1 - sum_t (t^3 - t) / (N (k^3 - k))``
    over the groups of t tied values in each row (what ``scipy.stats.friedmanchisquare`` does);
    Demšar prints the uncorrected statistic. When every row ties completely the statistic is 0.

    Examples
    --------
    Demšar's worked example (Table 6): the ranks of four variants of C4.5 on 14 datasets, as printed
    (1 = best; given as scores with ``higher_is_better=False``), and his uncorrected statistic:

    >>> from fsengine.stats import friedman_test
    >>> ranks = [[4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5],
    ...          [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5],
    ...          [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2]]
    >>> result = friedman_test(ranks, higher_is_better=False, tie_correction=False)
    >>> result.average_ranks.round(3).tolist()
    [3.143, 2.0, 2.893, 1.964]
    >>> round(result.chi2, 2), round(result.f, 2)
    (9.28, 3.69)
    """
    x = _score_table(scores)
    N, k = x.shape
    ranks = rank_rows(x, higher_is_better=higher_is_better)
    R = ranks.mean(axis=0)
    chi2 = 12.0 * N / (k * (k + 1)) * (float(np.sum(R**2)) - k * (k + 1) ** 2 / 4.0)
    if tie_correction:
        ties = sum(float(np.sum(c**3 - c)) for c in (np.unique(row, return_counts=True)[1] for row in ranks))
        denominator = 1.0 - ties / (N * (k**3 - k))
        chi2 = chi2 / denominator if denominator > 0 else 0.0
    chi2 = max(0.0, chi2)
    df1, df2 = k - 1, (k - 1) * (N - 1)
    f = (N - 1) * chi2 / (N * (k - 1) - chi2) if N * (k - 1) - chi2 > 0 else math.inf
    return FriedmanTest(average_ranks=R, chi2=chi2, chi2_pvalue=float(_st.chi2.sf(chi2, df1)), f=f, df1=df1, df2=df2,
                        pvalue=float(_st.f.sf(f, df1, df2)) if math.isfinite(f) else 0.0, n_datasets=N, n_methods=k,
                        tie_correction=tie_correction)


def nemenyi_q(n_methods: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical value q_alpha: the studentized range quantile for ``n_methods`` means
    with infinite degrees of freedom, divided by sqrt 2 (Demšar 2006, Table 5a: 2.569 for k = 4).

    Examples
    --------
    >>> from fsengine.stats import nemenyi_q
    >>> round(nemenyi_q(4), 3)        # Demšar (2006) Table 5a
    2.569
    """
    if n_methods < 2:
        raise ValueError("the critical difference compares at least two methods")
    return float(_st.studentized_range.ppf(1.0 - alpha, n_methods, np.inf)) / math.sqrt(2.0)


def nemenyi_cd(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks, ``q_alpha sqrt(k (k + 1) / (6 N))``
    (Demšar 2006, section 3.2.2): two methods whose average ranks differ by at least this much
    differ at family level ``alpha``. For 4 methods on 14 datasets it is 1.25.

    Examples
    --------
    >>> round(nemenyi_cd(4, 14), 2)
    1.25
    """
    if n_datasets < 1:
        raise ValueError("the critical difference needs at least one dataset")
    return nemenyi_q(n_methods, alpha) * math.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets))


@dataclass(frozen=True)
class SignedRankTest:
    """Wilcoxon's signed-rank test of paired values a - b over N datasets.

    r_plus, r_minus: the rank sums of the differences in favour of a and of b (zero differences
    split evenly between them, Demšar 2006 section 3.1.3); statistic = min(r_plus, r_minus);
    pvalue two-sided; method "exact" (the null distribution of R+ given the tied ranks and the
    zeros, enumerated) or "normal" (with the ties' variance correction); median_difference the
    median of a - b; floor the smallest p-value this test could have given on these datasets (every
    nonzero difference on one side): ``2 / 2^(N - zeros)`` for the exact test.

    Examples
    --------
    >>> from fsengine.stats import signed_rank_test
    >>> t = signed_rank_test([0.90, 0.80, 0.83, 0.70, 0.97], [0.85, 0.82, 0.80, 0.60, 0.90])
    >>> t.n, t.r_plus, t.r_minus, t.statistic, t.method
    (5, 14.0, 1.0, 1.0, 'exact')
    """

    n: int
    r_plus: float
    r_minus: float
    statistic: float
    pvalue: float
    method: str
    median_difference: float
    floor: float = math.nan


#: up to this many datasets the signed-rank p-value is exact (scipy's own limit for untied data)
EXACT_SIGNED_RANK = 50


def _signed_rank_null(n: int) -> np.ndarray:
    """P(R+ = r), r = 0..n(n+1)/2, under H0 for n untied nonzero differences: the generating
    function prod_i (1 + z^i) / 2^n, expanded by dynamic programming."""
    return _rank_sum_null(np.arange(1, n + 1))


def _rank_sum_null(weights: np.ndarray) -> np.ndarray:
    """P(S = s), s = 0..sum(weights), of ``S = sum_i w_i B_i`` with independent fair coins B_i and
    non-negative integer weights: prod_i (1 + z^(w_i)) / 2, expanded by dynamic programming."""
    weights = np.asarray(weights, dtype=np.int64)
    probs = np.zeros(int(weights.sum()) + 1)
    probs[0] = 1.0
    for w in weights[weights > 0]:  # a zero weight adds nothing whichever way its coin falls
        shifted = np.zeros_like(probs)
        shifted[w:] = probs[:-w]
        probs = (probs + shifted) / 2.0
    return probs


def _exact_signed_rank(ranks: np.ndarray, nonzero: np.ndarray, r_plus: float) -> tuple[float, float]:
    """Two-sided exact p-value and floor of the signed-rank test given the (mid-)ranks: under H0 the
    signs of the nonzero differences are fair coins and the zeros' ranks are split evenly, so
    ``2 R+ = sum_zeros r_i + sum_nonzero 2 r_i B_i`` (integers: mid-ranks are halves) and
    ``p = min(1, 2 P(R+ <= min(R+, R-)))`` (the null is symmetric about its mean)."""
    doubled = np.round(2.0 * ranks).astype(np.int64)
    base = int(doubled[~nonzero].sum()) // 2  # the zeros' half of their doubled ranks: 2 x (r / 2)
    null = _rank_sum_null(doubled[nonzero])
    total = int(doubled.sum())
    observed = min(int(round(2.0 * r_plus)), total - int(round(2.0 * r_plus))) - base
    pvalue = min(1.0, 2.0 * float(null[:max(observed, -1) + 1].sum()))
    floor = min(1.0, 2.0 * float(null[0]))
    return pvalue, floor


def _normal_signed_rank(n: int, statistic: float, tie_counts: np.ndarray) -> float:
    variance = n * (n + 1) * (2 * n + 1) / 24.0 - float(np.sum(tie_counts**3 - tie_counts)) / 48.0
    if variance <= 0:
        return 1.0
    z = (statistic - n * (n + 1) / 4.0) / math.sqrt(variance)
    return min(1.0, float(2.0 * _st.norm.cdf(z)))


def signed_rank_test(a, b, *, method: str = "auto") -> SignedRankTest:
    """Wilcoxon's signed-rank test of ``a`` against ``b`` (paired, one pair per dataset), as
    Demšar (2006, section 3.1.3) states it and Benavoli, Corani & Mangili (JMLR 17, 2016) recommend
    for every pair of methods: rank ``|d_i|`` (mid-ranks for ties), R+ and R- the rank sums of the
    positive and negative differences, zeros' ranks split evenly between them. Differences are
    rounded to 12 decimals first, so that 0.768 - 0.763 and 0.936 - 0.931 tie as they do on paper.

    p-value (``method``): ``"exact"``: the permutation distribution of R+ given these ranks and
    zeros (each nonzero difference's sign a fair coin under H0; with no ties and no zeros it is the
    classical exact distribution, as scipy's ``wilcoxon(method="exact")``; with ties or zeros it is
    what ``scipy.stats.permutation_test`` enumerates over the sign flips); ``"normal"``: the normal
    approximation ``z = (T - N(N+1)/4) / sqrt(N(N+1)(2N+1)/24 - sum_t (t^3 - t)/48)`` (Demšar's
    worked example; scipy's ``method="approx"``); ``"auto"`` (default): exact up to
    :data:`EXACT_SIGNED_RANK` datasets, else normal. The normal approximation is poor in the tails
    with few datasets (it cannot reach the exact test's smallest p-values), which is why ties and
    zeros no longer switch to it.

    Examples
    --------
    Five datasets, method a ahead on four: the differences 0.05, -0.02, 0.03, 0.10, 0.07 rank 3, 1, 2,
    5, 4, so R+ = 14 and R- = 1; the exact two-sided p-value is 2 P(R+ <= 1) = 2 * 2/32:

    >>> from fsengine.stats import signed_rank_test
    >>> t = signed_rank_test([0.90, 0.80, 0.83, 0.70, 0.97], [0.85, 0.82, 0.80, 0.60, 0.90])
    >>> t.statistic, t.pvalue
    (1.0, 0.125)
    """
    if method not in ("auto", "exact", "normal"):
        raise ValueError(f"method {method!r}: choose 'auto', 'exact' or 'normal'")
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired values need the same 1-D shape ({a.shape} vs {b.shape})")
    d = np.round(a - b, 12)
    n = d.size
    if n < 1 or not np.isfinite(d).all():
        raise ValueError("the signed-rank test needs at least one finite pair")
    ranks = _st.rankdata(np.abs(d), method="average")
    zeros = d == 0
    r_plus = float(ranks[d > 0].sum() + ranks[zeros].sum() / 2)
    r_minus = float(ranks[d < 0].sum() + ranks[zeros].sum() / 2)
    statistic = min(r_plus, r_minus)
    _, tie_counts = np.unique(np.abs(d), return_counts=True)
    exact = method == "exact" or (method == "auto" and n <= EXACT_SIGNED_RANK)
    if exact:
        pvalue, floor = _exact_signed_rank(ranks, ~zeros, r_plus)
    else:
        pvalue = _normal_signed_rank(n, statistic, tie_counts)
        floor = _normal_signed_rank(n, float(ranks[zeros].sum() / 2), tie_counts)
    return SignedRankTest(n=n, r_plus=r_plus, r_minus=r_minus, statistic=statistic, pvalue=pvalue,
                          method="exact" if exact else "normal", median_difference=float(np.median(a - b)),
                          floor=floor)


@dataclass(frozen=True)
class PairwiseTest:
    """One pair of methods in :func:`pairwise_signed_rank`: the signed-rank test of a against b
    on the ``n`` datasets where both have a value, the Holm-adjusted p-value and the verdict at
    the family level (``"resolved: A > B"``, ``"resolved: B > A"``, ``"not resolved"``).

    Examples
    --------
    >>> from fsengine.stats import pairwise_signed_rank
    >>> first = pairwise_signed_rank([[0.9, 0.8], [0.8, 0.7], [0.7, 0.75]], ["A", "B"])[0]
    >>> first.a, first.b, first.test.n, first.verdict
    ('A', 'B', 3, 'not resolved')
    """

    a: str
    b: str
    test: SignedRankTest
    holm_pvalue: float
    verdict: str


def pairwise_signed_rank(scores, names: Sequence[str], *, alpha: float = 0.05, min_pairs: int = 2,
                         control: str | None = None) -> list[PairwiseTest]:
    """Wilcoxon's signed-rank test for every pair of methods (columns of ``scores``, (N, k); NaN
    where a method has no result on a dataset), each on the datasets where both have a value,
    with Holm's (1979) step-down correction over all the pairs tested (Benavoli, Corani & Mangili,
    JMLR 17, 2016, recommend this over the mean-rank post-hoc tests: its outcome for a pair does
    not depend on which other methods are compared). A pair is "resolved" when its Holm-adjusted
    p-value is below ``alpha``, in the direction of the larger rank sum; a pair with fewer than
    ``min_pairs`` common datasets is not tested (p-value NaN, "not resolved").

    With ``control`` (one of ``names``) only the k - 1 pairs (method, control) are tested, and Holm's
    correction runs over those (Demšar 2006, section 3.2.2: comparisons with a control, chosen
    before the results are seen, need a correction for k - 1 tests instead of k (k - 1) / 2).

    Examples
    --------
    Three methods on six datasets; with six datasets the smallest exact p-value is 2/64, which Holm's
    correction over three pairs lifts above 0.05, so no pair is resolved however clear it looks:

    >>> from fsengine.stats import pairwise_signed_rank
    >>> scores = [[0.90, 0.80, 0.70], [0.85, 0.82, 0.61], [0.95, 0.90, 0.74],
    ...           [0.70, 0.72, 0.52], [0.88, 0.81, 0.73], [0.91, 0.85, 0.68]]
    >>> for t in pairwise_signed_rank(scores, ["A", "B", "C"]):
    ...     print(t.a, t.b, round(t.test.pvalue, 4), round(t.holm_pvalue, 4), t.verdict)
    A B 0.0625 0.0938 not resolved
    A C 0.0312 0.0938 not resolved
    B C 0.0312 0.0938 not resolved
    """
    x = np.asarray(scores, dtype=np.float64)
    names = [str(n) for n in names]
    if x.ndim != 2 or x.shape[1] != len(names):
        raise ValueError(f"scores must be (n_datasets, {len(names)} methods); got shape {x.shape}")
    if control is not None and control not in names:
        raise ValueError(f"control {control!r} is not among the methods ({', '.join(names)})")
    if control is None:
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        c = names.index(control)
        pairs = [(i, c) for i in range(len(names)) if i != c]
    tests = []
    for i, j in pairs:
        both = np.isfinite(x[:, i]) & np.isfinite(x[:, j])
        tests.append(signed_rank_test(x[both, i], x[both, j]) if both.sum() >= max(1, min_pairs) else None)
    tested = [t for t in tests if t is not None]
    adjusted = iter(holm_adjust([t.pvalue for t in tested]) if tested else [])
    out = []
    for (i, j), t in zip(pairs, tests):
        if t is None:
            empty = SignedRankTest(n=int((np.isfinite(x[:, i]) & np.isfinite(x[:, j])).sum()), r_plus=math.nan,
                                   r_minus=math.nan, statistic=math.nan, pvalue=math.nan, method="not tested",
                                   median_difference=math.nan)
            out.append(PairwiseTest(names[i], names[j], empty, math.nan, "not resolved"))
            continue
        p = float(next(adjusted))
        if p < alpha and t.r_plus != t.r_minus:
            first, second = (names[i], names[j]) if t.r_plus > t.r_minus else (names[j], names[i])
            verdict = f"resolved: {first} > {second}"
        else:
            verdict = "not resolved"
        out.append(PairwiseTest(names[i], names[j], t, p, verdict))
    return out


@dataclass(frozen=True)
class SignedRankReach:
    """What a family of ``comparisons`` Wilcoxon signed-rank tests on ``n`` datasets each can
    resolve under Holm's procedure at family level ``alpha`` (:func:`signed_rank_reach`).

    threshold
        ``alpha / comparisons``: Holm's first step, which some p-value must pass before any
        comparison of the family is resolved
    floor
        ``2 / 2^n``: the smallest two-sided p-value the exact test can give on ``n`` datasets (one
        method better on every one); higher with zero differences
    possible
        whether ``floor < threshold``: False means no comparison of the family can be resolved,
        whatever the data
    critical
        the largest statistic T = min(R+, R-) whose exact p-value is below the threshold (None when
        none is)
    max_losses
        the most datasets a method may be worse on and still pass the first step, when those are
        its smallest differences (ranks 1..L: T = L (L + 1) / 2); None when none
    min_datasets
        the fewest datasets with which the floor falls below the threshold

    Examples
    --------
    >>> from fsengine.stats import signed_rank_reach
    >>> r = signed_rank_reach(17, 26)  # every other method against a control, 17 datasets
    >>> r.possible, r.max_losses, r.min_wins
    (True, 4, 13)
    """

    comparisons: int
    n: int
    alpha: float
    threshold: float
    floor: float
    critical: float | None
    max_losses: int | None
    min_datasets: int

    @property
    def possible(self) -> bool:
        return self.floor < self.threshold

    @property
    def min_wins(self) -> int | None:
        """The fewest datasets (of ``n``) a method must be better on to pass the first step."""
        return None if self.max_losses is None else self.n - self.max_losses


def signed_rank_reach(n: int, comparisons: int, alpha: float = 0.05) -> SignedRankReach:
    """What Holm's procedure over ``comparisons`` exact signed-rank tests on ``n`` datasets (untied,
    no zero differences: the most favourable case) can resolve at all. Nothing is resolved unless
    the smallest p-value is below ``alpha / comparisons``, and the exact test's smallest p-value on
    ``n`` datasets is ``2 / 2^n``: with 13 datasets 2.4e-4, above the 1.4e-4 that 351 pairs ask for.

    Examples
    --------
    >>> from fsengine.stats import signed_rank_reach
    >>> r = signed_rank_reach(13, 351)
    >>> r.possible, r.min_datasets, f"{r.floor:.2g}", f"{r.threshold:.2g}"
    (False, 14, '0.00024', '0.00014')
    >>> r = signed_rank_reach(13, 26)
    >>> r.possible, r.critical, r.max_losses, r.min_wins
    (True, 4.0, 2, 11)
    """
    if n < 1 or comparisons < 1:
        raise ValueError("the reach needs at least one dataset and one comparison")
    threshold = alpha / comparisons
    floor = min(1.0, 2.0 / 2.0**n)
    critical = max_losses = None
    if n <= EXACT_SIGNED_RANK:
        passing = np.flatnonzero(2.0 * np.cumsum(_signed_rank_null(n)) < threshold)
        if passing.size:
            critical = float(passing[-1])
            max_losses = int(max(L for L in range(n + 1) if L * (L + 1) / 2 <= critical))
    min_datasets = 1
    while 2.0 / 2.0**min_datasets >= threshold:
        min_datasets += 1
    return SignedRankReach(comparisons=comparisons, n=n, alpha=alpha, threshold=threshold, floor=floor,
                           critical=critical, max_losses=max_losses, min_datasets=min_datasets)


def signed_rank_interval(differences, level: float = LEVEL) -> Estimate:
    """The Hodges-Lehmann estimate of the median difference (the median of the Walsh averages
    ``(d_i + d_j) / 2``, i <= j) with the confidence interval that inverts Wilcoxon's signed-rank
    test (Hollander & Wolfe, "Nonparametric statistical methods", section 3.3): with M = n(n+1)/2
    sorted Walsh averages W_(1) <= ... <= W_(M) and c the largest count with P(R+ <= c) <= (1 - level)/2
    under H0 (exact for n <= :data:`EXACT_SIGNED_RANK`, else normal), the interval is
    ``[W_(c+1), W_(M-c)]``, whose exact level ``1 - 2 P(R+ <= c)`` (at least ``level``) the returned
    Estimate states. With few values a high level cannot be reached (P(R+ = 0) = 2^-n); the
    interval is then the range of the Walsh averages and its level the highest attainable,
    ``1 - 2^(1-n)``, which the returned Estimate states.

    Examples
    --------
    >>> e = signed_rank_interval([0.1, 0.3, -0.2, 0.5, 0.4, 0.2, 0.6, 0.05], level=0.9)
    >>> round(e.value, 3), e.low < e.value < e.high
    (0.25, True)
    """
    level = _check_level(level)
    d = np.round(np.asarray(differences, dtype=np.float64), 12)
    n = d.size
    if n < 1 or not np.isfinite(d).all():
        raise ValueError("the signed-rank interval needs at least one finite difference")
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2.0)
    M = walsh.size
    tail = (1.0 - level) / 2.0
    if n <= EXACT_SIGNED_RANK:
        cdf = np.cumsum(_signed_rank_null(n))
        below = np.flatnonzero(cdf <= tail + 1e-12)  # R+ <= a is rejected: a Walsh averages cut at each end
        cut = int(below[-1]) if below.size else 0
        attained = 1.0 - 2.0 * float(cdf[cut]) if below.size else 1.0 - 2.0 ** (1 - n)
        how = "exact"
    else:
        z = float(_st.norm.ppf(1.0 - tail))
        cut = max(0, int(math.floor(M / 2.0 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0))) - 1)
        attained, how = level, "normal approximation"
    low, high = float(walsh[cut]), float(walsh[M - cut - 1])
    return Estimate(float(np.median(walsh)), low, high, float(attained),
                    f"Hodges-Lehmann median difference, signed-rank interval ({how}, {n} datasets)")


# ----------------------------------------------------------------------------------- tests and Holm
# p-values dual to the intervals above (an interval at level L excludes the null exactly when the
# test's p-value is below 1 - L), and the levels Holm's step-down procedure tests each hypothesis at,
# so that a family of comparisons is judged from intervals as every single comparison is.

def t_pvalue(values: Sequence[float], *, null: float = 0.0, test_train_ratio: float | None = None) -> float:
    """The two-sided p-value of Student's t test of mean(``values``) = ``null``, with the variance
    :func:`t_interval` uses (``test_train_ratio``: the corrected resampled t of Nadeau & Bengio):
    ``t_interval(values, level)`` excludes ``null`` exactly when the p-value is below ``1 - level``.

    >>> round(t_pvalue([1.0, 2.0, 3.0]), 4)  # t = 2 / (1 / sqrt(3)) on 2 degrees of freedom
    0.0742
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    J = x.size
    if J < 2:
        raise ValueError(f"a t test needs at least 2 finite values (got {J})")
    factor = 1.0 / J if test_train_ratio is None else 1.0 / J + float(test_train_ratio)
    se = float(x.std(ddof=1)) * math.sqrt(factor)
    gap = float(x.mean()) - null
    if se == 0.0:
        return 1.0 if gap == 0.0 else 0.0
    return float(2.0 * _st.t.sf(abs(gap) / se, J - 1))


def paired_proportion_difference(a, b, level: float = LEVEL, *, unit: str = "rows") -> Estimate:
    """The difference of two proportions measured on the same units (``a``, ``b``: 0/1 per unit,
    e.g. whether each of two classifiers got a held-out row right): ``mean(a) - mean(b)`` with the
    exact conditional interval. Only the discordant units carry the difference: with ``b10`` units
    where only ``a`` is 1 and ``b01`` where only ``b`` is, ``mean(a) - mean(b) = (b10 - b01) / n``,
    and given ``m = b10 + b01`` the count ``b10`` is binomial(m, pi). The Clopper-Pearson interval
    of pi mapped through ``(2 pi - 1) m / n`` is the interval; it excludes 0 exactly when the exact
    McNemar test (:func:`mcnemar_exact_pvalue`) rejects at ``1 - level``. No resampling: the bounds
    are the same for every seed, at any level (a Bonferroni or Holm level of 99.96% included). The
    verdict it gives (whether 0 is excluded) is the exact test; its bounds away from 0 condition on
    the number of discordant units ``m`` (the conditional interval of, e.g., Agresti, *Categorical
    data analysis*, section 10.1).

    >>> paired_proportion_difference([1, 1, 1, 0, 1, 1], [0, 0, 0, 0, 1, 1]).format(3)
    '0.500 [-0.208, 0.500]'
    """
    level = _check_level(level)
    x, y = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape or x.size < 1 or not np.all(np.isin(x, (0.0, 1.0))) or not np.all(np.isin(y, (0.0, 1.0))):
        raise ValueError("paired proportions need two 0/1 arrays of the same, nonzero length")
    n = x.size
    b10, b01 = int(np.sum((x == 1) & (y == 0))), int(np.sum((x == 0) & (y == 1)))
    m = b10 + b01
    method = (f"exact conditional interval over {n:,} paired {unit} (Clopper-Pearson on the {m:,} discordant, "
              "dual to the exact McNemar test)")
    if m == 0:
        return Estimate(0.0, 0.0, 0.0, level, method)
    alpha = 1.0 - level
    low = 0.0 if b10 == 0 else float(_st.beta.ppf(alpha / 2, b10, m - b10 + 1))
    high = 1.0 if b10 == m else float(_st.beta.ppf(1 - alpha / 2, b10 + 1, m - b10))
    scale = m / n
    return Estimate((b10 - b01) / n, (2 * low - 1) * scale, (2 * high - 1) * scale, level, method)


def mcnemar_exact_pvalue(a, b) -> float:
    """The two-sided exact McNemar test of two paired 0/1 arrays: ``min(1, 2 P(X <= min(b10, b01)))``
    for X ~ binomial(b10 + b01, 1/2) (the doubled-tail rule, dual to the Clopper-Pearson interval of
    :func:`paired_proportion_difference`); 1 when no unit is discordant.

    >>> round(mcnemar_exact_pvalue([1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0]), 4)  # 5 of 5 discordant one way
    0.0625
    """
    x, y = np.asarray(a).ravel(), np.asarray(b).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired values need the same shape ({x.shape} vs {y.shape})")
    b10, b01 = int(np.sum((x == 1) & (y == 0))), int(np.sum((x == 0) & (y == 1)))
    m = b10 + b01
    if m == 0:
        return 1.0
    return float(min(1.0, 2.0 * _st.binom.cdf(min(b10, b01), m, 0.5)))


@dataclass(frozen=True)
class BootstrapReplicates:
    """A statistic (``point``) and its bootstrap replicates, kept so that intervals at any level
    and the dual p-value come from the same resamples (:meth:`interval`, :meth:`pvalue`)."""

    point: float
    replicates: np.ndarray
    method: str

    def interval(self, level: float = LEVEL) -> Estimate:
        """The percentile interval at ``level`` (equal tails)."""
        return _percentile(self.point, np.asarray(self.replicates, dtype=np.float64), _check_level(level), self.method)

    def pvalue(self, null: float = 0.0) -> float:
        """The two-sided percentile-bootstrap p-value of ``null``: twice the smaller share of
        replicates on either side of it (at least one replicate's worth, ``1/B``), so the interval
        at a level excludes ``null`` when this is below ``1 - level`` (up to one replicate)."""
        r = np.asarray(self.replicates, dtype=np.float64)
        r = r[np.isfinite(r)]
        tail = min(np.sum(r <= null), np.sum(r >= null))
        return float(min(1.0, max(2.0 * tail, 1.0) / r.size))


def paired_bootstrap_replicates(unit_sums_a: np.ndarray, unit_sums_b: np.ndarray,
                                statistic: Callable[[np.ndarray], np.ndarray], *, n_resamples: int = N_BOOTSTRAP,
                                seed: int = 0, unit: str = "units") -> BootstrapReplicates:
    """The replicates of ``statistic(a) - statistic(b)`` behind :func:`paired_bootstrap_interval`
    (the same resamples, drawn in blocks so that many resamples fit in memory): its interval at any
    level and its p-value (:class:`BootstrapReplicates`)."""
    a = np.atleast_2d(np.asarray(unit_sums_a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(unit_sums_b, dtype=np.float64))
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"paired units differ in number ({a.shape[0]} vs {b.shape[0]})")
    reps = np.concatenate([np.asarray(statistic(w @ a) - statistic(w @ b), dtype=np.float64)
                           for w in _weight_rows(a.shape[0], n_resamples, seed)])
    point = float(statistic(a.sum(axis=0)) - statistic(b.sum(axis=0)))
    return BootstrapReplicates(point, reps, f"paired percentile bootstrap over {a.shape[0]:,} {unit} "
                                            f"({n_resamples:,} resamples, seed {seed})")


def holm_levels(pvalues: Sequence[float], level: float = LEVEL) -> np.ndarray:
    """The level at which Holm's (1979) step-down procedure tests each hypothesis of a family, so
    that each comparison can be judged from its own interval at that level.

    With ``alpha = 1 - level`` and the p-values sorted ascending, the j-th (from 0) is tested at
    ``alpha / (m - j)`` as long as every smaller one was rejected; from the first that is not
    rejected on, every later one is tested at that step's level (and is not rejected: its p-value is
    no smaller). An interval dual to its test (:func:`t_pvalue`, :func:`mcnemar_exact_pvalue`)
    therefore excludes the null exactly when Holm rejects, i.e. when :func:`holm_adjust` is below
    ``alpha``. Ties keep the input order.

    >>> holm_levels([0.01, 0.04, 0.03]).round(4).tolist()  # 0.01 <= 0.05/3, then 0.03 > 0.05/2: stop
    [0.9833, 0.975, 0.975]
    """
    alpha = 1.0 - _check_level(level)
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    out = np.empty(m)
    stopped = None
    for j, i in enumerate(np.argsort(p, kind="stable")):
        step = alpha / (m - j) if stopped is None else stopped
        out[i] = 1.0 - step
        if stopped is None and p[i] > step:
            stopped = step
    return out


def holm_family(tests: Sequence[tuple[float, Callable[[float], Estimate]]], level: float = LEVEL, *,
                family: str = "comparisons") -> list[Estimate]:
    """A family of comparisons judged by Holm's step-down procedure at family level ``level``: each
    test is ``(p-value, interval_at)`` with ``interval_at(level) -> Estimate`` the interval dual to
    that p-value; each comes back as its interval at the level Holm tests it at
    (:func:`holm_levels`), its method naming the procedure, the family and the step, so that
    "the interval excludes 0" is Holm's verdict.

    >>> tests = [(t_pvalue(x), lambda lv, x=x: t_interval(x, lv)) for x in ([1.0, 1.1, 0.9], [0.1, -0.2, 0.3])]
    >>> [round(e.level, 3) for e in holm_family(tests, family="two means")]
    [0.975, 0.95]
    """
    tests = list(tests)
    m = len(tests)
    pvalues = np.array([p for p, _ in tests], dtype=np.float64)
    levels = holm_levels(pvalues, level)
    steps = np.empty(m, dtype=int)
    steps[np.argsort(pvalues, kind="stable")] = np.arange(1, m + 1)
    out = []
    for (_, at), lv, step in zip(tests, levels, steps):
        e = at(float(lv))
        out.append(Estimate(e.value, e.low, e.high, e.level,
                            f"{e.method}; Holm's step-down over the {m} {family}, step {step}"))
    return out
