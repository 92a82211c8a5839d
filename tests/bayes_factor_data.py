"""Seeded planted conditional-maxent data shared by the Bayes-factor tests."""

import numpy as np
import scipy.sparse as sp


def planted_maxent(seed, n_train, n_val, P=60, n_classes=3, k=8, density=0.15):
    """Binary predicates, k planted (predicate, class) weights of size 1-2, y drawn from the model."""
    rng = np.random.default_rng(seed)
    W = np.zeros((P, n_classes))
    W.flat[rng.choice(P * n_classes, k, replace=False)] = rng.choice([-1, 1], k) * rng.uniform(1, 2, k)

    def sample(n):
        X = (rng.random((n, P)) < density).astype(float)
        S = X @ W
        p = np.exp(S - S.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        return sp.csr_matrix(X), (p.cumsum(1) > rng.random((n, 1))).argmax(1)

    return sample(n_train), sample(n_val), W
