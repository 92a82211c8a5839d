"""The rtm-roc reproduction's configuration, fixed before the full run: the synthetic data's sizes,
the corpora and their folds, the sensitivity grid and the words that name its cells, the slides'
ordering and its pairs, and the choices made after results on the same test folds had been seen."""

from __future__ import annotations

import numpy as np

from fsengine.methods.rtm import study as rtm_study

SYNTHETIC_FULL = dict(seeds=tuple(range(10)), n_samples=800, n_tags=400, n_relevant=30)
SYNTHETIC_QUICK = dict(seeds=(0, 1, 2, 3, 4), n_samples=300, n_tags=120, n_relevant=10)
#: sentences first: the long reviews take most of the time, and the report is written after each corpus
CORPORA_FULL = {key: dict(folds=5) for key in ("sentence_polarity", "subjectivity", "movie_reviews")}
CORPORA_QUICK = {"sentence_polarity": dict(folds=3, max_docs=1500)}
#: the corpus of the sensitivity grid (the one the slides' Dataset 2 is read as)
SENSITIVITY_CORPUS = "sentence_polarity"
#: the grid: Power EP and EM with the fixed prior; values fixed before the full run, round numbers
#: around the corpus' own setting (alpha0 = 5, damping 0.5), never chosen from its results
GRID_FULL = rtm_study.Grid(("power_ep", "em"), alpha0=(2.0, 5.0, 10.0, 20.0), damping=(0.3, 0.5, 0.7))
GRID_QUICK = rtm_study.Grid(("power_ep", "em"), alpha0=(2.0, 5.0), damping=(0.5, 0.7))
#: words that keep the grid's quantities apart when their numbers are masked (quick vs full test)
ALPHA0_WORDS = {2.0: "weaker prior", 5.0: "default prior", 10.0: "stronger prior", 20.0: "strongest prior"}
DAMPING_WORDS = {0.3: "less damping", 0.5: "default damping", 0.7: "more damping"}
#: the slides' ordering, best first, and its pairs (judged one by one)
SLIDES_ORDER = ("Power EP", "EP", "EM")
PAIRS = (("Power EP", "EP"), ("EP", "EM"), ("Power EP", "EM"))
PRIORS = (("fixed prior", ""), ("ARD", " + ARD"))
#: the slides' Dataset 2 (about 0.75) is read as sentence polarity (see :data:`TEST_SET_CHOICES`)
SLIDES_DATASET_2 = "Sentence polarity"
#: the row-name suffix of the numbers with the cap-stopped fits replaced by their refits
REFIT = "refit where the sweep cap was hit"


def test_set_choices() -> list[str]:
    """Design choices of this target made after results on the same test folds had been seen
    (the report prints them; settings are formatted from the code, not typed)."""
    mr, sp = rtm_study.CORPORA["movie_reviews"].settings, rtm_study.CORPORA["sentence_polarity"].settings
    return [
        "The slides' Dataset 2 is read as sentence polarity because the level of its accuracies matched "
        "ours on this corpus; the slides do not name their datasets.",
        f"The movie-review prior (alpha0 = {mr.alpha0:g}) and inner damping ({mr.inner_damping:g}) were set "
        "after earlier runs on the same five folds did not converge with weaker priors; the choice looked at "
        "convergence and the training folds' evidence, but those runs' test accuracies had been printed.",
        f"The default inner damping ({sp.inner_damping:g}) and the sentence corpora's sweep cap "
        f"({sp.max_iter:,}) were set after runs on the same folds oscillated or stopped at a lower cap "
        "(convergence on the training folds of runs whose test accuracies had been seen); so was the ARD "
        "step's rule (step halving on reversal), after 2-cycles on sentence polarity.",
    ]


def grid_inputs(quick: bool) -> dict:
    grid = GRID_QUICK if quick else GRID_FULL
    return {"corpus": SENSITIVITY_CORPUS, "methods": list(grid.methods), "alpha0": list(grid.alpha0),
            "damping": list(grid.damping)}

def cell_name(alpha0: float, damping: float | None) -> str:
    text = f"alpha0 {alpha0:g} ({ALPHA0_WORDS.get(alpha0, 'other prior')})"
    if damping is not None and np.isfinite(damping):
        text += f", damping {damping:g} ({DAMPING_WORDS.get(damping, 'other damping')})"
    return text
