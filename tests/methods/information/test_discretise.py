"""The family's one discretisation against its formulas written out with numpy: mean ± one standard
deviation, equal-frequency cut points from ``np.quantile``, the same states from sparse input
without densifying, and the exception storage read back."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine.methods.information.discretise import MEAN_SD, check_bins, discretise


def _data(n=300, p=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * np.arange(1, p + 1)
    X[X < 0.4] = 0.0                                  # sparse-like columns with a mass at zero
    X[:, 0] = (rng.random(n) < 0.3).astype(float)     # a 0/1 column
    X[:, 1] = 5.0                                     # constant
    X[:, 2] = rng.integers(-3, 4, n)                  # negative values and ties
    X[:, 3] = -np.abs(X[:, 3])                        # non-positive
    return X


def _by_formula(X, bins):
    if bins == MEAN_SD:
        cuts = np.stack([X.mean(axis=0) - X.std(axis=0), X.mean(axis=0) + X.std(axis=0)], axis=1)
    else:
        cuts = np.quantile(X, np.arange(1, bins) / bins, axis=0).T
    return (X[:, :, None] > cuts[None]).sum(axis=2).T   # state = number of cut points below x


@pytest.mark.parametrize("bins", [MEAN_SD, 2, 3, 5, 10])
def test_states_follow_the_formula_from_dense_and_sparse_input(bins):
    X = _data()
    want = _by_formula(X, bins)
    dense = discretise(X, bins)
    np.testing.assert_array_equal(dense.dense(), want)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        np.testing.assert_array_equal(discretise(fmt(X), bins).dense(), want)
    # storage: the most frequent state per feature, the rest as exceptions, counts per state
    assert dense.n_states == check_bins(bins)
    for j in range(X.shape[1]):
        counts = np.bincount(want[j], minlength=dense.n_states)
        np.testing.assert_array_equal(dense.counts[j], counts)
        assert dense.default[j] == np.argmax(counts)
        assert dense.indptr[j + 1] - dense.indptr[j] == X.shape[0] - counts.max()
    assert discretise(X, bins).dense().dtype == np.int8


def test_zero_dominated_columns_keep_absent_apart_from_present():
    """A rare word: every equal-frequency cut point is 0, and x > c still separates 0 from > 0."""
    x = np.zeros((100, 1))
    x[[3, 50, 70], 0] = [1.0, 2.0, 1.0]
    for bins in (MEAN_SD, 3, 5):
        states = discretise(sp.csc_matrix(x), bins).dense()[0]
        assert len(set(states[x[:, 0] == 0])) == 1 and states[3] != states[0]


def test_mostly_non_zero_sparse_columns_list_their_zero_rows():
    rng = np.random.default_rng(2)
    X = rng.normal(5.0, 1.0, size=(60, 3))
    X[rng.random((60, 3)) < 0.2] = 0.0
    for bins in (MEAN_SD, 4):
        np.testing.assert_array_equal(discretise(sp.csc_matrix(X), bins).dense(), _by_formula(X, bins))


def test_wide_sparse_input_is_not_densified():
    n, p = 2000, 100_000
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((np.ones(200_000), (rng.integers(0, n, 200_000), rng.integers(0, p, 200_000))), shape=(n, p))
    X.data[:] = 1.0                     # word presence (duplicates summed, then reset)
    tracemalloc.start()
    states = discretise(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < n * p / 10            # one byte per cell would be 200 MB; the non-zeros are 200,000
    assert states.indptr[-1] == X.nnz   # exceptions: exactly the present words


@pytest.mark.parametrize("bad", ["quantile", 1, 128, 2.5, True, None])
def test_bad_bins_are_refused_with_what_is_allowed(bad):
    with pytest.raises(ValueError, match="mean_sd.*2 to 127"):
        discretise(np.zeros((4, 2)), bad)
