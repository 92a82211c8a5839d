"""Figures of a benchmark across datasets, each an explorable whose slider is the grid's k
(:mod:`fsengine.plots.explorable`: every k's data embedded once, a move answered by the browser):

=============================  =====================================================================
:func:`cd_explorable`          the critical-difference diagram (Demšar 2006): average ranks on a line,
                               Nemenyi's CD as a bar, methods not resolved from each other joined
:func:`ranks_explorable`       ranks heatmap, dataset x method (1 = best; blank: no result there)
:func:`similarity_explorable`  which methods select alike: mean Jaccard of their top-k sets
:func:`tradeoff_explorable`    average rank against fit time, with the Pareto front
:func:`stability_bars`         one dataset's Nogueira stability per method at one k (the drill-down)
:func:`accuracy_figure`        one dataset's held-out metric against k per method (the drill-down)
=============================  =====================================================================

Pure builders: a :class:`fsengine.benchmark.record.Record` (or its tables) in, ``go.Figure`` out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from fsengine.plots.compare import method_color
from fsengine.plots.explorable import Step, colour_scale, explorable
from fsengine.plots.style import FOREGROUND, HIGHLIGHT, apply_style

__all__ = ["cd_explorable", "ranks_explorable", "similarity_explorable", "tradeoff_explorable", "stability_bars",
           "accuracy_figure"]


def _start(record, k_label: str | None) -> int:
    labels = record.k_labels
    return labels.index(k_label) if k_label in labels else 0


def _spec(fig: go.Figure) -> dict:
    return {"data": [t.to_plotly_json() for t in fig.data], "layout": fig.layout.to_plotly_json()}


def cliques(names: list[str], ranks: np.ndarray, cd: float | None) -> list[tuple[int, int]]:
    """The groups of a CD diagram: maximal runs (i, j) of the methods sorted by average rank whose
    ranks span less than ``cd`` (Demšar's thick lines: no pair inside is resolved by Nemenyi).

    >>> cliques(["a", "b", "c", "d"], np.array([1.0, 1.5, 2.9, 3.0]), 1.25)
    [(0, 1), (2, 3)]
    """
    if cd is None or len(names) < 2:
        return []
    order = np.argsort(ranks, kind="stable")
    r = ranks[order]
    runs = []
    for i in range(len(r)):
        j = int(np.searchsorted(r, r[i] + cd, side="left")) - 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


def _cd_step(record, label: str, methods: list[str]) -> tuple[dict, dict]:
    """Trace and layout changes of the CD diagram at one k."""
    r = record.ranking(label)
    labels = record.labels
    avg = r.average_ranks
    ranked = [m for m in methods if m in r.methods]
    order = sorted(ranked, key=lambda m: (avg[m], m))
    n = max(1, len(methods))
    y = {m: i for i, m in enumerate(order)}
    xs = [float(avg[m]) if m in ranked else None for m in methods]
    ys = [float(n - 1 - y[m]) if m in ranked else None for m in methods]
    text = [f"{labels.get(m, m)} {avg[m]:.2f}" if m in ranked else "" for m in methods]
    middle = (1.0 + len(methods)) / 2.0  # labels right of a dot in the left half, left of it in the right half
    side = ["middle left" if m in ranked and avg[m] > middle else "middle right" for m in methods]
    runs = cliques(order, np.array([avg[m] for m in order]), r.cd)
    cx, cy = [], []
    for depth, (i, j) in enumerate(runs):
        offset = -0.35 - 0.12 * (depth % 3)
        cx += [float(avg[order[i]]) - 0.03, float(avg[order[j]]) + 0.03, None]
        cy += [float(n - 1 - i) + offset, float(n - 1 - i) + offset, None]
    title = f"k = {label}: average ranks of {len(r.methods)} methods, {len(r.datasets)} datasets (1 = best)"
    if r.friedman is not None:
        f = r.friedman
        subtitle = f"Friedman F = {f.f:.2f}, p = {f.pvalue:.3g}; Nemenyi CD = {r.cd:.2f} (red bar, 0.05)"
        cd = float(r.cd)
    else:
        subtitle = f"no Friedman test: {r.why_no_test}"
        cd = 0.0
    data = {0: {"x": xs, "y": ys, "text": text, "textposition": side,
                "customdata": [labels.get(m, m) for m in methods]},
            1: {"x": cx or [None], "y": cy or [None]}}
    layout = {"title.text": title, "title.subtitle.text": subtitle, "shapes[0].x1": 1.0 + cd,
              "shapes[0].label.text": f"CD = {cd:.2f}" if cd else ""}
    return data, layout


def cd_explorable(record, k_label: str | None = None) -> go.Figure:
    """The critical-difference diagram at every k of the run's grid (the slider): each ranked
    method at its average rank (1 = best, on the left), the thick grey bars join methods whose
    average ranks differ by less than Nemenyi's critical difference (the bar above the axis), so no
    pair inside a bar is resolved by the Nemenyi test at 0.05. Methods left out of the ranks at a k
    (the gap rule) are not drawn there; the page and the report name them.

    Examples
    --------
    >>> from fsengine.benchmark.protocol import Settings
    >>> from fsengine.benchmark.record import from_run
    >>> from fsengine.benchmark.runner import run_benchmark
    >>> from fsengine.benchmark.suite import TINY
    >>> run = run_benchmark(TINY[1:], [("variance", {}), ("anova", {})], Settings(folds=3, repeats=1, k_grid="2,5"))
    >>> record = from_run(run)                      # two small generated datasets, two methods, k = 2 and 5
    >>> from fsengine.plots.benchmark import cd_explorable
    >>> fig = cd_explorable(record)
    >>> [step.label for step in fig.layout.sliders[0].steps]
    ['2', '5']
    """
    methods = [m for m in record.methods["key"]]
    n = max(2, len(methods))
    fig = go.Figure([
        go.Scatter(x=[None] * len(methods), y=[None] * len(methods), mode="markers+text", textposition="middle right",
                   marker=dict(size=11, color=[method_color(record.labels[m], i) for i, m in enumerate(methods)]),
                   hovertemplate="%{customdata}<br>average rank %{x:.3f}<extra></extra>", showlegend=False,
                   name="average rank"),
        go.Scatter(x=[None], y=[None], mode="lines", line=dict(color="rgba(90, 90, 90, 0.75)", width=6),
                   hoverinfo="skip", showlegend=False, name="not resolved (within CD)"),
    ])
    fig.add_shape(type="line", xref="x", yref="y", x0=1.0, x1=1.0, y0=-0.75, y1=-0.75,
                  line=dict(color=HIGHLIGHT, width=4),
                  label=dict(text="", textposition="middle right", font=dict(color=HIGHLIGHT)))
    # a tick per rank up to 15 methods, every other rank beyond (29 single ticks run into each other)
    fig.update_xaxes(range=[0.6, len(methods) + 1.2], tick0=1, dtick=1 if len(methods) <= 15 else 2, side="top")
    fig.update_yaxes(visible=False, range=[-1.1, n - 0.3])
    fig = apply_style(fig, title="Critical-difference diagram", height=max(360, 34 * n + 220))
    fig.update_layout(margin=dict(t=130), title_subtitle_text=" ")
    steps = []
    for label in record.k_labels:
        data, layout = _cd_step(record, label, methods)
        steps.append(Step(label, label, data, layout))
    return explorable(_spec(fig), steps, active=_start(record, k_label), prefix="k = ", name="k")


def ranks_explorable(record, k_label: str | None = None) -> go.Figure:
    """Ranks of the methods (columns) on each dataset (rows) at every k: 1 = best (dark), mid-ranks for
    ties; a blank cell says why: "n/a" (the method is not applicable there), "failed", or "–" (the
    method ran but the dataset or the method is left out of the ranks at that k, the gap rule).

    Examples
    --------
    >>> from fsengine.benchmark.protocol import Settings
    >>> from fsengine.benchmark.record import from_run
    >>> from fsengine.benchmark.runner import run_benchmark
    >>> from fsengine.benchmark.suite import TINY
    >>> run = run_benchmark(TINY[1:], [("variance", {}), ("anova", {})], Settings(folds=3, repeats=1, k_grid="2,5"))
    >>> record = from_run(run)                      # two small generated datasets, two methods, k = 2 and 5
    >>> from fsengine.plots.benchmark import ranks_explorable
    >>> fig = ranks_explorable(record, "5")
    >>> fig.layout.sliders[0].steps[fig.layout.sliders[0].active].label
    '5'
    """
    methods = [m for m in record.methods["key"]]
    datasets = [d for d in record.info["dataset"]]
    labels, titles = record.labels, record.titles
    fig = go.Figure(go.Heatmap(
        z=np.full((len(datasets), len(methods)), np.nan), x=[labels[m] for m in methods],
        y=[titles.get(d, d) for d in datasets], colorscale=colour_scale("Viridis"), reversescale=False,
        zmin=1, zmax=max(2, len(methods)), colorbar=dict(title="rank"), texttemplate="%{text}",
        hovertemplate="%{y}<br>%{x}: rank %{z}<extra></extra>", xgap=1, ygap=1))
    rows = [titles.get(d, d) for d in datasets]
    fig.update_yaxes(autorange="reversed", type="category", tickmode="array", tickvals=rows,
                     ticktext=[_wrap(t) for t in rows])
    _name_every_method(fig, [labels[m] for m in methods])
    fig = apply_style(fig, title="Ranks per dataset", height=max(360, 30 * len(datasets) + 240))
    fig.update_layout(margin_b=130)  # the rotated method names, above the slider
    status = record.status_of()
    steps = []
    for label in record.k_labels:
        r = record.ranking(label)
        z = r.ranks.reindex(index=datasets, columns=methods).to_numpy(dtype=np.float64)
        text = [[f"{v:g}" if np.isfinite(v) else _gap(status.get((d, m), ""), d in r.datasets, m in r.methods)
                 for m, v in zip(methods, row)] for d, row in zip(datasets, z)]
        title = f"k = {label}: ranks (1 = best) on {len(r.datasets)} complete datasets"
        steps.append(Step(label, label, {0: {"z": z.astype(np.float32), "text": text}}, {"title.text": title}))
    return explorable(_spec(fig), steps, active=_start(record, k_label), prefix="k = ", name="k")


#: beyond this many methods a heatmap's method names stand upright (slanted ones would overlap)
UPRIGHT_BEYOND = 12


def _name_every_method(fig: go.Figure, names: list[str]) -> None:
    """A heatmap's x axis names every method (plotly would skip every other one when they are many)."""
    fig.update_xaxes(type="category", tickmode="array", tickvals=names, ticktext=names,
                     tickangle=-90 if len(names) > UPRIGHT_BEYOND else -40)


def _wrap(title: str, width: int = 24) -> str:
    """A long dataset title on two lines (``<br>`` at the last space before ``width``).

    >>> _wrap("XOR pair with redundant label copies (small)")
    'XOR pair with redundant<br>label copies (small)'
    """
    if len(title) <= width or " " not in title[:width]:
        return title
    cut = title[:width].rindex(" ")
    return title[:cut] + "<br>" + title[cut + 1:]


def _gap(status: str, dataset_ranked: bool, method_ranked: bool) -> str:
    """What a blank cell of the ranks heatmap says: the method's status there ("n/a", "failed"), or
    "–" when the method ran but the dataset or the method is left out of the ranks (the gap rule)."""
    if status.startswith("not applicable"):
        return "n/a"
    if status.startswith("failed"):
        return "failed"
    return "–" if not (dataset_ranked and method_ranked) else ""


def similarity_explorable(record, k_label: str | None = None) -> go.Figure:
    """Which methods select alike: the Jaccard overlap of two methods' top-k sets on the same fold,
    averaged over folds and datasets, at every k (1 = the same features).

    Examples
    --------
    >>> from fsengine.benchmark.protocol import Settings
    >>> from fsengine.benchmark.record import from_run
    >>> from fsengine.benchmark.runner import run_benchmark
    >>> from fsengine.benchmark.suite import TINY
    >>> run = run_benchmark(TINY[1:], [("variance", {}), ("anova", {})], Settings(folds=3, repeats=1, k_grid="2,5"))
    >>> record = from_run(run)                      # two small generated datasets, two methods, k = 2 and 5
    >>> from fsengine.plots.benchmark import similarity_explorable
    >>> fig = similarity_explorable(record)
    >>> len(fig.layout.sliders[0].steps)
    2
    """
    methods = [m for m in record.methods["key"]]
    names = [record.labels[m] for m in methods]
    fig = go.Figure(go.Heatmap(z=np.eye(len(methods)), x=names, y=names, zmin=0, zmax=1,
                               colorscale=colour_scale("Blues"), colorbar=dict(title="Jaccard"), texttemplate="%{text}",
                               hovertemplate="%{y} vs %{x}<br>mean Jaccard %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category", tickmode="array", tickvals=names, ticktext=names)
    _name_every_method(fig, names)
    fig = apply_style(fig, title="Similarity of the selections", height=max(380, 28 * len(methods) + 260))
    fig.update_layout(margin_b=130)
    steps = []
    for label in record.k_labels:
        z = record.similarity(label).reindex(index=methods, columns=methods).to_numpy(dtype=np.float64)
        text = [["" if not np.isfinite(v) else f"{v:.2f}" for v in row] for row in z]
        steps.append(Step(label, label, {0: {"z": z.astype(np.float32), "text": text}},
                          {"title.text": f"k = {label}: mean Jaccard of the top-{label} sets"}))
    return explorable(_spec(fig), steps, active=_start(record, k_label), prefix="k = ", name="k")


def pareto_front(table: pd.DataFrame) -> pd.DataFrame:
    """The Pareto-optimal rows of a trade-off table, fastest first (a step line joins them)."""
    return table[table["pareto"]].sort_values("cpu_seconds")


#: a label's size as a share of the plot: per character of its width, and its height
LABEL_CHAR, LABEL_HEIGHT = 0.016, 0.06


def spaced_labels(where: dict[str, tuple[float, float]], labels: dict[str, str], first: list[str]) -> set[str]:
    """The points that get a written label: every one of ``first`` (the Pareto front), then the others,
    best ranked first, each only when its label, centred above it, would not overlap one already
    placed. ``where``: each point's position as shares of the x and y axes; a label is
    :data:`LABEL_CHAR` per character wide and :data:`LABEL_HEIGHT` high. The hover names every point.

    >>> where = {"a": (0.1, 0.1), "b": (0.12, 0.11), "c": (0.8, 0.5)}
    >>> sorted(spaced_labels(where, {"a": "Alpha", "b": "Beta", "c": "Gamma"}, first=[]))
    ['a', 'c']
    """
    placed: list[tuple[float, float, float]] = []
    shown = set()
    for m in list(dict.fromkeys(first)) + sorted((m for m in where if m not in first), key=lambda m: where[m][1]):
        x, y = where[m]
        width = LABEL_CHAR * len(labels.get(m, m))
        if m in first or all(abs(x - px) >= (width + pw) / 2 or abs(y - py) >= LABEL_HEIGHT for px, py, pw in placed):
            placed.append((x, y, width))
            shown.add(m)
    return shown


def tradeoff_explorable(record, k_label: str | None = None) -> go.Figure:
    """Average rank (1 = best, at the top) against the geometric mean over datasets of the median fit
    CPU seconds (log axis), at every k; the Pareto front (no method both better ranked and faster)
    joined by a line. Every method on the front is named; the others are named where their label
    does not cover another (:func:`spaced_labels`), and all of them on hover.

    Examples
    --------
    >>> from fsengine.benchmark.protocol import Settings
    >>> from fsengine.benchmark.record import from_run
    >>> from fsengine.benchmark.runner import run_benchmark
    >>> from fsengine.benchmark.suite import TINY
    >>> run = run_benchmark(TINY[1:], [("variance", {}), ("anova", {})], Settings(folds=3, repeats=1, k_grid="2,5"))
    >>> record = from_run(run)                      # two small generated datasets, two methods, k = 2 and 5
    >>> from fsengine.plots.benchmark import tradeoff_explorable
    >>> fig = tradeoff_explorable(record)
    >>> len(fig.layout.sliders[0].steps)
    2
    """
    methods = [m for m in record.methods["key"]]
    labels = record.labels
    seconds = record.summary.loc[record.summary["method"] != "all features", "fit_cpu_median"]
    low = float(np.nanmin(seconds)) if seconds.notna().any() else 1e-3
    high = float(np.nanmax(seconds)) if seconds.notna().any() else 1.0
    fig = go.Figure([
        go.Scatter(x=[None], y=[None], mode="lines", line=dict(color=FOREGROUND, dash="dot", width=1.5),
                   name="Pareto front", hoverinfo="skip"),
        go.Scatter(x=[None] * len(methods), y=[None] * len(methods), mode="markers+text", textposition="top center",
                   marker=dict(size=12, color=[method_color(labels[m], i) for i, m in enumerate(methods)]),
                   customdata=[labels[m] for m in methods], showlegend=False, name="methods",
                   hovertemplate="%{customdata}<br>average rank %{y:.2f}<br>%{x:.3g} CPU s per fit<extra></extra>"),
    ])
    fig.update_xaxes(type="log", title="CPU seconds per fit (geometric mean over datasets)",
                     range=[np.log10(max(low, 1e-6)) - 0.3, np.log10(max(high, 1e-6)) + 0.3])
    fig.update_yaxes(title="average rank (1 = best)", autorange="reversed")
    fig = apply_style(fig, title="Accuracy against time", height=480)
    fig.update_layout(margin_b=90)  # the axis title, above the slider
    steps = []
    for label in record.k_labels:
        t = record.tradeoff(label).set_index("method")
        xs = [float(t.loc[m, "cpu_seconds"]) if m in t.index else None for m in methods]
        ys = [float(t.loc[m, "average_rank"]) if m in t.index else None for m in methods]
        front = pareto_front(t.reset_index())
        x_span = (np.log10(max(low, 1e-6)) - 0.3, np.log10(max(high, 1e-6)) + 0.3)
        y_span = (float(t["average_rank"].min()) - 0.5, float(t["average_rank"].max()) + 0.5) if len(t) else (0, 1)
        where = {m: ((np.log10(max(t.loc[m, "cpu_seconds"], 1e-6)) - x_span[0]) / (x_span[1] - x_span[0]),
                     (t.loc[m, "average_rank"] - y_span[0]) / max(y_span[1] - y_span[0], 1e-9)) for m in t.index}
        shown = spaced_labels(where, labels, list(front["method"]))
        text = [labels[m] if m in shown else "" for m in methods]
        steps.append(Step(label, label, {
            0: {"x": front["cpu_seconds"].tolist() or [None], "y": front["average_rank"].tolist() or [None]},
            1: {"x": xs, "y": ys, "text": text}},
            {"title.text": f"k = {label}: average rank against fit time ({len(t)} ranked methods)"}))
    return explorable(_spec(fig), steps, active=_start(record, k_label), prefix="k = ", name="k")


#: the downstream classifiers as an axis names them
CLASSIFIER_NAMES = {"logistic": "logistic regression", "knn": "5-nearest neighbours"}


def accuracy_figure(record, slug: str, k_label: str | None = None) -> go.Figure | None:
    """One dataset's held-out metric against k for every method that ran there (the mean over the
    outer folds, its corrected resampled t interval as a band), with the all-features classifier and
    the majority class as lines and ``k_label``'s k marked; None when nothing ran there.

    Examples
    --------
    >>> from fsengine.benchmark.protocol import Settings
    >>> from fsengine.benchmark.record import from_run
    >>> from fsengine.benchmark.runner import run_benchmark
    >>> from fsengine.benchmark.suite import TINY
    >>> run = run_benchmark(TINY[1:], [("variance", {}), ("anova", {})], Settings(folds=3, repeats=1, k_grid="2,5"))
    >>> record = from_run(run)                      # two small generated datasets, two methods, k = 2 and 5
    >>> from fsengine.plots.benchmark import accuracy_figure
    >>> fig = accuracy_figure(record, "glm_tiny", "5")
    >>> sorted({trace.name for trace in fig.data if trace.name in ("Variance", "ANOVA F")})
    ['ANOVA F', 'Variance']
    """
    from fsengine.plots.compare import accuracy_curves

    base, accuracy = record.all_features(slug), record.accuracy_table(slug)
    if base is None or not len(accuracy):
        return None
    title = record.titles[slug]
    ks = record.summary.loc[(record.summary["dataset"] == slug) & (record.summary["k_label"] == k_label), "k"]
    fig = accuracy_curves(accuracy, all_features=float(base["value"]), majority=record.majority(slug),
                          random_label="(none)", k=int(ks.max()) if len(ks) else None,
                          title=f"{title}: held-out {base['metric']} against k",
                          note="bands: 95% corrected resampled t over the outer folds")
    classifier = CLASSIFIER_NAMES.get(record.settings.classifier, record.settings.classifier)
    fig.update_yaxes(title=f"held-out {base['metric']} ({classifier})")
    return fig


def stability_bars(record, slug: str, k_label: str) -> go.Figure:
    """One dataset's Nogueira stability of each method's top-k sets over the outer folds, with its
    asymptotic 95% interval as whiskers (0 = chance, 1 = the same set on every fold).

    Examples
    --------
    >>> from fsengine.benchmark.protocol import Settings
    >>> from fsengine.benchmark.record import from_run
    >>> from fsengine.benchmark.runner import run_benchmark
    >>> from fsengine.benchmark.suite import TINY
    >>> run = run_benchmark(TINY[1:], [("variance", {}), ("anova", {})], Settings(folds=3, repeats=1, k_grid="2,5"))
    >>> record = from_run(run)                      # two small generated datasets, two methods, k = 2 and 5
    >>> from fsengine.plots.benchmark import stability_bars
    >>> fig = stability_bars(record, "glm_tiny", "5")
    >>> list(fig.data[0].x)
    ['Variance', 'ANOVA F']
    """
    part = record.summary[(record.summary["dataset"] == slug) & (record.summary["k_label"] == k_label)
                          & (record.summary["status"] == "ok")].dropna(subset=["stability"])
    names = part["label"].tolist()
    value = part["stability"].to_numpy(dtype=np.float64)
    fig = go.Figure(go.Bar(
        x=names, y=value, marker_color=[method_color(m, i) for i, m in enumerate(names)],
        error_y=dict(type="data", symmetric=False, array=(part["stability_high"] - value).to_numpy(),
                     arrayminus=(value - part["stability_low"]).to_numpy(), color=FOREGROUND, thickness=1.5, width=8),
        text=[f"{v:.2f}" for v in value], textposition="inside", insidetextanchor="start",
        hovertemplate="%{x}<br>stability %{y:.3f}<extra></extra>"))
    fig.add_hline(y=0.0, line=dict(color="#555555", dash="dot", width=1), annotation_text="chance",
                  annotation_position="bottom right")
    fig.update_yaxes(title="Nogueira stability", range=[min(-0.1, float(np.nanmin(value)) - 0.1)
                                                                       if len(value) else -0.1, 1.12])
    fig.update_xaxes(type="category")
    fig = apply_style(fig, title=f"Stability of the top-{k_label} sets over the outer folds", height=400)
    fig.update_layout(title_subtitle_text="whiskers: 95% asymptotic intervals (Nogueira et al. 2018, Theorem 9)",
                      margin_t=110)
    return fig
