"""Built-in catalogue entries (imported once by :mod:`fsengine.data.registry`)."""

from __future__ import annotations

from . import bundled, notmnist
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


def _load_synthetic_rtm(n_samples: int = 800, n_tags: int = 400, n_relevant: int = 30,
                        tag_rate: float = 0.05, seed: int = 0):
    from .synthetic.rtm import make_rtm

    return make_rtm(n_samples, n_tags, n_relevant, tag_rate=tag_rate, seed=seed)


register(DatasetSpec(
    key="synthetic_rtm",
    label="Relevance Tagging Machine model (synthetic tags)",
    group="Synthetic",
    description="Binary tags and classes sampled from the RTM itself, with a known relevant set "
                "(Molchanov et al.'s synthetic ROC task: 800 objects, 400 tags, 30 relevant).",
    loader=_load_synthetic_rtm,
    params=(
        Param("n_samples", "Objects", 800, min=20, max=100_000),
        Param("n_tags", "Tags", 400, min=2, max=20_000),
        Param("n_relevant", "Relevant tags", 30, min=0, max=20_000),
        Param("tag_rate", "Mean tag rate", 0.05, kind="float", min=0.001, max=0.33,
              help="typical probability that an object carries a tag (rates vary 3x either way)"),
        Param("seed", "Seed", 0, min=0),
    ),
))
