"""Sequence-labelling tasks as maxent predicate datasets: CoNLL-2000 Base-NP and full chunking,
Penn Treebank POS tagging.

Each loader fits a :class:`~fsengine.data.features.templates.TemplateFeaturizer` on the training
sentences and returns a :class:`~fsengine.data.dataset.Dataset` whose X is the sparse
token-by-predicate matrix (previous tags = gold tags), y the tag ids, feature names the
predicate names, and ``extras``:

``featurizer``   the fitted featurizer (decodes left to right with predicted previous tags)
``test``         the encoded test sentences (:class:`~fsengine.data.features.templates.Encoded`)
``task``         ``"chunking"`` (scored with conlleval P/R/F1) or ``"tagging"`` (accuracy)
``train_sentences`` / ``test_sentences``  counts, in the provenance
"""

from __future__ import annotations

import re

import numpy as np

from fsengine.data.corpora import read_conll2000, read_treebank_tagged
from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.features.templates import (
    CHUNK_TEMPLATES,
    GROUPS,
    TAGGER_TEMPLATES,
    TemplateFeaturizer,
    templates_by_group,
)

CONLL_SOURCE = "CoNLL-2000 chunking (WSJ sections 15-18 train, 20 test) via NLTK data"
CONLL_LICENCE = "CoNLL-2000 shared task data (Penn Treebank WSJ text, research use)"
NP_TAGS = ("B-NP", "I-NP")


def parse_groups(groups: str) -> tuple[str, ...]:
    """``"all"`` or template groups joined by ``+`` (e.g. ``words+pos+tags``)."""
    if groups.strip() == "all":
        return GROUPS
    chosen = tuple(g.strip() for g in re.split(r"[+,]", groups) if g.strip())
    if not chosen:
        raise ValueError(f"choose at least one template group of {', '.join(GROUPS)}")
    return chosen


def _base_np(sentence):
    return [(w, p, c if c in NP_TAGS else "O") for w, p, c in sentence]


def _build(name, train, test, templates, cutoff, task, source, licence, notes=()) -> Dataset:
    feat = TemplateFeaturizer(templates, cutoff=cutoff).fit(train)
    enc = feat.transform(train)
    test_enc = feat.transform(test)
    return Dataset(
        X=enc.X, y=enc.y, feature_names=tuple(feat.names_), target_names=feat.labels_,
        provenance=Provenance(source, licence, {
            "rows": enc.X.shape[0], "predicates": feat.n_predicates_, "train_sentences": len(train),
            "test_sentences": len(test), "test_tokens": int(test_enc.lengths.sum()),
            "templates": len(feat.templates)}, tuple(notes)),
        name=name, extras={"featurizer": feat, "test": test_enc, "task": task},
    )


def development_indices(n_sentences: int, fraction: float, seed: int | None = None) -> np.ndarray:
    """Indices (ascending) of the ``fraction`` of ``n_sentences`` training sentences held out as a
    development split: the last ones when ``seed`` is None, else a uniform random sample drawn
    with ``numpy.random.default_rng(seed)``."""
    n_dev = int(round(fraction * n_sentences))
    if n_dev < 1 or n_dev >= n_sentences:
        raise ValueError(f"dev_fraction {fraction} of {n_sentences} training sentences leaves no "
                         "development or no training sentences; use more sentences or another fraction")
    if seed is None:
        return np.arange(n_sentences - n_dev, n_sentences)
    return np.sort(np.random.default_rng(seed).choice(n_sentences, size=n_dev, replace=False))


def load_conll2000_maxent(task: str = "np", groups: str = "all", cutoff: int = 1,
                          n_sentences: int = 0, dev_fraction: float = 0.0, dev_seed: int | None = None,
                          keep_test: bool = False) -> Dataset:
    """CoNLL-2000 as a maxent dataset. ``task``: ``np`` (Base-NP: B-NP, I-NP, O) or ``chunk``
    (all 22 chunk tags); ``groups``: template groups; ``cutoff``: predicate count cutoff;
    ``n_sentences``: first N training sentences (0 = all 8,936).

    ``dev_fraction`` > 0 holds out that fraction of those training sentences as a development
    split (:func:`development_indices`: the last ones, or a random sample drawn with ``dev_seed``;
    the featurizer is fitted on the rest). Without ``keep_test`` they are the evaluation set in
    place of section 20, which is then not read: for choosing settings without the test data.
    With ``keep_test`` section 20 stays the test set and the development sentences are encoded in
    ``extras["dev"]`` (an :class:`~fsengine.data.features.templates.Encoded`), for a run that
    chooses on the development split and reports on section 20."""
    if task not in ("np", "chunk"):
        raise ValueError(f"task must be 'np' (Base-NP) or 'chunk' (full chunking), got {task!r}")
    if n_sentences < 0:
        raise ValueError(f"n_sentences must be >= 0 (0 = all), got {n_sentences}")
    if not 0.0 <= dev_fraction < 1.0:
        raise ValueError(f"dev_fraction must be in [0, 1), got {dev_fraction}")
    if keep_test and not dev_fraction:
        raise ValueError("keep_test keeps section 20 beside a development split: give dev_fraction too")
    train = read_conll2000("train")
    if n_sentences:
        train = train[:n_sentences]
    dev = []
    if dev_fraction:
        held = development_indices(len(train), dev_fraction, dev_seed)
        mask = np.zeros(len(train), dtype=bool)
        mask[held] = True
        train, dev = [s for s, m in zip(train, mask) if not m], [s for s, m in zip(train, mask) if m]
    test = read_conll2000("test") if keep_test or not dev_fraction else dev
    if task == "np":
        train, test, dev = ([_base_np(s) for s in part] for part in (train, test, dev))
    templates = templates_by_group(CHUNK_TEMPLATES, parse_groups(groups))
    label = "Base-NP" if task == "np" else "chunking"
    notes = [f"{label}; templates: {', '.join(t.name for t in templates)}"]
    which = "the last" if dev_seed is None else f"a random sample (seed {dev_seed}) of"
    if dev_fraction and not keep_test:
        notes.append(f"development split: evaluated on {which} {len(test):,} training sentences, not section 20")
    elif dev_fraction:
        notes.append(f"development split: {which} {len(dev):,} training sentences in extras['dev']; "
                     "section 20 is the test set")
    ds = _build(f"conll2000_{task}{'_dev' if dev_fraction and not keep_test else ''}", train, test, templates,
                cutoff, "chunking", CONLL_SOURCE, CONLL_LICENCE, tuple(notes))
    if dev_fraction and keep_test:
        ds.extras["dev"] = ds.extras["featurizer"].transform(dev)
        ds.provenance.counts["dev_sentences"] = len(dev)
    return ds


def load_treebank_pos(groups: str = "all", cutoff: int = 1, n_sentences: int = 0,
                      test_fraction: float = 0.1) -> Dataset:
    """Penn Treebank 10% sample as a POS-tagging maxent dataset: the last ``test_fraction`` of the
    sentences (file order) are the test set; ``n_sentences`` limits the training part."""
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    sents = [[(w, None, t) for w, t in s] for s in read_treebank_tagged()]
    split = int(round(len(sents) * (1.0 - test_fraction)))
    train, test = sents[:split], sents[split:]
    if n_sentences:
        train = train[:n_sentences]
    templates = templates_by_group(TAGGER_TEMPLATES, parse_groups(groups))
    return _build("treebank_pos", train, test, templates, cutoff, "tagging",
                  "Penn Treebank 10% WSJ sample (NLTK data)", "LDC, non-commercial fair use",
                  (f"POS tagging; test = last {test_fraction:.0%} of sentences",))


def sentences_of(encoded, label_ids, labels) -> list[list[str]]:
    """Split a flat array of label ids into per-sentence lists of tag strings."""
    labels = np.asarray(labels, dtype=object)
    ids = np.asarray(label_ids)
    return [list(labels[ids[s:s + n]]) for s, n in zip(encoded.starts, encoded.lengths)]
