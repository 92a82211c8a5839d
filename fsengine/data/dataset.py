"""The one dataset type every loader and generator returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Provenance:
    """Where a dataset came from: a human-readable source, its licence, and counts.

    Examples
    --------
    >>> from fsengine.data import Provenance
    >>> Provenance("scikit-learn's digits", licence="BSD-3-Clause", counts={"rows": 1797}).as_dict()
    {'source': "scikit-learn's digits", 'licence': 'BSD-3-Clause', 'counts': {'rows': 1797}, 'notes': []}
    """

    source: str
    licence: str = "unknown"
    counts: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "licence": self.licence,
            "counts": dict(self.counts),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Dataset:
    """Features, labels and what describes them.

    X              float64 ndarray (n, p) or scipy CSR matrix
    y              1-D ndarray of labels (ints for classes, floats for regression targets)
    feature_names  p strings
    target_names   class names indexed by label (empty for regression)
    image_shape    (rows, cols) when each row of X is an image, else None
    provenance     source, licence, counts
    name           short identifier, e.g. ``"notmnist[B,D]"``
    task           ``"classification"`` or ``"regression"``
    truth          boolean mask of truly relevant features for synthetic data, else None
    texts          optional raw documents / sentences (one per row) for display
    extras         loader-specific payload (e.g. CoNLL sentences for chunk evaluation)

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.data import Dataset, Provenance
    >>> X = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 2.0], [0.0, 1.0, 3.0], [1.0, 1.0, 2.0]])
    >>> ds = Dataset(X=X, y=np.array([0, 1, 0, 1]), feature_names=("a", "b", "c"),
    ...              provenance=Provenance("a hand-made example"), name="toy", target_names=("no", "yes"))
    >>> ds.n_samples, ds.n_features, ds.class_counts()
    (4, 3, {'no': 2, 'yes': 2})
    """

    X: Any
    y: np.ndarray
    feature_names: tuple[str, ...]
    provenance: Provenance
    name: str
    target_names: tuple[str, ...] = ()
    image_shape: tuple[int, int] | None = None
    task: str = "classification"
    truth: np.ndarray | None = None
    texts: tuple[str, ...] | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        n, p = self.X.shape
        if np.shape(self.y) != (n,):
            raise ValueError(f"{self.name}: y has shape {np.shape(self.y)}, expected ({n},)")
        if len(self.feature_names) != p:
            raise ValueError(f"{self.name}: {len(self.feature_names)} feature names for {p} columns")
        if self.image_shape is not None and int(np.prod(self.image_shape)) != p:
            raise ValueError(f"{self.name}: image shape {self.image_shape} does not match {p} features")
        if self.truth is not None and np.shape(self.truth) != (p,):
            raise ValueError(f"{self.name}: truth mask has shape {np.shape(self.truth)}, expected ({p},)")
        if self.texts is not None and len(self.texts) != n:
            raise ValueError(f"{self.name}: {len(self.texts)} texts for {n} rows")

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.X)

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.y)

    def class_counts(self) -> dict[str, int]:
        """Label name -> count (uses ``target_names`` when labels index them)."""
        values, counts = np.unique(self.y, return_counts=True)
        out = {}
        for v, c in zip(values, counts):
            label = str(v)
            if self.target_names and np.issubdtype(np.asarray(values).dtype, np.integer):
                if 0 <= int(v) < len(self.target_names):
                    label = self.target_names[int(v)]
            out[label] = int(c)
        return out

    def dense_X(self) -> np.ndarray:
        return self.X.toarray() if sp.issparse(self.X) else np.asarray(self.X)

    def subset_classes(self, labels) -> Dataset:
        """Rows whose label is in ``labels``, relabelled 0..k-1 in the given order."""
        labels = list(labels)
        keep = np.isin(self.y, labels)
        remap = {lab: i for i, lab in enumerate(labels)}
        y_new = np.array([remap[v] for v in self.y[keep]], dtype=np.int64)
        if self.target_names and np.issubdtype(np.asarray(self.y).dtype, np.integer):
            names = tuple(self.target_names[int(lab)] for lab in labels)
        else:
            names = tuple(str(lab) for lab in labels)
        texts = tuple(t for t, k in zip(self.texts, keep) if k) if self.texts is not None else None
        return Dataset(
            X=self.X[keep], y=y_new, feature_names=self.feature_names,
            provenance=Provenance(
                self.provenance.source, self.provenance.licence,
                {**self.provenance.counts, "rows": int(keep.sum())}, self.provenance.notes,
            ),
            name=f"{self.name}[{','.join(names)}]", target_names=names,
            image_shape=self.image_shape, task=self.task, truth=self.truth, texts=texts,
            extras=self.extras,
        )
