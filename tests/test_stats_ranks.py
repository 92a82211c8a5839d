"""The statistics of a benchmark over datasets (fsengine.stats: ranks, Friedman / Iman-Davenport,
Nemenyi's critical difference, Wilcoxon signed-rank (exact with ties and zeros), Holm over all pairs
and against a control, the reach of a family) against scipy and against Demšar's worked example
(JMLR 7, 2006, Table 6 and sections 3.1.3 and 3.2.2)."""

import itertools

import numpy as np
import pytest
from scipy import stats as st

from fsengine.stats import (
    friedman_test,
    holm_adjust,
    nemenyi_cd,
    nemenyi_q,
    pairwise_signed_rank,
    rank_rows,
    signed_rank_interval,
    signed_rank_reach,
    signed_rank_test,
)


def _zsplit_r_plus(d, axis=-1):
    """R+ with the zeros' ranks split evenly (Demšar's convention), for scipy's permutation test."""
    d = np.round(d, 12)
    ranks = st.rankdata(np.abs(d), axis=-1)
    return np.sum(ranks * (d > 0), axis=-1) + np.sum(ranks * (d == 0), axis=-1) / 2


def permutation_pvalue(d) -> float:
    """The exact two-sided p-value of the signed-rank statistic by scipy's enumeration of all 2^n
    sign flips of the differences (zeros stay zero): the reference for ties and zeros."""
    return st.permutation_test((np.asarray(d, dtype=float),), _zsplit_r_plus, permutation_type="samples",
                               n_resamples=np.inf, vectorized=True).pvalue

#: Demšar (2006) Table 6: AUC of C4.5 with its parameters at their defaults, with m (minimal examples in
#: a leaf) tuned, with cf (confidence for pruning) tuned, and with both, on 14 UCI datasets (rows: adult
#: (sample), breast cancer, breast cancer wisconsin, cmc, ionosphere, iris, liver disorders, lung cancer,
#: lymphography, mushroom, primary tumor, rheum, voting, wine)
DEMSAR_METHODS = ("C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf")
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970]])
#: the ranks Table 6 prints beside the AUCs (1 = best). They follow the printed AUCs except on voting, where
#: the printed 0.975 and 0.975 of C4.5+cf and C4.5+m+cf were ranked 2 and 3 (the unrounded AUCs differ)
DEMSAR_RANKS = np.array([
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5], [3, 2, 4, 1],
    [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5], [3, 2, 4, 1], [4, 1, 2, 3],
    [3, 1, 4, 2]])
VOTING = 12


def test_demsar_ranks_follow_the_printed_aucs_but_for_the_rounded_tie_on_voting():
    ranks = rank_rows(DEMSAR_AUC)
    same = np.arange(14) != VOTING
    np.testing.assert_array_equal(ranks[same], DEMSAR_RANKS[same])
    assert ranks[VOTING].tolist() == [4, 1, 2.5, 2.5] and DEMSAR_RANKS[VOTING].tolist() == [4, 1, 2, 3]


def test_demsar_average_ranks_friedman_and_iman_davenport():
    result = friedman_test(DEMSAR_RANKS, higher_is_better=False, tie_correction=False)
    np.testing.assert_allclose(result.average_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert round(result.chi2, 2) == 9.28  # Demšar prints the statistic without the ties' correction
    assert round(result.f, 2) == 3.69
    assert (result.df1, result.df2) == (3, 39)
    # his conclusion: F_F = 3.69 exceeds F(3, 39) at 0.05 = 2.85, so the null hypothesis is rejected
    assert round(float(st.f.ppf(0.95, 3, 39)), 2) == 2.85 and result.pvalue < 0.05


def test_demsar_critical_difference():
    assert round(nemenyi_q(4), 3) == 2.569  # Demšar Table 5a
    assert round(nemenyi_cd(4, 14), 2) == 1.25
    np.testing.assert_allclose(nemenyi_cd(4, 14), 2.569 * np.sqrt(4 * 5 / (6 * 14)), rtol=2e-4)
    # his reading: the largest gap, C4.5 (3.143) to C4.5+m+cf (1.964), is 1.179 < 1.25, so Nemenyi's test
    # finds no pair different at 0.05 although Friedman's test rejects
    ranks = friedman_test(DEMSAR_RANKS, higher_is_better=False).average_ranks
    assert round(ranks[0] - ranks[3], 3) == 1.179 and (ranks[0] - ranks[1:] < nemenyi_cd(4, 14)).all()


def test_demsar_signed_rank_of_c45_against_c45_m():
    """Section 3.1.3: C4.5+m against C4.5 gives R+ = 93 and R- = 12 (the two zero differences split);
    T = 12 lies below the critical value 21 for N = 14 at 0.05, so the difference is significant.
    Demšar reads it with the normal approximation (scipy's ``method="approx"``); the exact test on the
    same ranks and zeros agrees (scipy's enumeration of the 2^14 sign flips)."""
    d = DEMSAR_AUC[:, 1] - DEMSAR_AUC[:, 0]
    test = signed_rank_test(DEMSAR_AUC[:, 1], DEMSAR_AUC[:, 0])
    assert (test.r_plus, test.r_minus, test.statistic) == (93.0, 12.0, 12.0)
    assert test.method == "exact" and test.pvalue < 0.05
    np.testing.assert_allclose(test.pvalue, permutation_pvalue(d), rtol=1e-12)
    assert test.floor == pytest.approx(2 / 2**12)  # two zero differences: 12 signs can fall
    normal = signed_rank_test(DEMSAR_AUC[:, 1], DEMSAR_AUC[:, 0], method="normal")
    reference = st.wilcoxon(np.round(d, 12), zero_method="zsplit", method="approx")
    assert normal.method == "normal" and normal.statistic == reference.statistic == 12.0
    np.testing.assert_allclose(normal.pvalue, reference.pvalue, rtol=1e-12)


def test_friedman_equals_scipy_with_and_without_ties():
    rng = np.random.default_rng(0)
    for shape in [(14, 4), (6, 3), (25, 9)]:
        untied = rng.normal(size=shape)
        tied = np.round(rng.normal(size=shape), 0)
        for x in (untied, tied, DEMSAR_AUC):
            ours = friedman_test(x)
            reference = st.friedmanchisquare(*x.T)
            np.testing.assert_allclose(ours.chi2, reference.statistic, rtol=1e-12)
            np.testing.assert_allclose(ours.chi2_pvalue, reference.pvalue, rtol=1e-10)
            # Iman-Davenport from the same statistic; its p-value from the F distribution
            N, k = x.shape
            f = (N - 1) * reference.statistic / (N * (k - 1) - reference.statistic)
            np.testing.assert_allclose([ours.f, ours.pvalue], [f, st.f.sf(f, k - 1, (k - 1) * (N - 1))], rtol=1e-10)
    assert friedman_test(untied).chi2 == friedman_test(untied, tie_correction=False).chi2


def test_ranks_are_mid_ranks_and_average_ranks_sum_to_k_plus_one_over_two():
    assert rank_rows([[0.5, 0.5, 0.2, 0.9]]).tolist() == [[2.5, 2.5, 4.0, 1.0]]
    assert rank_rows([[0.5, 0.5, 0.2, 0.9]], higher_is_better=False).tolist() == [[2.5, 2.5, 1.0, 4.0]]
    ranks = friedman_test(DEMSAR_AUC).average_ranks
    assert ranks.sum() == pytest.approx(4 * 5 / 2)


def test_critical_difference_equals_the_studentized_range_quantile():
    for k, n in [(2, 10), (5, 20), (10, 12), (20, 50)]:
        q = st.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2)
        np.testing.assert_allclose(nemenyi_cd(k, n), q * np.sqrt(k * (k + 1) / (6 * n)), rtol=1e-12)
        # the quantile by simulation: the range of k independent standard normals exceeds q sqrt 2 in 5% of draws
        draws = np.random.default_rng(k).standard_normal((200_000, k))
        assert np.mean(np.ptp(draws, axis=1) > q * np.sqrt(2)) == pytest.approx(0.05, abs=0.003)
    assert nemenyi_cd(4, 14, alpha=0.10) < nemenyi_cd(4, 14)
    # Demšar Table 5a, q_0.05 for k = 2..10, printed with three decimals whose last one is off by up to one
    # unit (2.343 for 2.3437, 2.949 for 2.9483)
    np.testing.assert_allclose([nemenyi_q(k) for k in range(2, 11)],
                               [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164], atol=1e-3)


@pytest.mark.parametrize("n", [5, 9, 14, 30])
def test_signed_rank_equals_scipy_exact_and_normal(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a, b = rng.normal(size=n), rng.normal(0.3, size=n)
        ours = signed_rank_test(a, b)
        exact = st.wilcoxon(a, b, method="exact")
        assert ours.method == "exact" and ours.statistic == exact.statistic
        np.testing.assert_allclose(ours.pvalue, exact.pvalue, rtol=1e-10)
        assert ours.floor == pytest.approx(2 / 2**n)
        d = np.round(rng.normal(size=n), 1)  # ties and zeros
        d[0] = 0.0
        normal = signed_rank_test(d, np.zeros(n), method="normal")
        approx = st.wilcoxon(d, zero_method="zsplit", method="approx")
        assert normal.method == "normal" and normal.statistic == approx.statistic
        np.testing.assert_allclose(normal.pvalue, approx.pvalue, rtol=1e-10)
        ours = signed_rank_test(d, np.zeros(n))
        assert ours.method == "exact" and ours.statistic == normal.statistic
        assert ours.floor == pytest.approx(2 / 2 ** int(np.sum(d != 0)))
        if n <= 14:  # scipy enumerates the 2^n sign flips
            np.testing.assert_allclose(ours.pvalue, permutation_pvalue(d), rtol=1e-10)


def test_exact_signed_rank_with_ties_and_zeros_by_enumeration():
    """With tied |d| and zero differences the exact p-value is still the share of the sign patterns
    of the nonzero differences whose smaller rank sum (zeros split) is as small; the normal
    approximation cannot reach the exact test's smallest p-values."""
    d = np.array([0.0, 0.0, 0.2, 0.2, -0.2, 0.5, 0.7, 0.7, 1.1, 1.3])
    test = signed_rank_test(d, np.zeros(d.size))
    ranks = st.rankdata(np.abs(d))
    nonzero = np.flatnonzero(d != 0)
    half = ranks[d == 0].sum() / 2
    smaller = []
    for signs in itertools.product([0, 1], repeat=nonzero.size):
        r_plus = half + ranks[nonzero][np.array(signs, dtype=bool)].sum()
        smaller.append(min(r_plus, ranks.sum() - r_plus))
    assert test.statistic == 1.5 + 4.0  # the zeros' half (ranks 1.5, 1.5) and the -0.2 (rank 4)
    assert test.pvalue == pytest.approx(np.mean([s <= test.statistic for s in smaller]))
    assert test.floor == pytest.approx(2 / 2**8)
    one_sided = np.abs(d)  # every nonzero difference positive: the floor is reached
    assert signed_rank_test(one_sided, np.zeros(d.size)).pvalue == pytest.approx(2 / 2**8)
    # 13 datasets, one a tie at zero, the rest one way: exact 2 / 2^12; the normal approximation gives
    # more than three times that
    d13 = np.arange(13.0)
    assert signed_rank_test(d13, np.zeros(13)).pvalue == pytest.approx(2 / 2**12)
    assert signed_rank_test(d13, np.zeros(13), method="normal").pvalue > 3 * 2 / 2**12
    with pytest.raises(ValueError, match="method"):
        signed_rank_test(d, d, method="permutation")


def test_exact_signed_rank_null_by_enumeration():
    """The exact p-value is the share of the 2^n sign patterns whose smaller rank sum is as small."""
    n = 8
    a = np.array([0.3, -1.1, 2.0, 0.7, -0.2, 1.5, 0.9, -0.6])
    test = signed_rank_test(a, np.zeros(n))
    ranks = st.rankdata(np.abs(a))
    sums = [ranks[np.array(s, dtype=bool)].sum() for s in itertools.product([0, 1], repeat=n)]
    smaller = [min(s, ranks.sum() - s) for s in sums]
    assert test.pvalue == pytest.approx(np.mean([s <= test.statistic for s in smaller]))


def test_pairwise_signed_rank_holm_and_gaps():
    names = list(DEMSAR_METHODS)
    rows = pairwise_signed_rank(DEMSAR_AUC, names)
    assert [(r.a, r.b) for r in rows] == list(itertools.combinations(names, 2))
    raw = [r.test.pvalue for r in rows]
    np.testing.assert_allclose([r.holm_pvalue for r in rows], holm_adjust(raw))
    for r in rows:
        reference = permutation_pvalue(DEMSAR_AUC[:, names.index(r.a)] - DEMSAR_AUC[:, names.index(r.b)])
        np.testing.assert_allclose(r.test.pvalue, reference, rtol=1e-10)
        assert r.verdict.startswith("resolved") == (r.holm_pvalue < 0.05)
    c45_m = rows[0]
    assert c45_m.verdict == ("resolved: C4.5+m > C4.5" if c45_m.holm_pvalue < 0.05 else "not resolved")
    # a gap: each pair uses the datasets where both have a value
    gappy = DEMSAR_AUC.copy()
    gappy[:3, 3] = np.nan
    rows = pairwise_signed_rank(gappy, names)
    assert [r.test.n for r in rows] == [14, 14, 11, 14, 11, 11]
    # too few common datasets: not tested, and left out of Holm's family
    sparse = np.array([[1.0, 2.0, np.nan], [2.0, 1.5, 3.0], [3.0, 3.7, np.nan]])
    rows = pairwise_signed_rank(sparse, ["a", "b", "c"])
    assert [r.test.method for r in rows] == ["exact", "not tested", "not tested"]
    assert rows[0].holm_pvalue == rows[0].test.pvalue


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="n_datasets >= 2"):
        friedman_test([[1.0, 2.0]])
    with pytest.raises(ValueError, match="finite"):
        friedman_test([[1.0, np.nan], [1.0, 2.0]])
    with pytest.raises(ValueError, match="same 1-D shape"):
        signed_rank_test([1.0, 2.0], [1.0])


@pytest.mark.parametrize("n", [6, 11])
def test_signed_rank_interval_inverts_scipys_exact_test(n):
    """The interval is the set of shifts delta that scipy's exact two-sided test of d - delta does not
    reject at 1 - level, and its stated level is the exact attained one. The signed-rank statistic of
    d - delta counts the Walsh averages above delta, so scipy's p-value is constant between consecutive
    Walsh averages: one test per gap (at its midpoint, and beyond both ends) scans every shift."""
    rng = np.random.default_rng(n)
    d = rng.normal(0.3, 1.0, size=n)
    e = signed_rank_interval(d, 0.9)
    walsh = np.sort([(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)])
    probes = np.concatenate([[walsh[0] - 1], (walsh[:-1] + walsh[1:]) / 2, [walsh[-1] + 1]])
    kept = np.flatnonzero([st.wilcoxon(d - g, method="exact").pvalue > 0.1 for g in probes])
    assert kept.size and np.all(np.diff(kept) == 1), kept  # one interval, between two Walsh averages
    # the kept gaps' outer ends (probe k lies between walsh[k - 1] and walsh[k]), to the interval's rounding
    assert (e.low, e.high) == pytest.approx((walsh[kept[0] - 1], walsh[kept[-1]]), rel=1e-9, abs=1e-12)
    assert 0.9 <= e.level < 0.95
    assert e.value == pytest.approx(np.median(walsh))


def test_signed_rank_interval_states_the_level_it_can_reach():
    e = signed_rank_interval([0.1, 0.2, 0.3], 0.99)  # 3 datasets: no interval reaches 99%
    assert (e.low, e.high) == (0.1, 0.3) and e.level == pytest.approx(1 - 2 ** -2)


def test_comparisons_with_a_control_are_holm_corrected_over_k_minus_one():
    names = list(DEMSAR_METHODS)
    rows = pairwise_signed_rank(DEMSAR_AUC, names, control="C4.5")
    assert [(r.a, r.b) for r in rows] == [("C4.5+m", "C4.5"), ("C4.5+cf", "C4.5"), ("C4.5+m+cf", "C4.5")]
    raw = [permutation_pvalue(DEMSAR_AUC[:, names.index(r.a)] - DEMSAR_AUC[:, 0]) for r in rows]
    np.testing.assert_allclose([r.test.pvalue for r in rows], raw, rtol=1e-10)
    # Holm by its definition: the i-th smallest of the 3 p-values times (3 - i), running maximum
    order = np.argsort(raw)
    adjusted = np.maximum.accumulate(np.sort(raw) * np.array([3, 2, 1]))
    np.testing.assert_allclose(np.array([r.holm_pvalue for r in rows])[order], np.minimum(adjusted, 1))
    # the same pair is judged against a smaller family than among all six pairs
    every = {(r.a, r.b): r.holm_pvalue for r in pairwise_signed_rank(DEMSAR_AUC, names)}
    assert rows[0].holm_pvalue <= every[("C4.5", "C4.5+m")]
    assert rows[0].verdict == ("resolved: C4.5+m > C4.5" if rows[0].holm_pvalue < 0.05 else "not resolved")
    with pytest.raises(ValueError, match="control 'C5'"):
        pairwise_signed_rank(DEMSAR_AUC, names, control="C5")


def _exact_p_of_statistic(n: int, t: int) -> float:
    """scipy's exact two-sided p-value of n untied differences whose negative ranks sum to ``t``
    (a subset of 1..n with that sum, taken greedily from the largest)."""
    negative, left = set(), t
    for r in range(n, 0, -1):
        if r <= left:
            negative.add(r)
            left -= r
    assert left == 0
    d = np.array([-r if r in negative else r for r in range(1, n + 1)], dtype=float)
    return float(st.wilcoxon(d, method="exact").pvalue)


@pytest.mark.parametrize(("n", "m"), [(6, 1), (9, 10), (13, 26), (13, 351), (14, 351), (17, 351), (17, 26)])
def test_the_reach_of_a_holm_family_against_scipys_exact_test(n, m):
    """The floor is scipy's exact p with every difference on one side; the critical statistic the
    largest T whose exact p passes alpha / m (and T + 1 does not); the losses the most
    smallest-difference datasets one side may have; the fewest datasets the floor needs."""
    reach = signed_rank_reach(n, m, 0.05)
    threshold = 0.05 / m
    assert reach.threshold == pytest.approx(threshold)
    assert reach.floor == pytest.approx(_exact_p_of_statistic(n, 0)) == pytest.approx(2 / 2**n)
    assert reach.possible == (_exact_p_of_statistic(n, 0) < threshold)
    if reach.critical is None:
        assert not reach.possible and reach.max_losses is None and reach.min_wins is None
    else:
        t = int(reach.critical)
        assert _exact_p_of_statistic(n, t) < threshold <= _exact_p_of_statistic(n, t + 1)
        losses = reach.max_losses  # ranks 1..L against the method: T = L (L + 1) / 2
        assert losses * (losses + 1) / 2 <= t < (losses + 1) * (losses + 2) / 2
        assert reach.min_wins == n - losses
    assert reach.min_datasets == next(N for N in range(1, 60) if _exact_p_of_statistic(N, 0) < threshold)
