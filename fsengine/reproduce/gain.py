"""Reproduction of Zhou, Wu, Weng & Schmidt (2003), Figs. 3-5, on CoNLL-2000.

Base-NP chunking (and, in the full run, full chunking): WSJ 15-18 train, section 20 test, the 24
templates of :data:`fsengine.data.features.templates.CHUNK_TEMPLATES`, candidate pairs seen at
least twice. IFS, SGC, SGC with look-ahead 500 and the count cutoff select features; MAP models on
the first k features are decoded left to right and scored with conlleval (Fig. 5). At the paper's
sizes (Base-NP: 1,000 and 1,160 features, for IFS, SGC and SGC-LA alike) the same models are also
decoded exactly (Viterbi over the previous-tag predicates, :mod:`fsengine.maxent.decode`).

What is judged, and how (``results.json``, :mod:`fsengine.reproduce.results`):

* The headline is the paper's configuration, SGC with 1,160 features (greedy decoding, which this
  reproduction used before any section-20 result), against the paper's F1 computed from its
  precision and recall (:data:`PAPER_F1`, unrounded): consistent / above / below from the
  sentence-level bootstrap interval of our F1 (:func:`fsengine.stats.f1_interval`).
* Second, the decoded model chosen on a development split (held-out *training* sentences: the
  prior variance by :func:`~fsengine.methods.gain.study.choose_prior_variance`, then the model by
  :func:`~fsengine.methods.gain.study.choose_decoded_model`), against the same value. The choice is
  repeated on seeded random development splits and the spread of the chosen model's section-20 F1
  is reported (median and range).
* The best of the decoded models on section 20 is recorded without a verdict: it is chosen on the
  test section.
* Differences between two models (the development choice vs the paper's configuration, IFS vs SGC
  at equal size, Viterbi vs greedy) by the paired sentence-level bootstrap (same resamples).
* Speed: the gain-computation ratio is an exact count; the CPU-time ratio is the median and IQR
  of repeated timings. Neither is judged against the paper's "100 times to thousands" (see
  :data:`SPEED_NOTE`).

The raw counts behind every interval are written beside ``results.json``: per-sentence TP / FP /
FN of every decoded model (``TASK_sentence_counts.csv``), the timings (``TASK_timings.csv``) and the
development splits (``np_development_splits.csv``). :data:`CHOSEN_AFTER_TEST` lists the design
choices that were made after section-20 results had been seen; the report prints it.
"""

from __future__ import annotations

import multiprocessing
import re
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import stats
from fsengine.csv_export import to_csv
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.methods.gain.study import (
    PRIOR_VARIANCE_GRID,
    TIMING_REPEATS,
    Comparison,
    ModelChoice,
    PriorChoice,
    choose_decoded_model,
    choose_prior_variance,
    cpu_ratios,
    decoded_scores,
    evaluate_with_counts,
    refit_checkpoint,
    run_comparison,
    selection_cpu_seconds,
    timing_table,
)
from fsengine.parallel import available_cores, backend_for
from fsengine.plots import gain as plots
from fsengine.progress import scaled
from fsengine.reproduce import results as results_file

#: the paper's numbers quoted in the report
PAPER = {
    "base_np": "Base-NP, WSJ 15-18 / 20: P/R 92.75 / 93.25 with 1,160 SGC features; "
               "Koeling (2000) 92.84 / 93.18 (cutoff 5); Zhou et al. (2003) 92.46 / 92.74 with 615 "
               "IFS features",
    "speed": "SGC 100x to thousands of times faster than IFS (time, Fig. 4); 24.1 gains computed per "
             "stage on average (191,098 candidates, grammatical-relation task)",
}

#: the paper's Base-NP result: P / R 92.75 / 93.25 with 1,160 SGC features
PAPER_P, PAPER_R, PAPER_K = 92.75, 93.25, 1160
#: its F1 = 2PR / (P + R), unrounded (92.9993...): the value the headline rows are judged against
PAPER_F1 = 2 * PAPER_P * PAPER_R / (PAPER_P + PAPER_R)
#: the paper's SGC gains computed per stage, on its grammatical-relation task (191,098 candidates)
PAPER_GAINS_PER_STAGE = 24.1
#: the lower end of the paper's speed claim: SGC "more than 100 times to thousands" faster (time)
SPEED_CLAIM = 100
#: why neither speed ratio gets a verdict (the rule text of the speed rows)
SPEED_NOTE = {
    "computations": "exact count, the same in every run; the paper's 100x-to-thousands claim is a speed-up "
                    "in time (Fig. 4), not a count of gains, so no rule compares this count with it",
    "per_stage": "exact count; the paper's 24.1 is its average on a grammatical-relation task with "
                 "191,098 candidates, not on this task",
    "time": "not judged: the ratio of CPU times depends on the implementation (what one gain "
            "costs next to each stage's fixed work), the machine and the number of stages, and the "
            "IQR is the spread of repeats on one machine, not an uncertainty of the paper's quantity",
    "lookahead": "the paper's claim is about SGC without look-ahead (look-ahead L adds L gains per stage "
                 "by design)",
}

#: the design choices of this reproduction made after section-20 results had been seen (the git
#: history of this module, formerly ``reproduce/sgc_vs_ifs.py``, and benchmarks/RESULTS.md on
#: issue 14). The report prints them in a sentence; nothing here is a measured number.
CHOSEN_AFTER_TEST = (
    "exact (Viterbi) decoding beside greedy decoding, added after greedy F1 on section 20 had fallen short "
    "of the paper's",
    "choosing the MAP prior variance on held-out training sentences (it was fixed at 1 before), after runs "
    "with variance 1 had missed the F1 target on section 20; the evaluation fits' tolerance rule changed in "
    "the same step",
    f"extending IFS from 1,000 to {PAPER_K:,} features, after the run with the tuned variance had missed "
    "the target",
    "widening the candidate models from 5 to 12 decoded models (IFS, SGC and SGC-LA at 1,000 and "
    f"{PAPER_K:,} features, both decoders)",
    "the rule that picks among them (the highest F1 on held-out training sentences; ties: fewer features, "
    "greedy before Viterbi)",
    "judging the 100x speed rule for SGC only (SGC-LA's ratios recorded), after the time ratios had been seen",
)

#: numbers that moved between two records of this target, each with the earlier record and why
#: (the report prints them; ``tests/reproduce/test_gain.py`` holds the earlier value to that record)
RECORD_HISTORY = (
    ("Base-NP: F1, greedy, IFS 1,160 features", {
        "value": 93.01389168512179, "record": "the record of ca39ca1 (2026-11-25)",
        "why": "`git log -S` over `docs/results` puts the change in 0fc4796, the run that recorded this table; no "
               "code change between the two records moves it. The code of ca39ca1 and of 0fc4796, run again on "
               "2026-11-27 as the reproduction makes this model (IFS to 1,160 pairs, prior variance 16, warm-started "
               "MAP fits at the same checkpoints), gives 93.014 both times, on one BLAS thread or two, and IFS's "
               "curve is the same whether IFS runs alone or beside SGC, SGC-LA and the count cutoff (a 1,500-sentence "
               "check). The same rerun gives SGC 1,160 greedy 92.874, the earlier record's value, where this record "
               "has 92.866: the run recorded here ended its evaluation fits elsewhere within their tolerance (a "
               "gradient norm of 1e-6 per training token) for several models at once, and greedy decoding turns "
               "that into a few of section 20's 12,422 chunks (here 4: 11,546 right of 12,413 guessed, against "
               "11,550). Its library versions were not recorded and that environment is gone, so the cause cannot "
               "be narrowed further than the run; `tests/reproduce/test_gain.py` pins the counts this code gives, "
               "11,550 / 863 / 872 (F1 93.014)."}),
)

QUICK = dict(n_sentences=300, budget=60, ifs_budget=60, lookahead=50, n_checkpoints=4)
#: (method, features) at which the quick run decodes both ways
QUICK_DECODER_POINTS = (("SGC", 60), ("IFS", 60))
FULL_TASKS = {
    # IFS up to the paper's 1,160 too, so every method is decoded both ways at both sizes
    "np": dict(n_sentences=0, budget=2000, ifs_budget=PAPER_K, lookahead=500, n_checkpoints=5,
               extra_checkpoints=(1000, 1160)),
    # 22 classes: every evaluation fit costs ~7x Base-NP's, IFS stages ~2x; smaller budgets
    "chunk": dict(n_sentences=0, budget=500, ifs_budget=100, lookahead=500, n_checkpoints=4),
}
TASK_LABEL = {"np": "Base-NP chunking", "chunk": "full chunking"}
#: share of the training sentences held out to choose the prior variance and the decoded model
DEV_FRACTION = 0.1
#: seeds of the random development splits on which the choice is repeated (beside the primary
#: split, the last 10% of the training sentences)
SPLIT_SEEDS = (1, 2, 3, 4, 5)
#: full run: (method, features) decoded both ways, per task (full chunking's 22 tags make exact
#: decoding ~50 s per model: greedy only there)
FULL_DECODER_POINTS = {"np": tuple((m, k) for m in ("SGC", "SGC-LA", "IFS") for k in (1000, PAPER_K))}
DECODER_LABEL = {"greedy": "greedy", "viterbi": "Viterbi"}
#: the bootstrap of every section-20 interval (one seed: all models share the resamples)
BOOTSTRAP = dict(n_resamples=stats.N_BOOTSTRAP, seed=0)


def _write_figures(comp: Comparison, out_dir: Path, tag: str) -> list[str]:
    traces = comp.traces()
    figures = {
        f"{tag}_gain_per_stage.html": plots.gain_per_stage(traces),
        f"{tag}_fig3_gain_computations.html": plots.gain_computations(traces),
        f"{tag}_fig4_time.html": plots.cumulative_time(traces),
        f"{tag}_fig5_scores.html": plots.scores_vs_features(comp.curves, comp.all_features,
                                                            f1_intervals=comp.f1_intervals(**BOOTSTRAP)),
        f"{tag}_overlap.html": plots.overlap_heatmap(comp.overlap()),
    }
    for name, fig in figures.items():
        results_file.write_figure(fig, out_dir / name)
    return list(figures)


# --------------------------------------------------------------------------- models and their counts
def model_key(method: str, n_features: int, decoder: str, variance: float) -> str:
    """The column prefix of a model in ``TASK_sentence_counts.csv``: ``SGC|1160|greedy|16``."""
    return f"{method}|{int(n_features)}|{decoder}|{variance:g}"


def model_name(method: str, n_features: int, decoder: str) -> str:
    """The name a decoded model has in the report and in the quantities of ``results.json``."""
    return f"{DECODER_LABEL[decoder]}, {method} {n_features:,} features"


def f1(counts: np.ndarray) -> stats.Estimate:
    return stats.f1_interval(counts, **BOOTSTRAP)


def precision(counts: np.ndarray) -> stats.Estimate:
    return stats.bootstrap_interval(counts, stats.precision_from_counts, unit="sentences", **BOOTSTRAP)


def recall(counts: np.ndarray) -> stats.Estimate:
    return stats.bootstrap_interval(counts, stats.recall_from_counts, unit="sentences", **BOOTSTRAP)


def f1_diff(a: np.ndarray, b: np.ndarray) -> stats.Estimate:
    return stats.f1_difference(a, b, **BOOTSTRAP)


def counts_frame(counts: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per-sentence TP / FP / FN of every model, one row per section-20 sentence: columns
    ``sentence`` and ``KEY:tp``, ``KEY:fp``, ``KEY:fn`` per model key (:func:`model_key`)."""
    n = len(next(iter(counts.values())))
    cols = {"sentence": np.arange(n)}
    for key, c in counts.items():
        for j, part in enumerate(("tp", "fp", "fn")):
            cols[f"{key}:{part}"] = np.asarray(c)[:, j]
    return pd.DataFrame(cols)


def read_counts(frame: pd.DataFrame, key: str) -> np.ndarray:
    """The (n_sentences, 3) counts of model ``key`` back from :func:`counts_frame`."""
    return frame[[f"{key}:{p}" for p in ("tp", "fp", "fn")]].to_numpy()


# --------------------------------------------------------------------------- development splits
@dataclass
class DevelopmentSplit:
    """One development split (the training sentences held out by ``seed``; None: the last ones)
    and the choices made on it: the prior variance, then the decoded model."""

    seed: int | None
    n_dev: int
    prior: PriorChoice
    model: ModelChoice | None

    @property
    def name(self) -> str:
        return (f"the last {DEV_FRACTION:.0%}" if self.seed is None else
                f"random {DEV_FRACTION:.0%}, seed {self.seed}")


def development_split(task: str, n_sentences: int, cfg: dict, points, seed: int | None, progress) -> DevelopmentSplit:
    """The choices of one development split: the prior variance (SGC's pairs, decoded like the
    models it is for), then, with ``points``, the decoded model (section 20 is not read)."""
    dev_ds = load_conll2000_maxent(task=task, n_sentences=n_sentences, dev_fraction=DEV_FRACTION, dev_seed=seed)
    prior = choose_prior_variance(dev_ds, n_features=min(cfg["budget"], PAPER_K), method="SGC",
                                  lookahead=cfg["lookahead"], cutoff=2, decoder="viterbi" if points else "greedy",
                                  progress=scaled(progress, 0.0, 0.4))
    chosen = None
    if points:
        chosen = choose_decoded_model(dev_ds, points, prior_variance=prior.variance, lookahead=cfg["lookahead"],
                                      cutoff=2, progress=scaled(progress, 0.4, 1.0))
    return DevelopmentSplit(seed, int(dev_ds.provenance.counts["test_sentences"]), prior, chosen)


def seeded_splits_in_background(task: str, n_sentences: int, cfg: dict, points, n_workers: int
                                ) -> tuple[ProcessPoolExecutor, dict[int, Future]]:
    """Start the seeded development splits (:data:`SPLIT_SEEDS`) on ``n_workers`` spawned processes
    while this process does the primary split and the comparison; the results are the ones
    :func:`development_split` gives in this process (each split is deterministic in its seed)."""
    pool = ProcessPoolExecutor(max_workers=n_workers, mp_context=multiprocessing.get_context("spawn"))
    return pool, {seed: pool.submit(development_split, task, n_sentences, cfg, points, seed, None)
                  for seed in SPLIT_SEEDS}


# --------------------------------------------------------------------------- speed
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


def _speed_table(comp: Comparison, timings: pd.DataFrame) -> list[str]:
    stages = int(timings["stages"].iloc[0])
    traces = {m: t for m, t in comp.traces().items() if m != "Count cutoff"}
    n_rep = timings["repeat"].nunique()
    lines = [f"Over the first {stages:,} stages (stage 0, the closed-form gains every method shares, excluded as "
             f"in the paper); CPU time (`time.process_time`) of {n_rep} repeats of each selection, the "
             "comparison's own selections being the first.", "",
             "| method | gains computed per stage | IFS / method gain computations (exact) | CPU seconds, median "
             "[IQR] | IFS / method CPU time, median [IQR] | summed gain G vs IFS | overlap with IFS |",
             "|---|---|---|---|---|---|---|"]
    ifs = traces["IFS"]
    for m, t in traces.items():
        mine = timings[timings["method"] == m]
        sec = stats.median_iqr(mine["cpu_seconds"])
        first = mine[mine["repeat"] == 0].iloc[0]
        ratio = "1x" if m == "IFS" else stats.median_iqr(cpu_ratios(timings, m)).format(1)
        gain = 100 * (t["gain"].iloc[:stages].sum() / ifs["gain"].iloc[:stages].sum() - 1)
        overlap = len(set(t["candidate"].iloc[:stages]) & set(ifs["candidate"].iloc[:stages])) / stages
        lines.append(f"| {m} | {first['gain_computations'] / (stages - 1):,.1f} | "
                     f"{computation_ratio(timings, m):,.0f}x | {sec.format(2)} | {ratio} | {gain:+.2f}% | "
                     f"{overlap:.0%} |")
    return lines


def _speed_sentence(rows: list[results_file.Row]) -> str:
    parts = []
    for r in rows:
        label = r.quantity.split(":")[0]
        if r.quantity == f"{label}: IFS / SGC gain computations":
            parts.append(f"{label}: IFS computes {r.ours:,.0f} times as many gains as SGC (an exact count)")
        elif r.quantity == f"{label}: IFS / SGC selection CPU time":
            e = r.estimate
            where = ("above" if e.low > SPEED_CLAIM else "below" if e.high < SPEED_CLAIM else "around")
            parts.append(f"its CPU time is {e.value:,.0f} times SGC's (IQR {e.low:,.0f} to {e.high:,.0f}, "
                         f"{where} the paper's lower end of {SPEED_CLAIM}x; recorded, not judged)")
    return "; ".join(parts)


# --------------------------------------------------------------------------- headline rows
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


# --------------------------------------------------------------------------- report
def _prior_lines(choice: PriorChoice, n_dev: int) -> list[str]:
    lines = [f"Chosen without section 20: {choice.method} selected {choice.n_features:,} pairs on the first "
             f"{1 - DEV_FRACTION:.0%} of the training sentences; MAP models on them with each variance were "
             f"decoded ({DECODER_LABEL[choice.decoder]}) on the last {n_dev:,} training sentences. Chosen: variance "
             f"**{choice.variance:g}** (highest F1; the smallest on ties), used for every model below.", "",
             "| prior variance | precision | recall | F1 |", "|---|---|---|---|"]
    lines += [f"| {r.prior_variance:g}{' (chosen)' if r.prior_variance == choice.variance else ''} | "
              f"{r.precision:.2f} | {r.recall:.2f} | {r.f1:.2f} |" for r in choice.table.itertuples()]
    return lines


def _scores_table(comp: Comparison) -> list[str]:
    lines = ["F1 with its 95% sentence-level bootstrap interval (section 20's sentences resampled).", "",
             "| method | features | precision | recall | F1 [95% interval] |", "|---|---|---|---|---|"]
    estimates = comp.f1_estimates(**BOOTSTRAP)  # the ones Fig. 5 draws
    for _, r in comp.curves.iterrows():
        e = estimates.get((r["method"], int(r["n_features"])))
        f = e.format(2) if e is not None else f"{r['f1']:.2f}"
        lines.append(f"| {r['method']} | {int(r['n_features']):,} | {r['precision']:.2f} | {r['recall']:.2f} | {f} |")
    a = comp.all_features
    if a:
        c = comp.counts.get("all features")
        f = f1(c).format(2) if c is not None else f"{a['f1']:.2f}"
        lines.append(f"| all features | {a['n_features']:,} | {a['precision']:.2f} | {a['recall']:.2f} | {f} |")
    return lines


def _decoder_lines(dec: dict) -> list[str]:
    lines = ["| method | features | decoder | precision [95%] | recall [95%] | F1 [95%] |", "|---|---|---|---|---|---|"]
    lines += [f"| {m} | {k:,} | {d} | {precision(c).format(2)} | {recall(c).format(2)} | {f1(c).format(2)} |"
              for (m, k, d), c in dec.items()]
    return lines


def _choice_lines(split: DevelopmentSplit, dec: dict) -> list[str]:
    """The development table of the primary split, best first, with each model's section-20 F1."""
    chosen = split.model
    name = model_name(chosen.method, chosen.n_features, chosen.decoder)
    lines = [f"The same methods selected pairs on the first {1 - DEV_FRACTION:.0%} of the training sentences; "
             f"their MAP models (the chosen prior variance) were decoded both ways on the last {split.n_dev:,}. The "
             f"model with the highest F1 there is the one to report: **{name}** (section 20 plays no part in "
             "the choice; its F1 there is in the last column).", "",
             "| method | features | decoder | F1, held-out training sentences | F1 [95%], section 20 |",
             "|---|---|---|---|---|"]
    for r in chosen.table.sort_values("f1", ascending=False, kind="stable").to_dict("records"):
        mark = " (chosen)" if chosen.matches(r) else ""
        key = (r["method"], int(r["n_features"]), r["decoder"])
        lines.append(f"| {r['method']}{mark} | {int(r['n_features']):,} | {r['decoder']} | {r['f1']:.2f} | "
                     f"{f1(dec[key]).format(2) if key in dec else '-'} |")
    return lines


def _splits_lines(splits: list[dict]) -> list[str]:
    spread = stats.median_range([s["test_f1"] for s in splits], what="development splits")
    lines = [f"The whole choice (prior variance, then decoded model) repeated on {len(splits)} development splits "
             f"({DEV_FRACTION:.0%} of the training sentences each: the last ones, and random samples with the seeds "
             f"below). The chosen model's section-20 F1 has median {spread.value:.2f} and range "
             f"[{spread.low:.2f}, {spread.high:.2f}] over the splits.", "",
             "| development split | prior variance | chosen model | F1, development | F1 [95%], section 20 |",
             "|---|---|---|---|---|"]
    lines += [f"| {s['split']} | {s['prior_variance']:g} | {model_name(s['method'], s['n_features'], s['decoder'])} | "
              f"{s['dev_f1']:.2f} | {s['test_f1']:.2f} [{s['test_low']:.2f}, {s['test_high']:.2f}] |" for s in splits]
    return lines


def chosen_after_test_sentence() -> str:
    """The report's sentence on choices made after seeing section-20 results (:data:`CHOSEN_AFTER_TEST`)."""
    items = "; ".join(f"({i}) {c}" for i, c in enumerate(CHOSEN_AFTER_TEST, 1))
    return (f"**Chosen after seeing section-20 results.** These design choices of this reproduction were made "
            f"after earlier section-20 scores had been seen: {items}. The rows judged here (the paper's "
            "configuration, greedy decoding, first; the development choice second) do not pick anything on "
            "section 20, but the candidates the development choice picks from were widened with section 20 in "
            "view, so its row is less clean than the first.")


def _verdict_line(rows: list[results_file.Row], names: dict[str, dict[str, str]], splits: list[dict]) -> str:
    parts = []
    for r in rows:
        label = r.quantity.split(":")[0]
        f = r.estimate.format(2) if r.estimate else ""
        if r.quantity.startswith(f"{label}: F1, the paper's configuration"):
            parts.append(f"{label}: {r.quantity.split(', ', 1)[1]} scores F1 {f} on section 20 ({r.verdict})")
        elif r.quantity == f"{label}: F1 of the model chosen on the development split":
            parts.append(f"the model chosen on the development split ({names[label]['chosen']}) scores {f} "
                         f"({r.verdict})")
        elif "over" in r.quantity and "development splits" in r.quantity:
            e = r.estimate
            parts.append(f"repeated on {len(splits)} development splits, the chosen model's section-20 F1 has "
                         f"median {e.value:.2f} and range [{e.low:.2f}, {e.high:.2f}]")
        elif "best section-20 score" in r.quantity:
            parts.append(f"the best decoded model on section 20 ({names[label]['best']}) scores {f} (recorded: "
                         "chosen on the test section)")
    speed = _speed_sentence(rows)
    if speed:
        parts.append("speed: " + speed)
    return "**Verdict (computed, rules in `results.json`).** " + "; ".join(parts) + "."


#: the parts of the report rendered from ``results.json`` and the raw counts (:func:`rerender`)
HEADLINE_MARK = "## Headline numbers (`results.json`)"
NOTE_MARKS = ("**Multiplicity.**", "**Record history.**")


def _notes(rows: list[results_file.Row]) -> list[str]:
    """What the record judges and what it only states (multiplicity), and what moved since an
    earlier record of this target (:data:`RECORD_HISTORY`), each a paragraph."""
    differences = [r for r in rows if results_file.outcome(r.verdict) in ("resolved", "not resolved")]
    versus = [r for r in rows if results_file.outcome(r.verdict) in ("consistent", "above", "below")]
    lines = [f"{NOTE_MARKS[0]} The headline is one comparison: the paper's configuration against the paper's F1; the "
             f"{len(versus)} rows judged against a paper value are each read on their own. The {len(differences)} "
             "paired differences (IFS - SGC at each size and decoder, the development choice - the paper's "
             "configuration, Viterbi - greedy) are each at 95%, not corrected: were none real, about "
             f"{len(differences) * (1 - stats.LEVEL):.1f} would resolve by chance. The speed rows are recorded without "
             "a verdict.", ""]
    by = {r.quantity: r for r in rows}
    for quantity, earlier in RECORD_HISTORY:
        if quantity in by:
            lines += [f"{NOTE_MARKS[1]} {quantity}: {earlier['value']:.3f} in {earlier['record']}, "
                      f"{by[quantity].ours:.3f} here. {earlier['why']}", ""]
    return lines


def _write_report(out_dir: Path, quick: bool, lines: list[str], rows, inputs, names, splits, started: tuple) -> None:
    results_file.write(out_dir, "sgc-vs-ifs", quick, inputs, rows)
    minutes, cpu_minutes = (time.perf_counter() - started[0]) / 60, (time.process_time() - started[1]) / 60
    text = []
    for line in lines:
        text += ([_verdict_line(rows, names, splits)] if line == "VERDICT_PLACEHOLDER" else
                 _notes(rows) if line == "NOTES_PLACEHOLDER" else [line])
    text += _headline(rows, inputs, minutes, cpu_minutes)
    (out_dir / "report.md").write_text("\n".join(text) + "\n")


def _headline(rows, inputs, minutes: float, cpu_minutes: float) -> list[str]:
    return [HEADLINE_MARK, "", *results_file.markdown(rows), "",
            f"Raw counts behind the intervals: {', '.join(f'`{f}`' for f in sorted(inputs['raw_counts']))}. "
            f"This run took {minutes:.1f} minutes (wall time; {cpu_minutes:.1f} minutes of CPU time).", ""]


#: how the report states the run's duration (:func:`rerender` keeps it)
_DURATION = re.compile(r"This run took ([\d.]+) minutes \(wall time; ([\d.]+) minutes of CPU time\)\.")


def rerender(out_dir: Path) -> Path:
    """Rewrite the parts of a run's ``report.md`` that come from its ``results.json`` and raw counts
    with this code's words: the verdict line, the multiplicity and record-history notes and the
    headline table. The sections computed from what the record does not keep (the selection traces,
    the prior-variance and development tables) are kept as the run wrote them. A run's own report
    comes back byte for byte (tested)."""
    out_dir = Path(out_dir)
    data = results_file.read(out_dir / results_file.FILENAME)
    rows, inputs = [results_file.Row(**r) for r in data["rows"]], data["inputs"]
    names, splits = {}, []
    np_task = inputs["tasks"].get("np", {})
    if "decoded_model_chosen" in np_task:
        counts = pd.read_csv(out_dir / "np_sentence_counts.csv")
        points = QUICK_DECODER_POINTS if data["quick"] else FULL_DECODER_POINTS["np"]
        dec = {(m, k, d): read_counts(counts, model_key(m, k, d, np_task["prior_variance"]))
               for m, k in points for d in DECODER_LABEL}
        best = max(dec, key=lambda key: stats.f1_from_counts(dec[key].sum(axis=0)))
        names["Base-NP"] = {"best": f"{model_name(*best)}, the best of {len(dec)} decoded models",
                            "chosen": np_task["decoded_model_chosen"]}
        splits = pd.read_csv(out_dir / "np_development_splits.csv").to_dict("records")
    text = (out_dir / "report.md").read_text().split("\n")
    head = text[:text.index(HEADLINE_MARK)]
    kept = [line for i, line in enumerate(head) if not line.startswith(NOTE_MARKS)
            and not (line == "" and i > 0 and head[i - 1].startswith(NOTE_MARKS))]
    out = []
    for line in kept:
        out += ([_verdict_line(rows, names, splits)] if line.startswith("**Verdict (computed") else [line])
        if line == chosen_after_test_sentence():
            out += ["", *_notes(rows)[:-1]]
    took = _DURATION.search("\n".join(text))
    out += _headline(rows, inputs, float(took.group(1)), float(took.group(2)))
    (out_dir / "report.md").write_text("\n".join(out) + "\n")
    return out_dir / "report.md"


# --------------------------------------------------------------------------- run
def run(out_dir: Path, quick: bool, progress, *, n_jobs: int | None = None) -> Path:
    """Write figures, CSVs of raw counts, ``results.json`` and ``report.md`` to ``out_dir``; quick =
    Base-NP on 300 sentences, 60 features.

    ``n_jobs`` > 1 (or -1, every core): the seeded development splits run on ``n_jobs - 1`` spawned
    local processes beside the primary split and the comparison (same results as one process;
    the comparison's own selections, timing repeat 0, then share the machine with them). The parts
    are not tasks of :mod:`fsengine.parallel`: no Dask scheduler, no kept task results."""
    backend_for(n_jobs)  # a wrong n_jobs fails before any work
    split_workers = max((available_cores() if n_jobs == -1 else (n_jobs or 1)) - 1, 0)
    pools: list[ProcessPoolExecutor] = []
    try:
        return _run(Path(out_dir), quick, progress, split_workers, pools)
    finally:  # an error or Ctrl-C here does not wait for the splits still running
        for pool in pools:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)


def _run(out_dir: Path, quick: bool, progress, split_workers: int, pools: list) -> Path:
    started = (time.perf_counter(), time.process_time())
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = {"np": QUICK} if quick else FULL_TASKS
    points = {"np": QUICK_DECODER_POINTS} if quick else FULL_DECODER_POINTS
    rows, inputs = [], {"data": "CoNLL-2000 (WSJ 15-18 train, 20 test; conll2000 corpus of NLTK)", "tasks": {},
                        "bootstrap": dict(BOOTSTRAP, unit="section-20 sentences"), "raw_counts": []}
    names: dict[str, dict[str, str]] = {}
    all_splits: list[dict] = []
    lines = ["# SGC vs IFS (Zhou, Wu, Weng & Schmidt 2003), Figs. 3-5 on CoNLL-2000", "",
             f"Command: `python -m fsengine reproduce sgc-vs-ifs{' --quick' if quick else ''}`", "",
             "Paper: " + PAPER["base_np"] + f". Its F1 from P and R: {PAPER_F1:.4f}.", "",
             "Paper (speed): " + PAPER["speed"] + ".", "",
             "Set-up: 24 templates (words and POS in a +/-2 window, previous chunk tags, suffixes, "
             "shape, conjunctions), candidate (predicate, class) pairs seen at least twice. Fig. 5: "
             "MAP re-training on the first k selected features (Gaussian prior; its variance chosen per task "
             "from " + ", ".join(f"{v:g}" for v in PRIOR_VARIANCE_GRID) + " on held-out training "
             "sentences, never on the test section), greedy "
             "left-to-right decoding with predicted previous tags, conlleval scores on section 20. "
             "Exact decoding: Viterbi over the last two tags (the templates read T-1 and T-2), "
             "maximising sum_i log p(t_i | x_i, t_{i-2}, t_{i-1}) of the same models. Intervals: 95% percentile "
             f"bootstrap over section 20's sentences ({BOOTSTRAP['n_resamples']:,} resamples, seed "
             f"{BOOTSTRAP['seed']}, the same resamples for every model, so differences are paired).", "",
             "VERDICT_PLACEHOLDER", "", chosen_after_test_sentence(), "", "NOTES_PLACEHOLDER"]
    n_tasks = len(tasks)
    for t_index, (task, cfg) in enumerate(tasks.items()):
        cfg = dict(cfg)
        n_sentences = cfg.pop("n_sentences")
        task_points = points.get(task, ())
        label = "Base-NP" if task == "np" else "chunking"

        def sub(fraction, message, t_index=t_index, task=task):
            progress((t_index + fraction) / n_tasks, f"{TASK_LABEL[task]}: {message}")

        background = (seeded_splits_in_background(task, n_sentences, cfg, task_points, split_workers)
                      if task_points and split_workers else None)
        if background is not None:
            pools.append(background[0])
        sub(0.0, "choosing the prior variance and the model on held-out training sentences")
        primary = development_split(task, n_sentences, cfg, task_points, None, scaled(sub, 0.0, 0.15))
        sub(0.15, "loading and featurising")
        ds = load_conll2000_maxent(task=task, n_sentences=n_sentences)
        comp = run_comparison(ds, cutoff=2, prior_variance=primary.prior.variance,
                              progress=scaled(sub, 0.15, 0.5), **cfg)
        files = _write_figures(comp, out_dir, task)
        sub(0.5, "decoding both ways")
        dec_rows = decoded_scores(ds, comp, task_points)
        variance = primary.prior.variance
        dec = {(r["method"], r["n_features"], r["decoder"]): r["counts"] for r in dec_rows}
        counts = {model_key(m, k, d, variance): c for (m, k, d), c in dec.items()}
        counts.update({model_key(*key, "greedy", variance): c for key, c in comp.counts.items()
                       if isinstance(key, tuple)})
        if "all features" in comp.counts:
            counts[model_key("all features", comp.all_features["n_features"], "greedy", variance)] = \
                comp.counts["all features"]
        splits = []
        if task_points:
            seeds = (None, *SPLIT_SEEDS)
            for i, seed in enumerate(seeds):
                lo, hi = (0.55 + 0.25 * (i - 1) / len(SPLIT_SEEDS), 0.55 + 0.25 * i / len(SPLIT_SEEDS))
                if seed is None:
                    s = primary
                elif background is not None:
                    sub(lo, f"split {i}: waiting for its process")
                    s = background[1][seed].result()
                else:
                    s = development_split(task, n_sentences, cfg, task_points, seed,
                                          scaled(sub, lo, hi, f"split {i}: "))
                m = s.model
                key = model_key(m.method, m.n_features, m.decoder, s.prior.variance)
                if key not in counts:  # another variance: the same selection, re-fitted with it
                    model = refit_checkpoint(ds, comp, m.method, m.n_features, s.prior.variance)
                    counts[key] = evaluate_with_counts(ds, model, m.decoder)[1]
                e = f1(counts[key])
                dev_f1 = float(m.table[(m.table["method"] == m.method) & (m.table["n_features"] == m.n_features)
                                       & (m.table["decoder"] == m.decoder)]["f1"].iloc[0])
                splits.append({"split": s.name, "seed": -1 if seed is None else seed, "dev_sentences": s.n_dev,
                               "prior_variance": s.prior.variance, "method": m.method, "n_features": m.n_features,
                               "decoder": m.decoder, "dev_f1": dev_f1, "test_f1": e.value, "test_low": e.low,
                               "test_high": e.high, "counts_key": key})
            if background is not None:
                background[0].shutdown()
            to_csv(pd.DataFrame(splits), out_dir / f"{task}_development_splits.csv", index=False, float_format="%.6f")
            inputs["raw_counts"].append(f"{task}_development_splits.csv")
            all_splits = splits
        sub(0.8, "timing the selections")
        stages = min(len(t) for m, t in comp.traces().items() if m != "Count cutoff")
        extra = selection_cpu_seconds(ds, stages=stages, methods=("IFS", "SGC", "SGC-LA"), repeats=TIMING_REPEATS - 1,
                                      lookahead=cfg["lookahead"], cutoff=2, progress=scaled(sub, 0.8, 0.98))
        timings = timing_table(comp, extra, stages)
        to_csv(timings, out_dir / f"{task}_timings.csv", index=False, float_format="%.9g")
        to_csv(counts_frame(counts), out_dir / f"{task}_sentence_counts.csv", index=False)
        inputs["raw_counts"] += [f"{task}_timings.csv", f"{task}_sentence_counts.csv"]
        rows += result_rows(label, comp, timings, dec, primary.prior, primary if task_points else None, splits)
        if dec:
            best = max(dec, key=lambda key: stats.f1_from_counts(dec[key].sum(axis=0)))
            names[label] = {"best": f"{model_name(*best)}, the best of {len(dec)} decoded models",
                            "chosen": model_name(primary.model.method, primary.model.n_features, primary.model.decoder)}
        inputs["tasks"][task] = {"training_sentences": int(ds.provenance.counts["train_sentences"]),
                                 "development_sentences": primary.n_dev,
                                 "prior_variance_grid": list(PRIOR_VARIANCE_GRID),
                                 "prior_variance": variance,
                                 **({"decoded_model_chosen": names[label]["chosen"],
                                     "development_split_seeds": list(SPLIT_SEEDS)} if dec else {}),
                                 "timing_repeats": TIMING_REPEATS, "timed_stages": int(stages),
                                 "development_split_processes": int(split_workers) if background else 0,
                                 "training_tokens": int(comp.n_train), "candidate_pairs": int(comp.n_candidates),
                                 **{k: v for k, v in cfg.items() if k != "extra_checkpoints"}}
        lines += [f"## {TASK_LABEL[task]}", "",
                  f"{comp.n_train:,} training tokens ({ds.provenance.counts['train_sentences']:,} "
                  f"sentences), {ds.n_features:,} predicates, {comp.n_candidates:,} candidate pairs; "
                  f"budgets: {cfg['budget']:,} features (IFS {cfg['ifs_budget']:,}), look-ahead "
                  f"{cfg['lookahead']}.", "", "### Prior variance of the MAP models", "",
                  *_prior_lines(primary.prior, primary.n_dev), "", "### Speed (Figs. 3-4)", "",
                  *_speed_table(comp, timings), "", "### Test scores (Fig. 5)", "", *_scores_table(comp), ""]
        if dec:
            lines += ["### Greedy vs exact (Viterbi) decoding", "",
                      "The Fig. 5 MAP models at these sizes, each decoded both ways (greedy rows are the "
                      "Fig. 5 rows):", "", *_decoder_lines(dec), "",
                      "### The decoded model chosen without section 20", "", *_choice_lines(primary, dec), "",
                      "### The choice repeated on other development splits", "", *_splits_lines(splits), ""]
        lines += ["Figures: " + ", ".join(f"[{f}]({f})" for f in files), ""]
        _write_report(out_dir, quick, lines, rows, inputs, names, all_splits, started)  # after every task
        del ds, comp
    progress(1.0, "done")
    return out_dir / "report.md"
