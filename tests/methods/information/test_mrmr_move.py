"""mRMR moved onto the family's kernel gives what it gave before, bit for bit: the moved
``MRMRSelector`` against the pre-move implementation kept in ``legacy_mrmr.py``, on several data
sets (two and ten classes, dense and sparse, exact duplicates, constant columns and the ties of
zero-relevance pixels), every selection, order, score and trace value equal, not close."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits

from fsengine.data import load_dataset
from fsengine.selectors import MRMRSelector
from tests.conftest import require_real
from tests.methods.information.legacy_mrmr import legacy_fit


def _gaussian(classes, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(250, 12)) * np.arange(1, 13) + 10.0
    y = rng.integers(0, classes, 250)
    X[:, 2] += 1.5 * y
    X[:, 7] = X[:, 2] + 0.3 * rng.normal(size=250)
    return X, y


def _ties(seed=1):
    """Binary features with exact duplicates (equal scores: the lower index must win) and constants."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 300)
    X = (rng.random((300, 16)) < 0.4).astype(float)
    X[:, 5] = np.where(rng.random(300) < 0.8, y, 1 - y)
    X[:, 9] = X[:, 5]
    X[:, 12] = X[:, 5]
    X[:, 3] = X[:, 1]
    X[:, [0, 14]] = 1.0
    return X, y


def _counts(seed=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 400)
    X = rng.poisson(0.05 + 0.3 * (np.arange(300) % 7 == 0)[None, :] * y[:, None], size=(400, 300)).astype(float)
    return sp.csr_matrix(X), y


CASES = {
    "two classes": lambda: _gaussian(2),
    "three classes": lambda: _gaussian(3),
    "duplicates and constants": _ties,
    "sparse counts": _counts,
    "digits (10 classes, constant pixels)": lambda: load_digits(return_X_y=True),
    "breast cancer": lambda: load_breast_cancer(return_X_y=True),
}


def _assert_same(X, y, **params):
    new = MRMRSelector(**params).fit(X, y)
    old = legacy_fit(X, y, **params)
    np.testing.assert_array_equal(new.order_, old["order_"])
    np.testing.assert_array_equal(new.scores_, old["scores_"])      # equal floats, -inf included
    np.testing.assert_array_equal(new.support_, old["support_"])
    np.testing.assert_array_equal(new.relevance_, old["relevance_"])
    assert new.stop_reason_ == old["stop_reason_"]
    for column in old["trace_"].columns:
        np.testing.assert_array_equal(new.trace_[column].to_numpy(), old["trace_"][column].to_numpy(), column)
    return new


@pytest.mark.parametrize("case", list(CASES))
def test_moved_mrmr_equals_the_old_one_bit_for_bit(case):
    X, y = CASES[case]()
    p = X.shape[1]
    _assert_same(X, y, max_features=min(p, 40))   # up to every feature: every score set at selection
    _assert_same(X, y, max_features=5, n_features_to_select=3)


def test_ties_go_to_the_lower_index_as_before():
    X, y = _ties()
    sel = _assert_same(X, y, max_features=16)
    first = sel.order_.tolist()
    assert first[0] == 5 and first.index(9) > first.index(5)    # the duplicates of 5 come late, 9 before 12
    assert first.index(9) < first.index(12) and first.index(1) < first.index(3)


@pytest.mark.realdata
def test_moved_mrmr_equals_the_old_one_on_notmnist():
    ds = require_real(load_dataset, "notmnist:letters=BD")
    _assert_same(ds.X, ds.y, max_features=30)
