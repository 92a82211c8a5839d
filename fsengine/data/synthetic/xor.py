"""A planted XOR pair with redundant noisy copies of the label and pure noise: the task on which
criteria that score features one at a time fail and criteria that score them jointly can succeed
(Brown, Pocock, Zhao & Luján, JMLR 13, 2012, discuss the XOR pair as the case of positive
interaction; Guyon & Elisseeff, JMLR 3, 2003, Fig. 3, the case of features useless alone).

All features are binary (0/1), so the counting criteria need no binarisation:

* ``x_0, x_1 ~ Bernoulli(1/2)`` independently, the label ``y = x_0 XOR x_1``, flipped with
  probability ``label_noise``. Each of the two alone carries no information about y
  (``I(x_0; y) = I(x_1; y) = 0``), together they determine it (``I(x_0, x_1; y) = H(y)`` without
  label noise);
* ``n_redundant`` copies of the label, each flipped independently with probability
  ``copy_noise``: every copy is informative on its own (``I = 1 - H_b(copy_noise)`` bits) but
  adds nothing once the pair is known (they are functions of y and noise);
* ``n_noise`` independent ``Bernoulli(1/2)`` features.

The truth (``Dataset.truth``) is the XOR pair: the smallest set that determines the label. The
columns are shuffled by the seed, so no method finds the pair by its position.
"""

from __future__ import annotations

import numpy as np

from fsengine.data.dataset import Dataset, Provenance


def make_xor_redundant(n: int = 600, n_redundant: int = 5, n_noise: int = 20, *, copy_noise: float = 0.2,
                       label_noise: float = 0.0, seed: int = 0) -> Dataset:
    """The XOR-with-redundancy task described in the module docstring (binary features, labels 0/1).

    ``extras["role"]`` names each column's role: ``"xor"``, ``"copy"`` or ``"noise"``.

    >>> ds = make_xor_redundant(n=8, n_redundant=2, n_noise=1, seed=1)
    >>> ds.X.shape, int(ds.truth.sum()), sorted(set(ds.extras["role"]))
    ((8, 5), 2, ['copy', 'noise', 'xor'])
    """
    if n < 4:
        raise ValueError(f"n={n}: the XOR task needs at least 4 rows")
    if n_redundant < 0 or n_noise < 0:
        raise ValueError("n_redundant and n_noise count features: use 0 or more")
    for name, value in (("copy_noise", copy_noise), ("label_noise", label_noise)):
        if not 0.0 <= value <= 0.5:
            raise ValueError(f"{name}={value}: a flip probability between 0 and 0.5")
    rng = np.random.default_rng(seed)
    pair = rng.integers(0, 2, size=(n, 2))
    y = (pair[:, 0] ^ pair[:, 1]) ^ (rng.random(n) < label_noise)
    copies = y[:, None] ^ (rng.random((n, n_redundant)) < copy_noise)
    noise = rng.integers(0, 2, size=(n, n_noise))
    X = np.column_stack([pair, copies, noise]).astype(np.float64)
    role = np.array(["xor"] * 2 + ["copy"] * n_redundant + ["noise"] * n_noise)
    names = np.array(["xor_a", "xor_b"] + [f"copy_{i}" for i in range(n_redundant)]
                     + [f"noise_{i}" for i in range(n_noise)])
    columns = rng.permutation(X.shape[1])
    return Dataset(
        X=X[:, columns], y=y.astype(np.int64), feature_names=tuple(names[columns]), target_names=("0", "1"),
        name="xor_redundant", truth=role[columns] == "xor", extras={"role": tuple(str(r) for r in role[columns])},
        provenance=Provenance(f"planted XOR pair, {n_redundant} copies of the label (flip {copy_noise:g}), "
                              f"{n_noise} noise features, label noise {label_noise:g}, seed={seed}", "generated",
                              {"rows": n, "features": X.shape[1], "relevant": 2}),
    )
