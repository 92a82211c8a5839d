"""The XOR-with-redundancy and MADELON-style generators, against their stated design."""

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from fsengine.data import load_dataset
from fsengine.data.synthetic.madelon import MADELON, make_madelon_like
from fsengine.data.synthetic.xor import make_xor_redundant


def _mi(a, b) -> float:
    return mutual_info_score(a, b) / np.log(2)  # bits


def test_xor_pair_is_useless_alone_and_decisive_together():
    ds = make_xor_redundant(n=20000, n_redundant=3, n_noise=4, copy_noise=0.2, seed=3)
    role = np.array(ds.extras["role"])
    assert set(np.unique(ds.X)) == {0.0, 1.0} and ds.X.shape == (20000, 9)
    a, b = np.flatnonzero(role == "xor")
    np.testing.assert_array_equal(np.flatnonzero(ds.truth), [a, b])
    assert _mi(ds.X[:, a], ds.y) < 1e-3 and _mi(ds.X[:, b], ds.y) < 1e-3
    np.testing.assert_array_equal(ds.y, ds.X[:, a].astype(int) ^ ds.X[:, b].astype(int))  # no label noise
    h = lambda q: -q * np.log2(q) - (1 - q) * np.log2(1 - q)
    for j in np.flatnonzero(role == "copy"):
        assert np.mean(ds.X[:, j] != ds.y) == pytest.approx(0.2, abs=0.01)
        assert _mi(ds.X[:, j], ds.y) == pytest.approx(1 - h(np.mean(ds.X[:, j] != ds.y)), abs=0.002)
    for j in np.flatnonzero(role == "noise"):
        assert _mi(ds.X[:, j], ds.y) < 1e-3
    # seeded, and the columns are shuffled by the seed
    again = make_xor_redundant(n=20000, n_redundant=3, n_noise=4, seed=3)
    np.testing.assert_array_equal(again.X, ds.X)
    assert any(np.array(make_xor_redundant(n=50, n_redundant=3, n_noise=4, seed=s).extras["role"][:2]).tolist()
               != ["xor", "xor"] for s in range(5))


def test_xor_label_noise_and_catalogue():
    ds = load_dataset("xor_redundant:n=4000,label_noise=0.1,seed=1")
    a, b = np.flatnonzero(ds.truth)
    assert np.mean(ds.y != (ds.X[:, a].astype(int) ^ ds.X[:, b].astype(int))) == pytest.approx(0.1, abs=0.02)
    assert ds.X.shape == (4000, 27) and ds.task == "classification"
    with pytest.raises(ValueError, match="flip probability"):
        make_xor_redundant(copy_noise=0.7)


def test_madelon_like_has_madelons_design():
    ds = make_madelon_like(n=3200, n_features=60, seed=2)
    role = np.array(ds.extras["role"])
    assert ds.X.shape == (3200, 60) and (role == "informative").sum() == 5 and (role == "redundant").sum() == 15
    np.testing.assert_array_equal(ds.truth, role != "probe")
    informative, redundant = ds.X[:, role == "informative"], ds.X[:, role == "redundant"]
    # the redundant features are exact linear combinations of the informative ones
    coef, residual, *_ = np.linalg.lstsq(informative, redundant, rcond=None)
    assert np.allclose(informative @ coef, redundant, atol=1e-8)
    # the informative features sit on 32 clusters at the hypercube's vertices: their signs split the rows
    # into 2^5 = 32 cells, 16 of each class's clusters
    cells = (informative > 0) @ (1 << np.arange(5))
    assert np.unique(cells).size == 32
    # probes carry nothing: a logistic regression on them is at chance, on the informative features far above
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    probes = cross_val_score(LogisticRegression(max_iter=1000), ds.X[:, role == "probe"], ds.y, cv=3).mean()
    signal = cross_val_score(KNeighborsClassifier(5), informative, ds.y, cv=3).mean()
    assert abs(probes - 0.5) < 0.05 and signal > 0.8
    assert MADELON["n_clusters_per_class"] * MADELON["n_classes"] == 2 ** MADELON["n_informative"]
    np.testing.assert_array_equal(load_dataset("madelon_like:n=200,n_features=30").X, make_madelon_like(200, 30).X)
