"""Figures of a benchmark across datasets, each an explorable whose slider is the grid's k
(:mod:`fsengine.plots.explorable`: every k's data embedded once, a move answered by the browser):

=============================  =====================================================================
:func:`cd_explorable`          the critical-difference diagram (Demšar 2006): average ranks on a line,
                               Nemenyi's CD as a bar, methods not resolved from each other joined
:func:`ranks_explorable`       ranks heatmap, dataset x method (1 = best; blank: no result there)
:func:`similarity_explorable`  which methods select alike: mean Jaccard of their top-k sets
:func:`tradeoff_explorable`    average rank against fit time, with the Pareto front
:func:`stability_bars`         one dataset's Nogueira stability per method at one k (the drill-down)
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

__all__ = ["cd_explorable", "ranks_explorable", "similarity_explorable", "tradeoff_explorable", "stability_bars"]


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
    runs = cliques(order, np.array([avg[m] for m in order]), r.cd)
    cx, cy = [], []
    for depth, (i, j) in enumerate(runs):
        offset = -0.35 - 0.12 * (depth % 3)
        cx += [float(avg[order[i]]) - 0.03, float(avg[order[j]]) + 0.03, None]
        cy += [float(n - 1 - i) + offset, float(n - 1 - i) + offset, None]
    title = f"k = {label}: average rank (1 = best) of {len(r.methods)} methods over {len(r.datasets)} datasets"
    if r.friedman is not None:
        f = r.friedman
        subtitle = f"Friedman F = {f.f:.2f}, p = {f.pvalue:.3g}; Nemenyi CD = {r.cd:.2f} (red bar, 0.05)"
        cd = float(r.cd)
    else:
        subtitle = f"no Friedman test: {r.why_no_test}"
        cd = 0.0
    data = {0: {"x": xs, "y": ys, "text": text, "customdata": [labels.get(m, m) for m in methods]},
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
    fig.update_xaxes(range=[0.6, len(methods) + 1.2], dtick=1, side="top")
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
    ties; blank where a method has no result or the dataset is not in the complete blocks at that k.

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
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", tickangle=-40)
    fig = apply_style(fig, title="Ranks per dataset", height=max(360, 30 * len(datasets) + 240))
    fig.update_layout(margin_b=130)  # the rotated method names, above the slider
    steps = []
    for label in record.k_labels:
        r = record.ranking(label)
        z = r.ranks.reindex(index=datasets, columns=methods).to_numpy(dtype=np.float64)
        text = [["" if not np.isfinite(v) else f"{v:g}" for v in row] for row in z]
        title = f"k = {label}: ranks (1 = best) on {len(r.datasets)} complete datasets"
        steps.append(Step(label, label, {0: {"z": z.astype(np.float32), "text": text}}, {"title.text": title}))
    return explorable(_spec(fig), steps, active=_start(record, k_label), prefix="k = ", name="k")


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
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", tickangle=-40)
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


def tradeoff_explorable(record, k_label: str | None = None) -> go.Figure:
    """Average rank (1 = best, at the top) against the geometric mean over datasets of the median fit
    CPU seconds (log axis), at every k; the Pareto front (no method both better ranked and faster)
    joined by a line.

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
    fig.update_xaxes(type="log", title="fit time: geometric mean over datasets of the median CPU seconds",
                     range=[np.log10(max(low, 1e-6)) - 0.3, np.log10(max(high, 1e-6)) + 0.3])
    fig.update_yaxes(title="average rank (1 = best)", autorange="reversed")
    fig = apply_style(fig, title="Accuracy against time", height=480)
    steps = []
    for label in record.k_labels:
        t = record.tradeoff(label).set_index("method")
        xs = [float(t.loc[m, "cpu_seconds"]) if m in t.index else None for m in methods]
        ys = [float(t.loc[m, "average_rank"]) if m in t.index else None for m in methods]
        text = [labels[m] if m in t.index else "" for m in methods]
        front = pareto_front(t.reset_index())
        steps.append(Step(label, label, {
            0: {"x": front["cpu_seconds"].tolist() or [None], "y": front["average_rank"].tolist() or [None]},
            1: {"x": xs, "y": ys, "text": text}},
            {"title.text": f"k = {label}: average rank against fit time ({len(t)} ranked methods)"}))
    return explorable(_spec(fig), steps, active=_start(record, k_label), prefix="k = ", name="k")


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
    fig.update_yaxes(title="Nogueira stability over the folds", range=[min(-0.1, float(np.nanmin(value)) - 0.1)
                                                                       if len(value) else -0.1, 1.12])
    fig.update_xaxes(type="category")
    fig = apply_style(fig, title=f"Stability of the top-{k_label} sets over the outer folds", height=400)
    fig.update_layout(title_subtitle_text="whiskers: 95% asymptotic intervals (Nogueira et al. 2018, Theorem 9)",
                      margin_t=110)
    return fig
