"""Tests, multiplicity and verdicts: the verdict of an estimate against a value, of a difference
and of an ordering (always from the interval, never from the point), Bonferroni's level and Holm's
step-down procedure (adjusted p-values, the level each hypothesis is tested at, a family of
intervals judged at those levels), and the tests dual to the intervals of
``fsengine.stats.estimates``: Student's t p-value, the exact McNemar test with its conditional
interval of a paired difference of proportions, and bootstrap replicates kept for intervals at any
level and their p-value.

Internal: the public names are importable from :mod:`fsengine.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from fsengine.stats.estimates import LEVEL, N_BOOTSTRAP, Estimate, _check_level, _percentile, _weight_rows


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


# ----------------------------------------------------------------------------------- tests and Holm
# p-values dual to the intervals of fsengine.stats.estimates (an interval at level L excludes the
# null exactly when the test's p-value is below 1 - L), and the levels Holm's step-down procedure
# tests each hypothesis at, so that a family of comparisons is judged from intervals as every single
# comparison is.

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

    >>> from fsengine.stats import t_interval
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
