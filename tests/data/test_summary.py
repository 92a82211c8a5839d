"""The Data page's numbers, computed outside Streamlit (fsengine.data.summary)."""

import numpy as np

from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.summary import balance_note, class_labels, head_table, sample_texts


def _texts():
    y = np.array([0, 1, 0, 1, 0])
    texts = ("a" * 500, "b", "c", "d", "e")
    return Dataset(X=np.eye(5), y=y, feature_names=tuple("vwxyz"), target_names=("neg", "pos"),
                   provenance=Provenance("test"), name="t", texts=texts)


def test_balance_note_names_the_majority_share_and_flags_imbalance():
    assert "**60%**" in balance_note([3, 2]) and "unbalanced" not in balance_note([3, 2])
    assert "**80%**" in balance_note([8, 2]) and "unbalanced" in balance_note([8, 2])


def test_sample_texts_of_one_class_are_cut_at_the_width():
    table = sample_texts(_texts(), "neg", 2, width=10)
    assert table["text"].tolist() == ["a" * 10 + " ...", "c"]
    assert table["class"].tolist() == ["neg", "neg"]


def test_head_table_puts_the_named_target_first():
    table = head_table(_texts(), n_rows=3, n_columns=2)
    assert list(table.columns) == ["target", "v", "w"]
    assert table["target"].tolist() == ["neg", "pos", "neg"]
    assert class_labels(_texts()) == ["neg", "pos"]
