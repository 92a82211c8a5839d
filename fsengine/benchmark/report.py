"""What a benchmark run says, written from its record (:mod:`fsengine.benchmark.record`):
``results.json`` (the rows of :mod:`fsengine.reproduce.results`: every estimate with its interval,
every verdict computed), ``report.md`` and a self-contained ``report.html`` (plotly.js inlined once,
opens offline), every number in their prose formatted from the run. The page shows the same
figures and :data:`EXPLANATIONS`.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import formatting
from fsengine.benchmark import aggregate, protocol
from fsengine.benchmark.record import Record, write_tables
from fsengine.reproduce import results as results_file
from fsengine.stats import Estimate, bonferroni_level, signed_rank_interval

TARGET = "benchmark"

#: what each figure shows and how to read it (the page, report.html and report.md)
EXPLANATIONS = {
    "cd": "Each method's average rank over the datasets (1 = best on every dataset). The Friedman test asks "
          "whether the average ranks differ more than chance would make them; Nemenyi's critical difference (the "
          "red bar) is the smallest gap between two average ranks that is significant at 0.05 for this many "
          "methods and datasets. Methods joined by a grey bar lie within one CD of each other: the data cannot "
          "tell them apart. Look for the groups, not for the order inside a group.",
    "ranks": "The rank of every method on every dataset at this k (1 = best; ties share the mean rank). A method "
             "that is first on average can still be last on some datasets: the rows show where. A cell without a "
             "rank says why: n/a (the method does not apply there), failed, or – (it ran, but the dataset or the "
             "method is left out of the ranks at this k: the gap rule in the text).",
    "similarity": "How alike two methods select: the Jaccard overlap |A ∩ B| / |A ∪ B| of their top-k sets on the "
                  "same training fold, averaged over the folds and the datasets. Blocks of dark cells are families "
                  "that pick the same features (e.g. the univariate filters); a method alone in its column selects "
                  "differently, whatever its accuracy.",
    "tradeoff": "Average rank against cost: the geometric mean over datasets of the median CPU seconds of a fit. "
                "Methods on the dotted Pareto front are not beaten on both counts by any other; a method far to the "
                "right of the front costs more without ranking better.",
    "accuracy": "The held-out metric of the classifier on each method's first k features on this dataset, the mean "
                "over the outer folds with its corrected resampled t interval (bands).",
    "stability": "Nogueira et al.'s (2018) stability of each method's top-k sets over the outer folds: 1 = the "
                 "same set on every fold, 0 = what random sets of that size would give. Whiskers: 95% asymptotic "
                 "intervals.",
    "jaccard": "On this dataset: the Jaccard overlap of two methods' top-k sets on the same fold, averaged over "
               "the folds.",
}
#: the procedure over datasets, in words and in equations (the page's and the report's teaching text)
PROCEDURE = (
    "Rank the methods on each dataset (1 = best). If all methods were equivalent, their average ranks R_j would "
    "differ only by chance; the Friedman statistic measures how much they differ, and Iman & Davenport's F form "
    "of it is what Demšar (2006) recommends. When it rejects, Nemenyi's test calls two methods different when "
    "their average ranks differ by at least the critical difference CD. Benavoli, Corani & Mangili (2016) showed "
    "that this post-hoc test's verdict on two methods depends on which other methods are in the comparison, "
    "and recommend instead a Wilcoxon signed-rank test for each pair of methods over the datasets, with Holm's "
    "correction for the number of pairs; the verdicts below are those.")
EQUATIONS = {
    "friedman": r"\chi^2_F = \frac{12N}{k(k+1)}\Big[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\Big],\qquad "
                r"F_F = \frac{(N-1)\chi^2_F}{N(k-1) - \chi^2_F} \sim F\big(k-1, (k-1)(N-1)\big)",
    "cd": r"\mathrm{CD} = q_\alpha \sqrt{\frac{k(k+1)}{6N}},\qquad q_\alpha = \frac{\text{studentized range}"
          r"_{1-\alpha}(k, \infty)}{\sqrt 2}",
    "holm": r"p_{(1)} \le \dots \le p_{(m)}:\ \text{reject } H_{(i)} \text{ while } p_{(i)} < \frac{\alpha}{m - i + 1}",
}


def _fmt(e: Estimate, digits: int = 3) -> str:
    return formatting.estimate(e.value, e.low, e.high, digits)


#: the rule of a family's verdicts (constant text: a quick run's rules equal the full run's)
FAMILY_RULES = {aggregate.ALL_PAIRS: "Holm-adjusted Wilcoxon signed-rank p",
                aggregate.AGAINST_CONTROL: "Holm-adjusted Wilcoxon signed-rank against the control p"}


def pair_rows(record: Record, label: str, family: str = aggregate.ALL_PAIRS) -> list[results_file.Row]:
    """One row per tested comparison of ``family`` at ``label``: the Hodges-Lehmann median difference
    of the metric over the common datasets with its signed-rank interval at the Bonferroni level over
    the family's m comparisons (what Holm's first step uses; later steps are less strict, so Holm can
    resolve a comparison whose Bonferroni interval reaches 0), and the verdict of Holm's procedure
    within the family."""
    r = record.ranking(label)
    pairs = r.pairs if family == aggregate.ALL_PAIRS else r.control_pairs
    tested = [p for p in pairs if np.isfinite(p.test.pvalue)]
    if not tested:
        return []
    m = len(tested)
    level = bonferroni_level(protocol.LEVEL, m)
    scores = _scores(record, label)
    labels = record.labels
    rule = f"{FAMILY_RULES[family]} {{}} {protocol.ALPHA:g}"
    what = "pairs" if family == aggregate.ALL_PAIRS else "comparisons with the control"
    rows = []
    for p in tested:
        both = scores[[p.a, p.b]].dropna()
        e = signed_rank_interval((both[p.a] - both[p.b]).to_numpy(), level)
        a, b = labels[p.a], labels[p.b]
        if p.verdict.startswith("resolved"):
            first, second = (a, b) if p.verdict == f"resolved: {p.a} > {p.b}" else (b, a)
            verdict = f"resolved: {first} > {second} ({rule.format('<')})"
        else:
            verdict = f"not resolved: {a} vs {b} ({rule.format('>=')})"
        quantity = f"k={label}: {a} − {b}, median difference of the metric over {len(both)} datasets" + (
            "" if family == aggregate.ALL_PAIRS else " (against the control)")
        rows.append(results_file.Row(quantity, None, e.value, verdict, [e.low, e.high], e.level,
                                     f"{e.method}; Bonferroni level over {m} {what}"))
    return rows


def family_rows(record: Record, label: str) -> list[results_file.Row]:
    """What each Holm family at ``label`` could resolve, as exact quantities from the run: its
    first-step threshold, the smallest p-value its tests could give on the most datasets a
    comparison shared, the fewest datasets with which it could resolve anything, how many
    comparisons could have passed and how many did."""
    rows = []
    for f in record.families(label):
        r, head = f.reach, f"k={label}: {f.name}"
        rows += [results_file.recorded(f"{head}: Holm's first-step threshold", r.threshold,
                                       note=f"{protocol.ALPHA:g} / the family's comparisons"),
                 results_file.recorded(f"{head}: smallest attainable p-value", r.floor,
                                       note="exact signed-rank test, one method better on every dataset, on the most "
                                            "datasets a comparison shared"),
                 results_file.recorded(f"{head}: fewest datasets that could resolve a comparison", r.min_datasets,
                                       note="smallest N with 2 / 2^N below the first-step threshold"),
                 results_file.recorded(f"{head}: comparisons whose floor is below the threshold", f.attainable,
                                       note="each comparison's own datasets and zero differences"),
                 results_file.recorded(f"{head}: comparisons resolved", f.resolved, note="Holm at the family level")]
    return rows


def _scores(record: Record, label: str) -> pd.DataFrame:
    from fsengine.benchmark.aggregate import score_table

    return score_table(record.summary, label)


def result_rows(record: Record) -> list[results_file.Row]:
    """Every headline number of the run. Quantities name the dataset by its slug and the k by its
    grid label, and rules are constant text, so that a quick run's rows are a subset of the full
    run's (``tests/reproduce/test_results_schema.py``)."""
    rows = []
    labels = record.labels
    for label in record.k_labels:
        r = record.ranking(label)
        if r.friedman is not None:
            f = r.friedman
            rows.append(results_file.recorded(f"k={label}: Friedman test, chi2_F", f.chi2,
                                              note="over the complete datasets, ties corrected"))
            if math.isfinite(f.f):  # infinite when every dataset ranks the methods alike (the prose says so)
                rows.append(results_file.recorded(f"k={label}: Friedman test, Iman-Davenport F", f.f,
                                                  note="against F(k - 1, (k - 1)(N - 1)) over the complete datasets"))
            rows += [results_file.recorded(f"k={label}: Friedman test, p-value", f.pvalue,
                                           note="Iman-Davenport F, complete datasets"),
                     results_file.recorded(f"k={label}: Nemenyi critical difference", r.cd,
                                           note=f"studentized range at {protocol.ALPHA:g} / sqrt 2")]
        for method, value in r.average_ranks.items():
            rows.append(results_file.recorded(f"k={label}: average rank of {labels[method]}", float(value),
                                              note="over the complete datasets (1 = best)"))
        rows += pair_rows(record, label) + pair_rows(record, label, aggregate.AGAINST_CONTROL)
        rows += family_rows(record, label)
    for row in record.summary[(record.summary["status"] == "ok") & (record.summary["method"] != "all features")
                              ].itertuples():
        where = f"{row.dataset}, {labels[row.method]}, k={row.k_label}"
        rows.append(results_file.recorded(f"{where}: held-out metric", Estimate(
            row.value, row.low, row.high, protocol.LEVEL, f"{row.metric}: {row.interval}"),
            note="mean over the outer folds"))
        rows.append(results_file.recorded(f"{where}: stability", Estimate(
            row.stability, row.stability_low, row.stability_high, protocol.LEVEL, row.stability_interval),
            note="Nogueira et al. (2018) over the outer folds"))
        if isinstance(row.recall, float) and math.isfinite(row.recall):
            rows.append(results_file.recorded(f"{where}: recall of the true features", Estimate(
                row.recall, row.recall_low, row.recall_high, protocol.LEVEL, "corrected resampled t over outer folds"),
                note="share of the planted features in the top k"))
    return rows


# ---------------------------------------------------------------------------------------------- prose

def protocol_lines(record: Record) -> list[str]:
    s = record.settings
    return [
        f"- Protocol version {protocol.VERSION}, fingerprint `{record.fingerprint}` (settings and the code that "
        "computes the numbers; `fsengine/benchmark/protocol.py`).",
        f"- Outer folds: {s.repeats} x {s.folds} repeated stratified folds (seed {s.seed}); every selector is "
        "fitted on the training part of each fold only.",
        f"- k grid (fixed before any fit): {s.k_grid} (sizes, and fractions of p); a size at or above p is not "
        "evaluated on that dataset.",
        f"- Classifier on the first k features: {protocol.CLASSIFIERS[s.classifier]}.",
        f"- Metric: balanced accuracy when the largest class has more than {protocol.IMBALANCE:g} times the rows "
        "of the smallest, else accuracy. Interval: the corrected resampled t (Nadeau & Bengio 2003) over the "
        f"{s.repeats * s.folds} folds with n_test / n_train = 1/{s.folds - 1}, 95%.",
        "- Stability: Nogueira et al. (2018) over the fold fits' top-k sets, with its asymptotic 95% interval. Fit "
        "time: median and interquartile range of the fold fits' CPU seconds. Recall: the share of the planted "
        "features in the top k.",
        f"- Gaps: {protocol.GAP_RULE}",
        f"- Over datasets: Friedman test (Iman-Davenport) and Nemenyi's CD at {protocol.ALPHA:g}; exact Wilcoxon "
        f"signed-rank tests (ties and zeros included) in two Holm families at {protocol.ALPHA:g}, each within one k: "
        f"every pair of methods, and every method against the control {record.labels.get(s.control, s.control)}. "
        + (protocol.CONTROL_REASON if s.control == protocol.CONTROL else
           f"The control {s.control} was named for this run (the protocol's is {protocol.CONTROL})."),
        "- Method parameters: the registry's defaults (what the app and the command line use)"
        + ("; changed here: " + "; ".join(f"{k}: " + ", ".join(f"{n}={v}" for n, v in values.items())
                                          for k, values in s.params.items()) if s.params else "") + ".",
    ]


def _resolved_text(verdict: str, labels: dict) -> str:
    """``"resolved: a > b"`` with the methods' labels: ``"A > B"``."""
    first, second = verdict.split(": ", 1)[1].split(" > ")
    return f"{labels.get(first, first)} > {labels.get(second, second)}"


def family_lines(record: Record, label: str) -> list[str]:
    """Per Holm family at one k: what was resolved, and what could have been, every number from
    the run (:func:`fsengine.benchmark.aggregate.families`)."""
    r = record.ranking(label)
    labels = record.labels
    found = {f.name: f for f in record.families(label)}
    lines = []
    for name in protocol.FAMILIES:
        f = found.get(name)
        control = labels.get(r.control, r.control)
        if f is None:
            why = r.why_no_control if name == aggregate.AGAINST_CONTROL else "no two methods share two datasets"
            lines += [f"{'Against the control' if name == aggregate.AGAINST_CONTROL else 'Every pair'}: no test at "
                      f"this k ({why}).", ""]
            continue
        reach, m = f.reach, f.comparisons
        resolved = [_resolved_text(p.verdict, labels) for p in f.tests if p.verdict.startswith("resolved")]
        head = (f"Every pair ({m} pairs of methods)" if name == aggregate.ALL_PAIRS else
                f"Against the control {control} ({m} comparisons, the control fixed before the run)")
        most = f.datasets[1]
        shared = (f"the {most} datasets every comparison shared" if f.datasets[0] == most else
                  f"the {most} datasets a comparison shared at most ({f.datasets[0]} at least)")
        text = (f"{head}: {len(resolved)} resolved after Holm's correction" + (": " + "; ".join(resolved)
                                                                               if resolved else "")
                + f". Holm's first step asks for p < {reach.threshold:.2g} ({reach.alpha:g} / {m}); on {shared} the "
                f"exact signed-rank test cannot give p below {reach.floor:.2g}")
        if not reach.possible:
            text += (f", so no comparison of this family could have been resolved, whatever the data: that takes at "
                     f"least {reach.min_datasets} datasets.")
        else:
            wins = (f"on every one of the {most} datasets" if reach.max_losses == 0 else
                    f"on at least {reach.min_wins} of the {most} datasets, its losses being its smallest differences")
            text += (f", so a comparison passes only when one method is better {wins}. {f.attainable} of the {m} "
                     f"comparisons had datasets and zero differences that allowed a p below the threshold; the "
                     f"smallest p observed was {f.smallest_p:.2g}.")
        lines += [text, ""]
    return lines


def headline(record: Record, label: str) -> list[str]:
    """Sentences on the aggregate at one k, every number from the run."""
    r = record.ranking(label)
    labels = record.labels
    lines = [f"### k = {label}", ""]
    if r.friedman is None:
        lines += [f"No Friedman test at this k: {r.why_no_test}.", ""]
    else:
        f = r.friedman
        ranks = r.average_ranks.sort_values()
        verdict = "rejects" if f.pvalue < protocol.ALPHA else "does not reject"
        statistic = (f"F = {f.f:.2f}" if math.isfinite(f.f) else
                     f"chi2_F = {f.chi2:.2f}, its largest value: every dataset ranks the methods alike, so F is "
                     "infinite")
        lines += [f"Over {len(r.datasets)} datasets and {len(r.methods)} methods the Friedman test (Iman-Davenport "
                  f"{statistic} against F({f.df1}, {f.df2}), p = {f.pvalue:.3g}) {verdict} equal performance at "
                  f"{protocol.ALPHA:g}. Nemenyi's critical difference is {r.cd:.2f}"
                  + (f", more than the largest possible gap between two average ranks ({len(r.methods) - 1}): "
                     "no pair can be resolved by it. " if r.cd >= len(r.methods) - 1 else
                     f" (the largest possible gap between two average ranks is {len(r.methods) - 1}). ")
                  + (("Average ranks, best first: " + ", ".join(f"{labels[m]} {v:.2f}" for m, v in ranks.items()))
                     if len(ranks) <= 6 else
                     ("Best average ranks: " + ", ".join(f"{labels[m]} {v:.2f}" for m, v in ranks.head(3).items())
                      + "; worst: " + ", ".join(f"{labels[m]} {v:.2f}" for m, v in ranks.tail(2).items()))) + ".", ""]
    lines += family_lines(record, label)
    if r.left_out_methods or r.left_out_datasets:
        lines += ["Left out of the ranks at this k (gap rule): "
                  + "; ".join([f"{labels[m]} ({w})" for m, w in r.left_out_methods.items()]
                              + [f"{record.titles[d]} ({w})" for d, w in r.left_out_datasets.items()]) + ".", ""]
    return lines


def _table(df: pd.DataFrame) -> list[str]:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return out


def dataset_table(record: Record, slug: str, label: str) -> pd.DataFrame:
    """One dataset at one k: method, metric [interval], stability [interval], recall, CPU s, and why a
    method has no numbers there ("not applicable" or "failed" in the metric's column, the reason last)."""
    part = record.summary[(record.summary["dataset"] == slug) & (record.summary["k_label"].isin([label, "all"]))]
    rows = []
    for r in part.itertuples():
        if r.status != "ok":
            outcome, _, reason = r.status.partition(": ")
            rows.append({"method": record.labels[r.method], "metric": outcome, "stability": "", "recall": "",
                         "CPU s per fit": "", "why": reason})
            continue
        e = Estimate(r.value, r.low, r.high, protocol.LEVEL, "")
        stab = "" if r.method == "all features" or not np.isfinite(r.stability) else _fmt(
            Estimate(r.stability, r.stability_low, r.stability_high, protocol.LEVEL, ""), 2)
        recall = "" if not (isinstance(r.recall, float) and math.isfinite(r.recall)) else _fmt(
            Estimate(r.recall, r.recall_low, r.recall_high, protocol.LEVEL, ""), 2)
        cpu = "" if r.method == "all features" else f"{r.fit_cpu_median:.3g} [{r.fit_cpu_q1:.3g}, {r.fit_cpu_q3:.3g}]"
        rows.append({"method": record.labels[r.method], "metric": _fmt(e), "stability": stab, "recall": recall,
                     "CPU s per fit": cpu, "why": ""})
    return pd.DataFrame(rows)


def gaps(record: Record) -> list[str]:
    bad = record.status[record.status["status"] != "ok"]
    if bad.empty:
        return ["Every method ran on every dataset."]
    return [f"- {record.titles[r.dataset]}, {record.labels[r.method]}: {r.status}" for r in bad.itertuples()]


def notes(record: Record) -> list[str]:
    """The adaptations and warnings of the fits (binarised features, an estimator without a ranking,
    solver warnings), once per dataset and method: nothing a fit did silently."""
    noted = record.status[record.status["notes"].astype(str).str.strip() != ""]
    if noted.empty:
        return ["No fit adapted the data or warned."]
    return [f"- {record.titles[r.dataset]}, {record.labels.get(r.method, r.method)}: {r.notes}"
            for r in noted.itertuples()]


def markdown(record: Record, rows: list[results_file.Row]) -> str:
    s = record.seconds
    first = record.k_labels[0]
    lines = [
        "# Benchmark: which selector wins where, and how sure are we", "",
        f"Command: `{record.command or 'fsengine benchmark'}`" + (" (quick: a CI-sized run, not the benchmark)"
                                                                 if record.quick else "")
        + f". Run time {s.get('wall', float('nan')) / 60:.1f} minutes of wall-clock time on {record.where} "
          f"({s.get('cpu_main_process', float('nan')) / 60:.1f} CPU minutes in the main process).", "",
        f"{len(record.info)} datasets, {len(record.methods)} methods, k grid {record.settings.k_grid}.", "",
        "## Over the datasets", "", PROCEDURE, "",
    ]
    for label in record.k_labels:
        lines += headline(record, label)
    lines += ["## The protocol (frozen in code)", "", *protocol_lines(record), "",
              "## The suite", "",
              *_table(record.info[["title", "rows", "features", "n_classes", "metric", "truth", "why"]]
                      .rename(columns={"truth": "true features"})), "",
              "## Methods", "", *_table(record.methods[["key", "label", "needs", "parameters"]]), "",
              "## Not applicable and failed", "", *gaps(record), "",
              "## Adaptations and warnings", "", *notes(record), ""]
    lines += ["## Selections alike", ""]
    for label in record.k_labels:
        sim = record.similarity(label)
        pairs = [(sim.loc[a, b], a, b) for i, a in enumerate(sim.index) for b in sim.columns[i + 1:]
                 if np.isfinite(sim.loc[a, b])]
        pairs.sort(reverse=True)
        if pairs:
            lines.append(f"- k = {label}: most alike " + ", ".join(
                f"{record.labels[a]} / {record.labels[b]} {v:.2f}" for v, a, b in pairs[:3])
                + "; least alike " + ", ".join(f"{record.labels[a]} / {record.labels[b]} {v:.2f}"
                                                for v, a, b in pairs[-2:]) + " (mean Jaccard of the top-k sets).")
    lines += ["", "## Accuracy against time", ""]
    for label in record.k_labels:
        t = record.tradeoff(label)
        if len(t):
            front = t[t["pareto"]].sort_values("cpu_seconds")
            lines.append(f"- k = {label}: Pareto front (fastest first) " + ", ".join(
                f"{record.labels[r.method]} (rank {r.average_rank:.2f}, {r.cpu_seconds:.3g} CPU s)"
                for r in front.itertuples()) + ".")
    lines += ["", f"## Per dataset at k = {first}", ""]
    for slug in record.info["dataset"]:
        lines += [f"### {record.titles[slug]}", "", *_table(dataset_table(record, slug, first)), ""]
    aggregate_rows = [r for r in rows if r.quantity.startswith("k=")]
    lines += ["## Files", "",
              "`folds.csv` is the raw per-fold table (held-out counts, metric, recall and fit seconds of every "
              "dataset, fold, method and k): every interval, rank and test here is recomputed from it. "
              "`summary.csv` per dataset, method and k; `ranks.csv`, `friedman.csv`, `pairs.csv` (both Holm "
              "families), `families.csv` (what each family could resolve), `similarity.csv`, "
              "`tradeoff.csv` the aggregate at every k; `tops.csv` the top features of every fit; `status.csv`; "
              "`report.html` the figures (opens offline); `results.json` every row below and one per dataset, "
              "method and k.", "",
              "## Headline numbers over the datasets (`results.json`)", "", *results_file.markdown(aggregate_rows)]
    return "\n".join(lines) + "\n"


def html_report(record: Record) -> str:
    """The self-contained report: the four explorables, each dataset's accuracy curves, the tables."""
    from fsengine.plots import benchmark as plots
    from fsengine.plots.style import disarm_links

    title = "Benchmark: which selector wins where, and how sure are we"
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>", f"<title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;max-width:1150px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{padding:3px 8px;"
             "border-bottom:1px solid #ddd;text-align:left}th{background:#f4f4f4}p.note{color:#555}</style>",
             "</head><body>", f"<h1>{html.escape(title)}</h1>",
             f"<p>{len(record.info)} datasets, {len(record.methods)} methods, k grid "
             f"{html.escape(record.settings.k_grid)}; protocol {protocol.VERSION}, fingerprint "
             f"<code>{record.fingerprint}</code>; {html.escape(record.where)}.</p>",
             f"<p>{html.escape(PROCEDURE)}</p>"]
    for label in record.k_labels:
        parts.append("<p>" + html.escape(" ".join(line for line in headline(record, label)[2:] if line)) + "</p>")
    first = True
    figures = [("cd", "Critical-difference diagram", plots.cd_explorable(record)),
               ("ranks", "Ranks per dataset", plots.ranks_explorable(record)),
               ("similarity", "Which methods select alike", plots.similarity_explorable(record)),
               ("tradeoff", "Accuracy against time", plots.tradeoff_explorable(record))]
    for key, heading, fig in figures:
        parts += [f"<h2>{html.escape(heading)}</h2>",
                  disarm_links(fig).to_html(full_html=False, include_plotlyjs=first, div_id=f"benchmark-{key}"),
                  f"<p class='note'>{html.escape(EXPLANATIONS[key])}</p>"]
        first = False
    parts += ["<h2>Protocol</h2><ul>" + "".join(f"<li>{html.escape(line[2:])}</li>" for line in protocol_lines(record))
              + "</ul>", "<h2>Not applicable and failed</h2><ul>"
              + "".join(f"<li>{html.escape(line.lstrip('- '))}</li>" for line in gaps(record)) + "</ul>"]
    for slug in record.info["dataset"]:
        parts.append(f"<h2>{html.escape(record.titles[slug])}</h2>")
        fig = plots.accuracy_figure(record, slug)
        if fig is not None:
            parts.append(disarm_links(fig).to_html(full_html=False, include_plotlyjs=False,
                                                   div_id=f"benchmark-accuracy-{slug}"))
        parts.append(dataset_table(record, slug, record.k_labels[0]).to_html(index=False, border=0, escape=True))
    parts.append("</body></html>")
    return "\n".join(parts)


def write(record: Record, out_dir: Path) -> Path:
    """Every file of the run folder; returns the report's path."""
    out_dir = Path(out_dir)
    write_tables(record, out_dir)
    rows = result_rows(record)
    inputs = {"protocol": record.protocol, "settings": record.settings.as_dict(),
              "fingerprint": record.fingerprint, "datasets": record.info[["dataset", "spec", "classes", "rows",
                                                                          "features", "metric"]].to_dict("records"),
              "methods": record.methods[["key", "parameters"]].to_dict("records"),
              "status": {f"{r.dataset} / {r.method}": r.status for r in record.status.itertuples() if r.status != "ok"}}
    results_file.write(out_dir, TARGET, record.quick, inputs, rows, command=record.command or None)
    (out_dir / "report.html").write_text(html_report(record), encoding="utf-8")
    path = out_dir / "report.md"
    path.write_text(markdown(record, rows), encoding="utf-8")
    return path
