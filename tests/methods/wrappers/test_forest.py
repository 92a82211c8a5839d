"""The forest importances grown by scikit-learn's tree builder against scikit-learn's own
``RandomForestClassifier``: the same numbers, bit for bit, on the inputs Boruta gives it and on others."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine.methods.wrappers.boruta import forest_matrix, shadow_columns
from fsengine.methods.wrappers.forest import forest_importances, reference_importances


def _problem(n=150, p=12, density=1.0, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * (rng.random((n, p)) < density)
    signal = X[:, 0] - X[:, 2] + 0.5 * rng.normal(size=n)
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


CASES = {
    "dense, 2 classes": dict(),
    "dense, 3 classes, string labels": dict(classes=3, labels=np.array(["a", "b", "c"])),
    "sparse CSR, 3 classes": dict(density=0.3, classes=3, sparse="csr"),
    "sparse CSC, binary values": dict(density=0.1, binary=True, sparse="csc"),
    "unlimited depth": dict(max_depth=None),
    "one tree": dict(n_estimators=1),
}


@pytest.mark.parametrize("case", CASES)
def test_importances_equal_scikit_learns_forest_bit_for_bit(case):
    spec = dict(CASES[case])
    X, y = _problem(density=spec.pop("density", 1.0), classes=spec.pop("classes", 2))
    if spec.pop("binary", False):
        X = (X != 0).astype(float)
    if "labels" in spec:
        y = spec.pop("labels")[y]
    if "sparse" in spec:
        X = sp.csr_matrix(X) if spec.pop("sparse") == "csr" else sp.csc_matrix(X)
    params = dict(n_estimators=spec.pop("n_estimators", 12), max_depth=spec.pop("max_depth", 4))
    for seed in (0, 1, 12345):
        ours = forest_importances(X, y, random_state=seed, **params)
        np.testing.assert_array_equal(ours, reference_importances(X, y, random_state=seed, **params))
        assert ours.dtype == np.float64 and ours.shape == (X.shape[1],) and ours.sum() == pytest.approx(1.0)
    assert not np.array_equal(ours, forest_importances(X, y, random_state=7, **params))  # the seed matters


@pytest.mark.parametrize("sparse", [False, True])
def test_importances_equal_scikit_learns_on_borutas_forest_matrix(sparse):
    """float32 [real, shadows], Fortran-ordered or CSC: what every Boruta iteration grows its forest on."""
    X, y = _problem(n=300, p=20, density=0.2 if sparse else 1.0, seed=3)
    real = sp.csc_matrix(X) if sparse else X
    both = forest_matrix(real, shadow_columns(real, np.random.default_rng(0)))
    ours = forest_importances(both, y, n_estimators=30, max_depth=5, random_state=99)
    np.testing.assert_array_equal(ours, reference_importances(both, y, n_estimators=30, max_depth=5, random_state=99))


def test_a_forest_that_cannot_split_has_zero_importances_as_scikit_learns():
    X = np.ones((40, 3))  # constant columns: every tree is a single leaf
    y = np.arange(40) % 2
    ours = forest_importances(X, y, n_estimators=5, max_depth=3, random_state=0)
    np.testing.assert_array_equal(ours, np.zeros(3))
    np.testing.assert_array_equal(ours, reference_importances(X, y, n_estimators=5, max_depth=3, random_state=0))


def test_dense_and_sparse_input_grow_the_same_forest():
    """scikit-learn's dense and sparse splitters find the same splits here, so the two layouts of one
    matrix give the same importances (Boruta keeps the layout it is given: sparse data stays sparse)."""
    X, y = _problem(n=200, p=15, density=0.3, seed=5)
    dense = forest_importances(X, y, n_estimators=20, max_depth=5, random_state=2)
    np.testing.assert_array_equal(dense, forest_importances(sp.csc_matrix(X), y, n_estimators=20, max_depth=5,
                                                            random_state=2))
