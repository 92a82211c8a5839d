"""Shared look of every figure."""

from __future__ import annotations

import plotly.graph_objects as go

HIGHLIGHT = "#d62728"  # red, for selected / top features (as in Fisher & Mehta Fig. 2)
MUTED = "rgba(120, 120, 120, 0.35)"
FEATURE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22", "#17becf")
METHOD_COLORS = {
    "BIA": "#1f77b4", "IFS": "#ff7f0e", "SGC": "#2ca02c", "SGC-LA": "#98df8a",
    "Bayes factor": "#9467bd", "MI": "#8c564b", "MDL": "#e377c2", "L1": "#7f7f7f",
    "Boosting": "#bcbd22", "RTM": "#17becf", "RTM Power EP": "#17becf", "RTM EP": "#aec7e8", "RTM EM": "#ffbb78",
    "RTM Power EP + ARD": "#0e7c8a", "RTM EP + ARD": "#5b8fc7", "RTM EM + ARD": "#e08a2c",
    "Count cutoff": "#c49c94", "Variance": "#c7c7c7",
}


def apply_style(fig: go.Figure, *, title: str | None = None, height: int = 420) -> go.Figure:
    """Common layout: white template, compact margins, legend outside the plot area."""
    fig.update_layout(
        template="plotly_white", height=height, margin=dict(l=60, r=20, t=50 if title else 20, b=50),
        title=title, legend=dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.02),
        font=dict(size=13),
    )
    return fig
