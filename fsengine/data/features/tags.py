"""Binary word-presence "tags" for documents (the RTM's input), with a minimum document frequency.

The tags are scikit-learn's ``CountVectorizer(binary=True)`` with this project's token rule (lower
case; a token starts with a letter or digit and may continue with letters, digits, apostrophes and
hyphens, so "don't" and "well-made" stay one word).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: one token (applied to lower-cased text)
TOKEN_PATTERN = r"[a-z0-9][a-z0-9'\-]*"


def word_presence_tags(texts, *, min_df: int = 1, vocabulary=None) -> tuple[sp.csr_matrix, tuple[str, ...]]:
    """CSR matrix X[d, w] = 1 if word w occurs in document d, and the vocabulary (sorted).

    Words occurring in fewer than ``min_df`` documents are dropped. Passing ``vocabulary``
    reuses a fitted vocabulary (words outside it are ignored), e.g. for a test split.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    if min_df < 1:
        raise ValueError(f"min_df must be at least 1, got {min_df}")
    texts = list(texts)
    if vocabulary is not None:
        vocabulary = list(vocabulary)
    if (vocabulary is not None and not vocabulary) or (vocabulary is None and min_df > len(texts)):
        return sp.csr_matrix((len(texts), 0)), ()
    vectorizer = CountVectorizer(binary=True, lowercase=True, token_pattern=TOKEN_PATTERN, dtype=np.float64,
                                 min_df=1 if vocabulary is not None else min_df, vocabulary=vocabulary)
    try:
        X = vectorizer.fit_transform(texts)
    except ValueError as exc:  # no token at all, or none left after min_df
        if "empty vocabulary" not in str(exc) and "no terms remain" not in str(exc):
            raise
        return sp.csr_matrix((len(texts), 0)), ()
    return X.tocsr(), tuple(vectorizer.get_feature_names_out())
