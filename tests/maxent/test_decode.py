"""Viterbi decoding of the maxent tagger against brute-force enumeration of every tag sequence.

The reference scores a candidate sequence without any of the decoder's code: the sentence is
re-encoded with the candidate as its labels (so the previous-tag predicates read the candidate),
and the model's own ``predict_proba`` gives log p(t_i | x_i, t_{i-2}, t_{i-1}) per token.
"""

import itertools

import numpy as np
import pytest

from fsengine.data.features.templates import CHUNK_TEMPLATES, TemplateFeaturizer
from fsengine.maxent import MaxentModel
from fsengine.maxent.decode import contexts, viterbi_path

TRAIN = [
    [("The", "DT", "B-NP"), ("cat", "NN", "I-NP"), ("sat", "VBD", "B-VP"), ("down", "RB", "O")],
    [("A", "DT", "B-NP"), ("dog", "NN", "I-NP"), ("ran", "VBD", "B-VP"), ("home", "NN", "B-NP")],
    [("Dogs", "NNS", "B-NP"), ("bark", "VBP", "B-VP"), ("loudly", "RB", "O"), (".", ".", "O")],
]
TEST = [
    [("The", "DT", "O"), ("dog", "NN", "O"), ("sat", "VBD", "O"), ("home", "NN", "O"), (".", ".", "O")],
    [("A", "DT", "O"), ("cat", "NN", "O"), ("bark", "VBP", "O"), ("loudly", "RB", "O")],
    [("Dogs", "NNS", "O")],
]


def _model(feat, seed, tag_scale):
    """Random weights on every (predicate, class) pair, those of the previous-tag predicates
    ``tag_scale`` times larger (strong transitions make greedy and exact decoding disagree)."""
    rng = np.random.default_rng(seed)
    n_classes = len(feat.labels_)
    pred, cls = np.divmod(np.arange(feat.n_predicates_ * n_classes), n_classes)
    reads_tags = np.array([name.startswith("T-") for name in feat.names_])
    w = rng.normal(0.0, 0.5, pred.size) * np.where(reads_tags[pred], tag_scale, 1.0)
    return MaxentModel(feat.n_predicates_, n_classes, pred, cls, w)


def _token_log_probs(feat, model, sentence, sequences) -> np.ndarray:
    """(len(sequences), n) log p(t_i | x_i, t_{i-2}, t_{i-1}) of every token, the sentence
    labelled with each tag sequence in turn (one batch encoding)."""
    labelled = [[(w, p, feat.labels_[t]) for (w, p, _), t in zip(sentence, tags)] for tags in sequences]
    logp = np.log(model.predict_proba(feat.transform(labelled).X))
    flat = np.asarray(sequences).ravel()
    return logp[np.arange(flat.size), flat].reshape(len(sequences), len(sentence))


def _sequence_log_prob(feat, model, sentence, tags) -> float:
    return float(_token_log_probs(feat, model, sentence, [tags]).sum())


def _brute_force(feat, model, sentence):
    sequences = list(itertools.product(range(len(feat.labels_)), repeat=len(sentence)))
    totals = _token_log_probs(feat, model, sentence, sequences).sum(axis=1)
    best = int(np.argmax(totals))
    assert np.sort(totals)[-2] < totals[best] - 1e-9  # a unique best sequence
    return float(totals[best]), sequences[best]


def _greedy_reference(feat, model, sentence):
    tags, n, n_tags = [], len(sentence), len(feat.labels_)
    for i in range(n):  # tags after i do not change token i's predicates: pad with tag 0
        options = [[*tags, t] + [0] * (n - i - 1) for t in range(n_tags)]
        tags.append(int(np.argmax(_token_log_probs(feat, model, sentence, options)[:, i])))
    return tags


@pytest.mark.parametrize(("seed", "tag_scale"), [(0, 8.0), (1, 4.0), (2, 1.0)])
def test_viterbi_finds_the_best_of_all_tag_sequences(seed, tag_scale):
    feat = TemplateFeaturizer(CHUNK_TEMPLATES).fit(TRAIN)
    assert feat.tag_order == 2 and len(feat.labels_) == 4  # 4^5 = 1,024 sequences for the longest
    model = _model(feat, seed, tag_scale)
    enc = feat.transform(TEST)
    viterbi = feat.decode(model, enc, decoder="viterbi")
    greedy = feat.decode(model, enc, decoder="greedy")
    differ = 0
    for sentence, start in zip(TEST, enc.starts):
        n = len(sentence)
        best_lp, best_seq = _brute_force(feat, model, sentence)
        ours = viterbi[start:start + n].tolist()
        assert _sequence_log_prob(feat, model, sentence, ours) == pytest.approx(best_lp, abs=1e-9)
        assert ours == list(best_seq)
        assert greedy[start:start + n].tolist() == _greedy_reference(feat, model, sentence)
        differ += ours != greedy[start:start + n].tolist()
    if seed == 0:  # strong transitions: greedy misses the best sequence, so the check has teeth
        assert differ >= 1


def test_viterbi_kernel_on_a_hand_built_first_order_table():
    # two tags, first order: contexts = previous tag (0, 1 or BOS = 2)
    logp = np.log(np.array([
        [[0.5, 0.5], [0.5, 0.5], [0.6, 0.4]],   # position 0 reads BOS: greedy takes tag 0
        [[0.1, 0.9], [0.9, 0.1], [0.5, 0.5]],   # after 0 -> 1 (0.9), after 1 -> 0 (0.9)
        [[0.5, 0.5], [0.02, 0.98], [0.5, 0.5]],
    ]))
    assert contexts(2, 1).ravel().tolist() == [0, 1, 2]
    path, lp = viterbi_path(logp, 2, 1)
    best = max(itertools.product(range(2), repeat=3),
               key=lambda s: logp[0, 2, s[0]] + logp[1, s[0], s[1]] + logp[2, s[1], s[2]])
    assert path.tolist() == list(best) == [0, 1, 1]
    assert lp == pytest.approx(np.log(0.6 * 0.9 * 0.98))


def test_unknown_decoder_is_a_clear_error():
    feat = TemplateFeaturizer(CHUNK_TEMPLATES).fit(TRAIN)
    with pytest.raises(ValueError, match="choose 'greedy' or 'viterbi'"):
        feat.decode(_model(feat, 0, 1.0), feat.transform(TEST), decoder="beam")
