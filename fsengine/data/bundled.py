"""scikit-learn's bundled datasets (always available, no download): digits, breast cancer, wine."""

from __future__ import annotations

import numpy as np
from sklearn import datasets as skd

from fsengine.data.dataset import Dataset, Provenance

_LOADERS = {
    "digits": (skd.load_digits, (8, 8), "UCI optical digits (8x8), bundled with scikit-learn"),
    "breast_cancer": (skd.load_breast_cancer, None, "Wisconsin diagnostic breast cancer, bundled with scikit-learn"),
    "wine": (skd.load_wine, None, "UCI wine recognition, bundled with scikit-learn"),
}


def load_bundled(name: str) -> Dataset:
    """Load one of ``digits``, ``breast_cancer``, ``wine``; digits pixels are scaled to [0, 1]."""
    if name not in _LOADERS:
        raise ValueError(f"Unknown bundled dataset {name!r}; choose from {sorted(_LOADERS)}")
    loader, shape, source = _LOADERS[name]
    bunch = loader()
    X = np.asarray(bunch.data, dtype=np.float64)
    if name == "digits":
        X = X / 16.0
        names = tuple(f"px({r},{c})" for r in range(8) for c in range(8))
    else:
        names = tuple(str(f) for f in bunch.feature_names)
    y = np.asarray(bunch.target, dtype=np.int64)
    return Dataset(
        X=X, y=y, feature_names=names, target_names=tuple(str(t) for t in bunch.target_names),
        image_shape=shape, name=name,
        provenance=Provenance(source, "BSD-3-Clause (scikit-learn) / UCI",
                              {"rows": len(y), "features": X.shape[1], "classes": len(bunch.target_names)}),
    )
