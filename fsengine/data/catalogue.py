"""Built-in catalogue entries (imported once by :mod:`fsengine.data.registry`)."""

from __future__ import annotations

from . import bundled, maxent_tasks, notmnist
from .synthetic.maxent import make_planted_maxent
from .registry import DatasetSpec, Param, register

_LETTERS_HELP = "Letters A-J to include, e.g. BD for the paper's B-vs-D task"


def _load_notmnist(letters: str = "BD", n_per_class: int = 500, seed: int = 0):
    ds = notmnist.load_notmnist_idx(letters=tuple(letters), n_per_class=n_per_class, seed=seed)
    return ds.subset_classes([notmnist.LETTERS.index(ch) for ch in letters])


register(DatasetSpec(
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
    available=notmnist.real_notmnist_available,
    unavailable_hint="Run `python -m fsengine datasets fetch notmnist` or set FSENGINE_DATA.",
))

for _key, _label, _desc in (
    ("digits", "Digits 8x8 (scikit-learn)", "1,797 handwritten digits 0-9 as 8x8 images; always available."),
    ("breast_cancer", "Breast cancer (scikit-learn)", "569 tumours, 30 real-valued features, benign vs malignant."),
    ("wine", "Wine (scikit-learn)", "178 wines, 13 chemical features, 3 cultivars."),
):
    register(DatasetSpec(key=_key, label=_label, group="Images" if _key == "digits" else "Tables",
                         description=_desc, loader=lambda _k=_key: bundled.load_bundled(_k)))

_GROUPS_HELP = "Template groups joined by + (words, pos, tags, affixes, shape, conjunctions) or all"


for _task, _label in (("np", "Base-NP chunking"), ("chunk", "full chunking")):
    register(DatasetSpec(
        key=f"conll2000_{_task}",
        label=f"CoNLL-2000 {_label} (maxent predicates)",
        group="Sequences",
        description=f"WSJ 15-18 train / 20 test, {_label}: one row per token, one binary column per "
                    "template predicate (words, POS, previous tags, affixes, shape, conjunctions).",
        loader=lambda _t=_task, **kw: maxent_tasks.load_conll2000_maxent(task=_t, **kw),
        params=(
            Param("groups", "Template groups", "all", kind="str", help=_GROUPS_HELP),
            Param("cutoff", "Predicate count cutoff", 1, min=1),
            Param("n_sentences", "Training sentences (0 = all 8,936)", 0, min=0, max=8936),
        ),
        available=maxent_tasks.corpus_available("conll2000"),
        unavailable_hint="Set FSENGINE_DATA or run `python -m fsengine datasets fetch conll2000`.",
    ))

register(DatasetSpec(
    key="treebank_pos",
    label="Penn Treebank POS tagging (maxent predicates)",
    group="Sequences",
    description="3,914 WSJ sentences (last 10% test): one row per token, one binary column per "
                "tagger template predicate (words, previous tags, affixes, shape).",
    loader=maxent_tasks.load_treebank_pos,
    params=(
        Param("groups", "Template groups", "all", kind="str", help=_GROUPS_HELP),
        Param("cutoff", "Predicate count cutoff", 1, min=1),
        Param("n_sentences", "Training sentences (0 = all)", 0, min=0, max=3914),
    ),
    available=maxent_tasks.corpus_available("treebank"),
    unavailable_hint="Set FSENGINE_DATA or run `python -m fsengine datasets fetch treebank`.",
))

register(DatasetSpec(
    key="planted_maxent",
    label="Planted conditional maxent (synthetic)",
    group="Synthetic",
    description="Sparse binary predicates; labels from a maxent model with 20 planted "
                "(predicate, class) features; held-out split included.",
    loader=make_planted_maxent,
    params=(
        Param("n_samples", "Training rows", 5000, min=100, max=200000),
        Param("n_predicates", "Predicates", 300, min=20, max=20000),
        Param("n_classes", "Classes", 4, min=2, max=50),
        Param("seed", "Seed", 0, min=0),
    ),
))
