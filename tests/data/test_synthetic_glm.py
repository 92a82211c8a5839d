"""Seeded sparse GLM generator and its catalogue entry."""

import numpy as np
import pytest

from fsengine.data import load_dataset
from fsengine.data.synthetic.glm import make_sparse_glm


def test_seeded_and_structured():
    a = make_sparse_glm("logistic", n=4000, p=30, k=4, rho=0.6, seed=1)
    b = make_sparse_glm("logistic", n=4000, p=30, k=4, rho=0.6, seed=1)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.truth.sum() == 4 and np.array_equal(a.truth, a.extras["coef"] != 0)
    corr = np.corrcoef(a.X.T)
    assert np.mean(np.diag(corr, 1)) == pytest.approx(0.6, abs=0.03)
    assert np.mean(np.diag(corr, 2)) == pytest.approx(0.36, abs=0.03)
    assert set(np.unique(a.y)) == {0, 1} and a.task == "classification"
    assert not np.array_equal(make_sparse_glm("logistic", n=50, p=5, seed=2).X, a.X[:50, :5])


def test_families_and_catalogue():
    lin = load_dataset("synthetic_glm:family=linear,n=300,p=8,k=2,seed=3")
    assert lin.task == "regression" and lin.truth.sum() == 2
    # the relevant features explain y
    coef = np.linalg.lstsq(np.c_[np.ones(300), lin.X], lin.y, rcond=None)[0][1:]
    assert set(np.argsort(-np.abs(coef))[:2]) == set(np.flatnonzero(lin.truth))
    poi = load_dataset("synthetic_glm", family="poisson", n=200, p=5, k=1)
    assert np.all(poi.y >= 0) and np.all(poi.y == np.round(poi.y))
    with pytest.raises(ValueError, match="rho"):
        make_sparse_glm("linear", rho=1.0)
    with pytest.raises(ValueError, match="family"):
        load_dataset("synthetic_glm:family=probit")
