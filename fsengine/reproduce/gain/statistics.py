"""The sgc-vs-ifs record's numbers: F1, precision and recall with their sentence-level bootstrap
intervals (one seed: every model shares the resamples, so differences are paired), the speed
ratios, and the rows of ``results.json`` with their verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsengine import stats
from fsengine.methods.gain.study import (
    Comparison,
    PriorChoice,
    cpu_ratios,
)
from fsengine.reproduce import results as results_file
from fsengine.reproduce.gain.development import DevelopmentSplit
from fsengine.reproduce.gain.plan import (
    BOOTSTRAP,
    DECODER_LABEL,
    PAPER_F1,
    PAPER_GAINS_PER_STAGE,
    PAPER_K,
    PAPER_P,
    PAPER_R,
    SPEED_NOTE,
    model_name,
)


def f1(counts: np.ndarray) -> stats.Estimate:
    return stats.f1_interval(counts, **BOOTSTRAP)


def precision(counts: np.ndarray) -> stats.Estimate:
    return stats.bootstrap_interval(counts, stats.precision_from_counts, unit="sentences", **BOOTSTRAP)


def recall(counts: np.ndarray) -> stats.Estimate:
    return stats.bootstrap_interval(counts, stats.recall_from_counts, unit="sentences", **BOOTSTRAP)


def f1_diff(a: np.ndarray, b: np.ndarray) -> stats.Estimate:
    return stats.f1_difference(a, b, **BOOTSTRAP)


def computation_ratio(timings: pd.DataFrame, method: str) -> float:
    """IFS / ``method`` gain computations (after stage 0; identical in every repeat)."""
    first = timings[timings["repeat"] == 0].set_index("method")["gain_computations"]
    return float(first["IFS"] / max(first[method], 1))


def speed_rows(label: str, timings: pd.DataFrame, comp: Comparison) -> list[results_file.Row]:
    rows = []
    stages = int(timings["stages"].iloc[0])
    for m in (m for m in ("SGC", "SGC-LA") if m in set(timings["method"])):
        first = timings[(timings["repeat"] == 0) & (timings["method"] == m)].iloc[0]
        note = SPEED_NOTE["lookahead"] if m != "SGC" else None
        rows.append(results_file.recorded(f"{label}: IFS / {m} gain computations", computation_ratio(timings, m),
                                          note=note or SPEED_NOTE["computations"]))
        if m == "SGC":
            rows.append(results_file.recorded(f"{label}: SGC gains computed per stage after stage 0",
                                              first["gain_computations"] / (stages - 1), paper=PAPER_GAINS_PER_STAGE,
                                              note=SPEED_NOTE["per_stage"]))
        ratio = stats.median_iqr(cpu_ratios(timings, m), what="repeats of both selections (CPU time)")
        rows.append(results_file.recorded(f"{label}: IFS / {m} selection CPU time", ratio,
                                          note=note or SPEED_NOTE["time"]))
        trace, ifs = comp.traces()[m], comp.traces()["IFS"]
        rows.append(results_file.recorded(f"{label}: {m} summed gain vs IFS, percent",
                                          100 * (trace["gain"].iloc[:stages].sum() / ifs["gain"].iloc[:stages].sum()
                                                 - 1)))
    return rows

def decoded_rows(label: str, dec: dict, split: DevelopmentSplit, splits: list[dict]) -> list[results_file.Row]:
    """Rows of the decoded models (Base-NP): the paper's configuration, the development choice,
    the spread of the choice over development splits, the best on section 20 (recorded), the
    paired differences, and every other decoded model (recorded)."""
    sizes = sorted({k for _, k, _ in dec})
    k_paper = PAPER_K if PAPER_K in sizes else max(sizes)
    paper_key = ("SGC", k_paper, "greedy")
    paper_counts = dec[paper_key]
    paper_name = f"the paper's configuration (greedy, SGC {k_paper:,} features)"
    chosen = split.model
    chosen_key = (chosen.method, chosen.n_features, chosen.decoder)
    rows = [
        results_file.versus(f"{label}: F1, {paper_name}", f1(paper_counts), PAPER_F1,
                            what="the paper's F1 from its P and R"),
        results_file.versus(f"{label}: F1 of the model chosen on the development split", f1(dec[chosen_key]),
                            PAPER_F1, what="the paper's F1 from its P and R"),
        results_file.versus(f"{label}: precision, {paper_name}", precision(paper_counts), PAPER_P),
        results_file.versus(f"{label}: recall, {paper_name}", recall(paper_counts), PAPER_R),
    ]
    spread = stats.median_range([s["test_f1"] for s in splits], what="development splits")
    rows.append(results_file.recorded(
        f"{label}: section-20 F1 of the development choice over {len(splits)} development splits", spread,
        note="the spread of the choice (prior variance and decoded model) over development splits; each "
             "split's own section-20 interval is in the report"))
    best = max(dec, key=lambda key: stats.f1_from_counts(dec[key].sum(axis=0)))
    rows.append(results_file.recorded(
        f"{label}: F1 of the decoded model with the best section-20 score", f1(dec[best]),
        note="chosen on the test section (the highest section-20 F1 of the decoded models), so no verdict"))
    rows.append(results_file.ordering(f"{label}: F1 difference, the development choice - the paper's configuration",
                                      f1_diff(dec[chosen_key], paper_counts), "the development choice",
                                      "the paper's configuration"))
    for k in sizes:
        for d in ("greedy", "viterbi"):
            if ("IFS", k, d) in dec and ("SGC", k, d) in dec:
                rows.append(results_file.ordering(
                    f"{label}: F1 difference, IFS - SGC at {k:,} features, {DECODER_LABEL[d]}",
                    f1_diff(dec[("IFS", k, d)], dec[("SGC", k, d)]), "IFS", "SGC"))
    if ("SGC", k_paper, "viterbi") in dec:
        rows.append(results_file.ordering(f"{label}: F1 difference, Viterbi - greedy, SGC {k_paper:,} features",
                                          f1_diff(dec[("SGC", k_paper, "viterbi")], paper_counts), "Viterbi",
                                          "greedy"))
    for key, c in dec.items():
        if key != paper_key:
            rows.append(results_file.recorded(f"{label}: F1, {model_name(*key)}", f1(c)))
    return rows


def result_rows(label: str, comp: Comparison, timings: pd.DataFrame, dec: dict, prior: PriorChoice,
                split: DevelopmentSplit | None, splits: list[dict]) -> list[results_file.Row]:
    """Headline rows of one task (``label``)."""
    rows = []
    if dec and split is not None and split.model is not None:
        rows += decoded_rows(label, dec, split, splits)
    rows.append(results_file.recorded(f"{label}: MAP prior variance chosen on the development split",
                                      prior.variance))
    rows += speed_rows(label, timings, comp)
    if comp.all_features and "all features" in comp.counts:
        n_all = comp.all_features["n_features"]
        rows.append(results_file.recorded(f"{label}: F1, greedy, all {n_all:,} candidate pairs",
                                          f1(comp.counts["all features"])))
    return rows
