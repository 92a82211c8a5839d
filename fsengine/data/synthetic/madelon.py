"""A MADELON-style task, made the way MADELON was (Guyon, Gunn, Ben-Hur & Dror, "Result analysis of
the NIPS 2003 feature selection challenge", NIPS 2004, and Guyon 2003, "Design of experiments of
the NIPS 2003 variable selection benchmark"): the classes are 32 Gaussian clusters on the vertices
of a five-dimensional hypercube, 16 per class; 5 informative features are the cluster
coordinates, 15 more are random linear combinations of them, and 480 "probes" are noise without
predictive power; 1% of the labels are flipped. scikit-learn's ``make_classification`` is the
generator written for it (its docstring says so); the parameters below are MADELON's:

``make_classification(n_samples, n_features=500, n_informative=5, n_redundant=15, n_repeated=0,
n_classes=2, n_clusters_per_class=16, flip_y=0.01, class_sep=1.0, hypercube=True)``.

MADELON itself has 2,000 training, 600 validation and 1,800 test rows; ``n`` defaults to the
training set's 2,000. The truth is the 20 features that carry the signal (5 informative and 15
redundant); the columns are shuffled by the seed (``make_classification`` is called with
``shuffle=False``, so the roles are known before the shuffle).
"""

from __future__ import annotations

import numpy as np

from fsengine.data.dataset import Dataset, Provenance

#: MADELON's design (Guyon 2003)
MADELON = dict(n_features=500, n_informative=5, n_redundant=15, n_repeated=0, n_classes=2, n_clusters_per_class=16,
               flip_y=0.01, class_sep=1.0, hypercube=True)


def make_madelon_like(n: int = 2000, n_features: int = 500, *, seed: int = 0) -> Dataset:
    """The MADELON-style task of the module docstring; ``n_features`` >= 20 (the 480 probes of
    MADELON become ``n_features - 20``). ``extras["role"]``: ``"informative"``, ``"redundant"``
    or ``"probe"`` per column.

    >>> ds = make_madelon_like(n=100, n_features=30, seed=0)
    >>> ds.X.shape, int(ds.truth.sum())
    ((100, 30), 20)
    """
    from sklearn.datasets import make_classification

    signal = MADELON["n_informative"] + MADELON["n_redundant"]
    if n_features < signal:
        raise ValueError(f"n_features={n_features}: MADELON's design has {signal} signal features; use at least that")
    if n < 64:
        raise ValueError(f"n={n}: 32 clusters need at least 64 rows")
    rng = np.random.default_rng(seed)
    X, y = make_classification(n_samples=n, **{**MADELON, "n_features": n_features}, shuffle=False,
                               random_state=int(rng.integers(2**31 - 1)))
    role = np.array(["informative"] * MADELON["n_informative"] + ["redundant"] * MADELON["n_redundant"]
                    + ["probe"] * (n_features - signal))
    columns, rows = rng.permutation(n_features), rng.permutation(n)
    names = np.array([f"f{j}" for j in range(n_features)])
    return Dataset(
        X=np.ascontiguousarray(X[rows][:, columns]), y=y[rows].astype(np.int64), feature_names=tuple(names),
        target_names=("0", "1"), name="madelon_like", truth=role[columns] != "probe",
        extras={"role": tuple(str(r) for r in role[columns])},
        provenance=Provenance(f"MADELON-style (Guyon 2003): sklearn make_classification with "
                              f"{MADELON['n_informative']} informative, {MADELON['n_redundant']} redundant, "
                              f"{n_features - signal} probe features, "
                              f"{MADELON['n_clusters_per_class']} clusters per class on a hypercube, "
                              f"flip_y={MADELON['flip_y']}, seed={seed}", "generated",
                              {"rows": n, "features": n_features, "relevant": signal}),
    )
