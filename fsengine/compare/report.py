"""Export of a comparison: its figures, CSV tables (files or one zip) and a self-contained HTML
report (plotly.js embedded once, so it opens offline)."""

from __future__ import annotations

import html
import io
import zipfile
from pathlib import Path

import plotly.graph_objects as go

from fsengine.compare.analyses import RANDOM, ComparisonResult
from fsengine.csv_export import to_csv
from fsengine.formatting import percent
from fsengine.plots.compare import (
    accuracy_curves,
    difference_curves,
    jaccard_heatmap,
    relevance_grid,
    roc_curves,
    stability_bars,
    stability_differences,
)
from fsengine.plots.style import disarm_links
from fsengine.stats import LEVEL

#: what each view tells (shown under the figures on the page and in the report)
EXPLANATIONS = {
    "accuracy": "Each method ranks the features on the training part; a logistic regression is then trained "
                "on its first k features and scored on the held-out part. A curve that rises early means the "
                "top of the ranking carries the signal; the grey dashed curve is k random features, the dotted "
                "lines all features and always guessing the majority class. The bands are 95% intervals: an "
                "accuracy measured on a few hundred rows is uncertain by a few points. Bands that overlap do "
                "not settle whether two methods differ: both were scored on the same rows, and the paired "
                "differences below use that.",
    "differences": "Each method's held-out accuracy minus the reference's at every k, on the same rows (paired: "
                   "a row both get right or both get wrong adds nothing to the difference). A filled marker: the "
                   "interval excludes 0, so the verdict is 'better' or 'worse'; an open marker: 'not resolved', "
                   "these rows cannot tell the two apart. The intervals are Bonferroni-widened for the number of "
                   "methods compared with the reference, so that at one k they hold together at 95% and ten "
                   "methods do not produce a 'better' by chance. Each k is its own family: scanning all k for a "
                   "'better' is less safe than reading the k chosen beforehand.",
    "jaccard": "Jaccard overlap |A ∩ B| / |A ∪ B| of two methods' top-k sets: 1 = the same features, "
               "0 = nothing in common. Methods can agree on accuracy yet pick different features, e.g. one "
               "of two correlated pixels each.",
    "stability": "Each method is refitted on bootstrap resamples of the training rows. Kuncheva's index "
                 "(r n - k²) / (k (n - k)) of two top-k sets with r shared features out of n corrects the "
                 "overlap for chance: 1 = the same set every time, 0 = no better than random sets of size k, "
                 "negative = less overlap than chance. The whiskers are 95% jackknife intervals of the mean "
                 "over pairs (each resample left out in turn; 5 or more resamples; few resamples give wide "
                 "intervals). Hatched bars: some fit had tied scores at the cut, so part of its top-k was "
                 "decided by feature index. The diamonds are Nogueira, Sechidis & Brown's (2018) estimator "
                 "Φ = 1 − mean_f s_f² / (k̄/n (1 − k̄/n)) from each feature's selection frequency; on top-k sets, "
                 "all of size k, it equals Kuncheva's mean (both are the mean correlation of the selection "
                 "vectors), so the diamond sits on the bar; its whisker is their asymptotic 95% interval, which "
                 "assumes many resamples (with 5 it is a rough guide, often narrower than the jackknife's).",
    "stability_difference": "Nogueira et al.'s test of equal stability: each method's Φ minus the reference's, "
                            "paired, because every method was refitted on the same bootstrap resamples (the "
                            "variance is that of the per-resample influence differences, so what the resamples "
                            "share cancels). The whiskers are Bonferroni intervals over the m − 1 methods set "
                            "against the reference (the accuracy differences' level); the verdict, filled marker "
                            "'more stable' or 'less stable', comes from the p-value Holm-adjusted over those m − 1 "
                            "tests at this k (Holm rejects whenever the Bonferroni interval excludes 0, and "
                            "sometimes more); an open marker is 'not resolved'. Each k is its own family.",
    "roc": "On synthetic data the truly relevant features are known. Sweeping a threshold down a method's "
           "scores traces the ROC curve: the share of relevant features found against the share of "
           "irrelevant ones let in. AUC is the probability that a relevant feature outscores an irrelevant "
           "one (1 = perfect ordering, 0.5 = chance).",
    "relevance": "Each method's scores over the pixels, scaled to [0, 1] by its own range (blank: the method "
                 "gave the pixel no score, e.g. a constant pixel). Red squares are its top-k pixels.",
    "runtime": "Wall-clock seconds of one fit on the training part and the median and interquartile range "
               "(the middle half) of the bootstrap fits, which are already run for the stability; 'selected by "
               "method' is the method's own stopping rule or threshold.",
}


def comparison_figures(result: ComparisonResult, k: int, reference: str | None = None) -> dict[str, go.Figure]:
    """Every figure of the comparison at top-k size ``k`` (differences against ``reference``,
    default the first method), keyed like :data:`EXPLANATIONS`.

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> from fsengine.compare import comparison_figures
    >>> figures = comparison_figures(result, 3)
    >>> sorted(figures)[:3]
    ['accuracy', 'differences', 'jaccard']
    """
    figures = {
        "accuracy": accuracy_curves(result.accuracy, all_features=result.all_features_accuracy,
                                    majority=result.majority_accuracy, random_label=RANDOM, k=k,
                                    all_features_interval=result.all_features_interval, note=result.band_note()),
    }
    differences = result.differences(reference)
    if len(differences):
        figures["differences"] = difference_curves(differences, k=k, note=difference_note(result))
    figures["jaccard"] = jaccard_heatmap(result.jaccard(k), k)
    stability = result.stability(k, reference)
    if stability["kuncheva"].notna().any():
        figures["stability"] = stability_bars(stability, k)
    if stability["stability_difference"].notna().any():
        figures["stability_difference"] = stability_differences(stability, k, note=stability_note(result))
    if result.truth is not None:
        figures["roc"] = roc_curves(result.roc(), result.auc())
    if result.image_shape is not None:
        figures["relevance"] = relevance_grid({r.label: r.scores for r in result.runs}, result.image_shape,
                                              top=result.top_k(k))
    return figures


def difference_note(result: ComparisonResult) -> str:
    """What the difference figure's bands are, in one line."""
    m = len(result.runs) - 1
    how = "exact paired (McNemar)" if result.held_out.n_repeats == 1 else "paired corrected resampled t"
    return (f"bands: {percent(result.comparison_level())} {how} (Bonferroni, {m} method{'s' if m != 1 else ''}); "
            "filled = resolved")


def stability_note(result: ComparisonResult) -> str:
    """What the stability-difference figure's whiskers and markers are, in one line."""
    m = len(result.runs) - 1
    return (f"whiskers: {percent(result.comparison_level())} paired (Bonferroni, {m} method{'s' if m != 1 else ''}); "
            f"filled = Holm-adjusted p ≤ {1 - LEVEL:g}")


def stability_at(result: ComparisonResult, k: int, reference: str | None = None):
    """The stability table at ``k`` for a reader: both intervals and Nogueira's paired test against
    the reference first (what fits a 1280 px page), then the rest (Nogueira's value, which equals
    Kuncheva's on top-k sets, the difference's interval, the raw p-value); no text columns that
    repeat on every row."""
    table = result.stability(k, reference).rename(columns={"low": "kuncheva_low", "high": "kuncheva_high"})
    return table[["method", "kuncheva", "kuncheva_low", "kuncheva_high", "nogueira_low", "nogueira_high",
                  "stability_difference", "stability_verdict", "stability_p_holm", "nogueira",
                  "stability_difference_low", "stability_difference_high", "stability_p", "ties_at_cut"]]


def write_tables(result: ComparisonResult, k: int, out_dir: Path, reference: str | None = None) -> list[Path]:
    """Each table of :meth:`ComparisonResult.tables` as ``out_dir/<name>.csv`` (formula-like text escaped,
    :mod:`fsengine.csv_export`).

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> import tempfile
    >>> from pathlib import Path
    >>> from fsengine.compare import write_tables
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = write_tables(result, 3, Path(folder))
    ...     names = sorted(p.name for p in paths)
    >>> names[:3]
    ['accuracy.csv', 'differences.csv', 'jaccard.csv']
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, table in result.tables(k, reference).items():
        path = out_dir / f"{name}.csv"
        to_csv(table, path, index=False)
        paths.append(path)
    return paths


def tables_zip(result: ComparisonResult, k: int, reference: str | None = None) -> bytes:
    """The same CSV files in one zip archive (for a download button).

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> import io
    >>> import zipfile
    >>> from fsengine.compare import tables_zip
    >>> names = zipfile.ZipFile(io.BytesIO(tables_zip(result, 3))).namelist()
    >>> "summary.csv" in names and "differences.csv" in names
    True
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, table in result.tables(k, reference).items():
            archive.writestr(f"{name}.csv", to_csv(table, index=False))
    return buffer.getvalue()


def _table_html(table) -> str:
    return table.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0, classes="table",
                         na_rep="-", escape=True)


def differences_at(result: ComparisonResult, k: int, reference: str | None = None):
    """The differences from the reference at the accuracy-grid point nearest ``k`` (one row per method)."""
    table = result.differences(reference)
    return table[table["k"] == result.grid_k(k)].drop(columns=["reference", "interval_method"])


def verdict_grid(result: ComparisonResult, reference: str | None = None):
    """Methods x k of the grid: each verdict as a sign (+ better, − worse, · not resolved)."""
    table = result.differences(reference)
    signs = table["verdict"].map({"better": "+", "worse": "−", "not resolved": "·"})
    return table.assign(sign=signs).pivot(index="method", columns="k", values="sign").loc[
        list(dict.fromkeys(table["method"]))].reset_index()


def html_report(result: ComparisonResult, k: int, reference: str | None = None) -> str:
    """A self-contained HTML page: settings, notes, the summary with its sentence on what is
    resolved, every figure with its explanation, the differences and the other tables.

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> from fsengine.compare import html_report
    >>> page = html_report(result, 3)
    >>> import re
    >>> page.lstrip().lower().startswith("<!doctype html>"), re.findall(r"<script[^>]* src=", page)
    (True, [])
    """
    s = result.settings
    ref = result.reference(reference)
    title = f"Feature-selection comparison: {result.dataset}"
    splits = "one train/test split" if s.n_repeats == 1 else f"{s.n_repeats} repeated train/test splits"
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1150px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{padding:3px 8px;"
        "border-bottom:1px solid #ddd;text-align:right}th{background:#f4f4f4}p.note{color:#555}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{result.n_train:,} training and {result.n_test:,} held-out rows, {result.n_features:,} features, "
        f"classes {html.escape(', '.join(result.classes))}. Methods: {html.escape(', '.join(result.labels))}. "
        f"Top-k size k = {k}; held-out share {s.test_size:g}; {splits}; {s.n_bootstrap} bootstrap resamples; "
        f"seed {s.seed}; reference method {html.escape(ref)}. Total time {result.seconds:.1f} s.</p>",
    ]
    notes = list(result.notes) + [n for r in result.runs for n in r.notes]
    notes += [f"{label} failed: {message}" for label, message in result.failures.items()]
    if notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    parts += ["<h2>Summary</h2>", f"<p><b>{html.escape(result.resolved_sentence(k, ref))}</b></p>",
              _table_html(result.summary(k, ref)),
              f"<p class='note'>{html.escape(result.interval_note())} No k is picked for a method: the k with the "
              "highest accuracy on these held-out rows would report an optimistic number.</p>"]
    headings = {"accuracy": "Held-out accuracy", "differences": f"Paired differences from {ref}",
                "jaccard": "Overlap of the selections", "stability": "Stability",
                "stability_difference": f"Stability against {ref} (Nogueira et al.'s paired test)",
                "roc": "ROC against the known truth", "relevance": "Relevance heatmaps"}
    first = True
    for name, fig in comparison_figures(result, k, ref).items():
        parts.append(f"<h2>{html.escape(headings[name])}</h2>")
        parts.append(disarm_links(fig).to_html(full_html=False, include_plotlyjs=True if first else False))
        parts.append(f"<p class='note'>{html.escape(EXPLANATIONS[name])}</p>")
        if name == "differences":
            parts += [f"<h3>At k = {result.grid_k(k)}</h3>", _table_html(differences_at(result, k, ref)),
                      "<h3>Verdicts at every k (+ better, − worse, · not resolved)</h3>",
                      _table_html(verdict_grid(result, ref))]
        first = False
    parts += ["<h2>Runtime</h2>", _table_html(result.runtime()),
              f"<p class='note'>{html.escape(EXPLANATIONS['runtime'])}</p>"]
    stability = result.stability(k, ref)
    if stability["kuncheva"].notna().any():
        tested = int(stability["stability_p"].notna().sum())
        parts += ["<h2>Stability table</h2>",
                  f"<p>At k = {k}: Kuncheva's index with its jackknife interval, Nogueira et al.'s estimator with "
                  f"its asymptotic interval, and their paired test of equal stability against {html.escape(ref)} "
                  f"({tested} test{'s' if tested != 1 else ''}, Holm-adjusted).</p>", _table_html(stability)]
    parts.append("</body></html>")
    return "\n".join(parts)
