"""Figures of the IFS / SGC comparison (Zhou et al. 2003, Figs. 3-5) from selection traces.

``traces`` arguments map a method name (IFS, SGC, SGC-LA, Count cutoff) to a selection trace
(:data:`fsengine.methods.gain.model.TRACE_COLUMNS`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from fsengine.plots.style import METHOD_COLORS, apply_style

_DASH = {"IFS": "solid", "SGC": "dash", "SGC-LA": "dot", "Count cutoff": "dashdot"}


def _line(name, x, y, **kw):
    return go.Scatter(x=np.asarray(x), y=np.asarray(y), mode="lines", name=name,
                      line=dict(color=METHOD_COLORS.get(name), dash=_DASH.get(name, "solid"), width=2),
                      **kw)


def _gain_methods(traces):
    return {m: t for m, t in traces.items() if m != "Count cutoff" and len(t)}


def gain_per_stage(traces: dict[str, pd.DataFrame]) -> go.Figure:
    """Gain G (Zhou et al.'s per-instance log-likelihood gain) of the feature selected at each
    stage, log scale, methods overlaid."""
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
    (as the paper smooths it), log scale."""
    data = []
    for m, t in _gain_methods(traces).items():
        avg = np.cumsum(t["gain_computations"].to_numpy()) / np.arange(1, len(t) + 1)
        data.append(_line(m, t["stage"] + 1, avg,
                          hovertemplate="stage %{x}<br>%{y:,.1f} gains per stage<extra>" + m + "</extra>"))
    fig = go.Figure(data)
    fig.update_xaxes(title="stage (number of selected features)")
    fig.update_yaxes(title="gains computed per stage", type="log")
    return apply_style(fig, title="Gain computations per stage, running mean (Fig. 3)")


def cumulative_time(traces: dict[str, pd.DataFrame]) -> go.Figure:
    """Fig. 4: cumulative selection time in seconds, log scale."""
    fig = go.Figure([_line(m, t["stage"] + 1, np.maximum(t["seconds"], 1e-4),
                           hovertemplate="stage %{x}<br>%{y:.3g} s<extra>" + m + "</extra>")
                     for m, t in _gain_methods(traces).items()])
    fig.update_xaxes(title="stage (number of selected features)")
    fig.update_yaxes(title="cumulative seconds", type="log")
    return apply_style(fig, title="Selection time (Fig. 4)")


def scores_vs_features(curves: pd.DataFrame, all_features: dict | None = None,
                       metrics=("precision", "f1")) -> go.Figure:
    """Fig. 5: test precision and F1 (percent) of MAP models on the first k selected features,
    per method, with the all-features model as horizontal lines."""
    fig = go.Figure()
    for metric in metrics:
        for m, part in curves.groupby("method", sort=False):
            fig.add_trace(go.Scatter(
                x=part["n_features"], y=part[metric], mode="lines+markers", name=f"{m} {metric}",
                legendgroup=m, line=dict(color=METHOD_COLORS.get(m), dash="solid" if metric == metrics[0] else "dot"),
                hovertemplate="%{x} features<br>" + metric + " %{y:.2f}<extra>" + m + "</extra>"))
        if all_features:
            fig.add_hline(y=all_features[metric], line=dict(color="#444", width=1,
                                                            dash="dash" if metric == metrics[0] else "dot"))
    if all_features:
        text = " / ".join(f"{m} {all_features[m]:.2f}" for m in metrics)
        # bottom right: the curves rise from the bottom left to the all-features lines at the top
        fig.add_annotation(xref="paper", x=1.0, xanchor="right", yref="paper", y=0.02, yanchor="bottom",
                           align="right", showarrow=False, font=dict(size=11, color="#444"),
                           text=f"dashed: all {all_features.get('n_features', 0):,} features<br>{text}")
    fig.update_xaxes(title="number of selected features", type="log")
    fig.update_yaxes(title="test score (%)")
    return apply_style(fig, title="Test precision / F1 vs number of features (Fig. 5)")


def overlap_heatmap(overlap: pd.DataFrame) -> go.Figure:
    """Share of selected (predicate, class) pairs two methods have in common."""
    fig = go.Figure(go.Heatmap(z=overlap.to_numpy(), x=list(overlap.columns), y=list(overlap.index),
                               zmin=0, zmax=1, colorscale="Blues", text=np.round(overlap.to_numpy(), 2),
                               texttemplate="%{text}", hovertemplate="%{y} & %{x}: %{z:.2f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return apply_style(fig, title="Overlap of the selected feature sets", height=360)
