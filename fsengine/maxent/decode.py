"""Exact (Viterbi) decoding of a maxent tagger whose predicates read previous output tags.

A maxent sequence labeller (Zhou et al. 2003, Section 5; Ratnaparkhi 1996) scores a tag
sequence by the product of its local conditional probabilities,

    log p(t_1..t_n | w) = sum_i log p(t_i | x_i, t_{i-k}..t_{i-1}),

where the context predicates of position i read the k previous tags (T-1, T-2, T-2|T-1, T-1|P0 in
the chunking templates, so k = 2). Greedy decoding picks each t_i given its own earlier picks;
Viterbi finds the sequence with the largest sum exactly, by dynamic programming over states =
the last k tags ((Y + 1)^k states, BOS counted as a tag): at each position, for every state and
next tag, the local log-probability is added and the best predecessor kept.

:func:`viterbi_path` is the numba recurrence over a table of local log-probabilities;
:func:`local_log_probs` builds that table for one sentence from a fitted featurizer and model.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def viterbi_path(logp: np.ndarray, n_tags: int, order: int) -> tuple[np.ndarray, float]:
    """Best tag sequence and its log-probability.

    ``logp[i, c, y]``: log p(y | position i, context c), where the context c encodes the tags at
    i - order .. i - 1 as base-(n_tags + 1) digits, most distant first, digit n_tags = BOS. The
    start context is all BOS; contexts that cannot occur keep -inf."""
    n, n_ctx, _ = logp.shape
    base = n_tags + 1
    keep = n_ctx // base  # the context without its most distant tag
    delta = np.full(n_ctx, -np.inf)
    delta[n_ctx - 1] = 0.0  # all digits = BOS
    back = np.zeros((n, n_ctx), dtype=np.int64)
    for i in range(n):
        new = np.full(n_ctx, -np.inf)
        for c in range(n_ctx):
            if delta[c] == -np.inf:
                continue
            rest = c % keep
            for y in range(n_tags):
                s = rest * base + y
                v = delta[c] + logp[i, c, y]
                if v > new[s]:
                    new[s] = v
                    back[i, s] = c
        delta = new
    best = 0
    for s in range(n_ctx):
        if delta[s] > delta[best]:
            best = s
    path = np.empty(n, dtype=np.int64)
    s = best
    for i in range(n - 1, -1, -1):
        path[i] = s % base
        s = back[i, s]
    return path, delta[best]


def contexts(n_tags: int, order: int) -> np.ndarray:
    """(n_ctx, order) tag ids of every context, most distant first; n_tags stands for BOS."""
    grids = np.meshgrid(*[np.arange(n_tags + 1)] * order, indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1) if order else np.zeros((1, 0), dtype=np.int64)


def log_softmax(scores: np.ndarray) -> np.ndarray:
    """log p over the last axis."""
    mx = scores.max(axis=-1, keepdims=True)
    return scores - mx - np.log(np.exp(scores - mx).sum(axis=-1, keepdims=True))
