"""Binary word-presence "tags" for documents (the RTM's input), with a minimum document frequency."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import scipy.sparse as sp

_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (letters, digits, inner apostrophes and hyphens)."""
    return _WORD.findall(text.lower())


def word_presence_tags(texts, *, min_df: int = 1, max_features: int | None = None,
                       vocabulary=None) -> tuple[sp.csr_matrix, tuple[str, ...]]:
    """CSR matrix X[d, w] = 1 if word w occurs in document d, and the vocabulary.

    Words occurring in fewer than ``min_df`` documents are dropped; with ``max_features`` only the
    most frequent (by document frequency, ties alphabetical) are kept. Passing ``vocabulary``
    reuses a fitted vocabulary (words outside it are ignored), e.g. for a test split.
    """
    if min_df < 1:
        raise ValueError(f"min_df must be at least 1, got {min_df}")
    docs = [set(tokenize(t)) for t in texts]
    if vocabulary is None:
        df = Counter(w for d in docs for w in d)
        words = sorted((w for w, c in df.items() if c >= min_df), key=lambda w: (-df[w], w))
        if max_features is not None:
            words = words[:max_features]
        vocabulary = tuple(sorted(words))
    index = {w: j for j, w in enumerate(vocabulary)}
    indptr, indices = [0], []
    for d in docs:
        cols = sorted(index[w] for w in d if w in index)
        indices.extend(cols)
        indptr.append(len(indices))
    X = sp.csr_matrix(
        (np.ones(len(indices)), np.asarray(indices, dtype=np.int32), np.asarray(indptr, dtype=np.int64)),
        shape=(len(docs), len(vocabulary)),
    )
    return X, tuple(vocabulary)
