"""The Relief mathematics against the brute force of ``reference.py`` (plain loops from Kononenko's
and Urbanowicz et al.'s definitions): continuous, discrete, mixed, multi-class, real-target and
tied data; the tie rule as the average over every row order; dense, sparse, both sparse update
routes, block sizes and thread counts giving the same weights; memory bounded by a block."""

import itertools
import tracemalloc

import numba
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fsengine.methods.relief import kernels, model
from fsengine.methods.relief.model import distinct_counts, make_target
from fsengine.methods.relief.model import relief_scores as _relief_scores
from tests.methods.relief import reference as ref

ATOL = 1e-14


def relief_scores(X, y, *, method, discrete_threshold=10, n_neighbors=10, **kw):
    """The model's weights with skrebate's feature typing and k = 10 unless the test says."""
    return _relief_scores(X, y, method=method, discrete_threshold=discrete_threshold,
                          **({"n_neighbors": n_neighbors} if method == "relieff" else {}), **kw)


def _data(kind, n=40, seed=0):
    """Small data of each kind; y depends on features 0 and 1."""
    rng = np.random.default_rng(seed)
    cont = rng.normal(size=(n, 4))
    disc = rng.integers(0, 4, size=(n, 4)).astype(float)
    X = {"continuous": cont, "discrete": disc, "mixed": np.c_[cont[:, :2], disc[:, :2], disc[:, 2:3] > 1]}[kind]
    score = X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=n)
    return X, score


def _labels(score, classes, *, imbalanced=False):
    if classes == "regression":
        return score
    cuts = [0.5] if classes == 2 else ([0.2, 0.6] if imbalanced else [1 / 3, 2 / 3])
    return np.searchsorted(np.quantile(score, cuts), score)


CASES = [(kind, classes, imb) for kind in ("continuous", "discrete", "mixed")
         for classes, imb in ((2, False), (3, False), (3, True), ("regression", False))]


@pytest.mark.parametrize("kind,classes,imbalanced", CASES)
@pytest.mark.parametrize("k", [1, 4, 40])
def test_relieff_equals_the_brute_force(kind, classes, imbalanced, k):
    X, score = _data(kind)
    y = _labels(score, classes, imbalanced=imbalanced)
    task = "regression" if classes == "regression" else "classification"
    ours = relief_scores(X, y, method="relieff", n_neighbors=k, task=task).scores
    np.testing.assert_allclose(ours, ref.relieff(X, y, k, task=task), atol=ATOL)


@pytest.mark.parametrize("kind,classes,imbalanced", CASES)
def test_multisurf_equals_the_brute_force(kind, classes, imbalanced):
    X, score = _data(kind)
    y = _labels(score, classes, imbalanced=imbalanced)
    task = "regression" if classes == "regression" else "classification"
    np.testing.assert_allclose(relief_scores(X, y, method="multisurf", task=task).scores,
                               ref.multisurf(X, y, task=task), atol=ATOL)


def test_the_relevant_features_come_first():
    X, score = _data("continuous", n=150)
    y = _labels(score, 2)
    for method in ("relieff", "multisurf"):
        scores = relief_scores(X, y, method=method).scores
        assert set(np.argsort(-scores)[:2].tolist()) == {0, 1} and scores[2:].max() < scores[:2].min()


def test_discrete_threshold_counts_distinct_values_zeros_included():
    X = np.c_[np.arange(40) % 10, np.arange(40) % 11, np.zeros(40), np.r_[np.zeros(39), 5.0]]
    np.testing.assert_array_equal(distinct_counts(X), [10, 11, 1, 2])
    np.testing.assert_array_equal(distinct_counts(sp.csr_matrix(X)), [10, 11, 1, 2])
    for cap in (1, 3, 10, 11, 50):  # the capped numba scan of dense X: min(count, cap)
        np.testing.assert_array_equal(distinct_counts(X, cap=cap), np.minimum([10, 11, 1, 2], cap))
    y = (np.arange(40) % 3 == 0).astype(int)
    r = relief_scores(X, y, method="relieff", n_neighbors=3)
    np.testing.assert_array_equal(r.discrete, ref.feature_kinds(X, 10))
    assert r.discrete.tolist() == [True, False, True, True] and r.scores[2] == 0.0
    np.testing.assert_allclose(r.scores, ref.relieff(X, y, 3), atol=ATOL)
    everything_continuous = relief_scores(X, y, method="relieff", n_neighbors=3, discrete_threshold=0)
    assert not everything_continuous.discrete.any()
    np.testing.assert_allclose(everything_continuous.scores, ref.relieff(X, y, 3, threshold=0), atol=ATOL)


def _tied(n=7, seed=2):
    """Binary features with few distinct rows: many candidates share the k-th distance."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 3)).astype(float)
    y = np.r_[np.zeros(n // 2), np.ones(n - n // 2)].astype(int)
    return X, y


def test_the_tie_rule_is_the_average_over_every_row_order_of_lower_index_first():
    X, y = _tied()
    ours = relief_scores(X, y, method="relieff", n_neighbors=2)
    assert ours.trace["tied_instances"].iloc[0] > 0  # the data does split ties
    perms = list(itertools.permutations(range(len(y))))
    average = np.mean([ref.relieff(X[list(q)], y[list(q)], 2, ties="index") for q in perms], axis=0)
    np.testing.assert_allclose(ours.scores, average, atol=1e-13)
    np.testing.assert_allclose(ours.scores, ref.relieff(X, y, 2), atol=ATOL)  # the written-out share rule
    # the lower-index rule alone depends on the order of the rows
    assert np.abs(ref.relieff(X, y, 2, ties="index") - average).max() > 1e-3


def test_the_weights_do_not_depend_on_the_order_of_the_rows():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(120, 6)).astype(float)
    y = (X[:, 0] > 0).astype(int) ^ (rng.random(120) < 0.2)
    perm = rng.permutation(120)
    for method in ("relieff", "multisurf"):
        a = relief_scores(X, y, method=method).scores
        b = relief_scores(X[perm], y[perm], method=method).scores
        np.testing.assert_allclose(a, b, atol=ATOL)


@pytest.mark.parametrize("sparse", [False, True])
def test_multisurf_computing_each_pair_once_gives_the_row_by_row_weights(sparse, monkeypatch):
    """The mirrored matrix (each pair computed once) against every instance's own row; above
    PAIRWISE_BYTES the rows are computed (the same weights)."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(130, 6)) * (rng.random((130, 6)) < 0.6)
    y = _labels(X[:, 0] - X[:, 2] + rng.normal(size=130), 3, imbalanced=True)
    X = sp.csr_matrix(X) if sparse else X
    rows = relief_scores(X, y, method="multisurf", pairwise=False, block=30)
    once = relief_scores(X, y, method="multisurf", block=30)
    np.testing.assert_allclose(once.scores, rows.scores, atol=ATOL)
    pd.testing.assert_frame_equal(once.trace, rows.trace, atol=1e-12)
    monkeypatch.setattr(model, "PAIRWISE_BYTES", 8 * 130 * 130 - 1)
    np.testing.assert_array_equal(relief_scores(X, y, method="multisurf", block=30).scores, rows.scores)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kind", ["continuous", "tied"])
def test_relieff_computing_each_pair_once_gives_the_row_by_row_weights(kind, sparse, monkeypatch):
    """The pairwise pass (each distance computed once, offered to both instances' buffers of the
    smallest distances) against every instance's own row of distances; heavily tied data make
    ties reach past the buffers, and those instances are recomputed row by row."""
    rng = np.random.default_rng(10)
    if kind == "continuous":
        X = rng.normal(size=(150, 7)) * (rng.random((150, 7)) < 0.6)
    else:
        X = (rng.random((150, 4)) < 0.4).astype(float)  # 16 distinct rows: ties of dozens
    y = _labels(X[:, 0] + X[:, 1] + rng.normal(size=150), 3, imbalanced=True)
    X = sp.csr_matrix(X) if sparse else X
    recomputed = []
    row_weights = kernels.relieff_weights

    def spy(dist, rows, *args):
        recomputed.append(rows.size)
        return row_weights(dist, rows, *args)

    row_by_row = relief_scores(X, y, method="relieff", n_neighbors=5, pairwise=False, block=40)
    monkeypatch.setattr(kernels, "relieff_weights", spy)
    once = relief_scores(X, y, method="relieff", n_neighbors=5, block=40)
    np.testing.assert_allclose(once.scores, row_by_row.scores, atol=ATOL)
    assert once.trace["tied_instances"].tolist() == row_by_row.trace["tied_instances"].tolist()
    assert (sum(recomputed) > 0) == (kind == "tied")
    dense = X.toarray() if sparse else X
    np.testing.assert_allclose(once.scores, ref.relieff(dense, y, 5), atol=ATOL)


@pytest.mark.parametrize("method", ["relieff", "multisurf"])
def test_dense_sparse_block_sizes_and_threads_agree(method):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(70, 9)) * (rng.random((70, 9)) < 0.4)  # sparse continuous features
    X[:, 6:] = rng.integers(0, 3, size=(70, 3)) * (rng.random((70, 3)) < 0.5)  # discrete, 3 values
    X[:, 8] = X[:, 8] > 0  # binary
    y = _labels(X[:, 0] + X[:, 6] + 0.3 * rng.normal(size=70), 3)
    dense = relief_scores(X, y, method=method).scores
    np.testing.assert_allclose(dense, getattr(ref, method)(X, y, **({"k": 10} if method == "relieff" else {})),
                               atol=ATOL)
    for variant in (relief_scores(sp.csr_matrix(X), y, method=method).scores,
                    relief_scores(sp.csc_matrix(X), y, method=method).scores,
                    relief_scores(X, y, method=method, block=3).scores,
                    relief_scores(sp.csr_matrix(X), y, method=method, block=5).scores):
        np.testing.assert_allclose(variant, dense, atol=ATOL)
    blocks = relief_scores(X, y, method=method, block=3).scores  # pairs across blocks (MultiSURF's pair updates)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = relief_scores(X, y, method=method).scores
        one_thread_blocks = relief_scores(X, y, method=method, block=3).scores
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(one_thread, dense)  # bit for bit: no reduction depends on the threads
    np.testing.assert_array_equal(one_thread_blocks, blocks)


@pytest.mark.parametrize("method", ["relieff", "multisurf"])
def test_both_sparse_update_routes_give_the_same_updates(method, monkeypatch):
    rng = np.random.default_rng(7)
    dense = rng.normal(size=(80, 30)) * (rng.random((80, 30)) < 0.3)  # continuous columns
    dense[:, 10:20] = rng.integers(1, 4, size=(80, 10)) * (rng.random((80, 10)) < 0.3)  # discrete, 4 values
    dense[:, 20:] = rng.random((80, 10)) < 0.3  # binary
    X = sp.csr_matrix(dense)
    y = rng.integers(0, 2, 80)
    expected = getattr(ref, method)(dense, y, **({"k": 10} if method == "relieff" else {}))
    assert ref.feature_kinds(dense)[10:] == [True] * 20 and not any(ref.feature_kinds(dense)[:10])
    for column_cost in (0.0, 1e9):  # every instance through its columns / through its neighbours
        monkeypatch.setattr(kernels, "COLUMN_COST", column_cost)
        np.testing.assert_allclose(relief_scores(X, y, method=method).scores, expected, atol=ATOL)


def test_kernel_distances_are_the_manhattan_distance_of_the_diffs():
    from scipy.spatial.distance import cdist

    X, score = _data("mixed", n=25)
    counts = distinct_counts(X)
    discrete = counts <= 10
    dense = model.prepare_features(X, discrete, counts)
    sparse = model.prepare_features(sp.csr_matrix(X), discrete, counts)
    rows = np.arange(25, dtype=np.int64)
    kinds, ranges = ref.feature_kinds(X), np.ptp(X, axis=0)
    brute = np.array([[ref.distance(X, i, j, kinds, ranges) for j in range(25)] for i in range(25)])
    cont = ~discrete
    manhattan = cdist(X[:, cont] / ranges[cont], X[:, cont] / ranges[cont], "cityblock")
    hamming = cdist(X[:, discrete], X[:, discrete], "hamming") * discrete.sum()
    np.testing.assert_allclose(brute, manhattan + hamming, atol=1e-12)
    for features in (dense, sparse):
        out = np.empty((25, 25))
        features.distances(rows, out)
        np.testing.assert_allclose(out, brute, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_upper_distances_are_the_full_distances_right_of_each_row(sparse):
    """The pairwise passes ask only for j > i (``upper``): every such entry equals the full
    distance, whatever the alignment of the block (groups of four rows, a remainder, a first column
    inside the block); the entries written must be computed, not left from the buffer (NaN here)."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(45, 5)) * (rng.random((45, 5)) < 0.7)
    X[:, 4] = rng.integers(0, 4, size=45)  # discrete with 4 values: the Xd block of dense data
    counts = distinct_counts(X)
    discrete = counts <= 10
    features = model.prepare_features(sp.csr_matrix(X) if sparse else X, discrete, counts)
    full = np.empty((45, 45))
    features.distances(np.arange(45, dtype=np.int64), full)
    for first, size in ((0, 45), (3, 7), (10, 13), (40, 5)):
        rows = np.arange(first, first + size, dtype=np.int64)
        out = np.full((size, 45 - first), np.nan)
        features.distances(rows, out, first=first, upper=True)
        for r, i in enumerate(rows):
            # round-off: a pair falls in the 4 x 2 register block or the single loop by its alignment
            np.testing.assert_allclose(out[r, i + 1 - first:], full[i, i + 1:], rtol=1e-14, atol=0)


@pytest.mark.parametrize("method", ["relieff", "multisurf"])
def test_memory_stays_within_a_block_of_rows(method):
    """n = 6,000 instances: an n x n float64 matrix would take 288 MB (more than PAIRWISE_BYTES); a
    fit holds one block's (b, n) distances and weights and (b, p) updates (25 MB), vectors of
    length n and, for ReliefF, the buffers of each instance's smallest distances (4 MB)."""
    rng = np.random.default_rng(9)
    n, p = 6000, 3
    X = rng.normal(size=(n, p))
    y = (X[:, 0] > 0).astype(int)
    relief_scores(X[:50], y[:50], method=method)  # compile outside the measurement
    tracemalloc.start()
    relief_scores(X, y, method=method)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    block_bytes = 8 * model.block_rows(n, p, n, n * p) * (2 * n + p)
    buffers = 16 * n * 3 * model.buffer_capacity(n, 10) if method == "relieff" else 0
    assert 8 * n * n > model.PAIRWISE_BYTES
    assert block_bytes < peak < 1.25 * block_bytes + buffers + 64 * 8 * n < n * n * 8 / 2
    # the block shrinks as n grows, so that a block's arrays fit model.BLOCK_BYTES
    assert model.block_rows(1_000_000, 784, 1_000_000, 1) * 8 * (2 * 1_000_000 + 784) <= model.BLOCK_BYTES
    assert model.block_rows(10_000, 784, 10_000, 7_840_000) == model.BLOCK_WORK // 7_840_000  # 0.1-0.2 s of work


def test_class_weights_are_kononenkos_priors_and_a_real_target_has_one_miss_group():
    target = make_target(np.array([0, 0, 0, 0, 1, 1, 2, 2, 2, 2]), "classification")
    prior = np.array([0.4, 0.2, 0.4])
    np.testing.assert_allclose(target.class_weight[0], [0.0, 0.2 / 0.6, 0.4 / 0.6])
    np.testing.assert_allclose(target.class_weight.sum(axis=1), 1.0)  # the misses' weights sum to one
    assert target.bound == 0.5 and np.allclose(np.bincount(target.group) / 10, prior)
    real = make_target(np.array([0.0, 1.0, 3.0]), "regression")
    assert real.n_groups == 1 and real.bound == pytest.approx(np.std([0.0, 1.0, 3.0], ddof=1))


def test_an_instance_alone_in_its_class_has_no_hits():
    X = np.array([[0.0, 0.0], [0.1, 1.0], [0.9, 0.2], [1.0, 0.9], [0.5, 0.5]])
    y = np.array([0, 0, 1, 1, 2])
    for method, kw in (("relieff", {"k": 2}), ("multisurf", {})):
        ours = relief_scores(X, y, method=method, n_neighbors=2).scores
        np.testing.assert_allclose(ours, getattr(ref, method)(X, y, **kw), atol=ATOL)


def test_two_instances():
    X = np.array([[0.0, 1.0], [1.0, 0.0]])
    for method in ("relieff", "multisurf"):
        np.testing.assert_allclose(relief_scores(X, np.array([0, 1]), method=method).scores,
                                   getattr(ref, method)(X, np.array([0, 1]), **({"k": 10} if method == "relieff"
                                                                                 else {})), atol=ATOL)
