"""The toolbox record's own figures (the engine's per-data-set figures come from
:mod:`fsengine.plots.compare`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine.methods.registry import METHODS
from fsengine.plots import compare as compare_plots
from fsengine.plots.style import apply_style
from fsengine.reproduce.toolbox.plan import REFERENCE, Plan, title_of


def differences_figure(summaries: dict, plan: Plan) -> go.Figure:
    """Every method's paired difference from the reference at both k on every data set, with its
    interval at the level Holm's step-down tests it at; filled markers where it excludes 0."""
    slugs = list(summaries)
    titles = [f"{title_of(s)}, top {k}" for k in plan.ks for s in slugs]
    fig = make_subplots(rows=len(plan.ks), cols=len(slugs), subplot_titles=titles, shared_yaxes=True,
                        horizontal_spacing=0.04, vertical_spacing=0.08)
    labels = list(dict.fromkeys(lbl for t in summaries.values() for lbl in t["method"]))
    for i, k in enumerate(plan.ks):
        for j, slug in enumerate(slugs):
            at = summaries[slug][(summaries[slug]["k"] == k)].dropna(subset=["difference"]).set_index("method")
            at = at.reindex([lbl for lbl in labels if lbl in at.index])
            resolved = (at["difference_low"] > 0) | (at["difference_high"] < 0)
            color = [compare_plots.method_color(m, labels.index(m)) for m in at.index]
            fig.add_trace(go.Scatter(
                x=at["difference"], y=list(at.index), mode="markers", showlegend=False,
                marker=dict(size=9, color=color, symbol=np.where(resolved, "circle", "circle-open").tolist(),
                            line=dict(width=2, color=color)),
                error_x=dict(type="data", symmetric=False, array=at["difference_high"] - at["difference"],
                             arrayminus=at["difference"] - at["difference_low"], thickness=1.2, width=3),
                customdata=np.column_stack([at["difference_low"], at["difference_high"]]),
                hovertemplate="%{y}<br>difference %{x:+.3f}<br>interval [%{customdata[0]:+.3f}, "
                              "%{customdata[1]:+.3f}]<extra></extra>"), row=i + 1, col=j + 1)
            fig.add_vline(x=0.0, line=dict(color="#888888", dash="dot", width=1), row=i + 1, col=j + 1)
    fig.update_yaxes(autorange="reversed", type="category")
    ref = METHODS[REFERENCE].label
    return apply_style(fig, title=f"Held-out accuracy minus that of {ref} (intervals at Holm's step levels over "
                                  "every difference; filled: the interval excludes 0)", height=420 * len(plan.ks))


def auc_figure(per_seed: pd.DataFrame, auc: pd.DataFrame) -> go.Figure:
    """Mean AUC per method with its t interval over the seeds, and every seed's AUC as a dot."""
    fig = go.Figure()
    labels = list(auc["method"])
    fig.add_trace(go.Scatter(
        x=auc["auc"], y=labels, mode="markers", name="mean over seeds (95% t interval)",
        marker=dict(size=11, color="#1f3b73"),
        error_x=dict(type="data", symmetric=False, array=auc["auc_high"] - auc["auc"],
                     arrayminus=auc["auc"] - auc["auc_low"], thickness=1.5, width=4)))
    fig.add_trace(go.Scatter(x=per_seed["auc"], y=per_seed["method"], mode="markers", name="one seed",
                             marker=dict(size=6, color="rgba(120,120,120,0.5)"),
                             customdata=per_seed["seed"], hovertemplate="%{y}<br>seed %{customdata}: AUC %{x:.3f}"
                                                                         "<extra></extra>"))
    fig.add_vline(x=0.5, line=dict(color="#888888", dash="dot", width=1), annotation_text="chance")
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(title="AUC of the method's scores against the planted relevant features")
    return apply_style(fig, title="Recovering the planted features (ROC AUC per seed of the generator)", height=520)
