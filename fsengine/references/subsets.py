"""Enumeration of all 2^p feature subsets and exact posterior inclusion probabilities.

With a uniform prior over subsets (Fisher & Mehta Eq. 1), ``p(S | y) ~ p(y | S)`` and

    p(s_j = 1 | y) = sum_{S containing j} p(y | S) / sum_S p(y | S).
"""

from __future__ import annotations

import numpy as np

#: largest p for which subset enumeration is offered (2^14 = 16,384 subsets)
MAX_SUBSET_FEATURES = 14


def subset_masks(p: int) -> np.ndarray:
    """Boolean (2^p, p) array; row t includes feature j when bit j of t is set (row 0 = empty)."""
    if not 0 <= p <= MAX_SUBSET_FEATURES:
        raise ValueError(
            f"Exact subset enumeration is limited to p <= {MAX_SUBSET_FEATURES} features "
            f"(2^{MAX_SUBSET_FEATURES} subsets); got p = {p}."
        )
    t = np.arange(2**p, dtype=np.int64)[:, None]
    return ((t >> np.arange(p, dtype=np.int64)) & 1).astype(bool)


def inclusion_probabilities(log_evidence, masks) -> np.ndarray:
    """Marginal inclusion probabilities from log evidences of every subset.

    ``log_evidence`` has shape (..., 2^p) (any constant offset cancels), ``masks`` (2^p, p).
    Returns shape (..., p).
    """
    log_evidence = np.asarray(log_evidence, dtype=np.float64)
    w = np.exp(log_evidence - log_evidence.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ masks.astype(np.float64)
