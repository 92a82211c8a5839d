"""Reproduce target ``bayes-factor``: Daume III's approximate Bayes-factor feature selection
(APPROXBFFS, Fig. 1) on CoNLL-2000 Base-NP, for both model priors and both signs of the Occam
term of Eq. (12), next to IFS and SGC (Zhou et al.) at the same numbers of pairs.

The paper has no Base-NP result to compare with; what the report measures is where each variant
stops by itself and what accuracy it has there. Model priors: ``uniform`` (Eq. 13: log prior odds
0, so a pair enters whenever its Laplace gain beats 1/2 log a_g) and ``multiplicity`` (-log(F - G):
the current model keeps half the prior mass, see
:func:`fsengine.methods.bayes_factor.model.multiplicity_log_odds`). Signs: ``laplace`` (-1/2 log a_g,
what Eq. 7 implies) and ``printed`` (+1/2 log a_g, Eq. 12 as printed).

Three sets of sentences, all with gold previous tags (token accuracy, no decoding), all 24
templates, predicate cutoff 1:

* training: the first training sentences (300 in the full run);
* development: the next training sentences (900 in the full run), held out. The recommended
  configuration (the page's default, :func:`fsengine.methods.bayes_factor.study.recommend`) and
  the best round along each path are chosen here, never on section 20;
* test: section 20 (all 47,377 tokens in the full run), where every accuracy is reported with a
  sentence-level bootstrap interval and every difference between two models by the paired
  bootstrap over the same resamples.

Every configuration runs to its cap; after its automatic stop the rounds go on adding the S best
candidates (traced only), so the path past the stop can show whether stopping lost accuracy: the
section-20 accuracy at the stop is compared with the round that is best on the development split
along the whole path (a check that fails when the stop comes too early or too late). Those four
differences are what the report's first paragraph reads as one, so they are one family, judged by
Holm's step-down procedure (each interval at the level Holm tests it at, from 20,000 paired
resamples so that even a 98.75% bound rests on 125 resamples per tail); the Bayes factor against
IFS and SGC at the stop sizes is recorded at 95% each and said to be uncorrected.

The record is rendered from its raw files alone (:func:`render`): ``rounds.csv``, the per-sentence
counts, ``gain_selectors.csv`` and ``run.json`` (the stops, the predicate count, the run's
duration), so :func:`rerender` gives back a run's own ``results.json`` and ``report.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import stats
from fsengine.csv_export import read_csv, to_csv
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.formatting import percent, points
from fsengine.methods.bayes_factor.study import (
    CHOSEN_ON_DEVELOPMENT,
    CONFIGS,
    RECOMMENDED,
    TIE,
    ScoredRun,
    config_label,
    gain_selector_curves,
    heldout_task,
    recommend,
    run_scored,
    summarise,
)
from fsengine.plots.bayes_factor import accuracy_figure
from fsengine.progress import scaled
from fsengine.reproduce import results as results_file

#: training sentences, development sentences (the next ones), held-out section-20 tokens (0 = all)
QUICK = dict(n_sentences=150, n_dev=450, n_heldout=10_000, per_round=10, caps={"uniform": 100, "multiplicity": 100},
             ifs_cap=100)
#: full: the first 300 training sentences (7,189 tokens), the next 900 as the development split, all
#: 47,377 section-20 tokens, caps of 600 pairs, so that the four configurations finish in minutes
#: on a shared machine; on all 8,936 sentences one configuration (Laplace sign, uniform prior,
#: S = 100) takes 40 minutes (``benchmarks/bench_bayes_factor.py``, RESULTS.md)
FULL = dict(n_sentences=300, n_dev=900, n_heldout=0, per_round=20, caps={"uniform": 600, "multiplicity": 600},
            ifs_cap=600)
#: the bootstrap of every interval (one seed: every model shares the resamples, so differences are paired)
BOOTSTRAP = dict(n_resamples=stats.N_BOOTSTRAP, seed=0)
#: the bootstrap of the judged family (Holm's levels reach 1 - 0.05/4 = 98.75%: 125 resamples per tail)
FAMILY_BOOTSTRAP = dict(n_resamples=20_000, seed=0)
#: the family the report's first paragraph reads as one
STOP_FAMILY = "stop - development-best differences"


def accuracy(counts: np.ndarray) -> stats.Estimate:
    """Token accuracy with its sentence-level bootstrap interval from per-sentence (correct, tokens)."""
    return stats.bootstrap_interval(counts, stats.ratio_from_counts, unit="sentences", **BOOTSTRAP)


def accuracy_difference(a: np.ndarray, b: np.ndarray) -> stats.Estimate:
    """Accuracy(a) - accuracy(b) on the same sentences, by the paired sentence-level bootstrap."""
    return stats.paired_bootstrap_interval(a, b, stats.ratio_from_counts, unit="sentences", **BOOTSTRAP)


def bf_key(sign: str, prior: str, pairs: int) -> str:
    """The column of a Bayes-factor round in the per-sentence CSVs: ``BF|laplace|multiplicity|44``."""
    return f"BF|{sign}|{prior}|{int(pairs)}"


def counts_frame(tokens: np.ndarray, correct: dict[str, np.ndarray]) -> pd.DataFrame:
    """One row per sentence: ``sentence``, ``tokens`` and the correct tokens of every model."""
    return pd.DataFrame({"sentence": np.arange(tokens.size), "tokens": tokens, **correct})


def read_counts(frame: pd.DataFrame, key: str) -> np.ndarray:
    """(correct, tokens) per sentence of model ``key`` back from :func:`counts_frame`."""
    return frame[[key, "tokens"]].to_numpy()


def stop_family(summaries: dict, test_counts: dict) -> dict[tuple[str, str], stats.Estimate]:
    """Per configuration, section-20 accuracy at the stop minus that of the development-best round,
    the four judged as one family by Holm's step-down procedure (paired sentence bootstrap,
    :data:`FAMILY_BOOTSTRAP`; each interval at the level Holm tests it at)."""
    tests = []
    for (sign, prior), s in summaries.items():
        reps = stats.paired_bootstrap_replicates(test_counts[bf_key(sign, prior, s["pairs_at_stop"])],
                                                 test_counts[bf_key(sign, prior, s["pairs_at_dev_best"])],
                                                 stats.ratio_from_counts, unit="sentences", **FAMILY_BOOTSTRAP)
        tests.append((reps.pvalue(), reps.interval))
    return dict(zip(summaries, stats.holm_family(tests, family=STOP_FAMILY)))


def result_rows(summaries: dict, test_counts: dict, dev_counts: dict, choice: tuple[str, str] | None
                ) -> list[results_file.Row]:
    """Per configuration: the stop (recorded), the section-20 and development accuracies there
    (recorded, with intervals), the round best on development along the path and the paired
    section-20 difference from the stop (an ordering that fails when stopping lost accuracy), IFS
    and SGC at the stop size (their accuracy recorded; the paired difference judged), and whether
    it is the recommendation (chosen on the development split)."""
    rows = []
    family = stop_family(summaries, test_counts)
    for (sign, prior), s in summaries.items():
        name = config_label(sign, prior)
        stop = test_counts[bf_key(sign, prior, s["pairs_at_stop"])]
        rows += [
            results_file.recorded(f"stopped by itself, {name}", float(s["stopped"]),
                                  note="1 = beta_0 beat every candidate before the cap"),
            results_file.recorded(f"pairs at the stop, {name}", s["pairs_at_stop"],
                                  note="the automatic stop, or the cap when there was none"),
            results_file.recorded(f"section-20 accuracy at the stop, {name}", accuracy(stop)),
            results_file.recorded(f"development accuracy at the stop, {name}",
                                  accuracy(dev_counts[bf_key(sign, prior, s["pairs_at_stop"])])),
            results_file.recorded(f"pairs at the best development accuracy along the path, {name}",
                                  s["pairs_at_dev_best"], note="the path runs on past the stop to the cap"),
            results_file.ordering(f"section-20 accuracy, the stop - the development-best round, {name}",
                                  family[(sign, prior)], "the stop", "the development-best round"),
        ]
        for method in ("SGC", "IFS"):
            key = f"{method}|{s['pairs_at_stop']}"
            if key in test_counts:
                rows.append(results_file.recorded(f"section-20 accuracy of {method} at the stop size of {name}",
                                                  accuracy(test_counts[key])))
                rows.append(results_file.ordering(
                    f"section-20 accuracy, Bayes factor - {method} at the stop size of {name}",
                    accuracy_difference(stop, test_counts[key]), "Bayes factor", method))
        if choice is not None:
            rows.append(results_file.recorded(
                RECOMMENDED.format(name), float((sign, prior) == choice),
                note=f"1 = recommended, {CHOSEN_ON_DEVELOPMENT}: stopped by itself, best development "
                     f"accuracy at the stop (ties within {TIE}: fewest pairs)"))
    return rows


def run(out_dir: Path, quick: bool, progress) -> Path:
    """Write ``rounds.csv``, ``gain_selectors.csv``, the per-sentence counts, ``run.json`` and
    ``accuracy.html``, then render ``results.json`` and ``report.md`` from those files (after every
    configuration; ``fsengine reproduce`` writes into a staging folder and replaces the record only
    when the run completes)."""
    started = (time.perf_counter(), time.process_time())
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cfg = QUICK if quick else FULL
    progress(0.0, "loading CoNLL-2000 Base-NP")
    n_total = cfg["n_sentences"] + cfg["n_dev"]
    ds = load_conll2000_maxent(task="np", cutoff=1, n_sentences=n_total, dev_fraction=cfg["n_dev"] / n_total,
                               keep_test=True)
    task = heldout_task(ds, n_heldout=cfg["n_heldout"])
    scored = {}
    n = len(CONFIGS) + 1
    for i, (sign, prior) in enumerate(CONFIGS):
        scored[(sign, prior)] = run_scored(
            task, per_round=cfg["per_round"], sign=sign, model_prior=prior, max_pairs=cfg["caps"][prior],
            rounds_past_stop=None, progress=scaled(progress, i / n, (i + 1) / n, f"{config_label(sign, prior)}: "))
        _write_raw(out_dir, quick, cfg, task, scored, pd.DataFrame(columns=["method", "n_features"]), {}, started)
        render(out_dir)
    summaries = {k: summarise(sc) for k, sc in scored.items()}
    sizes = sorted({s[k] for s in summaries.values() for k in ("pairs_at_stop", "pairs_at_dev_best")})
    progress(len(CONFIGS) / n, "SGC and IFS at the same sizes")
    gain_counts: dict = {}
    sgc = gain_selector_curves(task, max(sizes), methods=("SGC",), extra_sizes=sizes, n_points=6,
                               counts_out=gain_counts)
    ifs_budget = min(max(sizes), cfg["ifs_cap"])
    ifs = gain_selector_curves(task, ifs_budget, methods=("IFS",), extra_sizes=[s for s in sizes if s <= ifs_budget],
                               n_points=6, counts_out=gain_counts)
    _write_raw(out_dir, quick, cfg, task, scored, pd.concat([sgc, ifs], ignore_index=True), gain_counts, started)
    path = render(out_dir)
    progress(1.0, "done")
    return path


def _model_counts(scored: dict, gain_counts: dict) -> tuple[np.ndarray, dict, np.ndarray, dict]:
    """Per-sentence correct tokens on section 20 and on the development split of every traced
    round of every configuration (so every interval of the report, not only the rows', can be
    recomputed), and of IFS / SGC at their sizes (section 20)."""
    test, dev = {}, {}
    for (sign, prior), sc in scored.items():
        for idx in range(len(sc.run.trace)):
            key = bf_key(sign, prior, sc.run.trace.at[idx, "n_selected"])
            test[key], dev[key] = sc.test[idx], sc.dev[idx]
    for (method, k), c in sorted(gain_counts.items()):
        test[f"{method}|{k}"] = c
    test_tokens = next(iter(test.values()))[:, 1]
    dev_tokens = next(iter(dev.values()))[:, 1]
    return test_tokens, test, dev_tokens, dev


def _write_raw(out_dir: Path, quick: bool, cfg: dict, task, scored: dict, gain: pd.DataFrame, gain_counts: dict,
               started: tuple) -> None:
    """The raw files of what has run so far (``rounds.csv``, ``gain_selectors.csv``, the per-sentence
    counts, ``run.json``) and the accuracy figure."""
    rounds = pd.concat([sc.run.trace[["round", "n_selected", "train_accuracy", "heldout_accuracy", "seconds"]]
                        .rename(columns={"heldout_accuracy": "test_accuracy"})
                        .assign(dev_accuracy=sc.dev[:, :, 0].sum(axis=1) / sc.dev[:, :, 1].sum(axis=1),
                                past_stop=lambda t, sc=sc: t["n_selected"] > sc.run.n_at_stop,
                                sign=k[0], model_prior=k[1]) for k, sc in scored.items()], ignore_index=True)
    to_csv(rounds, out_dir / "rounds.csv", index=False, float_format="%.6f")
    to_csv(gain, out_dir / "gain_selectors.csv", index=False, float_format="%.6f")
    test_tokens, test, dev_tokens, dev = _model_counts(scored, gain_counts)
    to_csv(counts_frame(test_tokens, {k: c[:, 0] for k, c in test.items()}), out_dir / "test_sentence_counts.csv",
           index=False)
    to_csv(counts_frame(dev_tokens, {k: c[:, 0] for k, c in dev.items()}), out_dir / "dev_sentence_counts.csv",
           index=False)
    facts = {"quick": bool(quick), "predicates": len(task.predicate_names),
             "stops": [{"sign": s, "model_prior": p, "stopped": sc.run.stop_round is not None,
                        "stop_reason": sc.run.stop_reason} for (s, p), sc in scored.items()],
             "seconds": {"wall": time.perf_counter() - started[0], "cpu": time.process_time() - started[1]},
             "inputs": {
                 "data": "CoNLL-2000 Base-NP (conll2000 corpus of NLTK): WSJ 15-18 train (first sentences: training; "
                         "the next ones: development split), section 20 test (gold previous tags, token accuracy)",
                 "training_sentences": cfg["n_sentences"], "development_sentences": cfg["n_dev"],
                 "templates": "all 24, predicate cutoff 1", "per_round": cfg["per_round"], "prior_variance": 1.0,
                 "caps": cfg["caps"], "ifs_cap": cfg["ifs_cap"], "rounds_past_stop": "to the cap",
                 "training_tokens": int(task.X.shape[0]), "development_tokens": int(task.X_dev.shape[0]),
                 "heldout_tokens": int(task.X_val.shape[0]), "bootstrap": dict(BOOTSTRAP, unit="sentences"),
                 "raw_counts": ["rounds.csv", "gain_selectors.csv", "test_sentence_counts.csv",
                                "dev_sentence_counts.csv"],
                 "configurations_finished": len(scored)}}
    results_file.write_run_facts(out_dir, facts)
    curves = [rounds[(rounds.sign == s) & (rounds.model_prior == p)]
              .assign(method=f"Bayes factor ({config_label(s, p)})")[["method", "n_selected", "train_accuracy",
                                                                      "test_accuracy"]]
              .rename(columns={"n_selected": "n_features", "test_accuracy": "heldout_accuracy"}) for s, p in scored]
    if len(gain):
        curves.append(gain[["method", "n_features", "train_accuracy", "heldout_accuracy"]])
    summaries = {k: summarise(sc) for k, sc in scored.items()}
    choice = recommend(summaries) if len(scored) == len(CONFIGS) else None
    stop = summaries[choice]["pairs_at_stop"] if choice else next(iter(summaries.values()))["pairs_at_stop"]
    results_file.write_figure(accuracy_figure(pd.concat(curves, ignore_index=True), stop, show_train=False,
                                              title="Section-20 accuracy vs selected pairs (CoNLL-2000 Base-NP)"),
                              out_dir / "accuracy.html")


@dataclass(frozen=True)
class _StoredRun:
    """What :func:`~fsengine.methods.bayes_factor.study.summarise` reads of a run, back from its files."""

    trace: pd.DataFrame
    n_at_stop: int
    stop_round: int | None
    stop_reason: str


def read_scored(out_dir: Path, facts: dict) -> tuple[dict, dict, dict]:
    """Every configuration's rounds as :class:`~fsengine.methods.bayes_factor.study.ScoredRun` (the
    trace and each round's per-sentence counts), and the section-20 and development counts by model
    key, back from a run's files."""
    rounds = read_csv(out_dir / "rounds.csv")
    test_frame = read_csv(out_dir / "test_sentence_counts.csv")
    dev_frame = read_csv(out_dir / "dev_sentence_counts.csv")
    test = {k: read_counts(test_frame, k) for k in test_frame.columns if k not in ("sentence", "tokens")}
    dev = {k: read_counts(dev_frame, k) for k in dev_frame.columns if k not in ("sentence", "tokens")}
    scored = {}
    for stop in facts["stops"]:
        sign, prior = stop["sign"], stop["model_prior"]
        tr = (rounds[(rounds.sign == sign) & (rounds.model_prior == prior)].reset_index(drop=True)
              .rename(columns={"test_accuracy": "heldout_accuracy"}))
        keys = [bf_key(sign, prior, n) for n in tr["n_selected"]]
        run = _StoredRun(tr, int(tr.loc[~tr["past_stop"], "n_selected"].iloc[-1]),
                         0 if stop["stopped"] else None, stop["stop_reason"])
        scored[(sign, prior)] = ScoredRun(run, np.stack([test[k] for k in keys]), np.stack([dev[k] for k in keys]))
    return scored, test, dev


def render(out_dir: Path) -> Path:
    """``results.json`` and ``report.md`` from the run's files in ``out_dir`` (module docstring)."""
    out_dir = Path(out_dir)
    facts = results_file.read_run_facts(out_dir)
    cfg = QUICK if facts["quick"] else FULL
    scored, test, dev = read_scored(out_dir, facts)
    summaries = {k: summarise(sc) for k, sc in scored.items()}
    gain = read_csv(out_dir / "gain_selectors.csv")
    choice = recommend(summaries) if len(scored) == len(CONFIGS) else None
    rows = result_rows(summaries, test, dev, choice)
    results_file.write(out_dir, "bayes-factor", facts["quick"], facts["inputs"], rows)
    path = out_dir / "report.md"
    path.write_text(_report(facts, cfg, scored, summaries, gain, test, choice, rows))
    return path


def _multiplicity_lines(rows: list[results_file.Row], judged: dict) -> list[str]:
    """Which comparisons the record holds, which are judged as one family and how, the rest stated."""
    others = [r for r in rows if results_file.outcome(r.verdict) in ("resolved", "not resolved")
              and r not in judged.values()]
    return [f"**Multiplicity.** One family is judged: the {len(judged)} {STOP_FAMILY} above, by Holm's step-down "
            f"procedure at 95% family-wise (the paragraph above reads them as one). The {len(others)} differences "
            "of the Bayes factor from SGC and IFS at the stop sizes are each at 95% on their own, not corrected "
            f"(were none real, about {len(others) * (1 - stats.LEVEL):.1f} would resolve by chance); the accuracies "
            "are recorded with their 95% intervals and no verdict.", ""]


#: a finished run's record with this code's statistics and words, from its raw files (a run renders its own
#: record the same way, so a run's outputs come back byte for byte)
rerender = render


def _pct(e: stats.Estimate | float) -> str:
    if isinstance(e, stats.Estimate):
        return points(e.value, e.low, e.high)
    return points(e)


def _report(facts, cfg, scored, summaries, gain, test, choice, rows) -> str:
    quick, inputs = facts["quick"], facts["inputs"]
    lines = ["# Bayes-factor feature selection (Daume III 2004) on CoNLL-2000 Base-NP", "",
             f"Command: `python -m fsengine reproduce bayes-factor{' --quick' if quick else ''}`", "",
             "Accuracies are token accuracies with gold previous tags; the brackets hold 95% percentile "
             f"bootstrap intervals over sentences ({BOOTSTRAP['n_resamples']:,} resamples, seed {BOOTSTRAP['seed']}, "
             "the same resamples for every model, so differences are paired).", ""]
    if choice is None:
        lines += [f"**Partial run: {len(scored)} of {len(CONFIGS)} configurations finished**; the recommendation "
                  "needs all four.", ""]
    else:
        s = summaries[choice]
        at_stop = accuracy(test[bf_key(*choice, s["pairs_at_stop"])])
        dev_at_stop = accuracy(scored[choice].dev[s["stop_index"]])
        lines += [f"**Recommendation (computed on the development split, rule below): {config_label(*choice)}.** "
                  f"It stops by itself at {s['pairs_at_stop']:,} pairs with development accuracy "
                  f"{_pct(dev_at_stop)}; on section 20 it scores {_pct(at_stop)} there. This is the default of "
                  "the Bayes-factor page. Rule: among the configurations that stop by themselves, the highest "
                  f"development accuracy at the stop; within {100 * TIE:.2f} points of it, the fewest pairs. "
                  "Section 20 plays no part in the choice.", ""]
        prefix = "section-20 accuracy, the stop - the development-best round, "
        judged = {r.quantity[len(prefix):]: r for r in rows if r.quantity.startswith(prefix)}
        lost = [name for name, r in judged.items() if r.verdict.startswith("resolved: the development-best round")]
        early = "; ".join(f"{name}: {100 * r.ours:+.2f} points [{100 * r.interval[0]:+.2f}, "
                          f"{100 * r.interval[1]:+.2f}] at {percent(r.level)}" for name, r in judged.items())
        lines += [f"Stopping against the path: the section-20 accuracy at the stop minus that of the round with the "
                  f"best development accuracy along the whole path (which runs on past the stop to the cap), the "
                  f"{len(judged)} judged as one family by Holm's step-down procedure (each interval at the level Holm "
                  f"tests it at; paired sentence bootstrap, {FAMILY_BOOTSTRAP['n_resamples']:,} resamples): "
                  f"{early}. " + (f"Stopping lost accuracy (the interval excludes 0) for: {'; '.join(lost)}."
                                  if lost else "No configuration lost accuracy by stopping where it did "
                                               "(no interval excludes 0 on the losing side).")
                  + " A run that ended at its cap has no path beyond it, so there the check can only catch an end "
                    "that came too late.", "", *_multiplicity_lines(rows, judged)]
    lines += [f"Data: {inputs['training_tokens']:,} training tokens (the first {cfg['n_sentences']:,} training "
              f"sentences), {facts['predicates']:,} predicates (24 templates, cutoff 1), 3 classes; development: "
              f"{inputs['development_tokens']:,} tokens (the next {cfg['n_dev']:,} training sentences); test: "
              f"{inputs['heldout_tokens']:,} section-20 tokens" + (" (the first ones)" if cfg["n_heldout"] else "")
              + f". S = {cfg['per_round']} pairs per round, sigma^2 = 1, unpenalised bias; caps: "
              + ", ".join(f"{p} prior {c:,} pairs" for p, c in cfg["caps"].items())
              + "; after the automatic stop the rounds go on to the cap (traced only, marked in `rounds.csv`).", "",
              "## Stopping points", "",
              "| configuration | stopped by itself | rounds | pairs at the stop | development at the stop | "
              "section 20 at the stop | best development along the path (pairs) | section 20 there | seconds |",
              "|---|---|---|---|---|---|---|---|---|"]
    for (sign, prior), s in summaries.items():
        sc = scored[(sign, prior)]
        at_stop, there = accuracy(sc.test[s["stop_index"]]), accuracy(sc.test[s["dev_best_index"]])
        dev_stop, dev_best = accuracy(sc.dev[s["stop_index"]]), accuracy(sc.dev[s["dev_best_index"]])
        lines.append(f"| {config_label(sign, prior)} | {'yes' if s['stopped'] else 'no: ' + s['stop_reason']} | "
                     f"{s['rounds']} | {s['pairs_at_stop']:,} | {_pct(dev_stop)} | {_pct(at_stop)} | "
                     f"{_pct(dev_best)} ({s['pairs_at_dev_best']:,}) | {_pct(there)} | {s['seconds']:.0f} |")
    if len(gain):
        lines += ["", "## IFS and SGC at the same sizes", "",
                  "The first k pairs of each gain selector (candidates seen at least once), re-fitted with the "
                  f"same MAP (prior, bias) as the Bayes-factor rounds; IFS up to {cfg['ifs_cap']:,} pairs.", "",
                  "| method | pairs | train | section 20 |", "|---|---|---|---|"]
        for r in gain.itertuples():
            key = f"{r.method}|{int(r.n_features)}"
            acc = accuracy(test[key]) if key in test else r.heldout_accuracy
            lines.append(f"| {r.method} | {int(r.n_features):,} | {_pct(r.train_accuracy)} | {_pct(acc)} |")
    lines += ["", "## Accuracy per round", "",
              "Every round of every configuration is in `rounds.csv` (development and section-20 accuracy); "
              "sampled here (about 12 rounds each, plus the stop and the development-best round):", ""]
    for k, sc in scored.items():
        tr = sc.run.trace
        s = summaries[k]
        pick = set(np.unique(np.linspace(0, len(tr) - 1, 12).round().astype(int)).tolist())
        pick |= {s["stop_index"], s["dev_best_index"]}
        lines += [f"{config_label(*k)}:", "", "| round | pairs | train | development | section 20 | |",
                  "|---|---|---|---|---|---|"]
        for i in sorted(pick):
            marks = (("stop", i == s["stop_index"]), ("best on development", i == s["dev_best_index"]),
                     ("past the stop", i > s["stop_index"]))
            lines.append(f"| {int(tr.at[i, 'round'])} | {int(tr.at[i, 'n_selected']):,} | "
                         f"{_pct(tr.at[i, 'train_accuracy'])} | {_pct(accuracy(sc.dev[i]))} | "
                         f"{_pct(accuracy(sc.test[i]))} | "
                         + ", ".join(w for w, c in marks if c) + " |")
        lines.append("")
    minutes, cpu_minutes = facts["seconds"]["wall"] / 60, facts["seconds"]["cpu"] / 60
    lines += ["Figure: [accuracy.html](accuracy.html) (section-20 accuracy per round of each configuration, "
              "IFS and SGC).", "", "## Headline numbers (`results.json`)", "", *results_file.markdown(rows), "",
              "Raw counts behind the intervals: `test_sentence_counts.csv` and `dev_sentence_counts.csv` (correct "
              "tokens per sentence of every round of every configuration, and of IFS / SGC at each size), "
              "`rounds.csv`, `gain_selectors.csv`. "
              f"This run took {minutes:.1f} minutes (wall time; {cpu_minutes:.1f} minutes of CPU time).", ""]
    return "\n".join(lines)
