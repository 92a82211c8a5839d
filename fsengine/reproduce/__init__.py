"""Paper reproductions: ``python -m fsengine reproduce TARGET [--quick] [--out DIR]``.

Each target is a function ``run(out_dir: Path, quick: bool, progress: Callable[[float, str], None])
-> Path`` that writes its figures (HTML), a short markdown report with our numbers next to the
paper's and ``results.json`` (:mod:`fsengine.reproduce.results`), and returns the report's path. Targets are
imported lazily.

Every target's module also has ``rerender(out_dir)``: the record's report and ``results.json`` written
again from the raw files the run kept (CSVs and ``run.json``), with the current code's statistics and
words and without computing again; a run's own outputs come back byte for byte (tested per target).
``sgc-vs-ifs`` keeps too little for that and re-renders only the parts its raw counts determine.
"""

from __future__ import annotations

import importlib

#: target name -> ("module", "function", one-line description)
TARGETS: dict[str, tuple[str, str, str]] = {
    "bia-notmnist": ("fsengine.reproduce.bia", "run",
                     "Fisher & Mehta Fig. 2: BIA path, posteriors and top pixels, notMNIST B vs D"),
    "mdl-curve": ("fsengine.reproduce.classic", "run", "Jaakkola lecture 12: MDL curve vs MI ranking"),
    "sgc-vs-ifs": ("fsengine.reproduce.gain", "run", "Zhou et al. Figs. 3-5: IFS vs SGC on CoNLL-2000"),
    "rtm-roc": ("fsengine.reproduce.rtm", "run", "Molchanov et al.: RTM tag-relevance ROC and sentiment accuracy"),
    "bayes-factor": ("fsengine.reproduce.bayes_factor", "run",
                     "Daume III: Bayes-factor selection on CoNLL-2000 Base-NP, both priors and signs, vs IFS/SGC"),
    "toolbox": ("fsengine.reproduce.toolbox", "run", "every method vs ANOVA F: notMNIST B/D, planted GLM, polarity"),
    "benchmark": ("fsengine.reproduce.benchmark", "run",
                  "every method on the 17-dataset suite: ranks, Friedman, Nemenyi CD, Holm-Wilcoxon (all pairs; vs a "
                  "control)"),
}


#: targets whose full run is not committed yet -> why; the results page says so, and the tests of
#: committed records skip them (a test fails once such a record is committed and the entry stays)
AWAITING_FULL_RUN: dict[str, str] = {}

#: committed records some of whose rows an engine change has made out of date until the target's full
#: run is recorded again -> what changed (the results page says so above the record's rows)
SUPERSEDED_ROWS: dict[str, str] = {
    name: ("its L1 and Stability rows were computed with scikit-learn's liblinear at every C (intercept "
           "penalised by stability selection); both methods now fit with the warm-started `cd` solver "
           "(fsengine.methods.classic.l1_solver; CHANGELOG, Unreleased), whose paths meet Eq. 19 more "
           "tightly and whose active sets can differ at the entry threshold. Its RTM rows come from the "
           "plain damped sweeps, which the RTM now accelerates (Anderson; the same fixed point, reached "
           "more closely), and its BIA rows from float64 couplings (now float32: posteriors about 1e-12 "
           "apart). Its IFS, SGC and Bayes-factor rows on real-valued predicates (notMNIST's grey levels) come "
           "from gains with one log per incidence (now logs of running products: the same feature orders, "
           "gains about 1e-8 apart). The full run has not been recorded again")
    for name in ("toolbox", "benchmark")
}


def target_names() -> list[str]:
    return sorted(TARGETS)


def recorded_target_names() -> list[str]:
    """The targets with a committed full run in ``docs/results`` (every target not awaiting one)."""
    return [name for name in target_names() if name not in AWAITING_FULL_RUN]


def get_target(name: str):
    if name not in TARGETS:
        known = ", ".join(target_names()) or "none yet"
        raise ValueError(f"Unknown reproduce target {name!r}; known targets: {known}")
    module, func, _ = TARGETS[name]
    return getattr(importlib.import_module(module), func)
