"""Feature templates, predicate matrices and left-to-right decoding, checked against predicate
names built by hand and against a slow string-based reference decoder."""

import numpy as np
import pytest

from fsengine.data.features.templates import (
    CHUNK_TEMPLATES,
    TAGGER_TEMPLATES,
    Template,
    TemplateFeaturizer,
    templates_by_group,
    word_shape,
)
from fsengine.data.maxent_tasks import load_conll2000_maxent, load_treebank_pos
from fsengine.maxent import MaxentData, MaxentModel, fit_map
from fsengine.methods.gain.study import evaluate
from tests.conftest import require_real

SENTS = [
    [("The", "DT", "B-NP"), ("cat", "NN", "I-NP"), ("sat", "VBD", "O")],
    [("A", "DT", "B-NP"), ("dog", "NN", "I-NP"), ("ran", "VBD", "O"), ("home", "NN", "B-NP")],
]


def _row_names(feat, X, i):
    return {feat.names_[j] for j in X[i].indices}


def test_templates_counts_groups_and_parsing():
    assert len(CHUNK_TEMPLATES) == 24 and len(TAGGER_TEMPLATES) == 20
    assert {t.group for t in CHUNK_TEMPLATES} == {"words", "pos", "tags", "affixes", "shape", "conjunctions"}
    assert Template.parse("T-1|P0").dynamic and not Template.parse("suf3(W0)").dynamic
    with pytest.raises(ValueError, match="previous tokens"):
        Template.parse("T0")
    with pytest.raises(ValueError, match="not W/P/T"):
        Template.parse("X0")
    with pytest.raises(ValueError, match="unknown template group"):
        templates_by_group(CHUNK_TEMPLATES, ["syntax"])
    assert [word_shape(w) for w in ("Hello", "U.S.", "1,000", "iPhone")] == ["Xx", "X.X.", "d,d", "xXx"]


def test_predicates_of_a_token_are_the_hand_built_names():
    feat = TemplateFeaturizer(CHUNK_TEMPLATES).fit(SENTS)
    enc = feat.transform(SENTS)
    assert enc.X.shape == (7, feat.n_predicates_) and enc.X.nnz == 7 * 24
    names = _row_names(feat, enc.X, 1)  # "cat" in "The cat sat"
    expected = {"W-2=<s>", "W-1=The", "W0=cat", "W+1=sat", "W+2=</s>", "P-2=<s>", "P-1=DT", "P0=NN",
                "P+1=VBD", "P+2=</s>", "T-1=B-NP", "T-2=<s>", "suf3(W0)=cat", "suf2(W0)=at",
                "shape(W0)=x", "P-1|P0=DT|NN", "P0|P+1=NN|VBD", "P-2|P-1=<s>|DT", "P+1|P+2=VBD|</s>",
                "P-1|P0|P+1=DT|NN|VBD", "W-1|W0=The|cat", "W0|W+1=cat|sat", "T-2|T-1=<s>|B-NP",
                "T-1|P0=B-NP|NN"}
    assert names == expected
    np.testing.assert_array_equal(enc.y, [0, 1, 2, 0, 1, 2, 0])
    assert feat.labels_ == ("B-NP", "I-NP", "O")


def test_cutoff_and_unknown_words_at_test_time():
    feat = TemplateFeaturizer(["W0", "P0", "T-1|P0"], cutoff=2).fit(SENTS)
    # every word occurs once (dropped); O|NN occurs once (dropped)
    assert set(feat.names_) == {"P0=DT", "P0=NN", "P0=VBD", "T-1|P0=<s>|DT", "T-1|P0=B-NP|NN",
                                "T-1|P0=I-NP|VBD"}
    enc = feat.transform([[("zebra", "NN", "O")]])
    assert _row_names(feat, enc.X, 0) == {"P0=NN"}
    assert enc.static_X.nnz == 1


def _reference_decode(feat, model, sentences):
    """Greedy decoding by predicate *names* (independent of the integer keys)."""
    index = {n: j for j, n in enumerate(feat.names_)}
    W = model.weight_matrix().toarray()
    out = []
    for sent in sentences:
        tags = []
        for t in range(len(sent)):
            def value(attr, off):
                k = t + off
                if k < 0:
                    return "<s>"
                if k >= len(sent):
                    return "</s>"
                if attr == "T":
                    return tags[k]
                w, p, _ = sent[k]
                return {"W": w, "P": p, "suf3": w.lower()[-3:], "suf2": w.lower()[-2:],
                        "pre3": w.lower()[:3], "shape": word_shape(w)}[attr]
            score = np.zeros(len(feat.labels_))
            for tpl in feat.templates:
                name = tpl.name + "=" + "|".join(value(a, o) for a, o in tpl.parts)
                if name in index:
                    score += W[index[name]]
            tags.append(feat.labels_[int(np.argmax(score))])
        out.append(tags)
    return out


def test_decoding_uses_predicted_previous_tags_like_the_reference():
    rng = np.random.default_rng(0)
    words = ["the", "a", "dog", "cat", "ran", "sat", "home", "Big", "IBM", "3"]
    tags = ["B-NP", "I-NP", "O", "B-VP"]
    sents = [[(w, w[:2].upper(), tags[rng.integers(4)]) for w in rng.choice(words, rng.integers(2, 9))]
             for _ in range(60)]
    feat = TemplateFeaturizer(CHUNK_TEMPLATES).fit(sents[:40])
    enc = feat.transform(sents[40:])
    P = feat.n_predicates_
    pred, cls = np.repeat(np.arange(P), 4), np.tile(np.arange(4), P)
    model = MaxentModel(P, 4, pred, cls, rng.normal(size=pred.size))
    got = feat.decode(model, enc)
    want = [feat._label_index[t] for s in _reference_decode(feat, model, sents[40:]) for t in s]
    np.testing.assert_array_equal(got, want)


def test_real_conll2000_base_np_and_treebank_tasks():
    ds = require_real(load_conll2000_maxent, task="np", n_sentences=200)
    assert ds.target_names == ("B-NP", "I-NP", "O")
    assert ds.provenance.counts["test_sentences"] == 2012
    assert ds.X.shape[0] == ds.provenance.counts["rows"] and ds.X.nnz == 24 * ds.X.shape[0]
    data = MaxentData(ds.X, ds.y)
    pred, cls = data.candidate_pairs(2)
    scores = evaluate(ds, fit_map(data, pred, cls, prior_variance=1.0, tol=1e-6 * data.n).model)
    assert scores["f1"] > 80.0 and scores["precision"] > 80.0
    tb = require_real(load_treebank_pos, n_sentences=200, groups="words+tags")
    assert len(tb.target_names) > 30 and tb.extras["task"] == "tagging"
    with pytest.raises(ValueError, match="task must be"):
        load_conll2000_maxent(task="ner")
