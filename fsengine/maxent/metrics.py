"""Evaluation: accuracy and chunk-level precision / recall / F1 with conlleval semantics.

conlleval (the CoNLL-2000 shared-task scorer) reads IOB tags ``B-TYPE``, ``I-TYPE``, ``O``. A chunk
starts at B-X, at I-X after O, and at I-X after a chunk of another type; it ends before B, before
O, and before a tag of another type; sentence ends close every chunk. A guessed chunk is correct
when a gold chunk has the same first token, last token and type. Precision = correct / guessed,
recall = correct / gold, F1 = 2PR / (P + R), all in percent as conlleval prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def accuracy(y_true, y_pred) -> float:
    """Fraction of positions where the prediction equals the truth."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"accuracy: {y_true.shape} truths vs {y_pred.shape} predictions")
    return float(np.mean(y_true == y_pred)) if y_true.size else float("nan")


def _split(tag: str) -> tuple[str, str]:
    if tag == "O":
        return "O", ""
    head, sep, kind = tag.partition("-")
    if not sep or head not in ("B", "I"):
        raise ValueError(f"chunk tag {tag!r} is not IOB (B-TYPE, I-TYPE or O)")
    return head, kind


def _ends(prev_tag, tag, prev_type, kind) -> bool:
    if prev_tag in ("B", "I") and tag in ("B", "O"):
        return True
    return prev_tag != "O" and prev_type != kind


def _starts(prev_tag, tag, prev_type, kind) -> bool:
    if tag == "B" or (prev_tag == "O" and tag == "I"):
        return True
    return tag != "O" and prev_type != kind


def chunk_spans(tags) -> list[tuple[int, int, str]]:
    """Chunks of one sentence as (first token, last token, type), conlleval's rules."""
    spans, start = [], None
    prev_tag, prev_type = "O", ""
    for i, raw in enumerate(list(tags) + ["O"]):
        tag, kind = _split(raw)
        if start is not None and _ends(prev_tag, tag, prev_type, kind):
            spans.append((start, i - 1, prev_type))
            start = None
        if _starts(prev_tag, tag, prev_type, kind):
            start = i
        prev_tag, prev_type = tag, kind
    return spans


@dataclass(frozen=True)
class ChunkScores:
    """conlleval's overall numbers (precision, recall, F1 in percent) and token accuracy."""

    precision: float
    recall: float
    f1: float
    accuracy: float
    n_gold: int
    n_guessed: int
    n_correct: int

    def as_dict(self) -> dict:
        return dict(precision=self.precision, recall=self.recall, f1=self.f1,
                    accuracy=self.accuracy, n_gold=self.n_gold, n_guessed=self.n_guessed,
                    n_correct=self.n_correct)


def sentence_counts(gold_sentences, guessed_sentences) -> np.ndarray:
    """Per sentence, conlleval's chunk counts: an int array (n_sentences, 3) of true positives
    (guessed chunks that match a gold chunk: same first token, last token and type), false
    positives (guessed chunks that match none) and false negatives (gold chunks not guessed).
    Their column sums give precision, recall and F1 (:func:`chunk_scores`); the rows are the units
    of the sentence-level bootstrap (:func:`fsengine.stats.f1_interval`)."""
    gold_sentences, guessed_sentences = list(gold_sentences), list(guessed_sentences)
    if len(gold_sentences) != len(guessed_sentences):
        raise ValueError(f"{len(gold_sentences)} gold sentences vs {len(guessed_sentences)} guessed")
    counts = np.zeros((len(gold_sentences), 3), dtype=np.int64)
    for i, (gold, guess) in enumerate(zip(gold_sentences, guessed_sentences)):
        if len(gold) != len(guess):
            raise ValueError(f"sentence lengths differ: {len(gold)} gold tags vs {len(guess)} guessed")
        g, p = set(chunk_spans(gold)), set(chunk_spans(guess))
        tp = len(g & p)
        counts[i] = (tp, len(p) - tp, len(g) - tp)
    return counts


def chunk_scores(gold_sentences, guessed_sentences) -> ChunkScores:
    """Score guessed IOB tag sequences against gold ones (lists of sentences of tag strings)."""
    gold_sentences, guessed_sentences = list(gold_sentences), list(guessed_sentences)
    tp, fp, fn = (int(v) for v in sentence_counts(gold_sentences, guessed_sentences).sum(axis=0))
    n_tok = sum(len(g) for g in gold_sentences)
    n_tok_ok = sum(a == b for gold, guess in zip(gold_sentences, guessed_sentences) for a, b in zip(gold, guess))
    n_gold, n_guess, n_correct = tp + fn, tp + fp, tp
    precision = 100.0 * n_correct / n_guess if n_guess else 0.0
    recall = 100.0 * n_correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    acc = 100.0 * n_tok_ok / n_tok if n_tok else float("nan")
    return ChunkScores(precision, recall, f1, acc, n_gold, n_guess, n_correct)
