"""The raw counts of an sgc-vs-ifs run, written beside ``results.json`` and read back from there:
per section-20 sentence the TP / FP / FN of every decoded model (``TASK_sentence_counts.csv``)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def model_key(method: str, n_features: int, decoder: str, variance: float) -> str:
    """The column prefix of a model in ``TASK_sentence_counts.csv``: ``SGC|1160|greedy|16``."""
    return f"{method}|{int(n_features)}|{decoder}|{variance:g}"


def counts_frame(counts: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per-sentence TP / FP / FN of every model, one row per section-20 sentence: columns
    ``sentence`` and ``KEY:tp``, ``KEY:fp``, ``KEY:fn`` per model key (:func:`model_key`)."""
    n = len(next(iter(counts.values())))
    cols = {"sentence": np.arange(n)}
    for key, c in counts.items():
        for j, part in enumerate(("tp", "fp", "fn")):
            cols[f"{key}:{part}"] = np.asarray(c)[:, j]
    return pd.DataFrame(cols)


def read_counts(frame: pd.DataFrame, key: str) -> np.ndarray:
    """The (n_sentences, 3) counts of model ``key`` back from :func:`counts_frame`."""
    return frame[[f"{key}:{p}" for p in ("tp", "fp", "fn")]].to_numpy()
