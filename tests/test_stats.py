"""fsengine.stats against closed forms, exact coverage and scipy's own bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as st

from fsengine import stats
from fsengine.stats import estimates


def _wilson_by_root_finding(k: int, n: int, level: float) -> tuple[float, float]:
    """Wilson's interval as its definition: the p where |phat - p| = z sqrt(p (1 - p) / n)."""
    z = st.norm.ppf(0.5 + level / 2)
    phat = k / n
    gap = lambda p: (phat - p) ** 2 - z * z * p * (1 - p) / n
    low = 0.0 if k == 0 else optimize.brentq(gap, 1e-12, phat - 1e-12 if k == n else phat)
    high = 1.0 if k == n else optimize.brentq(gap, phat + 1e-12 if k == 0 else phat, 1 - 1e-12)
    return low, high


@pytest.mark.parametrize(("k", "n"), [(230, 250), (0, 40), (40, 40), (7, 13), (500, 1000)])
def test_wilson_interval_solves_its_defining_equation(k, n):
    e = stats.wilson_interval(k, n)
    low, high = _wilson_by_root_finding(k, n, 0.95)
    assert e.value == pytest.approx(k / n)
    assert (e.low, e.high) == pytest.approx((low, high), abs=1e-9)
    assert e.level == 0.95 and "Wilson" in e.method


def test_wilson_interval_covers_near_its_level_exactly():
    """Exact coverage (a sum over the binomial distribution, no simulation) at an accuracy near
    the comparison's: within two points of 95%."""
    n = 250
    for p in (0.7, 0.92, 0.97):
        covered = sum(st.binom.pmf(k, n, p) for k in range(n + 1) if stats.wilson_interval(k, n).contains(p))
        assert 0.93 <= covered <= 0.97, (p, covered)


def test_wilson_binomial_standard_error_matches_the_issue():
    """One accuracy near 0.92 on 250 rows: the half-width is about 1.96 x 0.017."""
    e = stats.wilson_interval(230, 250)
    se = np.sqrt(0.92 * 0.08 / 250)
    assert se == pytest.approx(0.017, abs=5e-4)
    assert (e.high - e.low) / 2 == pytest.approx(1.96 * se, rel=0.05)


def test_t_interval_equals_scipys():
    x = np.array([0.91, 0.94, 0.89, 0.93, 0.92, 0.95])
    e = stats.t_interval(x, 0.9)
    low, high = st.t.interval(0.9, x.size - 1, loc=x.mean(), scale=st.sem(x))
    assert (e.low, e.high) == pytest.approx((low, high), rel=1e-12)


def test_corrected_resampled_t_inflates_by_nadeau_bengio():
    x = np.array([0.91, 0.94, 0.89, 0.93, 0.92])
    plain, corrected = stats.t_interval(x), stats.t_interval(x, test_train_ratio=0.25)
    ratio = (corrected.high - corrected.low) / (plain.high - plain.low)
    assert ratio == pytest.approx(np.sqrt((1 / 5 + 0.25) / (1 / 5)))
    assert "Nadeau" in corrected.method


def test_paired_t_interval_covers_a_known_difference():
    """A constructed example where the true difference is known (0.02): the paired interval
    covers it in about 95% of 2,000 repetitions; the unpaired spread would be far wider."""
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(2000):
        shared = rng.normal(0.9, 0.05, 8)  # fold difficulty, common to both methods
        a = shared + 0.02 + rng.normal(0, 0.01, 8)
        b = shared + rng.normal(0, 0.01, 8)
        hits += stats.paired_t_interval(a, b).contains(0.02)
    assert 0.93 <= hits / 2000 <= 0.97


def test_bootstrap_interval_agrees_with_scipys_percentile_bootstrap():
    rng = np.random.default_rng(3)
    x = rng.exponential(2.0, 300)
    ours = stats.bootstrap_interval(x[:, None], lambda t: t[..., 0] / x.size, n_resamples=4000, seed=0)
    ref = st.bootstrap((x,), np.mean, n_resamples=4000, method="percentile", random_state=5).confidence_interval
    assert ours.value == pytest.approx(x.mean())
    assert ours.low == pytest.approx(ref.low, abs=0.03) and ours.high == pytest.approx(ref.high, abs=0.03)


def test_f1_bootstrap_equals_recomputing_f1_on_resampled_sentences():
    """The weighted-sum shortcut equals F1 recomputed from the resampled list of sentences."""
    rng = np.random.default_rng(0)
    counts = np.column_stack([rng.integers(0, 6, 50), rng.integers(0, 2, 50), rng.integers(0, 2, 50)])
    weights = stats.bootstrap_weights(50, 200, seed=4)
    draws = np.random.default_rng(4).integers(0, 50, size=(200, 50))  # the same draws
    for r in range(200):
        tp, fp, fn = counts[draws[r]].sum(axis=0)
        assert stats.f1_from_counts(weights[r] @ counts) == pytest.approx(200 * tp / (2 * tp + fp + fn))
    e = stats.f1_interval(counts, n_resamples=200, seed=4)
    tp, fp, fn = counts.sum(axis=0)
    assert e.value == pytest.approx(200 * tp / (2 * tp + fp + fn))


def test_paired_f1_difference_of_a_model_with_itself_is_exactly_zero():
    counts = np.array([[3, 1, 0], [2, 0, 1], [5, 1, 1], [1, 0, 0]])
    e = stats.f1_difference(counts, counts, n_resamples=300)
    assert (e.value, e.low, e.high) == (0.0, 0.0, 0.0)
    assert stats.difference_verdict(e) == "not resolved"


def test_paired_bootstrap_resolves_a_planted_advantage_and_not_noise():
    rng = np.random.default_rng(2)
    n = 2000
    truth_a = rng.random(n) < 0.93
    truth_b = np.where(rng.random(n) < 0.9, truth_a, ~truth_a) & (rng.random(n) < 0.97)  # b worse
    stat = lambda t: t[..., 0] / n
    better = stats.paired_bootstrap_interval(truth_a[:, None], truth_b[:, None], stat)
    assert stats.difference_verdict(better) == "better"
    assert stats.ordering_verdict(better, "A", "B") == "resolved: A > B"
    assert stats.ordering_verdict(stats.Estimate(-1, -2, -0.5, 0.95, "m"), "A", "B") == "resolved: B > A"


def test_median_iqr_and_its_level():
    e = stats.median_iqr([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (e.value, e.low, e.high, e.level) == (3.0, 2.0, 4.0, 0.5)


def test_median_range_covers_the_median_at_its_order_statistic_level():
    """The range of n draws misses the median only when all n fall on one side: probability
    2 * 0.5**n exactly (binomial closed form); checked by simulation on a skewed distribution."""
    e = stats.median_range([4.0, 1.0, 3.0, 2.0, 5.0, 9.0])
    assert (e.value, e.low, e.high) == (3.5, 1.0, 9.0)
    assert e.level == pytest.approx(1 - st.binom.pmf(0, 6, 0.5) - st.binom.pmf(6, 6, 0.5))
    rng = np.random.default_rng(0)
    median = np.log(2.0)  # of the unit exponential
    hits = np.mean([stats.median_range(rng.exponential(1.0, 5)).contains(median) for _ in range(20000)])
    assert hits == pytest.approx(1 - 2 * 0.5**5, abs=0.006)
    with pytest.raises(ValueError, match="at least 2"):
        stats.median_range([1.0])


def test_precision_recall_and_ratio_statistics_are_the_closed_forms():
    totals = np.array([[90.0, 10.0, 30.0], [0.0, 0.0, 5.0], [0.0, 4.0, 0.0]])
    np.testing.assert_allclose(stats.precision_from_counts(totals), [90.0, 0.0, 0.0])
    np.testing.assert_allclose(stats.recall_from_counts(totals), [75.0, 0.0, 0.0])
    p, r = 90.0, 75.0
    assert stats.f1_from_counts(totals[0]) == pytest.approx(2 * p * r / (p + r))
    np.testing.assert_allclose(stats.ratio_from_counts(np.array([[45.0, 50.0], [0.0, 3.0]])), [0.9, 0.0])
    # a token accuracy with whole sentences resampled: the interval holds the pooled accuracy
    rng = np.random.default_rng(1)
    sentences = np.column_stack([rng.binomial(20, 0.95, 400), np.full(400, 20)])
    e = stats.bootstrap_interval(sentences, stats.ratio_from_counts, unit="sentences")
    assert e.value == pytest.approx(sentences[:, 0].sum() / 8000) and e.low < e.value < e.high
    se = np.sqrt(e.value * (1 - e.value) / 8000)  # binomial, as the sentences are independent here
    assert (e.high - e.low) / 2 == pytest.approx(1.96 * se, rel=0.15)


def test_holm_against_its_step_down_definition():
    p = np.array([0.002, 0.04, 0.013, 0.5, 0.011])
    m = p.size
    order = np.argsort(p)
    expected = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        expected[j] = running
    assert np.allclose(stats.holm_adjust(p), expected)
    assert stats.bonferroni_level(0.95, 5) == pytest.approx(0.99)


@pytest.mark.parametrize(("value", "word"), [(93.0, "consistent"), (92.0, "above"), (94.0, "below")])
def test_versus_value_words(value, word):
    assert stats.versus_value(stats.Estimate(93.01, 92.68, 93.33, 0.95, "m"), value) == word


def test_bad_inputs_say_what_is_wrong():
    with pytest.raises(ValueError, match="successes"):
        stats.wilson_interval(5, 3)
    with pytest.raises(ValueError, match="at least 2"):
        stats.t_interval([1.0])
    with pytest.raises(ValueError, match="level"):
        stats.t_interval([1.0, 2.0], level=95)


def test_kept_bootstrap_weights_are_the_fresh_draw_and_read_only(monkeypatch):
    """A weight matrix is drawn once per (units, resamples, seed) and kept: the kept one is the
    matrix a fresh draw gives, nobody can change it, and blocks and intervals read it unchanged;
    beyond WEIGHT_CACHE_BYTES nothing is kept."""
    fresh = np.concatenate(list(stats.bootstrap_weight_blocks(41, 530, seed=3)))
    kept = stats.bootstrap_weights(41, 530, seed=3)
    assert stats.bootstrap_weights(41, 530, seed=3) is kept  # drawn once
    np.testing.assert_array_equal(kept, fresh)
    with pytest.raises(ValueError, match="read-only"):
        kept[0, 0] += 1
    np.testing.assert_array_equal(np.concatenate(list(estimates._weight_rows(41, 530, 3))), fresh)
    monkeypatch.setattr(estimates, "WEIGHT_CACHE_BYTES", 4 * 41 * 530 - 1)
    big = stats.bootstrap_weights(41, 530, seed=3)
    assert big is not kept and big.flags.writeable
    np.testing.assert_array_equal(big, fresh)


def test_bootstrap_weight_blocks_are_the_same_resamples_as_one_draw():
    """Blocks of resamples continue the generator's stream: the same matrix as drawing it whole
    (and as counting the draws one by one)."""
    whole = stats.bootstrap_weights(37, 610, seed=9)
    blocks = np.concatenate(list(stats.bootstrap_weight_blocks(37, 610, seed=9, block=100)))
    np.testing.assert_array_equal(whole, blocks)
    draws = np.random.default_rng(9).integers(0, 37, size=(610, 37))
    counted = np.zeros((610, 37), dtype=np.int32)
    np.add.at(counted, (np.arange(610)[:, None], draws), 1)
    np.testing.assert_array_equal(whole, counted)
    assert (whole.sum(axis=1) == 37).all()


def test_bootstrap_means_equal_the_one_statistic_bootstrap_column_by_column():
    rng = np.random.default_rng(5)
    rows = (rng.random((120, 3)) < [0.9, 0.8, 0.6]).astype(float)
    many = stats.bootstrap_means(rows, n_resamples=700, seed=2, unit="rows")
    for j, e in enumerate(many):
        one = stats.bootstrap_interval(rows[:, [j]], lambda t: t[..., 0] / 120, n_resamples=700, seed=2)
        assert (e.value, e.low, e.high) == pytest.approx((one.value, one.low, one.high), abs=1e-12)
    assert "percentile bootstrap over 120 rows (700 resamples, seed 2)" in many[0].method


def test_paired_bootstrap_means_equal_the_paired_statistic_and_vanish_for_twins():
    rng = np.random.default_rng(6)
    a = (rng.random((200, 4)) < 0.9).astype(float)
    b = (rng.random((200, 4)) < 0.8).astype(float)
    diffs = stats.paired_bootstrap_means(a, b, n_resamples=500, seed=1, level=0.99)
    for j, e in enumerate(diffs):
        one = stats.paired_bootstrap_interval(a[:, [j]], b[:, [j]], lambda t: t[..., 0] / 200,
                                              n_resamples=500, seed=1, level=0.99)
        assert (e.value, e.low, e.high, e.level) == pytest.approx((one.value, one.low, one.high, 0.99), abs=1e-12)
    twins = stats.paired_bootstrap_means(a, a.copy())
    assert all((e.value, e.low, e.high) == (0.0, 0.0, 0.0) for e in twins)
    assert {stats.difference_verdict(e) for e in twins} == {"not resolved"}


def test_paired_bootstrap_means_cover_a_known_difference():
    """Rows where a is right exactly when b is, plus 3% of rows only a gets right: the true
    difference is 0.03; a paired interval covers it about 95% of the time."""
    rng = np.random.default_rng(8)
    hits = 0
    for _ in range(300):
        b = rng.random(400) < 0.85
        a = b | ((rng.random(400) < 0.03 / 0.15) & ~b)
        hits += stats.paired_bootstrap_means(a, b, n_resamples=400, seed=int(rng.integers(1 << 30)))[0].contains(0.03)
    assert 0.9 <= hits / 300 <= 0.99


def test_jackknife_of_the_mean_is_students_t_interval():
    """Closed form: the jackknife standard error of a mean is s / sqrt(n) exactly."""
    x = np.array([0.81, 0.86, 0.79, 0.9, 0.84, 0.88])
    loo = [(x.sum() - v) / (x.size - 1) for v in x]
    e, t = stats.jackknife_interval(x.mean(), loo, what="resamples"), stats.t_interval(x)
    assert (e.low, e.high) == pytest.approx((t.low, t.high), rel=1e-12)
    assert e.method == "jackknife t interval over 6 resamples"
    with pytest.raises(ValueError, match="at least 2"):
        stats.jackknife_interval(1.0, [1.0])


# ------------------------------------------------------------------ p-values, exact McNemar, Holm levels

def test_t_pvalue_is_scipys_one_sample_t_test_and_dual_to_the_interval():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.normal(0.3, 1.0, size=int(rng.integers(3, 30)))
        assert stats.t_pvalue(x) == pytest.approx(st.ttest_1samp(x, 0.0).pvalue, rel=1e-10)
        p = stats.t_pvalue(x, test_train_ratio=0.25)
        for level in (0.9, 0.95, 0.99, 0.9957):
            e = stats.t_interval(x, level, test_train_ratio=0.25)
            assert e.excludes_zero() == (p < 1 - level)
    assert stats.t_pvalue([1.0, 2.0, 3.0], null=2.0) == pytest.approx(1.0)


def _paired(b10: int, b01: int, ties: int = 7):
    a = np.r_[np.ones(b10), np.zeros(b01), np.ones(ties), np.zeros(ties)]
    b = np.r_[np.zeros(b10), np.ones(b01), np.ones(ties), np.zeros(ties)]
    return a, b


@pytest.mark.parametrize(("b10", "b01"), [(0, 0), (5, 0), (0, 4), (12, 3), (30, 31), (40, 17)])
def test_exact_mcnemar_and_its_interval_against_scipys_binomial_test(b10, b01):
    a, b = _paired(b10, b01)
    n, m = a.size, b10 + b01
    p = stats.mcnemar_exact_pvalue(a, b)
    if m:
        test = st.binomtest(b10, m, 0.5)
        assert p == pytest.approx(min(1.0, 2 * st.binom.cdf(min(b10, b01), m, 0.5)))
        for level in (0.95, 0.99, 1 - 0.05 / 117):
            ci = test.proportion_ci(confidence_level=level, method="exact")
            e = stats.paired_proportion_difference(a, b, level)
            assert e.value == pytest.approx((b10 - b01) / n)
            assert [e.low, e.high] == pytest.approx([(2 * ci.low - 1) * m / n, (2 * ci.high - 1) * m / n], abs=1e-12)
            assert e.excludes_zero() == (p < 1 - level)
    else:
        assert p == 1.0 and stats.paired_proportion_difference(a, b).format(3) == "0.000 [0.000, 0.000]"


def test_exact_paired_interval_needs_no_seed_while_a_bootstrap_at_a_bonferroni_level_moves():
    """The toolbox's 99.7% bounds once rested on about 3 of 2,000 resamples per tail and moved with
    the seed; the exact interval has no resamples to move."""
    a, b = _paired(40, 17, ties=200)
    level = stats.bonferroni_level(0.95, 17)
    boots = [stats.paired_bootstrap_means(a, b, level=level, seed=s)[0] for s in range(4)]
    assert max(e.low for e in boots) - min(e.low for e in boots) > 1e-3
    exact = stats.paired_proportion_difference(a, b, level)
    assert exact == stats.paired_proportion_difference(a.copy(), b.copy(), level)


def _holm_rejections(p, alpha):
    """Holm (1979) by its definition: reject H_(1..j) for the largest j with p_(i) <= alpha/(m-i+1) for all i <= j."""
    order = np.argsort(p, kind="stable")
    reject = np.zeros(len(p), dtype=bool)
    for j, i in enumerate(order):
        if p[i] > alpha / (len(p) - j):
            break
        reject[i] = True
    return reject


def test_holm_levels_make_dual_intervals_decide_as_holm_does():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m = int(rng.integers(1, 15))
        p = np.where(rng.random(m) < 0.4, rng.random(m) * 0.01, rng.random(m))
        levels = stats.holm_levels(p)
        rejected = _holm_rejections(p, 0.05)
        # a dual interval at level L excludes the null exactly when p < 1 - L
        assert np.array_equal(p < 1 - levels - 1e-15, rejected) or np.array_equal(p <= 1 - levels, rejected)
        assert np.array_equal(rejected, stats.holm_adjust(p) <= 0.05)
        assert np.all(levels >= 0.95) and np.all(levels <= 1 - 0.05 / m + 1e-15)


def test_holm_levels_on_t_intervals_of_a_family():
    rng = np.random.default_rng(1)
    family = [rng.normal(mu, 1.0, size=10) for mu in (0.0, 0.1, 1.5, 2.0, 0.4)]
    p = [stats.t_pvalue(x) for x in family]
    levels = stats.holm_levels(p)
    verdicts = [stats.t_interval(x, level).excludes_zero() for x, level in zip(family, levels)]
    assert verdicts == _holm_rejections(np.array(p), 0.05).tolist()


def test_bootstrap_replicates_give_the_paired_interval_and_a_dual_pvalue():
    rng = np.random.default_rng(2)
    a = rng.normal(0.2, 1.0, size=(300, 1))
    b = rng.normal(0.0, 1.0, size=(300, 1))

    def mean(t):
        return t[..., 0] / 300

    reps = stats.paired_bootstrap_replicates(a, b, mean, n_resamples=4000, seed=5)
    same = stats.paired_bootstrap_interval(a, b, mean, n_resamples=4000, seed=5, level=0.99)
    assert reps.interval(0.99) == same
    p = reps.pvalue()
    for level in (0.9, 0.95, 0.99, 0.999):
        e = reps.interval(level)
        if abs(p - (1 - level)) > 2 / 4000:
            assert e.excludes_zero() == (p < 1 - level)
