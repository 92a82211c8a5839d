"""Figure: how far the BIA's ranking agrees with simpler rankings along its path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import FEATURE_COLORS, apply_style


def agreement_figure(agreement: pd.DataFrame, k: int, departure: float | None = None, *,
                     title: str | None = None) -> go.Figure:
    """Overlap of the BIA's top ``k`` with each baseline's top ``k`` and the Spearman correlation of
    the posteriors with b^2 (screening), against Lambda/Lambda* (log axis, large Lambda left);
    ``agreement`` from :func:`fsengine.methods.bia_baselines.path_agreement`."""
    fig = go.Figure()
    cols = [c for c in agreement.columns if c.startswith("overlap with ")] + ["Spearman with screening"]
    for i, col in enumerate(cols):
        fig.add_trace(go.Scatter(
            x=agreement["lambda_ratio"], y=agreement[col], mode="lines+markers", name=col,
            line=dict(color=FEATURE_COLORS[i % len(FEATURE_COLORS)],
                      dash="dot" if col.startswith("Spearman") else None),
            hovertemplate=f"{col}<br>Λ/Λ* = %{{x:.3g}}<br>%{{y:.3f}}<extra></extra>"))
    if departure is not None:
        # the note sits left of the line (larger Λ), low, where every curve is still near 1
        fig.add_vline(x=departure, line=dict(color="#888888", dash="dash"))
        fig.add_annotation(x=np.log10(departure), y=0.05, xanchor="right", yanchor="bottom", showarrow=False,
                           text=f"top {k} departs from<br>screening at Λ/Λ* = {departure:.3g} ", align="right")
    ratios = agreement["lambda_ratio"].to_numpy(dtype=float)
    pad = 0.03 * np.log10(ratios.max() / ratios.min())
    # an explicit range: plotly's autorange would widen the axis to fit the note's text
    fig.update_xaxes(type="log", range=[np.log10(ratios.max()) + pad, np.log10(ratios.min()) - pad],
                     title_text="Λ / Λ*  (prior strength; weaker to the right)")
    fig.update_yaxes(title_text=f"top-{k} overlap  /  Spearman", range=[0, 1.05])
    return apply_style(fig, title=title, height=420)
