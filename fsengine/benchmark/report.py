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

from fsengine.benchmark import protocol
from fsengine.benchmark.record import Record, write_tables
from fsengine.formatting import interval_digits
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
             "that is first on average can still be last on some datasets: the rows show where. Blank cells: the "
             "method has no result there or the dataset is left out at this k (the gap rule in the text).",
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
    d = interval_digits(e.low, e.high, digits=digits)
    return f"{e.value:.{d}f} [{e.low:.{d}f}, {e.high:.{d}f}]"


def min_attainable_p(n_datasets: int) -> float:
    """The smallest two-sided p-value Wilcoxon's exact test can give on ``n`` datasets: 2 / 2^n."""
    return 2.0 / 2.0 ** n_datasets


def pair_rows(record: Record, label: str) -> list[results_file.Row]:
    """One row per tested pair at ``label``: the Hodges-Lehmann median difference of the metric over
    the common datasets with its signed-rank interval at the Bonferroni level over the m pairs (what
    Holm's first step uses; later steps are less strict, so Holm can resolve a pair whose Bonferroni
    interval reaches 0), and the verdict of Holm's procedure."""
    r = record.ranking(label)
    tested = [p for p in r.pairs if np.isfinite(p.test.pvalue)]
    if not tested:
        return []
    m = len(tested)
    level = bonferroni_level(protocol.LEVEL, m)
    scores = _scores(record, label)
    labels = record.labels
    rows = []
    for p in tested:
        both = scores[[p.a, p.b]].dropna()
        e = signed_rank_interval((both[p.a] - both[p.b]).to_numpy(), level)
        a, b = labels[p.a], labels[p.b]
        rule = f"Holm-adjusted Wilcoxon signed-rank p {{}} {protocol.ALPHA:g}"
        if p.verdict.startswith("resolved"):
            first, second = (a, b) if p.verdict == f"resolved: {p.a} > {p.b}" else (b, a)
            verdict = f"resolved: {first} > {second} ({rule.format('<')})"
        else:
            verdict = f"not resolved: {a} vs {b} ({rule.format('>=')})"
        rows.append(results_file.Row(f"k={label}: {a} − {b}, median difference of the metric over {len(both)} "
                                     "datasets", None, e.value, verdict, [e.low, e.high], e.level,
                                     f"{e.method}; Bonferroni level over {m} pairs"))
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
            rows += [results_file.recorded(f"k={label}: Friedman test, Iman-Davenport F", f.f,
                                           note="against F(k - 1, (k - 1)(N - 1)) over the complete datasets"),
                     results_file.recorded(f"k={label}: Friedman test, p-value", f.pvalue,
                                           note="Iman-Davenport F, complete datasets"),
                     results_file.recorded(f"k={label}: Nemenyi critical difference", r.cd,
                                           note=f"studentized range at {protocol.ALPHA:g} / sqrt 2")]
        for method, value in r.average_ranks.items():
            rows.append(results_file.recorded(f"k={label}: average rank of {labels[method]}", float(value),
                                              note="over the complete datasets (1 = best)"))
        rows += pair_rows(record, label)
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
        f"- Over datasets: Friedman test (Iman-Davenport), Nemenyi's CD and Holm-corrected Wilcoxon signed-rank "
        f"tests of every pair, all at {protocol.ALPHA:g}.",
        "- Method parameters: the registry's defaults (what the app and the command line use)"
        + ("; changed here: " + "; ".join(f"{k}: " + ", ".join(f"{n}={v}" for n, v in values.items())
                                          for k, values in s.params.items()) if s.params else "") + ".",
    ]


def headline(record: Record, label: str) -> list[str]:
    """Sentences on the aggregate at one k, every number from the run."""
    r = record.ranking(label)
    labels = record.labels
    lines = [f"### k = {label}", ""]
    if r.friedman is None:
        return lines + [f"No Friedman test at this k: {r.why_no_test}.", ""]
    f = r.friedman
    ranks = r.average_ranks.sort_values()
    verdict = "rejects" if f.pvalue < protocol.ALPHA else "does not reject"
    lines.append(f"Over {len(r.datasets)} datasets and {len(r.methods)} methods the Friedman test (Iman-Davenport "
                 f"F = {f.f:.2f} against F({f.df1}, {f.df2}), p = {f.pvalue:.3g}) {verdict} equal performance at "
                 f"{protocol.ALPHA:g}. Nemenyi's critical difference is {r.cd:.2f}. "
                 + (("Average ranks, best first: " + ", ".join(f"{labels[m]} {v:.2f}" for m, v in ranks.items()))
                    if len(ranks) <= 6 else
                    ("Best average ranks: " + ", ".join(f"{labels[m]} {v:.2f}" for m, v in ranks.head(3).items())
                     + "; worst: " + ", ".join(f"{labels[m]} {v:.2f}" for m, v in ranks.tail(2).items()))) + ".")
    tested = [p for p in r.pairs if np.isfinite(p.test.pvalue)]
    resolved = [p for p in tested if p.verdict.startswith("resolved")]
    lines.append("")
    smallest = min((p.test.n for p in tested), default=0)
    limit = (f" With {smallest} datasets the smallest p-value the exact test can give is "
             f"{min_attainable_p(smallest):.2g}, and Holm's first step asks for p < "
             f"{protocol.ALPHA / max(1, len(tested)):.2g} ({protocol.ALPHA:g} / {len(tested)} pairs)" if tested else "")
    lines.append(f"Of {len(tested)} pairs of methods, {len(resolved)} are resolved after Holm's correction"
                 + (": " + "; ".join(p.verdict.split(': ', 1)[1].replace(p.a, labels[p.a]).replace(p.b, labels[p.b])
                                     for p in resolved) if resolved else "") + "." + (limit + "." if limit else ""))
    if r.left_out_methods or r.left_out_datasets:
        lines += ["", "Left out at this k (gap rule): "
                  + "; ".join([f"{labels[m]} ({w})" for m, w in r.left_out_methods.items()]
                              + [f"{record.titles[d]} ({w})" for d, w in r.left_out_datasets.items()]) + "."]
    return lines + [""]


def _table(df: pd.DataFrame) -> list[str]:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return out


def dataset_table(record: Record, slug: str, label: str) -> pd.DataFrame:
    """One dataset at one k: method, status, metric [interval], stability [interval], recall, CPU s."""
    part = record.summary[(record.summary["dataset"] == slug) & (record.summary["k_label"].isin([label, "all"]))]
    rows = []
    for r in part.itertuples():
        if r.status != "ok":
            rows.append({"method": record.labels[r.method], "metric": r.status, "stability": "", "recall": "",
                         "CPU s per fit": ""})
            continue
        e = Estimate(r.value, r.low, r.high, protocol.LEVEL, "")
        stab = "" if r.method == "all features" or not np.isfinite(r.stability) else _fmt(
            Estimate(r.stability, r.stability_low, r.stability_high, protocol.LEVEL, ""), 2)
        recall = "" if not (isinstance(r.recall, float) and math.isfinite(r.recall)) else _fmt(
            Estimate(r.recall, r.recall_low, r.recall_high, protocol.LEVEL, ""), 2)
        cpu = "" if r.method == "all features" else f"{r.fit_cpu_median:.3g} [{r.fit_cpu_q1:.3g}, {r.fit_cpu_q3:.3g}]"
        rows.append({"method": record.labels[r.method], "metric": _fmt(e), "stability": stab, "recall": recall,
                     "CPU s per fit": cpu})
    return pd.DataFrame(rows)


def gaps(record: Record) -> list[str]:
    bad = record.status[record.status["status"] != "ok"]
    if bad.empty:
        return ["Every method ran on every dataset."]
    return [f"- {record.titles[r.dataset]}, {record.labels[r.method]}: {r.status}" for r in bad.itertuples()]


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
              "## Not applicable and failed", "", *gaps(record), ""]
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
              "`summary.csv` per dataset, method and k; `ranks.csv`, `friedman.csv`, `pairs.csv`, `similarity.csv`, "
              "`tradeoff.csv` the aggregate at every k; `tops.csv` the top features of every fit; `status.csv`; "
              "`report.html` the figures (opens offline); `results.json` every row below and one per dataset, "
              "method and k.", "",
              "## Headline numbers over the datasets (`results.json`)", "", *results_file.markdown(aggregate_rows)]
    return "\n".join(lines) + "\n"


def html_report(record: Record) -> str:
    """The self-contained report: the four explorables, each dataset's accuracy curves, the tables."""
    from fsengine.plots import benchmark as plots
    from fsengine.plots.compare import accuracy_curves
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
        base = record.all_features(slug)
        acc = record.accuracy_table(slug)
        parts.append(f"<h2>{html.escape(record.titles[slug])}</h2>")
        if len(acc) and base is not None:
            fig = accuracy_curves(acc.assign(curve=acc["curve"]), all_features=float(base["value"]),
                                  majority=record.majority(slug), random_label="(none)",
                                  title=f"{record.titles[slug]}: held-out {base['metric']}",
                                  note="bands: 95% corrected resampled t over the outer folds")
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
    inputs = {"protocol": protocol.description(), "settings": record.settings.as_dict(),
              "fingerprint": record.fingerprint, "datasets": record.info[["dataset", "spec", "classes", "rows",
                                                                          "features", "metric"]].to_dict("records"),
              "methods": record.methods[["key", "parameters"]].to_dict("records"),
              "status": {f"{r.dataset} / {r.method}": r.status for r in record.status.itertuples() if r.status != "ok"}}
    results_file.write(out_dir, TARGET, record.quick, inputs, rows)
    (out_dir / "report.html").write_text(html_report(record), encoding="utf-8")
    path = out_dir / "report.md"
    path.write_text(markdown(record, rows), encoding="utf-8")
    return path
