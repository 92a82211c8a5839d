"""Orders, ranks and top-k sets of per-feature scores: the one place every selector, figure,
comparison and page takes them from.

Conventions (the selector contract, :mod:`fsengine.base`): a higher score is more relevant; ties
go to the lower feature index; non-finite scores come last; ranks start at 1 (best), as
scikit-learn's ``RFE.ranking_``.
"""

from __future__ import annotations

import numpy as np


def order_from(scores, selected_order=()) -> np.ndarray:
    """The contract's ``order_``: ``selected_order`` first, then the rest by decreasing score, then
    by index (non-finite scores last).

    >>> order_from(np.array([0.1, 0.9, 0.5, 0.9]), selected_order=[2]).tolist()
    [2, 1, 3, 0]
    """
    scores = np.asarray(scores, dtype=np.float64)
    p = scores.size
    selected = [int(j) for j in selected_order]
    if len(set(selected)) != len(selected) or any(j < 0 or j >= p for j in selected):
        raise ValueError("selected_order must hold distinct feature indices in range")
    rest_mask = np.ones(p, dtype=bool)
    rest_mask[selected] = False
    rest = np.flatnonzero(rest_mask)
    safe = np.where(np.isfinite(scores[rest]), scores[rest], -np.inf)
    rest = rest[np.lexsort((rest, -safe))]
    return np.concatenate([np.asarray(selected, dtype=np.intp), rest.astype(np.intp)])


def ranks_from_order(order) -> np.ndarray:
    """Rank of every feature (1 = best) from an ordering, best first.

    >>> ranks_from_order(np.array([2, 0, 1])).tolist()
    [2, 3, 1]
    """
    order = np.asarray(order, dtype=np.intp)
    ranks = np.empty(order.size, dtype=np.intp)
    ranks[order] = np.arange(1, order.size + 1)
    return ranks


def top_k(scores, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (ties by lower index; ``k`` is clipped to
    ``[0, len(scores)]``).

    >>> top_k([0.2, 0.7, 0.7, 0.1], 2).tolist()
    [1, 2]
    """
    order = order_from(scores)
    return order[: max(0, min(int(k), order.size))]


def top_k_mask(scores, k: int) -> np.ndarray:
    """Boolean mask of the ``k`` best features by score (ties by lower index).

    >>> top_k_mask([0.2, 0.7, 0.7, 0.1], 2).tolist()
    [False, True, True, False]
    """
    mask = np.zeros(np.asarray(scores).size, dtype=bool)
    mask[top_k(scores, k)] = True
    return mask
