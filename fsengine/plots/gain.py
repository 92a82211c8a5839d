"""Figures of the IFS / SGC comparison (Zhou et al. 2003, Figs. 3-5) from selection traces.

``traces`` arguments map a method name (IFS, SGC, SGC-LA, Count cutoff) to a selection trace
(:data:`fsengine.methods.gain.model.TRACE_COLUMNS`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from fsengine.formatting import percent
from fsengine.plots.style import METHOD_COLORS, apply_style

__all__ = ["gain_per_stage", "gain_computations", "cumulative_time", "scores_vs_features", "overlap_heatmap",
           "stage_explorable"]

_DASH = {"IFS": "solid", "SGC": "dash", "SGC-LA": "dot", "Count cutoff": "dashdot"}


def _line(name, x, y, **kw):
    return go.Scatter(x=np.asarray(x), y=np.asarray(y), mode="lines", name=name,
                      line=dict(color=METHOD_COLORS.get(name), dash=_DASH.get(name, "solid"), width=2),
                      **kw)


def _gain_methods(traces):
    return {m: t for m, t in traces.items() if m != "Count cutoff" and len(t)}


def gain_per_stage(traces: dict[str, pd.DataFrame]) -> go.Figure:
    """Gain G (Zhou et al.'s per-instance log-likelihood gain) of the feature selected at each
    stage, log scale, methods overlaid.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.selectors import IFSSelector, SGCSelector
    >>> ds = make_planted_maxent(n_samples=600, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> traces = {"IFS": IFSSelector(n_features_to_select=5).fit(ds.X, ds.y).trace_,
    ...           "SGC": SGCSelector(n_features_to_select=5).fit(ds.X, ds.y).trace_}
    >>> from fsengine.plots.gain import gain_per_stage
    >>> fig = gain_per_stage(traces)
    >>> [t.name for t in fig.data], len(fig.data[0].y)
    (['IFS', 'SGC'], 5)
    """
    fig = go.Figure([_line(m, t["stage"] + 1, t["gain"],
                           customdata=np.stack([t["predicate_name"], t["class"].astype(str)], axis=1),
                           hovertemplate="stage %{x}<br>G = %{y:.3g}<br>%{customdata[0]} -> "
                                         "%{customdata[1]}<extra>" + m + "</extra>")
                     for m, t in _gain_methods(traces).items()])
    fig.update_xaxes(title="stage (number of selected features)")
    fig.update_yaxes(title="gain of the selected feature G", type="log")
    return apply_style(fig, title="Gain per stage")


def gain_computations(traces: dict[str, pd.DataFrame]) -> go.Figure:
    """Fig. 3: gain computations per stage, averaged from the first stage to the current one
    (as the paper smooths it), log scale.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.selectors import IFSSelector, SGCSelector
    >>> ds = make_planted_maxent(n_samples=600, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> traces = {"IFS": IFSSelector(n_features_to_select=5).fit(ds.X, ds.y).trace_,
    ...           "SGC": SGCSelector(n_features_to_select=5).fit(ds.X, ds.y).trace_}
    >>> from fsengine.plots.gain import gain_computations
    >>> ifs, sgc = gain_computations(traces).data
    >>> bool(ifs.y[-1] > sgc.y[-1])         # SGC recomputes far fewer gains than IFS
    True
    """
    data = []
    for m, t in _gain_methods(traces).items():
        avg = np.cumsum(t["gain_computations"].to_numpy()) / np.arange(1, len(t) + 1)
        data.append(_line(m, t["stage"] + 1, avg,
                          hovertemplate="stage %{x}<br>%{y:,.1f} gains per stage<extra>" + m + "</extra>"))
    fig = go.Figure(data)
    fig.update_xaxes(title="stage (number of selected features)")
    fig.update_yaxes(title="gains per stage, running mean", type="log")
    return apply_style(fig, title="Gain computations (Fig. 3)")


def cumulative_time(traces: dict[str, pd.DataFrame]) -> go.Figure:
    """Fig. 4: cumulative selection time in seconds, log scale.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.selectors import IFSSelector, SGCSelector
    >>> ds = make_planted_maxent(n_samples=600, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> traces = {"IFS": IFSSelector(n_features_to_select=5).fit(ds.X, ds.y).trace_,
    ...           "SGC": SGCSelector(n_features_to_select=5).fit(ds.X, ds.y).trace_}
    >>> from fsengine.plots.gain import cumulative_time
    >>> fig = cumulative_time(traces)
    >>> [t.name for t in fig.data], fig.layout.yaxis.type
    (['IFS', 'SGC'], 'log')
    """
    fig = go.Figure([_line(m, t["stage"] + 1, np.maximum(t["seconds"], 1e-4),
                           hovertemplate="stage %{x}<br>%{y:.3g} s<extra>" + m + "</extra>")
                     for m, t in _gain_methods(traces).items()])
    fig.update_xaxes(title="stage (number of selected features)")
    fig.update_yaxes(title="cumulative seconds", type="log")
    return apply_style(fig, title="Selection time (Fig. 4)")


#: how the score columns are named in figures
METRIC_LABEL = {"precision": "precision", "recall": "recall", "f1": "F1"}


def scores_vs_features(curves: pd.DataFrame, all_features: dict | None = None,
                       metrics=("precision", "f1"), f1_intervals: pd.DataFrame | None = None) -> go.Figure:
    """Fig. 5: test precision and F1 (percent) of MAP models on the first k selected features,
    per method, with the all-features model as horizontal lines; with ``f1_intervals`` (columns
    method, n_features, low, high: :meth:`fsengine.methods.gain.study.Comparison.f1_intervals`), each
    method's F1 with its interval as a shaded band.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.gain import scores_vs_features
    >>> curves = pd.DataFrame({"method": ["IFS", "IFS", "SGC"], "n_features": [10, 20, 10],
    ...                        "precision": [80.0, 85.0, 79.0], "f1": [78.0, 84.0, 77.5]})
    >>> fig = scores_vs_features(curves, {"precision": 90.0, "f1": 89.0, "n_features": 1234})
    >>> [t.name for t in fig.data]
    ['IFS precision', 'SGC precision', 'IFS F1', 'SGC F1']
    """
    fig = go.Figure()
    if f1_intervals is not None and len(f1_intervals):
        for m, part in f1_intervals.groupby("method", sort=False):
            x = part["n_features"].tolist()
            fig.add_trace(go.Scatter(
                x=x + x[::-1], y=part["high"].tolist() + part["low"].tolist()[::-1], fill="toself",
                mode="lines", line=dict(width=0), fillcolor=METHOD_COLORS.get(m, "#888"), opacity=0.3,
                name=f"{m} F1, {percent(f1_intervals.attrs.get('level', 0.95))} interval", legendgroup=m,
                showlegend=False, hoverinfo="skip"))
    for metric in metrics:
        label = METRIC_LABEL.get(metric, metric)
        for m, part in curves.groupby("method", sort=False):
            fig.add_trace(go.Scatter(
                x=part["n_features"], y=part[metric], mode="lines+markers", name=f"{m} {label}",
                legendgroup=m, line=dict(color=METHOD_COLORS.get(m), dash="solid" if metric == metrics[0] else "dot"),
                hovertemplate="%{x} features<br>" + label + " %{y:.2f}<extra>" + m + "</extra>"))
        if all_features:
            fig.add_hline(y=all_features[metric], line=dict(color="#444", width=1,
                                                            dash="dash" if metric == metrics[0] else "dot"))
    if all_features:
        text = " / ".join(f"{METRIC_LABEL.get(m, m)} {all_features[m]:.2f}" for m in metrics)
        # bottom right: the curves rise from the bottom left to the all-features lines at the top
        fig.add_annotation(xref="paper", x=1.0, xanchor="right", yref="paper", y=0.02, yanchor="bottom",
                           align="right", showarrow=False, font=dict(size=11, color="#444"),
                           text=f"dashed: all {all_features.get('n_features', 0):,} features<br>{text}")
    fig.update_xaxes(title="number of selected features", type="log")
    fig.update_yaxes(title="test score (%)")
    return apply_style(fig, title="Test precision / F1 vs number of features (Fig. 5)")


def overlap_heatmap(overlap: pd.DataFrame) -> go.Figure:
    """Share of selected (predicate, class) pairs two methods have in common.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.gain import overlap_heatmap
    >>> overlap = pd.DataFrame([[1.0, 0.8], [0.8, 1.0]], index=["IFS", "SGC"], columns=["IFS", "SGC"])
    >>> overlap_heatmap(overlap).data[0].z.tolist()
    [[1.0, 0.8], [0.8, 1.0]]
    """
    fig = go.Figure(go.Heatmap(z=overlap.to_numpy(), x=list(overlap.columns), y=list(overlap.index),
                               zmin=0, zmax=1, colorscale="Blues", text=np.round(overlap.to_numpy(), 2),
                               texttemplate="%{text}", hovertemplate="%{y} & %{x}: %{z:.2f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return apply_style(fig, title="Overlap of the selected feature sets", height=360)


#: the stage explorable draws at most this many stages on its slider (spread evenly, the first and
#: the last included)
MAX_STAGES = 300


def stage_explorable(comp, stage: int = 1, *, max_stages: int = MAX_STAGES) -> go.Figure:
    """What every method did up to a stage, as one explorable: the gain of the feature selected
    at each stage (left) and the gains computed so far (right, cumulative: the work), both log
    scale, with the current stage marked on every method's curve; below, one line per method
    says which (predicate, class) pair it added at that stage, its gain and the work so far.

    ``comp``: a :class:`~fsengine.methods.gain.study.Comparison`; the slider runs over its
    :attr:`~fsengine.methods.gain.study.Comparison.common_stages` (at most ``max_stages`` of them)
    and starts at ``stage`` (1-based). Slider values are the stage numbers.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.methods.gain.study import run_comparison
    >>> ds = make_planted_maxent(n_samples=600, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> comp = run_comparison(ds, budget=5, n_checkpoints=2, methods=("IFS", "SGC"))
    >>> from fsengine.plots.gain import stage_explorable
    >>> fig = stage_explorable(comp, stage=2)
    >>> [step.label for step in fig.layout.sliders[0].steps], fig.layout.sliders[0].active
    (['1', '2', '3', '4', '5'], 1)
    """
    from fsengine.plots.explorable import (
        Step,
        explorable,
        layout_image,
        marker_image,
        position_line,
        spread_rows,
        text_box,
    )

    n = comp.common_stages
    if n < 1:
        raise ValueError("no stage to explore: no method selected a feature")
    stages = spread_rows(n, max_stages) + 1
    start = int(np.argmin(np.abs(stages - stage)))
    traces = {m: t for m, t in comp.traces().items() if len(t)}
    drawn = _gain_methods(traces)  # the count cutoff computes no gains: a line of text only
    data = []
    for m, t in drawn.items():
        data.append(_line(m, t["stage"] + 1, t["gain"], legendgroup=m,
                          hovertemplate="stage %{x}<br>G = %{y:.3g}<extra>" + m + "</extra>").to_plotly_json())
        work = np.cumsum(t["gain_computations"].to_numpy())
        data.append(dict(_line(m, t["stage"] + 1, np.maximum(work, 1), legendgroup=m, showlegend=False,
                               hovertemplate="stage %{x}<br>%{y:,} gains so far<extra>" + m + "</extra>"
                               ).to_plotly_json(), xaxis="x2", yaxis="y2"))
    rows = len(traces)
    text_height = 0.07
    plots_bottom = text_height * rows + 0.12
    layout = {
        "template": pio.templates["plotly_white"].to_plotly_json(), "height": 330 + 26 * rows, "font": {"size": 13},
        "margin": {"l": 60, "r": 20, "t": 40, "b": 20},
        "legend": {"orientation": "h", "x": 0.0, "y": 1.0, "yanchor": "bottom"},
        "xaxis": {"domain": [0.0, 0.42], "anchor": "y", "title": {"text": "stage"}, "range": [0.5, n + 0.5]},
        "yaxis": {"domain": [plots_bottom, 1.0], "anchor": "x", "type": "log",
                  "title": {"text": "gain G of the feature added"}},
        "xaxis2": {"domain": [0.6, 1.0], "anchor": "y2", "title": {"text": "stage"}, "range": [0.5, n + 0.5]},
        "yaxis2": {"domain": [plots_bottom, 1.0], "anchor": "x2", "type": "log",
                   "title": {"text": "gains computed so far"}},
    }
    width = 0.004 * max(n, 10)
    images = [position_line("x", width), position_line("x2", width)]
    shapes = []
    for m in drawn:
        dot = marker_image(METHOD_COLORS.get(m, "#555555"))
        for axis in ("", "2"):
            images.append(layout_image(dot, 0.0, 0.0, 0.03 * max(n, 10), 100.0, xref=f"x{axis}", yref=f"y{axis}",
                                       xanchor="center", yanchor="middle", sizing="contain"))
    for k, m in enumerate(traces):
        y = plots_bottom - 0.1 - text_height * (k + 1)
        shapes.append(text_box(0.0, 1.0, y, y + text_height, colour=METHOD_COLORS.get(m)))
    layout.update(images=images, shapes=shapes)
    done = {m: (comp.selected_table(m), np.cumsum(t["gain_computations"].to_numpy())) for m, t in traces.items()}
    steps = []
    for s in stages:
        lay = {"images[0].x": float(s), "images[1].x": float(s)}
        for k, m in enumerate(drawn):
            table, work = done[m]
            for j, value in enumerate((float(table["gain G"].iloc[s - 1]), max(float(work[s - 1]), 1.0))):
                lay[f"images[{2 + 2 * k + j}].x"] = float(s)
                lay[f"images[{2 + 2 * k + j}].y"] = float(np.log10(max(value, 1e-300)))
        for k, (m, (table, work)) in enumerate(done.items()):
            row = table.iloc[s - 1]
            gain = f"G = {row['gain G']:.3g}; {int(work[s - 1]):,} gains computed" if m in drawn else "by its count"
            lay[f"shapes[{k}].label.text"] = (f"{m}: added {row['predicate']} → {row['class']} ({gain}, "
                                              f"{row['seconds']:.2g} s so far)")
        steps.append(Step(str(int(s)), str(int(s)), {}, lay))
    return explorable({"data": data, "layout": layout}, steps, active=start, prefix="stage ", name="stage")
