"""Feature templates over a token window for maxent sequence labelling (chunking, POS tagging).

A template names attributes at offsets from the current token, e.g. ``W0`` (the word),
``P-1|P0`` (previous and current POS tag) or ``T-2|T-1`` (the two previous output tags). Each
template yields one *predicate* per token, e.g. ``P-1|P0=DT|NN``; the predicates seen in training
at least ``cutoff`` times form the columns of a sparse binary instance-by-predicate matrix (the
input of the maxent core). Paired with an output class, a predicate becomes a maxent feature
f(x, y) = [predicate(x) and y = c] (Zhou et al. 2003, Section 4: 24 templates over a window).

Parts: ``W0`` word, ``P-1`` POS tag, ``T-1`` previous output tag (offset < 0 only: during
decoding these are the *predicted* tags), and word functions ``suf2(W0)``/``suf3(W0)`` (last
letters of the lower-cased word), ``pre3(W0)`` (first letters), ``shape(W0)`` (capitalisation and
digits: ``Xx``, ``X.X.``, ``d,d``).
Outside the sentence the value is ``<s>`` (before) or ``</s>`` (after).

Everything is integer-coded: per attribute a vocabulary, per template a mixed-radix key of its
parts, so the training matrix, the test matrix and left-to-right decoding are numpy operations.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

ATTRIBUTES = ("W", "P", "T", "suf2", "suf3", "pre3", "shape")
GROUPS = ("words", "pos", "tags", "affixes", "shape", "conjunctions")
BOS, EOS, UNK = 0, 1, 2  # reserved ids of every attribute vocabulary
_RESERVED = ("<s>", "</s>", "<unk>")
_PART = re.compile(r"^(?:(suf2|suf3|pre3|shape)\(W([+-]?\d+)\)|(W|P|T)([+-]?\d+))$")


@dataclass(frozen=True)
class Template:
    """A conjunction of (attribute, offset) parts; ``name`` like ``T-1|P0``."""

    name: str
    group: str
    parts: tuple[tuple[str, int], ...]

    @classmethod
    def parse(cls, name: str, group: str = "") -> Template:
        parts = []
        for token in name.split("|"):
            m = _PART.match(token.strip())
            if not m:
                raise ValueError(f"template part {token!r} in {name!r} is not W/P/T+offset or "
                                 "suf2/suf3/pre3/shape(W+offset), e.g. W0, P-1, T-2, suf3(W0)")
            attr = m.group(1) or m.group(3)
            off = int(m.group(2) if m.group(1) else m.group(4))
            if attr == "T" and off >= 0:
                raise ValueError(f"{name!r}: output tags T are only known for previous tokens (T-1, T-2)")
            parts.append((attr, off))
        if not group:
            group = _default_group(parts)
        return cls(name, group, tuple(parts))

    @property
    def dynamic(self) -> bool:
        """Reads previous output tags (decoded left to right)."""
        return any(a == "T" for a, _ in self.parts)


def _default_group(parts) -> str:
    if len(parts) > 1:
        return "conjunctions"
    attr = parts[0][0]
    return {"W": "words", "P": "pos", "T": "tags", "suf2": "affixes", "suf3": "affixes",
            "pre3": "affixes", "shape": "shape"}[attr]


def _templates(names) -> tuple[Template, ...]:
    return tuple(Template.parse(n) for n in names)


#: 24 chunking templates like Zhou et al.'s (and Koeling 2000's): words and POS tags in a +/-2
#: window, previous chunk tags, affixes, shape, and conjunctions.
CHUNK_TEMPLATES = _templates([
    "W-2", "W-1", "W0", "W+1", "W+2",
    "P-2", "P-1", "P0", "P+1", "P+2",
    "T-1", "T-2",
    "suf3(W0)", "suf2(W0)",
    "shape(W0)",
    "P-1|P0", "P0|P+1", "P-2|P-1", "P+1|P+2", "P-1|P0|P+1",
    "W-1|W0", "W0|W+1", "T-2|T-1", "T-1|P0",
])

#: 20 POS-tagging templates (Ratnaparkhi-style; no POS attributes, the tags are the output).
TAGGER_TEMPLATES = _templates([
    "W-2", "W-1", "W0", "W+1", "W+2",
    "T-1", "T-2",
    "suf2(W0)", "suf3(W0)", "pre3(W0)",
    "shape(W0)", "shape(W-1)", "shape(W+1)",
    "T-2|T-1", "T-1|W0", "W-1|W0", "W0|W+1", "T-1|suf3(W0)", "W-1|suf3(W0)", "suf3(W0)|W+1",
])


def templates_by_group(templates, groups) -> tuple[Template, ...]:
    """The templates whose group is in ``groups`` (names from :data:`GROUPS`)."""
    groups = tuple(groups)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise ValueError(f"unknown template group(s) {unknown}; choose from {', '.join(GROUPS)}")
    chosen = tuple(t for t in templates if t.group in groups)
    if not chosen:
        raise ValueError(f"no template belongs to the groups {list(groups)}; pick at least one of "
                         f"{sorted({t.group for t in templates})}")
    return chosen


_SHAPE_MAP = str.maketrans({**{c: "X" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                            **{c: "x" for c in "abcdefghijklmnopqrstuvwxyz"},
                            **{c: "d" for c in "0123456789"}})


def word_shape(word: str) -> str:
    """Capitalisation / digit shape with repeats collapsed: Hello -> Xx, U.S. -> X.X., 1,000 -> d,d."""
    return re.sub(r"(.)\1+", r"\1", word.translate(_SHAPE_MAP))


_WORD_FUNCS = {
    "W": lambda w: w,
    "suf2": lambda w: w.lower()[-2:],
    "suf3": lambda w: w.lower()[-3:],
    "pre3": lambda w: w.lower()[:3],
    "shape": word_shape,
}


@dataclass
class Encoded:
    """Sentences encoded for one fitted featurizer.

    ``X``: (n tokens, P predicates) CSR with the predicates of *all* templates, previous tags taken
    from the given labels (gold in training). ``static_X``: the same without dynamic (T) templates,
    for decoding. ``dyn_static_key``: per dynamic template the key of its non-tag parts per token.
    ``starts``/``lengths``: sentence boundaries; ``y``: label ids (-1 for labels unseen in training).
    """

    X: sp.csr_matrix
    static_X: sp.csr_matrix
    dyn_static_key: list[np.ndarray]
    starts: np.ndarray
    lengths: np.ndarray
    y: np.ndarray


class TemplateFeaturizer:
    """Fit predicate vocabularies from training sentences; encode any sentences; decode.

    Sentences are lists of tokens ``(word, pos, label)`` (``pos`` may be None when no template uses
    P, e.g. POS tagging where the label is the tag). ``cutoff``: keep predicates firing at least
    that many times in training (the count-cutoff option).
    """

    def __init__(self, templates=CHUNK_TEMPLATES, cutoff: int = 1):
        self.templates = tuple(Template.parse(t) if isinstance(t, str) else t for t in templates)
        if not self.templates:
            raise ValueError("at least one template is needed")
        if len({t.name for t in self.templates}) != len(self.templates):
            raise ValueError("template names must be unique")
        if cutoff < 1:
            raise ValueError(f"cutoff must be at least 1, got {cutoff}")
        self.cutoff = int(cutoff)

    # ------------------------------------------------------------------ fitting
    def fit(self, sentences) -> TemplateFeaturizer:
        sentences = [list(s) for s in sentences if len(s)]
        if not sentences:
            raise ValueError("no training sentences")
        self._check_pos(sentences)
        self.labels_ = tuple(sorted({tok[2] for s in sentences for tok in s}))
        self._label_index = {lab: k for k, lab in enumerate(self.labels_)}
        self._vocab = {}
        tokens = [tok for s in sentences for tok in s]
        for attr in self._attributes():
            if attr == "T":
                continue
            values = Counter(self._raw(attr, tok) for tok in tokens)
            self._vocab[attr] = {v: k + len(_RESERVED) for k, v in enumerate(sorted(values))}
        # keys are mixed-radix numbers over the parts in canonical order: non-tag parts first,
        # then tag parts, so decoding can append the predicted tags to a precomputed static key
        self._order = {t.name: sorted(range(len(t.parts)), key=lambda k: (t.parts[k][0] == "T", k))
                       for t in self.templates}
        self._radix = {t.name: [self._card(t.parts[k][0]) for k in self._order[t.name]]
                       for t in self.templates}
        for t in self.templates:
            if np.prod([float(r) for r in self._radix[t.name]]) >= 2.0**62:
                raise ValueError(f"template {t.name} has too many value combinations to index")
        ids = self._attribute_ids(sentences, labels=True)
        self.keys_, self.names_, offset = [], [], 0
        self.offsets_ = []
        for t in self.templates:
            key = self._key(t, ids)
            values, counts = np.unique(key, return_counts=True)
            kept = values[counts >= self.cutoff]
            self.keys_.append(kept)
            self.offsets_.append(offset)
            offset += kept.size
            self.names_.extend(self._names(t, kept))
        self.n_predicates_ = offset
        return self

    def _check_pos(self, sentences):
        if any(a == "P" for t in self.templates for a, _ in t.parts):
            if any(tok[1] is None for s in sentences[:50] for tok in s):
                raise ValueError("templates with P need POS tags in the sentences (token[1])")

    def _attributes(self):
        return sorted({a for t in self.templates for a, _ in t.parts})

    def _card(self, attr) -> int:
        if attr == "T":
            return len(self.labels_) + len(_RESERVED)
        return len(self._vocab[attr]) + len(_RESERVED)

    @staticmethod
    def _raw(attr, tok):
        return tok[1] if attr == "P" else _WORD_FUNCS[attr](tok[0])

    def _attribute_ids(self, sentences, labels: bool):
        """Per attribute an int64 id per token (unknown values -> UNK; T from the labels)."""
        ids = {}
        tokens = [tok for s in sentences for tok in s]
        for attr in self._attributes():
            if attr == "T":
                if labels:
                    ids["T"] = np.array([self._label_index.get(tok[2], UNK - len(_RESERVED))
                                         + len(_RESERVED) for tok in tokens], dtype=np.int64)
                continue
            vocab = self._vocab[attr]
            ids[attr] = np.fromiter((vocab.get(self._raw(attr, tok), UNK) for tok in tokens),
                                    dtype=np.int64, count=len(tokens))
        lengths = np.array([len(s) for s in sentences], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        ids["_pos"] = np.arange(len(tokens)) - np.repeat(starts, lengths)
        ids["_len"] = np.repeat(lengths, lengths)
        ids["_starts"], ids["_lengths"] = starts, lengths
        return ids

    @staticmethod
    def _shifted(values, off, pos, length):
        """values at token + off within the sentence, BOS/EOS outside."""
        target = pos + off
        out = np.empty_like(values)
        inside = (target >= 0) & (target < length)
        idx = np.flatnonzero(inside)
        out[idx] = values[idx + off]
        out[target < 0] = BOS
        out[target >= length] = EOS
        return out

    def _canonical_parts(self, t: Template):
        """(attr, offset, radix) in key order (non-tag parts first)."""
        return [(*t.parts[k], r) for k, r in zip(self._order[t.name], self._radix[t.name])]

    def _key(self, t: Template, ids, skip_tags: bool = False):
        key = np.zeros(ids["_pos"].size, dtype=np.int64)
        for attr, off, radix in self._canonical_parts(t):
            if attr == "T" and skip_tags:
                continue
            key = key * radix + self._shifted(ids[attr], off, ids["_pos"], ids["_len"])
        return key

    def _decode_value(self, attr, value: int) -> str:
        if value < len(_RESERVED):
            return _RESERVED[value]
        if attr == "T":
            return self.labels_[value - len(_RESERVED)]
        if not hasattr(self, "_inverse"):
            self._inverse = {a: {k: v for v, k in voc.items()} for a, voc in self._vocab.items()}
        return self._inverse[attr][value]

    def _names(self, t: Template, keys) -> list[str]:
        names = []
        radix = self._radix[t.name]
        order = self._order[t.name]
        for key in keys.tolist():
            values = [0] * len(radix)
            for slot in range(len(radix) - 1, -1, -1):
                key, values[order[slot]] = divmod(key, radix[slot])
            shown = "|".join(self._decode_value(a, v) for (a, _), v in zip(t.parts, values))
            names.append(f"{t.name}={shown}")
        return names

    # ------------------------------------------------------------------ encoding
    def transform(self, sentences) -> Encoded:
        """Encode sentences (previous tags from their labels) with the training predicates."""
        sentences = [list(s) for s in sentences if len(s)]
        if not sentences:
            raise ValueError("no sentences to encode")
        self._check_pos(sentences)
        ids = self._attribute_ids(sentences, labels=True)
        n = ids["_pos"].size
        cols_all, cols_static, dyn_keys = [], [], []
        for t, kept, offset in zip(self.templates, self.keys_, self.offsets_):
            col = self._lookup(self._key(t, ids), kept, offset)
            cols_all.append(col)
            if t.dynamic:
                dyn_keys.append(self._key(t, ids, skip_tags=True))
            else:
                cols_static.append(col)
        y = np.array([self._label_index.get(tok[2], -1) for s in sentences for tok in s], dtype=np.int64)
        return Encoded(self._csr(cols_all, n), self._csr(cols_static, n), dyn_keys,
                       ids["_starts"], ids["_lengths"], y)

    @staticmethod
    def _lookup(key, kept, offset):
        where = np.searchsorted(kept, key)
        where = np.minimum(where, max(kept.size - 1, 0))
        hit = kept[where] == key if kept.size else np.zeros(key.size, dtype=bool)
        return np.where(hit, where + offset, -1)

    def _csr(self, cols, n) -> sp.csr_matrix:
        if not cols:
            return sp.csr_matrix((n, self.n_predicates_))
        C = np.stack(cols, axis=1)
        mask = C >= 0
        indptr = np.concatenate([[0], np.cumsum(mask.sum(1))]).astype(np.int64)
        indices = C[mask].astype(np.int64)
        X = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, self.n_predicates_))
        X.sort_indices()
        return X

    # ------------------------------------------------------------------ decoding
    @property
    def tag_order(self) -> int:
        """How many previous output tags the templates read (2 for T-2)."""
        return max((-o for t in self.templates for a, o in t.parts if a == "T"), default=0)

    def _dynamic(self):
        return [(t, kept, off) for t, kept, off in zip(self.templates, self.keys_, self.offsets_) if t.dynamic]

    def _dynamic_weights(self, W) -> list[np.ndarray]:
        """Dense weight rows (predicates x classes) of each dynamic template's predicates."""
        return [W[off:off + kept.size].toarray() for _, kept, off in self._dynamic()]

    def _dynamic_rows(self, weights, encoded: Encoded, idx, tag_at):
        """Per dynamic template, (hit mask, weight rows) of the predicates firing at tokens ``idx``
        when the previous tags are ``tag_at(offset)`` (reserved-shifted tag ids, shape of the keys);
        ``weights`` from :meth:`_dynamic_weights`."""
        for (t, kept, off), static_key, Wt in zip(self._dynamic(), encoded.dyn_static_key, weights):
            key = static_key[idx]
            for attr, o, radix in self._canonical_parts(t):
                if attr == "T":
                    key = key * radix + tag_at(o)
            col = self._lookup(key, kept, off)
            hit = col >= 0
            if hit.any():
                yield hit, Wt[col[hit] - off]

    def _check_model(self, model):
        if model.n_predicates != self.n_predicates_:
            raise ValueError(f"model reads {model.n_predicates} predicates, featurizer has "
                             f"{self.n_predicates_}")

    def decode(self, model, encoded: Encoded, decoder: str = "greedy") -> np.ndarray:
        """Label ids of the encoded sentences under ``model`` (a MaxentModel over these predicates).

        ``greedy``: left to right, each token's tag features read the tags *predicted* for the
        previous tokens. ``viterbi``: the sequence maximising sum_i log p(t_i | x_i, previous tags)
        exactly (:mod:`fsengine.maxent.decode`)."""
        self._check_model(model)
        if decoder == "viterbi":
            return self._viterbi(model, encoded)
        if decoder != "greedy":
            raise ValueError(f"decoder={decoder!r}: choose 'greedy' or 'viterbi'")
        W = model.weight_matrix().tocsr()
        scores = np.asarray((encoded.static_X @ W).todense())
        weights = self._dynamic_weights(W)
        pred = np.full(scores.shape[0], -1, dtype=np.int64)
        starts, lengths = encoded.starts, encoded.lengths
        for position in range(int(lengths.max())):
            live = lengths > position
            idx = starts[live] + position

            def tag_at(o, idx=idx, position=position):
                prev = np.full(idx.size, BOS, dtype=np.int64)
                if position + o >= 0:
                    prev[:] = pred[idx + o] + len(_RESERVED)
                return prev

            total = scores[idx].copy()
            for hit, rows in self._dynamic_rows(weights, encoded, idx, tag_at):
                total[hit] += rows
            pred[idx] = np.argmax(total, axis=1)
        return pred

    def context_log_probs(self, weights, static_scores, encoded: Encoded, first: int, stop: int) -> np.ndarray:
        """(stop - first, n_contexts, Y) log p(y | token, previous tags) of tokens first..stop-1 for
        every context of :func:`fsengine.maxent.decode.contexts` (the Viterbi table); ``weights``
        from :meth:`_dynamic_weights`, ``static_scores`` = static_X W."""
        from fsengine.maxent.decode import contexts, log_softmax

        n_tags, order = len(self.labels_), self.tag_order
        ctx = contexts(n_tags, order)
        # digit n_tags (BOS) -> reserved BOS id, label l -> l + len(_RESERVED)
        ids = np.where(ctx == n_tags, BOS, ctx + len(_RESERVED))
        n = stop - first
        idx = np.repeat(np.arange(first, stop), ctx.shape[0])

        def tag_at(o):
            return np.tile(ids[:, order + o], n)

        total = np.repeat(static_scores[first:stop], ctx.shape[0], axis=0)
        for hit, rows in self._dynamic_rows(weights, encoded, idx, tag_at):
            total[hit] += rows
        return log_softmax(total.reshape(n, ctx.shape[0], n_tags))

    def _viterbi(self, model, encoded: Encoded, block_tokens: int = 200_000) -> np.ndarray:
        """Exact decoding, sentence by sentence, the log-probability tables built for blocks of
        whole sentences of about ``block_tokens`` token-context pairs."""
        from fsengine.maxent.decode import viterbi_path

        W = model.weight_matrix().tocsr()
        scores = np.asarray((encoded.static_X @ W).todense())
        weights = self._dynamic_weights(W)
        pred = np.empty(scores.shape[0], dtype=np.int64)
        n_ctx = (len(self.labels_) + 1) ** self.tag_order
        starts, lengths = encoded.starts.tolist(), encoded.lengths.tolist()
        s = 0
        while s < len(starts):
            e, tokens = s, 0
            while e < len(starts) and (e == s or (tokens + lengths[e]) * n_ctx <= block_tokens):
                tokens += lengths[e]
                e += 1
            first = starts[s]
            table = self.context_log_probs(weights, scores, encoded, first, first + tokens)
            for start, length in zip(starts[s:e], lengths[s:e]):
                path, _ = viterbi_path(table[start - first:start - first + length], len(self.labels_),
                                       self.tag_order)
                pred[start:start + length] = path
            s = e
        return pred
