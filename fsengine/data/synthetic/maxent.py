"""A seeded planted conditional-maxent task: sparse binary predicates, a few true (predicate,
class) features, labels drawn from the true model p(y | x) = exp(sum_k w_k f_k(x, y)) / Z(x).

Ground truth: ``truth`` marks the predicates carrying a true feature; ``extras["true_pairs"]``
lists (predicate, class, weight). A held-out split from the same model is in
``extras["test_X"]`` / ``extras["test_y"]``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.limits import check_declared


def _sample(rng, n, rates):
    fires = rng.random((n, rates.size)) < rates
    return sp.csr_matrix(fires.astype(np.float64))


def make_planted_maxent(n_samples: int = 5000, n_predicates: int = 300, n_classes: int = 4,
                        n_true: int = 20, n_test: int = 2000, min_rate: float = 0.01,
                        max_rate: float = 0.08, seed: int = 0) -> Dataset:
    """Planted task: predicate j fires with probability rate_j, log-uniform in
    [``min_rate``, ``max_rate``] (sparse, like word predicates); ``n_true`` distinct predicates
    get one class each and a positive weight decreasing from 3.0 to 1.5.

    Sparse predicates overlap little, so a feature's gain changes little when another is added:
    the premise of SGC. (With dense predicates or negative weights, softmax competition makes
    gains grow after other features are added and SGC's stored gains stop bounding them.)"""
    if not 0 < min_rate <= max_rate < 1:
        raise ValueError(f"need 0 < min_rate <= max_rate < 1, got {min_rate}, {max_rate}")
    if n_true > n_predicates:
        raise ValueError(f"n_true={n_true} exceeds n_predicates={n_predicates}")
    if n_classes < 2:
        raise ValueError("n_classes must be at least 2")
    check_declared(17 * max(n_samples, n_test) * n_predicates,
                   f"A planted maxent task of {n_samples:,} rows x {n_predicates:,} predicates (and its draws)",
                   remedy="choose fewer rows or predicates")
    rng = np.random.default_rng(seed)
    rates = np.exp(rng.uniform(np.log(min_rate), np.log(max_rate), n_predicates))
    true_pred = rng.choice(n_predicates, n_true, replace=False)
    true_cls = rng.integers(0, n_classes, n_true)
    true_w = np.linspace(3.0, 1.5, n_true)
    W = np.zeros((n_predicates, n_classes))
    W[true_pred, true_cls] = true_w

    def draw(n):
        X = _sample(rng, n, rates)
        S = np.asarray(X @ W)
        P = np.exp(S - S.max(1, keepdims=True))
        P /= P.sum(1, keepdims=True)
        y = (P.cumsum(1) > rng.random((n, 1))).argmax(1).astype(np.int64)
        return X, y

    X, y = draw(n_samples)
    X_test, y_test = draw(n_test)
    truth = np.zeros(n_predicates, dtype=bool)
    truth[true_pred] = True
    pairs = pd.DataFrame({"predicate": true_pred, "class": true_cls, "weight": true_w})
    return Dataset(
        X=X, y=y, feature_names=tuple(f"pred{j}" for j in range(n_predicates)),
        target_names=tuple(f"class{c}" for c in range(n_classes)),
        provenance=Provenance(
            f"planted conditional maxent (seed {seed})", "generated",
            {"rows": n_samples, "predicates": n_predicates, "classes": n_classes, "true": n_true,
             "test_rows": n_test}),
        name=f"planted_maxent(seed={seed})", truth=truth,
        extras={"true_pairs": pairs, "test_X": X_test, "test_y": y_test, "task": "classification"},
    )
