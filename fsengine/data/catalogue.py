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


def _load_synthetic_glm(**params):
    from .synthetic.glm import make_sparse_glm

    return make_sparse_glm(**params)


register(DatasetSpec(
    key="synthetic_glm",
    label="Sparse GLM (synthetic, known truth)",
    group="Synthetic",
    description="Correlated AR(1) features, k truly relevant; linear, logistic or Poisson response.",
    loader=_load_synthetic_glm,
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
