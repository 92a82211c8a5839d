"""Seeded sparse generalised linear models with correlated features and a known truth mask.

Design: every row is a stationary Gaussian AR(1) sequence across features,
``x_1 ~ N(0, 1)``, ``x_j = rho x_{j-1} + sqrt(1 - rho^2) e_j``, so ``Corr[x_i, x_j] = rho^|i-j|``
(neighbouring features are correlated, as neighbouring pixels are). ``k`` relevant features are
drawn at random; their coefficients have random signs and magnitudes uniform in
``[0.5, 1] * signal``. The response is

    linear     y = X beta + N(0, 1)
    logistic   y ~ Bernoulli(sigmoid(X beta))                 (labels 0/1)
    poisson    y ~ Poisson(exp(log(rate) + X beta))           (``rate`` = baseline mean count)
"""

from __future__ import annotations

import numpy as np

from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.limits import check_declared

GLM_FAMILIES = ("linear", "logistic", "poisson")


def ar1_design(n: int, p: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """n rows of a unit-variance AR(1) sequence over p features (Corr = rho^|i-j|)."""
    if not -1.0 < rho < 1.0:
        raise ValueError(f"rho must lie strictly between -1 and 1, got {rho}")
    E = rng.standard_normal((n, p))
    X = np.empty((n, p))
    X[:, 0] = E[:, 0]
    scale = np.sqrt(1.0 - rho * rho)
    for j in range(1, p):
        X[:, j] = rho * X[:, j - 1] + scale * E[:, j]
    return X


def make_sparse_glm(family: str = "logistic", n: int = 500, p: int = 50, k: int = 5,
                    rho: float = 0.5, signal: float = 1.0, rate: float = 2.0,
                    seed: int = 0) -> Dataset:
    """A sparse GLM dataset; ``truth`` marks the k relevant features, ``extras['coef']`` holds beta."""
    if family not in GLM_FAMILIES:
        raise ValueError(f"Unknown family {family!r}; choose one of {', '.join(GLM_FAMILIES)}")
    if n < 2 or p < 1:
        raise ValueError(f"need n >= 2 rows and p >= 1 features (got n={n}, p={p})")
    if not 0 <= k <= p:
        raise ValueError(f"k (relevant features) must be between 0 and p={p}, got {k}")
    if not rate > 0:
        raise ValueError(f"rate must be positive, got {rate}")
    check_declared(16 * n * p, f"A sparse GLM with n={n:,} rows and p={p:,} features (and its noise)",
                   remedy="choose fewer rows or features")
    rng = np.random.default_rng(seed)
    X = ar1_design(n, p, rho, rng)
    relevant = np.sort(rng.choice(p, size=k, replace=False))
    beta = np.zeros(p)
    beta[relevant] = rng.choice([-1.0, 1.0], size=k) * rng.uniform(0.5, 1.0, size=k) * signal
    eta = X @ beta
    if family == "linear":
        y = eta + rng.standard_normal(n)
        task, target_names = "regression", ()
    elif family == "logistic":
        y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)
        task, target_names = "classification", ("0", "1")
    else:
        y = rng.poisson(rate * np.exp(eta)).astype(np.float64)
        task, target_names = "regression", ()
    truth = np.zeros(p, dtype=bool)
    truth[relevant] = True
    return Dataset(
        X=X, y=y, feature_names=tuple(f"x{j}" for j in range(p)), target_names=target_names,
        name=f"synthetic_glm[{family}]", task=task, truth=truth, extras={"coef": beta},
        provenance=Provenance(
            f"sparse {family} GLM, AR(1) design rho={rho}, k={k} relevant, signal={signal}, seed={seed}",
            "generated", {"rows": n, "features": p, "relevant": k},
        ),
    )
