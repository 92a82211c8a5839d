"""The dataset catalogue: ``CATALOGUE``, a plain list of :class:`DatasetSpec` entries that
:mod:`fsengine.data.registry` reads.

Loaders and availability checks import their modules when called, so listing the catalogue
(``fsengine datasets list``, the app's picker) stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from fsengine.data.dataset import Dataset
from fsengine.params import HasParams, Param


@dataclass(frozen=True)
class DatasetSpec(HasParams):
    """A catalogue entry: how to load a dataset and what to say about it.

    Examples
    --------
    >>> from fsengine.data import get_spec
    >>> spec = get_spec("synthetic_glm")
    >>> spec.group, spec.defaults()["p"]
    ('Synthetic', 50)
    """

    key: str
    label: str
    group: str  # "Images" | "Tables" | "Text" | "Sequences" | "Synthetic"
    description: str
    loader: Callable[..., Dataset]
    params: tuple[Param, ...] = ()
    available: Callable[[], bool] = field(default=lambda: True)
    unavailable_hint: str = ""

    _kind = "Dataset"


#: every built-in dataset, in the picker's order
CATALOGUE: list[DatasetSpec] = []


def _lazy(module: str, attr: str, /, **fixed):
    """``fsengine.data.MODULE.ATTR(**fixed, **kwargs)``, imported on first call."""

    def call(*args, **kwargs):
        return getattr(importlib.import_module(f"fsengine.data.{module}"), attr)(*args, **fixed, **kwargs)

    call.__name__ = f"{module}.{attr}"
    return call

_LETTERS_HELP = "Letters A-J to include, e.g. BD for the paper's B-vs-D task"


def _letters_only(load, letters: str, n_per_class: int, seed: int):
    """Load the chosen letters and relabel them 0..k-1 in the order given."""
    if not letters:
        raise ValueError("Choose at least one letter (A-J).")
    ds = load(tuple(letters), n_per_class=n_per_class, seed=seed)
    return ds.subset_classes(["ABCDEFGHIJ".index(ch) for ch in letters])


def _load_notmnist(letters: str = "BD", n_per_class: int = 500, seed: int = 0):
    load = _lazy("notmnist", "load_notmnist_idx")
    return _letters_only(lambda chosen, **kw: load(letters=chosen, **kw), letters, n_per_class, seed)


def _load_letters(letters: str = "BD", n_per_class: int = 500, seed: int = 0):
    return _letters_only(_lazy("letters", "load_letters"), letters, n_per_class, seed)


CATALOGUE.append(DatasetSpec(
    key="notmnist",
    label="notMNIST letters (real 10k sample)",
    group="Images",
    description="28x28 glyphs of A-J from public fonts (Fisher & Mehta's B-vs-D task by default).",
    loader=_load_notmnist,
    params=(
        Param("letters", "Letters", "BD", kind="letters", help=_LETTERS_HELP),
        Param("n_per_class", "Images per letter", 500, min=10, max=1000),
        Param("seed", "Sampling seed", 0, min=0),
    ),
    available=_lazy("notmnist", "real_notmnist_available"),
    unavailable_hint="Run `python -m fsengine datasets fetch notmnist` or set FSENGINE_DATA.",
))

CATALOGUE.append(DatasetSpec(
    key="letters",
    label="Generated notMNIST-style letters",
    group="Images",
    description="A-J rendered from every font face on this machine, stretched to 28x28 as in "
                "notMNIST, lightly augmented (the default when real notMNIST is absent).",
    loader=_load_letters,
    params=(
        Param("letters", "Letters", "BD", kind="letters", help=_LETTERS_HELP),
        Param("n_per_class", "Images per letter", 500, min=10, max=5000),
        Param("seed", "Generation seed", 0, min=0),
    ),
))

for _key, _label, _desc in (
    ("digits", "Digits 8x8 (scikit-learn)", "1,797 handwritten digits 0-9 as 8x8 images; always available."),
    ("breast_cancer", "Breast cancer (scikit-learn)", "569 tumours, 30 real-valued features, benign vs malignant."),
    ("wine", "Wine (scikit-learn)", "178 wines, 13 chemical features, 3 cultivars."),
):
    CATALOGUE.append(DatasetSpec(key=_key, label=_label, group="Images" if _key == "digits" else "Tables",
                         description=_desc, loader=_lazy("bundled", "load_bundled", name=_key)))


CATALOGUE.append(DatasetSpec(
    key="synthetic_glm",
    label="Sparse GLM (synthetic, known truth)",
    group="Synthetic",
    description="Correlated AR(1) features, k truly relevant; linear, logistic or Poisson response.",
    loader=_lazy("synthetic.glm", "make_sparse_glm"),
    params=(
        Param("family", "Family", "logistic", kind="choice", choices=("linear", "logistic", "poisson")),
        Param("n", "Samples", 500, min=10, max=100000),
        Param("p", "Features", 50, min=1, max=20000),
        Param("k", "Relevant features", 5, min=0, max=20000),
        Param("rho", "Neighbour correlation", 0.5, kind="float", min=-0.99, max=0.99),
        Param("signal", "Signal strength", 1.0, kind="float", min=0.0),
        Param("seed", "Seed", 0, min=0),
    ),
))
CATALOGUE.append(DatasetSpec(
    key="xor_redundant",
    label="XOR pair with redundant label copies (synthetic, known truth)",
    group="Synthetic",
    description="Binary features: a planted XOR pair that determines the label (useless one at a time), "
                "noisy copies of the label (informative but redundant) and noise.",
    loader=_lazy("synthetic.xor", "make_xor_redundant"),
    params=(
        Param("n", "Samples", 600, min=4, max=100000),
        Param("n_redundant", "Copies of the label", 5, min=0, max=1000),
        Param("n_noise", "Noise features", 20, min=0, max=20000),
        Param("copy_noise", "Flip probability of a copy", 0.2, kind="float", min=0.0, max=0.5),
        Param("label_noise", "Flip probability of the label", 0.0, kind="float", min=0.0, max=0.5),
        Param("seed", "Seed", 0, min=0),
    ),
))
CATALOGUE.append(DatasetSpec(
    key="madelon_like",
    label="MADELON-style hypercube clusters (synthetic, known truth)",
    group="Synthetic",
    description="Made as MADELON was (Guyon 2003, sklearn make_classification): 32 clusters on a 5-d "
                "hypercube, 5 informative + 15 redundant features, the rest probes; 1% labels flipped.",
    loader=_lazy("synthetic.madelon", "make_madelon_like"),
    params=(
        Param("n", "Samples", 2000, min=64, max=100000),
        Param("n_features", "Features (20 carry signal)", 500, min=20, max=20000),
        Param("seed", "Seed", 0, min=0),
    ),
))
for _key, _label, _desc, _min_df in (
    ("movie_reviews", "Movie reviews (Pang & Lee v2.0)",
     "2,000 full reviews, negative vs positive, as binary word-presence tags.", 20),
    ("sentence_polarity", "Sentence polarity (Pang & Lee)",
     "10,662 review snippets, negative vs positive, as binary word-presence tags.", 10),
    ("subjectivity", "Subjectivity (Pang & Lee)",
     "10,000 sentences, objective plot summaries vs subjective review quotes, as word-presence tags.", 10),
):
    CATALOGUE.append(DatasetSpec(
        key=_key, label=_label, group="Text", description=_desc,
        loader=_lazy("documents", "load_document_tags", name=_key),
        params=(Param("min_df", "Minimum document frequency", _min_df, min=1, max=1000,
                      help="A word becomes a feature when it occurs in at least this many documents"),),
        available=_lazy("paths", "corpus_present", name=_key),
        unavailable_hint=f"Run `python -m fsengine datasets fetch {_key}` or set FSENGINE_DATA.",
    ))
_GROUPS_HELP = "Template groups joined by + (words, pos, tags, affixes, shape, conjunctions) or all"


for _task, _label in (("np", "Base-NP chunking"), ("chunk", "full chunking")):
    CATALOGUE.append(DatasetSpec(
        key=f"conll2000_{_task}",
        label=f"CoNLL-2000 {_label} (maxent predicates)",
        group="Sequences",
        description=f"WSJ 15-18 train / 20 test, {_label}: one row per token, one binary column per "
                    "template predicate (words, POS, previous tags, affixes, shape, conjunctions).",
        loader=_lazy("maxent_tasks", "load_conll2000_maxent", task=_task),
        params=(
            Param("groups", "Template groups", "all", kind="str", help=_GROUPS_HELP),
            Param("cutoff", "Predicate count cutoff", 1, min=1),
            Param("n_sentences", "Training sentences (0 = all 8,936)", 0, min=0, max=8936),
        ),
        available=_lazy("paths", "corpus_present", name="conll2000"),
        unavailable_hint="Set FSENGINE_DATA or run `python -m fsengine datasets fetch conll2000`.",
    ))

CATALOGUE.append(DatasetSpec(
    key="treebank_pos",
    label="Penn Treebank POS tagging (maxent predicates)",
    group="Sequences",
    description="3,914 WSJ sentences (last 10% test): one row per token, one binary column per "
                "tagger template predicate (words, previous tags, affixes, shape).",
    loader=_lazy("maxent_tasks", "load_treebank_pos"),
    params=(
        Param("groups", "Template groups", "all", kind="str", help=_GROUPS_HELP),
        Param("cutoff", "Predicate count cutoff", 1, min=1),
        Param("n_sentences", "Training sentences (0 = all)", 0, min=0, max=3914),
    ),
    available=_lazy("paths", "corpus_present", name="treebank"),
    unavailable_hint="Set FSENGINE_DATA or run `python -m fsengine datasets fetch treebank`.",
))

CATALOGUE.append(DatasetSpec(
    key="planted_maxent",
    label="Planted conditional maxent (synthetic)",
    group="Synthetic",
    description="Sparse binary predicates; labels from a maxent model with 20 planted "
                "(predicate, class) features; held-out split included.",
    loader=_lazy("synthetic.maxent", "make_planted_maxent"),
    params=(
        Param("n_samples", "Training rows", 5000, min=100, max=200000),
        Param("n_predicates", "Predicates", 300, min=20, max=20000),
        Param("n_classes", "Classes", 4, min=2, max=50),
        Param("seed", "Seed", 0, min=0),
    ),
))


CATALOGUE.append(DatasetSpec(
    key="synthetic_rtm",
    label="Relevance Tagging Machine model (synthetic tags)",
    group="Synthetic",
    description="Binary tags and classes sampled from the RTM itself, with a known relevant set "
                "(Molchanov et al.'s synthetic ROC task: 800 objects, 400 tags, 30 relevant).",
    loader=_lazy("synthetic.rtm", "make_rtm"),
    params=(
        Param("n_samples", "Objects", 800, min=20, max=100_000),
        Param("n_tags", "Tags", 400, min=2, max=20_000),
        Param("n_relevant", "Relevant tags", 30, min=0, max=20_000),
        Param("tag_rate", "Mean tag rate", 0.05, kind="float", min=0.001, max=0.33,
              help="typical probability that an object carries a tag (rates vary 3x either way)"),
        Param("seed", "Seed", 0, min=0),
    ),
))
