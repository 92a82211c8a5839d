"""The toolbox benchmark's three data sets, loaded as the plan says."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fsengine.data import Dataset, load_dataset
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.reproduce.toolbox.plan import Plan


def load_notmnist(plan: Plan) -> Dataset:
    return load_dataset("notmnist", letters="BD", n_per_class=plan.notmnist_per_class, seed=0)


def load_polarity(plan: Plan) -> Dataset:
    """Sentence polarity as word-presence tags. With ``polarity_docs`` a stratified seeded subset of
    the snippets is kept first and the vocabulary is the words in at least ``polarity_min_df`` of
    them; otherwise the catalogue's dataset (every snippet, words in at least ``min_df``)."""
    if plan.polarity_docs is None:
        return load_dataset("sentence_polarity", min_df=plan.polarity_min_df)
    ds = load_dataset("sentence_polarity", min_df=1)
    rng = np.random.default_rng(0)
    half = plan.polarity_docs // 2
    rows = np.sort(np.concatenate([rng.choice(np.flatnonzero(ds.y == c), size=half, replace=False)
                                   for c in np.unique(ds.y)]))
    X = ds.X[rows]
    keep = np.flatnonzero(np.asarray((X != 0).sum(axis=0)).ravel() >= plan.polarity_min_df)
    return replace(ds, X=X[:, keep].tocsr(), y=ds.y[rows], feature_names=tuple(ds.feature_names[j] for j in keep),
                   texts=tuple(ds.texts[i] for i in rows) if ds.texts is not None else None,
                   name=f"{ds.name} ({rows.size} snippets)")


def load_glm(plan: Plan, seed: int) -> Dataset:
    return make_sparse_glm(**plan.glm, seed=seed)
