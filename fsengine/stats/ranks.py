"""Comparing methods over many datasets (Demšar, JMLR 7, 2006; Benavoli, Corani & Mangili, JMLR 17,
2016): each dataset's methods ranked, Friedman's test in the Iman-Davenport form, Nemenyi's critical
difference, Wilcoxon's signed-rank test (exact with ties and zeros, or normal), that test for every
pair of methods or against a control with Holm's correction, what such a family can resolve at all,
and the Hodges-Lehmann median difference with its signed-rank interval.

Internal: the public names are importable from :mod:`fsengine.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from fsengine.stats.estimates import LEVEL, Estimate, _check_level
from fsengine.stats.verdicts import holm_adjust


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
