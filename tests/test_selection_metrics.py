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
    roc_auc,
    roc_curve,
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
