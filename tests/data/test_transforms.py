"""Shared dataset adaptations: two classes, binarisation, stratified split (each leaves a note)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import Binarizer

from fsengine.data import Dataset, Provenance
from fsengine.data.transforms import (
    Binarization,
    binarize_features,
    binarize_input,
    class_names,
    is_binary_matrix,
    split,
    two_classes,
)


def _ds(X, y, names=("a", "b", "c"), texts=None) -> Dataset:
    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    return Dataset(X=X, y=np.asarray(y), feature_names=tuple(f"f{j}" for j in range(X.shape[1])),
                   target_names=names, provenance=Provenance("test"), name="toy", texts=texts)


def test_two_classes_relabels_in_given_order():
    ds = _ds(np.arange(12).reshape(6, 2), [0, 1, 2, 0, 1, 2])
    pair = two_classes(ds, "c", "a")
    assert pair.target_names == ("c", "a")
    np.testing.assert_array_equal(pair.y, [1, 0, 1, 0])
    np.testing.assert_array_equal(pair.X[:, 0], [0, 4, 6, 10])
    assert class_names(ds) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="Class 'z' is not in toy; classes are: a, b, c"):
        two_classes(ds, "a", "z")
    with pytest.raises(ValueError, match="two different classes"):
        two_classes(ds, "b", "b")


def test_binarize_images_tables_sparse_and_binary():
    images = _ds([[0.2, 0.7], [0.9, 0.5], [0.51, 0.0]], [0, 1, 0])
    out = binarize_features(images)
    np.testing.assert_array_equal(out.X, [[0, 1], [1, 0], [1, 0]])
    assert out.provenance.notes[-1] == "features binarised as x > 0.5"

    table = _ds([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0], [4.0, 40.0]], [0, 1, 0, 1])
    med = binarize_features(table)
    np.testing.assert_array_equal(med.X, [[0, 0], [0, 1], [1, 0], [1, 1]])   # medians 2.5 and 25
    assert "column median" in med.provenance.notes[-1]
    fixed = binarize_features(table, threshold=3)
    np.testing.assert_array_equal(fixed.X[:, 0], [0, 0, 0, 1])

    sparse = _ds(sp.csr_matrix([[0.0, 2.0], [0.5, 0.0]]), [0, 1])
    sb = binarize_features(sparse, threshold=1.0)
    assert sp.issparse(sb.X) and sb.X.toarray().tolist() == [[0, 1], [0, 0]] and sb.X.nnz == 1

    already = _ds([[0, 1], [1, 1]], [0, 1])
    assert binarize_features(already) is already
    assert is_binary_matrix(sp.csr_matrix(np.eye(3))) and not is_binary_matrix(np.array([[0.5]]))


def test_split_is_stratified_seeded_and_keeps_texts():
    y = np.array([0] * 40 + [1] * 20)
    X = np.arange(60, dtype=float)[:, None]
    texts = tuple(f"doc {i}" for i in range(60))
    ds = _ds(X, y, names=("neg", "pos"), texts=texts)
    train, test = split(ds, test_size=0.25, seed=3)
    assert (train.n_samples, test.n_samples) == (45, 15)
    assert np.bincount(test.y).tolist() == [10, 5]                     # 2:1 kept exactly
    rows = np.concatenate([train.X[:, 0], test.X[:, 0]]).astype(int)
    assert sorted(rows.tolist()) == list(range(60))                     # a partition
    assert all(t == f"doc {int(x)}" for t, x in zip(test.texts, test.X[:, 0]))
    assert test.name == "toy (test)" and "test split: 15 rows (seed 3" in test.provenance.notes[-1]
    again, _ = split(ds, test_size=0.25, seed=3)
    np.testing.assert_array_equal(again.X, train.X)


def test_binarize_input_one_meaning_for_every_method():
    """``binarize`` of MI, MDL and the RTM: None (binary required), "auto" (the app's rule) or a
    threshold (scikit-learn's Binarizer), with the rule kept for new rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) * [1.0, 2.0, 3.0, 4.0] + [0.0, 1.0, -2.0, 5.0]
    X01, rule = binarize_input(X, 0.7)
    np.testing.assert_array_equal(X01, Binarizer(threshold=0.7).fit_transform(X))
    assert rule.note == "features binarised as x > 0.7"
    X01, rule = binarize_input(X)  # "auto" on a table: x > column median
    np.testing.assert_array_equal(X01, (X > np.median(X, axis=0)).astype(float))
    assert str(rule) == "features binarised as x > column median"
    new = rng.normal(size=(5, 4))
    np.testing.assert_array_equal(rule.apply(new), (new > np.median(X, axis=0)).astype(float))  # training medians
    images = rng.uniform(size=(10, 3))
    np.testing.assert_array_equal(binarize_input(images)[0], (images > 0.5).astype(float))

    binary = (rng.random((8, 3)) < 0.5).astype(float)
    for setting in (None, "auto", 0.0, 0.5):
        X01, rule = binarize_input(binary, setting)
        np.testing.assert_array_equal(X01, binary)
        assert rule.note is None
    assert binarize_input(binary, "auto")[1] == Binarization(None)
    pm1 = 2 * binary - 1
    X01, rule = binarize_input(pm1, None)
    np.testing.assert_array_equal(X01, binary)
    assert rule.note == "features in {-1, 1} read as 0/1 (x = 1 is on)"
    bad = binary.copy()
    bad[:, 0] = 2.5
    with pytest.raises(ValueError, match=r"^MDLSelector needs binary .*other than 0 and 1 \(8 of 24; 3 distinct"):
        binarize_input(bad, None, what="MDLSelector")
    with pytest.raises(ValueError, match="must be None, 'auto' or a number"):
        binarize_input(X, "median")


def test_binarize_input_keeps_sparse_storage():
    S = sp.csc_matrix(np.array([[0.0, 2.0, 0.3], [0.5, 0.0, 0.0], [3.0, 0.2, 0.0]]))
    X01, rule = binarize_input(S)  # sparse "auto": x > 0
    assert sp.issparse(X01) and X01.format == "csc" and X01.toarray().tolist() == (S.toarray() > 0).tolist()
    assert rule.note == "features binarised as x > 0"
    X01, _ = binarize_input(sp.csr_matrix(S), 0.4)
    assert X01.format == "csr" and X01.nnz == 3 and X01.toarray().tolist() == (S.toarray() > 0.4).tolist()
    per_column = Binarization(np.array([0.1, 1.0, 0.0]), "x > column median")
    assert per_column.apply(S).toarray().tolist() == (S.toarray() > [0.1, 1.0, 0.0]).tolist()
    with pytest.raises(ValueError, match="negative threshold"):
        binarize_input(S, -0.5)
    assert binarize_input(sp.csr_matrix(np.eye(3)), None)[1].note is None
