"""Loaders on the real shared data and on files written here, including corrupt and missing ones."""

from __future__ import annotations

import gzip
import shutil
import struct
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from PIL import Image

from fsengine.data import DataNotFoundError, load_dataset
from fsengine.data.bundled import load_bundled
from fsengine.data.corpora import (
    CorpusFormatError,
    read_conll2000,
    read_movie_reviews,
    read_sentence_polarity,
    read_subjectivity,
    read_treebank_tagged,
)
from fsengine.data.documents import load_document_tags
from fsengine.data.features import word_presence_tags
from fsengine.data.notmnist import (
    CorruptDataError,
    load_notmnist_folder,
    load_notmnist_idx,
    load_notmnist_npz,
    read_idx,
)
from fsengine.data.paths import find_corpus
from fsengine.data.registry import get_spec
from tests.conftest import require_real


def _idx_bytes(array: np.ndarray) -> bytes:
    """An MNIST IDX file for a uint8 array, written from the format description."""
    header = struct.pack(">HBB", 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(np.uint8).tobytes()


@pytest.fixture
def idx_pair(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(30, 28, 28), dtype=np.uint8)
    labels = np.repeat(np.arange(10, dtype=np.uint8), 3)
    img, lab = tmp_path / "images.idx.gz", tmp_path / "labels.idx"
    img.write_bytes(gzip.compress(_idx_bytes(images)))
    lab.write_bytes(_idx_bytes(labels))
    return img, lab, images, labels


# ----------------------------------------------------------------------------------- notMNIST
def test_real_notmnist_sample():
    ds = require_real(load_notmnist_idx)
    assert ds.X.shape == (10000, 784) and ds.image_shape == (28, 28)
    assert ds.class_counts() == {letter: 1000 for letter in "ABCDEFGHIJ"}
    assert ds.X.min() == 0.0 and ds.X.max() == 1.0


def test_real_notmnist_catalogue_entry_b_vs_d():
    require_real(load_notmnist_idx, letters="B", n_per_class=1)
    ds = load_dataset("notmnist:letters=BD,n_per_class=200,seed=1")
    assert ds.target_names == ("B", "D") and ds.class_counts() == {"B": 200, "D": 200}
    again = load_dataset("notmnist:letters=BD,n_per_class=200,seed=1")
    np.testing.assert_array_equal(ds.X, again.X)


def test_idx_round_trip_gz_and_plain(idx_pair):
    img, lab, images, labels = idx_pair
    ds = load_notmnist_idx(img, lab)
    np.testing.assert_array_equal(ds.X, images.reshape(30, -1) / 255.0)
    np.testing.assert_array_equal(ds.y, labels)
    sub = load_notmnist_idx(img, lab, letters="CA", n_per_class=2, seed=0)
    assert sorted(sub.y.tolist()) == [0, 0, 2, 2]
    with pytest.raises(ValueError, match="only 3 exist"):
        load_notmnist_idx(img, lab, letters="A", n_per_class=4)
    with pytest.raises(ValueError, match="Unknown notMNIST letter 'K'"):
        load_notmnist_idx(img, lab, letters="K")


def test_truncated_idx(idx_pair, tmp_path):
    img, lab, images, _ = idx_pair
    bad = tmp_path / "truncated.idx"
    bad.write_bytes(_idx_bytes(images)[:-100])
    with pytest.raises(CorruptDataError, match=r"header promises \(30, 28, 28\).*holds 23420 bytes"):
        load_notmnist_idx(bad, lab)
    short = tmp_path / "short.idx"
    short.write_bytes(_idx_bytes(images)[:10])
    with pytest.raises(CorruptDataError, match="truncated IDX header"):
        read_idx(short)


def test_bad_gzip_and_bad_magic(idx_pair, tmp_path):
    _, lab, _, _ = idx_pair
    whole = gzip.compress(np.random.default_rng(0).bytes(5000))
    bad_gz = tmp_path / "bad.gz"
    for damaged in (whole[: len(whole) // 2], whole[:10] + b"garbage" * 20):
        bad_gz.write_bytes(damaged)
        with pytest.raises(CorruptDataError, match="gzip stream is damaged"):
            load_notmnist_idx(bad_gz, lab)
    not_idx = tmp_path / "text.idx"
    not_idx.write_bytes(b"hello world")
    with pytest.raises(CorruptDataError, match="bad magic number"):
        read_idx(not_idx)


def test_wrong_label_count_and_range(idx_pair, tmp_path):
    img, _, _, _ = idx_pair
    few = tmp_path / "few.idx"
    few.write_bytes(_idx_bytes(np.zeros(29, dtype=np.uint8)))
    with pytest.raises(CorruptDataError, match=r"\(29,\) labels do not match 30 images"):
        load_notmnist_idx(img, few)
    wild = tmp_path / "wild.idx"
    wild.write_bytes(_idx_bytes(np.full(30, 11, dtype=np.uint8)))
    with pytest.raises(CorruptDataError, match="labels outside 0-9"):
        load_notmnist_idx(img, wild)


def test_missing_files_name_what_to_do(tmp_path, monkeypatch):
    monkeypatch.delenv("FSENGINE_DATA", raising=False)
    monkeypatch.setenv("FSENGINE_DATASETS", str(tmp_path))
    with pytest.raises(DataNotFoundError, match="datasets fetch notmnist"):
        load_notmnist_idx()
    with pytest.raises(DataNotFoundError, match="does not exist"):
        read_idx(tmp_path / "nothing.idx")
    assert not get_spec("notmnist").available()
    with pytest.raises(DataNotFoundError, match="not available here"):
        load_dataset("notmnist")


def test_npz_loader(tmp_path, idx_pair):
    _, _, images, labels = idx_pair
    good = tmp_path / "good.npz"
    np.savez(good, images=images, labels=labels)
    ds = load_notmnist_npz(good, letters="J")
    np.testing.assert_array_equal(ds.X, images[labels == 9].reshape(3, -1) / 255.0)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 broken zip")
    with pytest.raises(CorruptDataError, match="not a readable .npz"):
        load_notmnist_npz(bad)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, pixels=images)
    with pytest.raises(CorruptDataError, match="needs arrays 'images'"):
        load_notmnist_npz(wrong)


def test_png_folder_counts_unreadable_files(tmp_path):
    rng = np.random.default_rng(1)
    for letter in "ABCDEFGHIJ":
        (tmp_path / letter).mkdir()
        for k in range(3):
            Image.fromarray(rng.integers(0, 256, (28, 28), dtype=np.uint8)).save(tmp_path / letter / f"{k}.png")
    (tmp_path / "B" / "broken.png").write_bytes(b"\x89PNG broken")
    Image.fromarray(np.zeros((10, 10), dtype=np.uint8)).save(tmp_path / "D" / "small.png")
    ds = load_notmnist_folder(tmp_path, letters="BD")
    assert ds.class_counts() == {"B": 3, "D": 3}
    assert ds.provenance.counts["unreadable"] == 2
    assert "2 unreadable or mis-sized PNG(s) skipped" in ds.provenance.notes[0]
    with pytest.raises(ValueError, match="Unknown notMNIST letter 'K'"):
        load_notmnist_folder(tmp_path, letters="K")
    shutil.rmtree(tmp_path / "E")
    with pytest.raises(DataNotFoundError, match="has no sub-folder E/"):
        load_notmnist_folder(tmp_path, letters="E")


# ------------------------------------------------------------------------------------ corpora
def test_real_conll2000_and_treebank_sizes():
    train = require_real(read_conll2000, "train")
    test = read_conll2000("test")
    assert (len(train), len(test)) == (8936, 2012)       # CoNLL-2000 shared-task sizes
    word, pos, chunk = train[0][0]
    assert (word, pos, chunk) == ("Confidence", "NN", "B-NP")
    tagged = read_treebank_tagged()
    assert len(tagged) == 3914 and tagged[0][0] == ("Pierre", "NNP")
    assert all(tag != "-NONE-" for sent in tagged for _, tag in sent)


def test_real_labelled_corpora_sizes():
    reviews = require_real(read_movie_reviews)
    assert len(reviews.texts) == 2000 and sum(reviews.labels) == 1000
    polarity = read_sentence_polarity()
    assert len(polarity.texts) == 10662 and sum(polarity.labels) == 5331
    subj = read_subjectivity()
    assert len(subj.texts) == 10000 and sum(subj.labels) == 5000


def test_unpacked_corpus_and_nltk_data_lookup(tmp_path, monkeypatch):
    zipped = require_real(find_corpus, "sentence_polarity")
    corpora = tmp_path / "nltk" / "corpora"
    corpora.mkdir(parents=True)
    with zipfile.ZipFile(zipped) as zf:
        zf.extractall(corpora)
    monkeypatch.delenv("FSENGINE_DATA", raising=False)
    monkeypatch.setenv("FSENGINE_DATASETS", str(tmp_path / "empty"))
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "nltk"))
    unpacked = read_sentence_polarity()
    assert str(corpora / "sentence_polarity") in unpacked.source
    assert len(unpacked.texts) == 10662


def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return path


def test_corrupt_corpora(tmp_path):
    bad = tmp_path / "conll2000.zip"
    bad.write_bytes(b"PK not a zip")
    with pytest.raises(CorpusFormatError, match="not a valid zip archive"):
        read_conll2000(path=bad)
    fields = _zip(tmp_path / "c2.zip", {"conll2000/train.txt": "He PRP B-NP\nruns VBZ\n"})
    with pytest.raises(CorpusFormatError, match="line 2 has 2 fields"):
        read_conll2000(path=fields)
    with pytest.raises(CorpusFormatError, match="missing member conll2000/test.txt"):
        read_conll2000("test", path=fields)
    tags = _zip(tmp_path / "c3.zip", {"conll2000/train.txt": "He PRP X-NP\n"})
    with pytest.raises(CorpusFormatError, match="bad chunk tag 'X-NP'"):
        read_conll2000(path=tags)
    tree = _zip(tmp_path / "tb.zip", {"treebank/combined/wsj_0001.mrg": "((S (NP (NNP Pierre)) )"})
    with pytest.raises(CorpusFormatError, match="unbalanced"):
        read_treebank_tagged(path=tree)
    empty = _zip(tmp_path / "sp.zip", {"sentence_polarity/rt-polarity.neg": "\n\n",
                                       "sentence_polarity/rt-polarity.pos": "good\n"})
    with pytest.raises(CorpusFormatError, match="rt-polarity.neg is empty"):
        read_sentence_polarity(path=empty)


# ---------------------------------------------------------------------- document tag datasets
def _presence_by_hand(texts, min_df):
    """Reference: each document's set of tokens, document frequencies by counting."""
    import re

    docs = [set(re.findall(r"[a-z0-9][a-z0-9'\-]*", t.lower())) for t in texts]
    frequency = Counter(w for d in docs for w in d)  # in how many documents each word occurs
    vocab = sorted(w for w, n in frequency.items() if n >= min_df)
    return np.array([[w in d for w in vocab] for d in docs], dtype=float), tuple(vocab)


def test_word_presence_tags_are_document_word_sets_with_min_df():
    texts = ["Don't buy it: a well-made, DULL film.", "A dull plot; a well-made cast!", "film film film 42",
             "-- '' !!", "The cast don't care"]
    for min_df in (1, 2, 3):
        X, vocab = word_presence_tags(texts, min_df=min_df)
        ref, ref_vocab = _presence_by_hand(texts, min_df)
        assert vocab == ref_vocab and sp.issparse(X)
        np.testing.assert_array_equal(X.toarray(), ref)
    test_X, _ = word_presence_tags(["dull dull film", "nothing known"], vocabulary=("dull", "film", "plot"))
    np.testing.assert_array_equal(test_X.toarray(), [[1, 1, 0], [0, 0, 0]])
    assert word_presence_tags(["x", "y"], min_df=2)[1] == ()


def test_document_tags_of_a_real_corpus():
    ds = require_real(load_document_tags, "sentence_polarity", min_df=25)
    full, vocab = _presence_by_hand(ds.texts, 25)
    assert ds.feature_names == vocab
    np.testing.assert_array_equal(ds.X[:500].toarray(), full[:500])
    assert sp.issparse(ds.X) and set(np.unique(ds.X.data)) == {1.0}
    assert ds.target_names == ("neg", "pos") and ds.texts is not None
    assert ds.provenance.counts["features"] == ds.n_features


def test_text_catalogue_entries_follow_availability(tmp_path, monkeypatch):
    keys = ("movie_reviews", "sentence_polarity", "subjectivity")
    monkeypatch.delenv("FSENGINE_DATA", raising=False)
    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setenv("FSENGINE_DATASETS", str(tmp_path))
    monkeypatch.setattr("fsengine.data.paths._nltk_standard_dirs", lambda: [])
    assert not any(get_spec(k).available() for k in keys)
    with pytest.raises(DataNotFoundError, match="datasets fetch subjectivity"):
        load_dataset("subjectivity")
    corpora = tmp_path / "nltk_data" / "corpora"
    corpora.mkdir(parents=True)
    _zip(corpora / "subjectivity.zip", {
        "subjectivity/plot.tok.gt9.5000": "a dull plot\nthe plot moves\n",
        "subjectivity/quote.tok.gt9.5000": "a lovely film\na lovely plot\n"})
    assert get_spec("subjectivity").available()
    ds = load_dataset("subjectivity:min_df=2")
    assert ds.feature_names == ("a", "lovely", "plot")
    np.testing.assert_array_equal(ds.X.toarray(), [[1, 0, 1], [0, 0, 1], [1, 1, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match="lower min_df"):
        load_dataset("subjectivity:min_df=5")


def test_bundled_datasets():
    digits = load_bundled("digits")
    assert digits.X.shape == (1797, 64) and digits.image_shape == (8, 8) and digits.X.max() == 1.0
    assert load_bundled("wine").class_counts() == {"class_0": 59, "class_1": 71, "class_2": 48}
    with pytest.raises(ValueError, match="Unknown bundled dataset"):
        load_bundled("iris")
