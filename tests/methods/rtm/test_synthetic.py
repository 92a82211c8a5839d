"""The RTM generative model: seeded, known relevant set, registered in the catalogue."""

import numpy as np
import pytest

from fsengine.data import load_dataset
from fsengine.data.synthetic.rtm import make_rtm


def test_generator_is_seeded_and_follows_the_model():
    a = make_rtm(n_samples=4000, n_tags=20, n_relevant=5, tag_rate=0.1, seed=7)
    b = make_rtm(n_samples=4000, n_tags=20, n_relevant=5, tag_rate=0.1, seed=7)
    assert (a.X != b.X).nnz == 0 and np.array_equal(a.y, b.y)
    assert a.truth.sum() == 5 and a.X.shape == (4000, 20)
    theta = a.extras["theta"]
    assert np.all(theta[~a.truth] == 0.5) and np.all(np.abs(theta[a.truth] - 0.5) >= 0.1)
    # objects carrying exactly one tag j have P(c = 1) = theta_j
    X = a.X.toarray()
    single = X.sum(1) == 1
    for j in np.flatnonzero(a.truth):
        rows = single & (X[:, j] == 1)
        if rows.sum() >= 60:
            assert a.y[rows].mean() == pytest.approx(theta[j], abs=4 / np.sqrt(rows.sum()))


def test_catalogue_entry():
    ds = load_dataset("synthetic_rtm:n_samples=100,n_tags=30,n_relevant=4,seed=2")
    assert ds.X.shape == (100, 30) and ds.truth.sum() == 4 and ds.is_sparse
    with pytest.raises(ValueError, match="n_relevant"):
        make_rtm(n_samples=10, n_tags=3, n_relevant=5)
