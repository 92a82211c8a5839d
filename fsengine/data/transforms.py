"""Shared adaptations of a Dataset to what a method needs (two classes, binary features, splits).

Every transformation records itself in the provenance notes, so nothing changes silently.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split

from fsengine.data.dataset import Dataset, Provenance


def _with(ds: Dataset, *, note: str, **changes) -> Dataset:
    fields = dict(
        X=ds.X, y=ds.y, feature_names=ds.feature_names, target_names=ds.target_names,
        image_shape=ds.image_shape, name=ds.name, task=ds.task, truth=ds.truth, texts=ds.texts,
        extras=ds.extras,
    )
    fields.update(changes)
    prov = Provenance(ds.provenance.source, ds.provenance.licence,
                      {**ds.provenance.counts, "rows": int(fields["X"].shape[0])},
                      ds.provenance.notes + (note,))
    return Dataset(provenance=prov, **fields)


def class_names(ds: Dataset) -> list[str]:
    """Display names of the classes present, in label order."""
    labels = ds.classes
    if ds.target_names and np.issubdtype(labels.dtype, np.integer):
        return [ds.target_names[int(v)] if 0 <= int(v) < len(ds.target_names) else str(v) for v in labels]
    return [str(v) for v in labels]


def two_classes(ds: Dataset, first: str, second: str) -> Dataset:
    """Keep the rows of two classes (given by display name), relabelled 0 = first, 1 = second."""
    names = class_names(ds)
    for name in (first, second):
        if name not in names:
            raise ValueError(f"Class {name!r} is not in {ds.name}; classes are: {', '.join(names)}")
    if first == second:
        raise ValueError(f"Choose two different classes (both are {first!r}).")
    labels = ds.classes
    return ds.subset_classes([labels[names.index(first)], labels[names.index(second)]])


def is_binary_matrix(X) -> bool:
    values = X.data if sp.issparse(X) else np.asarray(X)
    return bool(np.isin(values, (0.0, 1.0)).all())


def binarize_features(ds: Dataset, threshold: float | str = "auto") -> Dataset:
    """0/1 features for methods that need binary tags (MI, MDL Naive Bayes, RTM).

    Already-binary data is returned unchanged. ``threshold="auto"``: 0.5 for data in [0, 1]
    (images), else each column's median (x > median -> 1). A number is used for every column.
    """
    if is_binary_matrix(ds.X):
        return ds
    if sp.issparse(ds.X):
        t = 0.0 if threshold == "auto" else float(threshold)
        X = ds.X.copy().tocsr()
        X.data = (X.data > t).astype(np.float64)
        X.eliminate_zeros()
        return _with(ds, X=X, note=f"features binarised as x > {t:g}")
    X = np.asarray(ds.X, dtype=np.float64)
    if threshold == "auto":
        if X.min() >= 0.0 and X.max() <= 1.0:
            cut, desc = 0.5, "x > 0.5"
        else:
            cut, desc = np.median(X, axis=0), "x > column median"
    else:
        cut, desc = float(threshold), f"x > {float(threshold):g}"
    return _with(ds, X=(X > cut).astype(np.float64), note=f"features binarised as {desc}")


def split(ds: Dataset, test_size: float = 0.25, seed: int = 0) -> tuple[Dataset, Dataset]:
    """Stratified (for classification) train/test split; each part notes its role."""
    idx = np.arange(ds.n_samples)
    strat = ds.y if ds.task == "classification" else None
    tr, te = train_test_split(idx, test_size=test_size, random_state=seed, stratify=strat)
    parts = []
    for rows, role in ((np.sort(tr), "train"), (np.sort(te), "test")):
        texts = tuple(ds.texts[i] for i in rows) if ds.texts is not None else None
        parts.append(_with(ds, X=ds.X[rows], y=ds.y[rows], texts=texts, name=f"{ds.name} ({role})",
                           note=f"{role} split: {rows.size} rows (seed {seed}, test_size {test_size})"))
    return parts[0], parts[1]
