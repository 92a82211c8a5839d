"""Labelled document corpora as binary word-presence tag datasets (the RTM's kind of input).

Each document becomes a sparse row x[d, w] = 1 when word w occurs in it (see
:func:`fsengine.data.features.tags.word_presence_tags`); feature names are the words. Words found in
fewer than ``min_df`` documents are not features. The raw texts stay on the dataset (``texts``) for display.
"""

from __future__ import annotations

import numpy as np

from fsengine.data.corpora import LabelledTexts, read_movie_reviews, read_sentence_polarity, read_subjectivity
from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.features.tags import word_presence_tags

READERS = {
    "movie_reviews": read_movie_reviews,
    "sentence_polarity": read_sentence_polarity,
    "subjectivity": read_subjectivity,
}


def load_document_tags(name: str, min_df: int = 10) -> Dataset:
    """Word-presence tags of one corpus; labels and class names as the corpus defines them."""
    if name not in READERS:
        raise ValueError(f"Unknown document corpus {name!r}; choose from {', '.join(READERS)}")
    corpus: LabelledTexts = READERS[name]()
    X, vocabulary = word_presence_tags(corpus.texts, min_df=min_df)
    if X.shape[1] == 0:
        raise ValueError(f"No word occurs in at least {min_df} documents of {name}; lower min_df.")
    y = np.asarray(corpus.labels, dtype=np.int64)
    counts = {"rows": X.shape[0], "features": X.shape[1], "nonzeros": int(X.nnz)}
    counts.update({label: int((y == i).sum()) for i, label in enumerate(corpus.label_names)})
    return Dataset(
        X=X, y=y, feature_names=vocabulary,
        target_names=corpus.label_names, name=name, texts=corpus.texts,
        provenance=Provenance(corpus.source, corpus.licence, counts,
                              (f"binary word-presence tags, words in at least {min_df} documents",)),
    )
