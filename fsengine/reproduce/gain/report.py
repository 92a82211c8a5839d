"""The sgc-vs-ifs record's prose: ``report.md``, its tables and sentences, every number formatted
from the run (the verdict line, the notes and the headline table also from ``results.json``)."""

from __future__ import annotations

import re

import pandas as pd

from fsengine import stats
from fsengine.formatting import estimate
from fsengine.methods.gain.study import (
    PRIOR_VARIANCE_GRID,
    Comparison,
    PriorChoice,
    cpu_ratios,
)
from fsengine.reproduce import results as results_file
from fsengine.reproduce.gain.development import DevelopmentSplit
from fsengine.reproduce.gain.plan import (
    BOOTSTRAP,
    CHOSEN_AFTER_TEST,
    DECODER_LABEL,
    DEV_FRACTION,
    PAPER,
    PAPER_F1,
    RECORD_HISTORY,
    SPEED_CLAIM,
    TASK_LABEL,
    model_name,
)
from fsengine.reproduce.gain.statistics import computation_ratio, f1, precision, recall


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
              f"{s['dev_f1']:.2f} | {estimate(s['test_f1'], s['test_low'], s['test_high'], 2, widen=False)} |"
              for s in splits]
    return lines


def chosen_after_test_sentence() -> str:
    """The report's sentence on choices made after seeing section-20 results (:data:`CHOSEN_AFTER_TEST`)."""
    items = "; ".join(f"({i}) {c}" for i, c in enumerate(CHOSEN_AFTER_TEST, 1))
    return (f"**Chosen after seeing section-20 results.** These design choices of this reproduction were made "
            f"after earlier section-20 scores had been seen: {items}. The rows judged here (the paper's "
            "configuration, greedy decoding, first; the development choice second) do not pick anything on "
            "section 20, but the candidates the development choice picks from were widened with section 20 in "
            "view, so its row is less clean than the first.")


def verdict_line(rows: list[results_file.Row], names: dict[str, dict[str, str]], splits: list[dict]) -> str:
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
#: the lines of :func:`intro_lines` that :func:`fsengine.reproduce.gain.render.write_report` replaces by the
#: verdict line and the notes
VERDICT_PLACE, NOTES_PLACE = "VERDICT_PLACEHOLDER", "NOTES_PLACEHOLDER"


def notes(rows: list[results_file.Row]) -> list[str]:
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


def headline_lines(rows, inputs, minutes: float, cpu_minutes: float) -> list[str]:
    return [HEADLINE_MARK, "", *results_file.markdown(rows), "",
            f"Raw counts behind the intervals: {', '.join(f'`{f}`' for f in sorted(inputs['raw_counts']))}. "
            f"This run took {minutes:.1f} minutes (wall time; {cpu_minutes:.1f} minutes of CPU time).", ""]


#: how the report states the run's duration (:func:`rerender` keeps it)
DURATION = re.compile(r"This run took ([\d.]+) minutes \(wall time; ([\d.]+) minutes of CPU time\)\.")


def intro_lines(quick: bool) -> list[str]:
    """The report's opening: the command, the paper's numbers, the set-up, and the places the verdict
    line and the notes take (:func:`fsengine.reproduce.gain.render.write_report` fills them)."""
    return ["# SGC vs IFS (Zhou, Wu, Weng & Schmidt 2003), Figs. 3-5 on CoNLL-2000", "",
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
            VERDICT_PLACE, "", chosen_after_test_sentence(), "", NOTES_PLACE]


def task_lines(task: str, ds, comp: Comparison, cfg: dict, primary: DevelopmentSplit, timings: pd.DataFrame,
               dec: dict, splits: list[dict], files: list[str]) -> list[str]:
    """The section of one task: its size, the prior variance, speed, test scores and, where models
    were decoded both ways, the decoders, the development choice and its repeats."""
    lines = [f"## {TASK_LABEL[task]}", "",
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
    return lines
