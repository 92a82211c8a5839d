"""Readers for NLTK-layout corpora (zip or unpacked), without depending on NLTK.

CoNLL-2000   ``conll2000/{train,test}.txt``: one ``word POS chunk`` token per line, blank line
             between sentences (WSJ sections 15-18 train, 20 test).
treebank     ``treebank/combined/wsj_*.mrg``: bracketed parses whose leaves are ``(TAG word)``.
movie_reviews  ``movie_reviews/{pos,neg}/*.txt``: one tokenised review per file.
sentence_polarity  ``sentence_polarity/rt-polarity.{pos,neg}``: one snippet per line (latin-1).
subjectivity ``subjectivity/quote.tok.gt9.5000`` (subjective), ``plot.tok.gt9.5000`` (objective).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from fsengine.data.limits import check_declared
from fsengine.data.paths import find_corpus

Token = tuple[str, str, str]


class CorpusFormatError(ValueError):
    """A corpus file does not follow its documented layout."""


class _CorpusFiles:
    """Uniform read access to a corpus that is either a zip archive or an unpacked folder."""

    def __init__(self, name: str, path: Path | None = None):
        self.name = name
        self.path = Path(path) if path else find_corpus(name)
        self._zip = None
        if self.path.suffix == ".zip":
            try:
                self._zip = zipfile.ZipFile(self.path)
            except zipfile.BadZipFile as exc:
                raise CorpusFormatError(f"{self.path}: not a valid zip archive ({exc}); delete it and download it "
                                        "again (fsengine datasets fetch).") from exc

    def list(self, prefix: str) -> list[str]:
        """Relative file names (inside the corpus folder) under ``prefix``, sorted."""
        if self._zip is not None:
            head = f"{self.name}/{prefix}"
            return sorted(n[len(self.name) + 1:] for n in self._zip.namelist()
                          if n.startswith(head) and not n.endswith("/"))
        base = self.path
        return sorted(str(p.relative_to(base)) for p in (base / prefix).parent.rglob("*")
                      if p.is_file() and str(p.relative_to(base)).startswith(prefix))

    def read(self, rel: str, encoding: str = "utf-8") -> str:
        try:
            if self._zip is not None:
                member = self._zip.getinfo(f"{self.name}/{rel}")
                check_declared(member.file_size, f"{self.path}: member {member.filename}, unpacked,",
                               error=CorpusFormatError, remedy="delete the archive and download it again "
                                                               "(fsengine datasets fetch)")
                raw = self._zip.read(member)  # never more than the declared size (zipfile stops there)
            else:
                raw = (self.path / rel).read_bytes()
        except KeyError as exc:
            raise CorpusFormatError(f"{self.path}: missing member {self.name}/{rel}") from exc
        except FileNotFoundError as exc:
            raise CorpusFormatError(f"{self.path}: missing file {rel}") from exc
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise CorpusFormatError(f"{self.path} is damaged ({type(exc).__name__}: {exc} in {rel}); delete it and "
                                    "download it again (fsengine datasets fetch).") from exc
        return raw.decode(encoding, errors="replace")

    def __repr__(self):
        return f"{self.name} at {self.path}"


def read_conll2000(split: str = "train", path: Path | None = None) -> list[list[Token]]:
    """CoNLL-2000 chunking sentences: lists of (word, POS, chunk tag) with IOB chunk tags."""
    if split not in ("train", "test"):
        raise ValueError(f"CoNLL-2000 split must be 'train' or 'test', not {split!r}")
    files = _CorpusFiles("conll2000", path)
    text = files.read(f"{split}.txt")
    sentences, current = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            if current:
                sentences.append(current)
                current = []
            continue
        parts = line.split()
        if len(parts) != 3:
            raise CorpusFormatError(
                f"{files}: {split}.txt line {lineno} has {len(parts)} fields, expected 'word POS chunk'"
            )
        if parts[2] != "O" and not re.match(r"^[BI]-[A-Z]+$", parts[2]):
            raise CorpusFormatError(f"{files}: {split}.txt line {lineno}: bad chunk tag {parts[2]!r}")
        current.append((parts[0], parts[1], parts[2]))
    if current:
        sentences.append(current)
    if not sentences:
        raise CorpusFormatError(f"{files}: {split}.txt holds no sentences")
    return sentences


_LEAF = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")


def _split_trees(text: str) -> list[str]:
    """Split a .mrg file into its top-level bracketed trees by counting parentheses."""
    trees, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise CorpusFormatError("unbalanced ')' in treebank file")
            if depth == 0:
                trees.append(text[start:i + 1])
    if depth != 0:
        raise CorpusFormatError("unbalanced '(' in treebank file")
    return trees


def read_treebank_tagged(path: Path | None = None, *, keep_traces: bool = False
                         ) -> list[list[tuple[str, str]]]:
    """Penn Treebank 10% sample: POS-tagged sentences as lists of (word, tag).

    Reads the parsed ``treebank/combined/wsj_*.mrg`` files (3,914 sentences, as NLTK's
    ``treebank.tagged_sents()``); the leaves ``(TAG word)`` give the tagged tokens. Empty
    elements (tag ``-NONE-``: traces like ``*-1``) are dropped unless ``keep_traces``.
    """
    files = _CorpusFiles("treebank", path)
    names = [n for n in files.list("combined/") if n.endswith(".mrg")]
    if not names:
        raise CorpusFormatError(f"{files}: no combined/*.mrg files")
    sentences = []
    for name in names:
        try:
            trees = _split_trees(files.read(name, encoding="ascii"))
        except CorpusFormatError as exc:
            raise CorpusFormatError(f"{files}: {name}: {exc}") from exc
        for tree in trees:
            leaves = [(word, tag) for tag, word in _LEAF.findall(tree)
                      if keep_traces or tag != "-NONE-"]
            if leaves:
                sentences.append(leaves)
    return sentences


@dataclass(frozen=True)
class LabelledTexts:
    """Documents with binary labels and the names of the two classes."""

    texts: tuple[str, ...]
    labels: tuple[int, ...]
    label_names: tuple[str, str]
    source: str
    licence: str


def read_movie_reviews(path: Path | None = None) -> LabelledTexts:
    """Pang & Lee polarity v2.0: 1,000 negative (label 0) and 1,000 positive (label 1) reviews."""
    files = _CorpusFiles("movie_reviews", path)
    texts, labels = [], []
    for label, sub in ((0, "neg/"), (1, "pos/")):
        names = [n for n in files.list(sub) if n.endswith(".txt")]
        if not names:
            raise CorpusFormatError(f"{files}: no {sub}*.txt reviews")
        for name in names:
            texts.append(files.read(name))
            labels.append(label)
    return LabelledTexts(tuple(texts), tuple(labels), ("neg", "pos"),
                         f"Pang & Lee movie reviews v2.0 ({files.path})", "CC BY 4.0")


def _line_corpus(name, members, label_names, source, licence, path, encoding) -> LabelledTexts:
    files = _CorpusFiles(name, path)
    texts, labels = [], []
    for label, member in enumerate(members):
        lines = [ln.strip() for ln in files.read(member, encoding=encoding).splitlines()]
        lines = [ln for ln in lines if ln]
        if not lines:
            raise CorpusFormatError(f"{files}: {member} is empty")
        texts += lines
        labels += [label] * len(lines)
    return LabelledTexts(tuple(texts), tuple(labels), label_names, f"{source} ({files.path})", licence)


def read_sentence_polarity(path: Path | None = None) -> LabelledTexts:
    """5,331 negative (0) and 5,331 positive (1) review snippets."""
    return _line_corpus("sentence_polarity", ("rt-polarity.neg", "rt-polarity.pos"), ("neg", "pos"),
                        "Pang & Lee sentence polarity v1.0", "CC BY 4.0", path, "latin-1")


def read_subjectivity(path: Path | None = None) -> LabelledTexts:
    """5,000 objective (0, plot summaries) and 5,000 subjective (1, review quotes) sentences."""
    return _line_corpus("subjectivity", ("plot.tok.gt9.5000", "quote.tok.gt9.5000"), ("obj", "subj"),
                        "Pang & Lee subjectivity v1.0", "CC BY 4.0", path, "latin-1")
