"""The statistics of a benchmark over datasets (fsengine.stats: ranks, Friedman / Iman-Davenport,
Nemenyi's critical difference, Wilcoxon signed-rank, Holm) against scipy and against Demšar's
worked example (JMLR 7, 2006, Table 6 and sections 3.1.3 and 3.2.2)."""

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
    signed_rank_test,
)

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
    T = 12 lies below the critical value 21 for N = 14 at 0.05, so the difference is significant."""
    test = signed_rank_test(DEMSAR_AUC[:, 1], DEMSAR_AUC[:, 0])
    assert (test.r_plus, test.r_minus, test.statistic) == (93.0, 12.0, 12.0)
    assert test.method == "normal" and test.pvalue < 0.05
    reference = st.wilcoxon(np.round(DEMSAR_AUC[:, 1] - DEMSAR_AUC[:, 0], 12), zero_method="zsplit",
                            method="approx")
    assert test.statistic == reference.statistic
    np.testing.assert_allclose(test.pvalue, reference.pvalue, rtol=1e-12)


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
        d = np.round(rng.normal(size=n), 1)  # ties and zeros: the normal approximation
        d[0] = 0.0
        ours = signed_rank_test(d, np.zeros(n))
        approx = st.wilcoxon(d, zero_method="zsplit", method="approx")
        assert ours.method == "normal" and ours.statistic == approx.statistic
        np.testing.assert_allclose(ours.pvalue, approx.pvalue, rtol=1e-10)


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
        reference = st.wilcoxon(np.round(DEMSAR_AUC[:, names.index(r.a)] - DEMSAR_AUC[:, names.index(r.b)], 12),
                                zero_method="zsplit", method="approx")
        np.testing.assert_allclose(r.test.pvalue, reference.pvalue, rtol=1e-10)
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
    reject at 1 - level (scanned on a fine grid), and its stated level is the exact attained one."""
    rng = np.random.default_rng(n)
    d = rng.normal(0.3, 1.0, size=n)
    e = signed_rank_interval(d, 0.9)
    grid = np.linspace(d.min() - 0.5, d.max() + 0.5, 8001)
    kept = grid[[st.wilcoxon(d - g, method="exact").pvalue > 0.1 for g in grid]]
    step = grid[1] - grid[0]
    assert abs(e.low - kept.min()) <= step and abs(e.high - kept.max()) <= step
    assert 0.9 <= e.level < 0.95
    walsh = [(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)]
    assert e.value == pytest.approx(np.median(walsh))


def test_signed_rank_interval_states_the_level_it_can_reach():
    e = signed_rank_interval([0.1, 0.2, 0.3], 0.99)  # 3 datasets: no interval reaches 99%
    assert (e.low, e.high) == (0.1, 0.3) and e.level == pytest.approx(1 - 2 ** -2)
