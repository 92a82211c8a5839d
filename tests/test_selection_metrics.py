"""Selection metrics against hand computations, exact enumeration and scikit-learn."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsengine.selection_metrics import (
    jaccard,
    jaccard_matrix,
    kuncheva_index,
    kuncheva_leave_one_out,
    kuncheva_matrix,
    kuncheva_stability,
    nogueira_difference,
    nogueira_stability,
    roc_auc,
    roc_curve,
    selection_matrix,
)


def test_jaccard_by_hand():
    assert jaccard([0, 1, 2], [1, 2, 3]) == pytest.approx(2 / 4)
    assert jaccard([5], [5]) == 1.0 and jaccard([1], [2]) == 0.0 and jaccard([], []) == 1.0
    m = jaccard_matrix({"a": [0, 1], "b": [1, 2], "c": [0, 1]})
    assert m.tolist() == [[1.0, 1 / 3, 1.0], [1 / 3, 1.0, 1 / 3], [1.0, 1 / 3, 1.0]]


def test_kuncheva_hand_example():
    # n = 10 features, k = 3, A = {0,1,2}, B = {1,2,3}: r = 2 -> (2*10 - 9) / (3 * 7) = 11/21
    assert kuncheva_index([0, 1, 2], [1, 2, 3], 10) == pytest.approx(11 / 21)
    # disjoint with n >= 2k: r = 0 -> -k / (n - k) = -3/7
    assert kuncheva_index([0, 1, 2], [7, 8, 9], 10) == pytest.approx(-3 / 7)
    # k = n/2, complementary halves reach the global minimum -1
    assert kuncheva_index([0, 1], [2, 3], 4) == pytest.approx(-1.0)
    assert kuncheva_index([4, 2, 9], [9, 4, 2], 10) == 1.0


def test_kuncheva_chance_correction_by_enumeration():
    """E[I_C] over all pairs of k-subsets is exactly 0 (the hypergeometric mean of r is k^2/n)."""
    for n, k in ((7, 3), (6, 1), (8, 5)):
        subsets = list(combinations(range(n), k))
        total = sum(kuncheva_index(a, b, n) for a in subsets for b in subsets)
        assert total / len(subsets) ** 2 == pytest.approx(0.0, abs=1e-12)
        values = [kuncheva_index(subsets[0], b, n) for b in subsets]
        assert min(values) == pytest.approx((max(0, 2 * k - n) * n - k * k) / (k * (n - k)))
        assert max(values) == 1.0


def test_kuncheva_stability_is_mean_over_pairs():
    s = [[0, 1, 2], [1, 2, 3], [0, 1, 2]]
    pairs = [11 / 21, 1.0, 11 / 21]
    assert kuncheva_stability(s, 10) == pytest.approx(np.mean(pairs))
    assert kuncheva_stability([[3, 4]] * 5, 9) == 1.0


@pytest.mark.parametrize("args, message", [
    (([0, 1], [0], 5), "equal size"), (([], [], 5), "0 < k < n"), (([0, 1], [1, 0], 2), "0 < k < n"),
    (([0, 7], [0, 1], 5), "0..4"),
])
def test_kuncheva_rejects_undefined_cases(args, message):
    with pytest.raises(ValueError, match=message):
        kuncheva_index(*args)
    with pytest.raises(ValueError, match="at least two"):
        kuncheva_stability([[0]], 3)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n, max_size=n))))
def test_roc_auc_is_the_mann_whitney_probability_by_brute_force(case):
    truth, scores = np.array(case[0]), np.array(case[1], dtype=float)
    if truth.all() or not truth.any():
        with pytest.raises(ValueError, match="both relevant and irrelevant"):
            roc_curve(truth, scores)
        return
    fpr, tpr, thr = roc_curve(truth, scores)
    # one point per distinct score (ties form one step), by counting at each threshold
    distinct = np.unique(scores)[::-1]
    np.testing.assert_array_equal(thr[1:], distinct)
    np.testing.assert_allclose(tpr[1:], [(scores[truth] >= c).mean() for c in distinct])
    np.testing.assert_allclose(fpr[1:], [(scores[~truth] >= c).mean() for c in distinct])
    auc = roc_auc(truth, scores)
    pos, neg = scores[truth], scores[~truth]
    mann_whitney = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
    assert auc == pytest.approx(mann_whitney)


def test_roc_perfect_and_reversed():
    truth = np.array([True, True, False, False, False])
    assert roc_auc(truth, [5, 4, 3, 2, 1]) == 1.0
    assert roc_auc(truth, [1, 2, 3, 4, 5]) == 0.0
    assert roc_auc(truth, np.zeros(5)) == 0.5
    with pytest.raises(ValueError, match="finite"):
        roc_curve(truth, [1, np.nan, 0, 0, 0])


def test_kuncheva_matrix_and_leave_one_out_by_hand():
    s = [[0, 1, 2], [1, 2, 3], [0, 1, 2], [5, 6, 7]]
    m = kuncheva_matrix(s, 10)
    assert m.shape == (4, 4) and np.allclose(m, m.T) and np.allclose(np.diag(m), 1.0)
    assert m[0, 1] == pytest.approx(11 / 21) and m[0, 2] == 1.0
    assert m[np.triu_indices(4, 1)].mean() == pytest.approx(kuncheva_stability(s, 10))
    loo = kuncheva_leave_one_out(m)
    for i in range(4):
        assert loo[i] == pytest.approx(kuncheva_stability([x for j, x in enumerate(s) if j != i], 10))
    with pytest.raises(ValueError, match="at least three"):
        kuncheva_leave_one_out(m[:2, :2])


# --- Nogueira, Sechidis & Brown (2018) ------------------------------------------------------------

def _phi_by_definition(Z: np.ndarray) -> float:
    """Definition 4 of the paper written out: 1 - mean_f var_f(ddof=1) / ((kbar/d)(1 - kbar/d))."""
    d = Z.shape[1]
    kbar = Z.sum(axis=1).mean()
    return 1 - Z.var(axis=0, ddof=1).mean() / ((kbar / d) * (1 - kbar / d))


def _population_phi(p: np.ndarray) -> float:
    """The stability of runs that select feature f independently with probability p_f."""
    d, k = p.size, p.sum()
    return 1 - np.mean(p * (1 - p)) / ((k / d) * (1 - k / d))


def test_nogueira_equals_its_definition_on_unequal_sizes():
    rng = np.random.default_rng(1)
    Z = rng.random((12, 30)) < np.linspace(0.05, 0.9, 30)
    assert nogueira_stability(Z).value == pytest.approx(_phi_by_definition(Z.astype(float)), rel=1e-12)
    # index lists give the same matrix
    subsets = [np.flatnonzero(row) for row in Z]
    assert nogueira_stability(subsets, 30).value == pytest.approx(nogueira_stability(Z).value, rel=1e-14)


def test_nogueira_closed_forms():
    identical = nogueira_stability([[1, 4, 7]] * 6, 20)
    assert (identical.value, identical.low, identical.high) == (1.0, 1.0, 1.0)
    # every run a different single feature of d = M: p_f = 1/M, the minimum -1/(M-1)
    M = 5
    assert nogueira_stability([[i] for i in range(M)], M).value == pytest.approx(-1 / (M - 1))


def test_nogueira_is_zero_in_expectation_for_random_subsets():
    """E[Phi] = 0 exactly for uniformly random k-subsets (the correction for chance)."""
    rng = np.random.default_rng(7)
    d, k, M, reps = 40, 6, 8, 3000
    values = np.array([nogueira_stability([rng.choice(d, k, replace=False) for _ in range(M)], d).value
                       for _ in range(reps)])
    assert abs(values.mean()) < 4 * values.std(ddof=1) / np.sqrt(reps)


def test_nogueira_interval_matches_monte_carlo_spread_and_covers():
    """The asymptotic variance (Theorem 9) against the Monte Carlo spread of Phi over
    independent experiments, and its 95% interval's coverage of the population stability."""
    rng = np.random.default_rng(3)
    p = np.r_[np.full(5, 0.9), np.full(5, 0.5), np.full(30, 0.05)]
    truth = _population_phi(p)
    M, reps = 60, 2000
    estimates = [nogueira_stability(rng.random((M, p.size)) < p) for _ in range(reps)]
    values = np.array([e.value for e in estimates])
    half_widths = np.array([(e.high - e.low) / 2 for e in estimates])
    assert np.mean(half_widths) / 1.959964 == pytest.approx(values.std(ddof=1), rel=0.1)
    coverage = np.mean([e.contains(truth) for e in estimates])
    assert 0.92 <= coverage <= 0.975


def test_nogueira_interval_matches_monte_carlo_spread_when_run_sizes_vary():
    """Runs of very different sizes (half pick about 3 features, half about 20): here the term of
    the influence that carries Phi itself matters (leaving it out doubles the standard error)."""
    rng = np.random.default_rng(4)
    d, M, reps = 40, 60, 2000
    small_p = (np.arange(d) < 3) * 0.95 + 0.01
    big_p = (np.arange(d) < 20) * 0.9 + 0.01
    values, ses = [], []
    for _ in range(reps):
        pr = np.where(rng.random((M, 1)) < 0.5, small_p, big_p)
        e = nogueira_stability(rng.random((M, d)) < pr)
        values.append(e.value)
        ses.append((e.high - e.low) / 2 / 1.959964)
    assert np.mean(ses) == pytest.approx(np.std(values, ddof=1), rel=0.1)


def test_nogueira_interval_agrees_with_the_jackknife():
    rng = np.random.default_rng(5)
    p = np.r_[np.full(4, 0.8), np.full(36, 0.1)]
    Z = rng.random((300, p.size)) < p
    est = nogueira_stability(Z)
    loo = np.array([_phi_by_definition(np.delete(Z, i, axis=0).astype(float)) for i in range(Z.shape[0])])
    jack_se = np.sqrt((Z.shape[0] - 1) / Z.shape[0] * np.sum((loo - loo.mean()) ** 2))
    assert (est.high - est.low) / 2 / 1.959964 == pytest.approx(jack_se, rel=0.05)


def test_nogueira_difference_type_one_error_and_power():
    """Under equal stability the 5% test rejects about 5% of the time, independent or paired;
    a clearly more stable method is detected."""
    rng = np.random.default_rng(11)
    d, M, reps = 30, 40, 1500
    p = np.r_[np.full(4, 0.7), np.full(26, 0.15)]
    rejections = {False: 0, True: 0}
    for _ in range(reps):
        # paired design: each run's resample shifts both methods' selection probabilities alike
        shift = rng.normal(0, 0.15, size=(M, 1))
        pr = np.clip(p + shift, 0.01, 0.99)
        a, b = rng.random((M, d)) < pr, rng.random((M, d)) < pr
        rejections[True] += nogueira_difference(a, b, paired=True).pvalue < 0.05
        a2, b2 = rng.random((M, d)) < p, rng.random((M, d)) < p
        rejections[False] += nogueira_difference(a2, b2).pvalue < 0.05
    for paired, count in rejections.items():
        assert 0.03 <= count / reps <= 0.075, (paired, count / reps)
    stable = np.tile(np.arange(d) < 4, (M, 1))
    unstable = rng.random((M, d)) < p
    result = nogueira_difference(unstable, stable, paired=True)
    assert result.difference.low > 0 and result.pvalue < 1e-6


def test_nogueira_difference_of_relabelled_features_is_exactly_zero():
    rng = np.random.default_rng(2)
    Z = rng.random((10, 15)) < 0.3
    result = nogueira_difference(Z, Z[:, rng.permutation(15)], paired=True)
    assert result.difference.value == pytest.approx(0.0, abs=1e-12) and result.pvalue == 1.0


@pytest.mark.parametrize("args, message", [
    (([[0, 1]], 4), "at least two"),
    (([[], []], 4), "neither all empty nor all full"),
    (([[0, 1], [0, 1]], 2), "neither all empty nor all full"),
    (([[0, 5], [1]], 4), "must lie in"),
])
def test_nogueira_rejects_undefined_cases(args, message):
    with pytest.raises(ValueError, match=message):
        nogueira_stability(*args)


def test_selection_matrix_refuses_non_binary_values():
    with pytest.raises(ValueError, match="0/1"):
        selection_matrix(np.array([[0, 2], [1, 0]]))
