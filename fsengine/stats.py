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
:func:`wilson_interval`      a proportion (an accuracy on n rows): Wilson's score interval.
:func:`t_interval`           the mean of independent repeats (seeds): Student's t; with
                             ``test_train_ratio`` the corrected resampled t of Nadeau & Bengio
                             (2003) for repeats that share training rows (CV folds, repeated
                             splits), which inflates the variance by ``1/J + n_test/n_train``.
:func:`paired_t_interval`    the mean difference of paired repeats (same folds, same seeds).
:func:`bootstrap_interval`   a statistic of resampled units (sentences, rows): percentile
                             bootstrap with a fixed seed; :func:`paired_bootstrap_interval` puts
                             two models on the SAME resamples and reports their difference.
:func:`f1_interval`          chunking F1 from per-sentence true/false positives and false
                             negatives, by the sentence-level bootstrap; :func:`f1_difference`.
:func:`median_iqr`           repeated timings: the median and the interquartile range (a 50% range).
:func:`median_range`         repeats of a whole procedure (e.g. development splits): the median and
                             the range, a distribution-free interval for the median.
:func:`precision_from_counts`, :func:`recall_from_counts`, :func:`ratio_from_counts`  statistics of
                             per-unit sums for :func:`bootstrap_interval` (chunk precision / recall,
                             a token accuracy from per-sentence (correct, tokens)).
:func:`bonferroni_level`     the per-comparison level that keeps m comparisons at a family level.
:func:`holm_adjust`          Holm's step-down adjusted p-values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

#: the level of every interval unless said otherwise
LEVEL = 0.95
#: bootstrap resamples unless said otherwise (the issue asks for at least 1,000)
N_BOOTSTRAP = 2000


@dataclass(frozen=True)
class Estimate:
    """A number with its interval: ``value`` in ``[low, high]`` at ``level``, by ``method``.

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
    models' bootstrap distributions paired."""
    if n_units < 1 or n_resamples < 1:
        raise ValueError("the bootstrap needs at least one unit and one resample")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_units, size=(n_resamples, n_units))
    weights = np.zeros((n_resamples, n_units), dtype=np.int32)
    np.add.at(weights, (np.arange(n_resamples)[:, None], draws), 1)
    return weights


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
    with both evaluated on the SAME bootstrap resamples (a paired bootstrap)."""
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
    (n_sentences, 3): true positives, false positives and false negatives of each sentence."""
    return bootstrap_interval(counts, f1_from_counts, n_resamples=n_resamples, level=level, seed=seed,
                              unit="sentences")


def f1_difference(counts_a: np.ndarray, counts_b: np.ndarray, *, n_resamples: int = N_BOOTSTRAP,
                  level: float = LEVEL, seed: int = 0) -> Estimate:
    """F1(a) - F1(b) (points) on the same sentences, by the paired sentence-level bootstrap."""
    return paired_bootstrap_interval(counts_a, counts_b, f1_from_counts, n_resamples=n_resamples,
                                     level=level, seed=seed, unit="sentences")


def precision_from_counts(totals: np.ndarray) -> np.ndarray:
    """Chunk precision = TP / (TP + FP) in percent from totals ``[..., (TP, FP, FN)]``; 0 where
    nothing was guessed."""
    totals = np.asarray(totals, dtype=np.float64)
    guessed = totals[..., 0] + totals[..., 1]
    return np.where(guessed > 0, 100.0 * totals[..., 0] / np.where(guessed > 0, guessed, 1.0), 0.0)


def recall_from_counts(totals: np.ndarray) -> np.ndarray:
    """Chunk recall = TP / (TP + FN) in percent from totals ``[..., (TP, FP, FN)]``; 0 where
    there is no gold chunk."""
    totals = np.asarray(totals, dtype=np.float64)
    gold = totals[..., 0] + totals[..., 2]
    return np.where(gold > 0, 100.0 * totals[..., 0] / np.where(gold > 0, gold, 1.0), 0.0)


def ratio_from_counts(totals: np.ndarray) -> np.ndarray:
    """``totals[..., 0] / totals[..., 1]``: e.g. a token accuracy from per-sentence (correct,
    tokens) sums, the statistic of a sentence-level bootstrap of an accuracy."""
    totals = np.asarray(totals, dtype=np.float64)
    return totals[..., 0] / np.where(totals[..., 1] > 0, totals[..., 1], np.nan)


def median_range(values: Sequence[float], *, what: str = "repeats") -> Estimate:
    """The median of ``n`` independent repeats with their range ``[min, max]``.

    The range of n draws from a continuous distribution holds that distribution's median unless
    all n fall on one side of it, so it is a distribution-free interval for the median at level
    ``1 - 2 * 0.5**n`` (0.9375 for n = 5; order statistics, e.g. David & Nagaraja, "Order
    statistics", section 7.1).

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

    >>> bonferroni_level(0.95, 10)
    0.995
    """
    if m < 1:
        raise ValueError("m must be at least 1")
    return 1.0 - (1.0 - _check_level(level)) / m


def holm_adjust(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: sort ascending, multiply the i-th smallest by
    ``m - i`` (i from 0), take the running maximum, cap at 1, and put back in the input order.

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
    ``not resolved``."""
    if difference.low > 0:
        return "better"
    if difference.high < 0:
        return "worse"
    return "not resolved"


def ordering_verdict(difference: Estimate, first: str, second: str) -> str:
    """An ordering ``first > second`` judged from the interval of (first - second): ``resolved:
    FIRST > SECOND``, ``resolved: SECOND > FIRST`` (the reverse of the claim) or ``not resolved``."""
    if difference.low > 0:
        return f"resolved: {first} > {second}"
    if difference.high < 0:
        return f"resolved: {second} > {first}"
    return "not resolved"
