"""Figures of the Bayesian Ising Approximation (Fisher & Mehta Fig. 2 and the validation panel).

Pure builders: arrays and DataFrames in, ``go.Figure`` out. The path figure draws a few hundred
lines (packed into two SVG ``Scatter`` traces, grey and the red top-k, with NaN separators; two
SVG paths draw faster than WebGL contexts, which browsers without a GPU emulate) over a grey band
that summarises every feature: it is redrawn on every move of the Λ/Λ* slider, so its size is
what a move costs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from fsengine import ranking
from fsengine.plots.style import FEATURE_COLORS, FOREGROUND, HIGHLIGHT, MUTED, apply_style
from fsengine.position import Position

BREAKDOWN_FILL = "rgba(255, 160, 0, 0.13)"
EXACT_COLOR = "#1f77b4"
ISING_COLOR = "#9467bd"


#: path steps drawn at least this far apart on the log10(Lambda/Lambda*) axis (a smooth line)
MIN_STEP_DECADES = 0.03
NOT_CONVERGED_FILL = "rgba(120, 120, 120, 0.18)"
BAND_FILL = "rgba(120, 120, 120, 0.22)"


def thinned_rows(x, keep=(), min_decades: float = MIN_STEP_DECADES) -> np.ndarray:
    """Indices into ascending positive ``x`` at least ``min_decades`` apart on a log10 scale, with
    the first and last point and every index in ``keep``."""
    lx = np.log10(np.asarray(x, dtype=np.float64))
    picked = [0]
    for i in range(1, lx.size):
        if lx[i] - lx[picked[-1]] >= min_decades:
            picked.append(i)
    return np.union1d(np.array(picked + [lx.size - 1]), np.asarray(keep, dtype=np.intp))


def _packed_lines(x, Y, columns):
    """x (S,), Y (S, F) -> flat float32 x, y with a NaN after each feature's line."""
    cols = np.asarray(columns, dtype=np.intp)
    S = x.size
    xs = np.empty((cols.size, S + 1), dtype=np.float32)  # float32 halves the payload; ample for a plot
    xs[:, :S] = x
    xs[:, S] = np.nan
    ys = np.empty((cols.size, S + 1), dtype=np.float32)
    ys[:, :S] = Y[:, cols].T
    ys[:, S] = np.nan
    return xs.ravel(), ys.ravel()


def _hover(image_shape, names, quantity_label, columns, n_points):
    """customdata for the lines of ``columns`` (one row per drawn point) and a hover template."""
    cols = np.asarray(columns, dtype=np.intp)
    if image_shape is not None:
        rows, cc = np.divmod(cols, image_shape[1])
        data = np.stack([rows, cc], axis=1).astype(np.int16)
        template = "pixel (%{customdata[0]}, %{customdata[1]})"
    else:
        data = np.asarray(names, dtype=object)[cols][:, None]
        template = "%{customdata[0]}"
    return (np.repeat(data, n_points + 1, axis=0),
            template + "<br>Λ/Λ* = %{x:.3g}<br>" + quantity_label + " = %{y:.3f}<extra></extra>")


def _value_range(Y, neutral: float, bounds: tuple[float, float]) -> tuple[float, float]:
    """Data range including the neutral value, padded by 5% and clipped to the bounds."""
    finite = Y[np.isfinite(Y)] if np.size(Y) else np.array([neutral])
    lo = min(float(finite.min()) if finite.size else neutral, neutral)
    hi = max(float(finite.max()) if finite.size else neutral, neutral)
    pad = 0.05 * (hi - lo) or 0.01
    return max(bounds[0], lo - pad), min(bounds[1], hi + pad)


def _region(x0, x1, lo, hi, color, name):
    return {"type": "scatter", "x": [x0, x1, x1, x0, x0], "y": [lo, lo, hi, hi, lo], "fill": "toself",
            "fillcolor": color, "line": {"width": 0}, "mode": "lines", "name": name, "hoverinfo": "skip"}


def path_figure(path: pd.DataFrame, *, position: Position, top_k: int = 20, quantity: str = "posterior",
                image_shape=None, title: str | None = None, max_lines: int | None = 200,
                converged=None) -> go.Figure:
    """Fig. 2A: posterior (or magnetization m = 2p - 1) of the features vs Lambda/Lambda* (log axis).

    ``path``: index Lambda/Lambda*, one column of posteriors per feature; ``position``: the
    current row of ``path`` (e.g. ``Position.nearest(path.index, 1.0)``, or the page's slider
    position). Drawn: the top-k features at ``position`` in red, the next highest up to
    ``max_lines`` lines in grey, and for all features a grey band (5-95 % and 25-75 % of the
    features at each step) with the median; Lambda < Lambda* is shaded. Steps are thinned to
    :data:`MIN_STEP_DECADES` apart on the log axis (the current step is always kept).
    ``converged`` (bool per path row): rows where the mean-field recursion oscillates are not
    drawn; their range is shaded grey and named in the legend.

    Built as a plain figure dict wrapped without validation (``go.Figure(..., _validate=False)``):
    a slider move rebuilds it, and validating hundreds of lines costs more than drawing them.
    """
    if quantity not in ("posterior", "magnetization"):
        raise ValueError("quantity must be 'posterior' or 'magnetization'")
    row = position.row_of(path.index)
    order = np.argsort(path.index.to_numpy())
    x_all = path.index.to_numpy(dtype=np.float64)[order]
    P_all = path.to_numpy(dtype=np.float64)[order]
    ok = np.ones(x_all.size, dtype=bool) if converged is None else np.asarray(converged, dtype=bool)[order]
    now = int(np.flatnonzero(order == row)[0])  # the current row among the ascending steps
    rows = thinned_rows(x_all, keep=[now])
    x, P, ok_rows = x_all[rows], P_all[rows], ok[rows]
    Y = P if quantity == "posterior" else 2.0 * P - 1.0
    Y = np.where(ok_rows[:, None], Y, np.nan)
    label = "p(s=1|y)" if quantity == "posterior" else "m"
    neutral = 0.5 if quantity == "posterior" else 0.0
    lo, hi = _value_range(Y, neutral=neutral, bounds=(0.0, 1.0) if quantity == "posterior" else (-1.0, 1.0))
    names = [str(c) for c in path.columns]
    top = ranking.top_k(P_all[now], top_k)
    p = P_all.shape[1]
    shown = ranking.top_k(P_all[now], max_lines) if max_lines is not None and max_lines < p else np.arange(p)
    rest = np.setdiff1d(shown, top)
    other_label = f"other features ({rest.size})" if shown.size == p else \
        f"next {rest.size} of {p - top.size} other features"
    data = [_region(x_all.min(), min(1.0, x_all.max()), lo, hi, BREAKDOWN_FILL, "breakdown (Λ < Λ*)")]
    if not ok.all():
        bad = x_all[~ok]
        data.append(_region(bad.min(), bad.max(), lo, hi, NOT_CONVERGED_FILL,
                            f"mean field not converged (Λ/Λ* ≤ {bad.max():.3g}): not drawn"))
    if p > shown.size:
        q = np.nanpercentile(Y, [5, 25, 50, 75, 95], axis=1).astype(np.float32) if ok_rows.any() else \
            np.full((5, x.size), np.nan, dtype=np.float32)
        xf = x.astype(np.float32)
        for low, high, name in ((q[0], q[4], f"all {p} features: 5-95 %"), (q[1], q[3], "25-75 %")):
            data.append({"type": "scatter", "x": xf, "y": low, "mode": "lines", "line": {"width": 0},
                         "showlegend": False, "hoverinfo": "skip", "legendgroup": name})
            data.append({"type": "scatter", "x": xf, "y": high, "mode": "lines", "line": {"width": 0},
                         "fill": "tonexty", "fillcolor": BAND_FILL, "name": name, "hoverinfo": "skip",
                         "legendgroup": name})
        data.append({"type": "scatter", "x": xf, "y": q[2], "mode": "lines", "name": "median of all",
                     "line": {"color": "rgba(90, 90, 90, 0.9)", "width": 1, "dash": "dash"}, "hoverinfo": "skip"})
    fx, fy = _packed_lines(x, Y, rest)
    data.append({"type": "scatter", "x": fx, "y": fy, "mode": "lines", "name": other_label,
                 "line": {"color": MUTED, "width": 1}, "hoverinfo": "skip", "connectgaps": False})
    fx, fy = _packed_lines(x, Y, top)
    ids, template = _hover(image_shape, names, label, top, x.size)
    data.append({"type": "scatter", "x": fx, "y": fy, "customdata": ids, "mode": "lines",
                 "name": f"top {top.size} at Λ/Λ* = {x_all[now]:.3g}", "hovertemplate": template,
                 "line": {"color": HIGHLIGHT, "width": 2}, "connectgaps": False})
    data.append({"type": "scatter", "x": [x_all[now], x_all[now]], "y": [lo, hi], "mode": "lines",
                 "name": "current Λ/Λ*", "hoverinfo": "skip",
                 "line": {"color": FOREGROUND, "dash": "dot", "width": 1}})
    layout = _layout(title, 460) | {
        "xaxis": {"type": "log", "title": {"text": "Λ / Λ*  (prior strength)"}},
        "yaxis": {"title": {"text": "posterior p(s_j = 1 | y)" if quantity == "posterior" else "magnetization m_j"},
                  "range": [lo, hi]},
    }
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def posterior_heatmap(scores, image_shape, *, title: str | None = None, zmin=None, zmax=None) -> go.Figure:
    """Fig. 2B: posterior of every pixel as an image (row 0 at the top). Built without validation
    (it is redrawn on every slider move)."""
    rows, cols = image_shape
    Z = np.asarray(scores, dtype=np.float64).reshape(rows, cols).astype(np.float32)
    data = [{"type": "heatmap", "z": Z, "colorscale": "Viridis", "zmin": zmin, "zmax": zmax,
             "colorbar": {"title": {"text": "p(s=1|y)"}},
             "hovertemplate": "pixel (%{y}, %{x})<br>posterior = %{z:.3f}<extra></extra>"}]
    layout = _layout(title, 420)
    layout["yaxis"] = {"autorange": "reversed", "scaleanchor": "x", "constrain": "domain", "showgrid": False}
    layout["xaxis"] = {"constrain": "domain", "showgrid": False}
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def _layout(title: str | None, height: int) -> dict:
    """:func:`apply_style`'s layout as a plain dict (for figures built without validation)."""
    return {"template": pio.templates["plotly_white"].to_plotly_json(), "height": height,
            "title": {"text": title}, "margin": {"l": 60, "r": 20, "t": 50 if title else 20, "b": 50},
            "font": {"size": 13},
            "legend": {"orientation": "v", "yanchor": "top", "y": 1.0, "xanchor": "left", "x": 1.02}}


def samples_base(images, labels, class_names, image_shape) -> dict:
    """Fig. 2C without marks: sample images (one row per class), as a plain figure dict; mark
    the top pixels with :func:`mark_top_pixels` (cheap, for every slider move).

    ``images`` (k, rows*cols) in [0, 1] with ``labels`` (k,) indexing ``class_names``.
    """
    rows, cols = image_shape
    images = np.asarray(images, dtype=np.float64)
    labels = np.asarray(labels)
    classes = list(dict.fromkeys(labels.tolist()))
    per_class = max(int(np.sum(labels == c)) for c in classes)
    fig = make_subplots(rows=len(classes), cols=per_class, horizontal_spacing=0.01,
                        vertical_spacing=0.04,
                        row_titles=[str(class_names[c]) for c in classes])
    for r, c in enumerate(classes):
        for k, img in enumerate(images[labels == c]):
            fig.add_trace(go.Heatmap(z=img.reshape(rows, cols).astype(np.float32), colorscale="gray_r", zmin=0,
                                     zmax=1, showscale=False, hoverinfo="skip"), row=r + 1, col=k + 1)
            fig.add_trace(go.Scatter(
                x=[], y=[], mode="markers", showlegend=False,
                marker=dict(symbol="square-open", color=HIGHLIGHT, size=7, line=dict(width=2)),
                hovertemplate="pixel (%{y}, %{x})<extra></extra>"), row=r + 1, col=k + 1)
    fig.update_yaxes(autorange="reversed", showticklabels=False, showgrid=False, zeroline=False)
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False)
    for i in range(1, len(classes) * per_class + 1):
        suffix = "" if i == 1 else str(i)
        fig.update_layout({f"yaxis{suffix}": dict(scaleanchor=f"x{suffix}")})
    fig = apply_style(fig, height=170 * len(classes) + 60)
    fig.update_layout(margin=dict(l=10, r=40, t=50, b=10))
    return fig.to_plotly_json()


def mark_top_pixels(base: dict, top, image_shape, *, title: str | None = None) -> go.Figure:
    """The figure of :func:`samples_base` with the pixels ``top`` marked in red on every image."""
    ty, tx = np.divmod(np.asarray(top, dtype=np.intp), image_shape[1])
    data = [dict(t, x=tx, y=ty) if t["type"] == "scatter" else t for t in base["data"]]
    layout = dict(base["layout"], title={"text": title})
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def samples_with_top_pixels(images, labels, class_names, top, image_shape, *,
                            title: str | None = None) -> go.Figure:
    """Fig. 2C: sample images (one row per class) with the top pixels marked in red."""
    return mark_top_pixels(samples_base(images, labels, class_names, image_shape), top, image_shape, title=title)


def posterior_bars(scores, feature_names, *, top_n: int = 40, truth=None,
                   title: str | None = None) -> go.Figure:
    """Posterior per feature for non-image data: the ``top_n`` best, best on top.

    With a known ``truth`` mask (synthetic data), truly relevant features are drawn in red.
    """
    scores = np.asarray(scores, dtype=np.float64)
    idx = ranking.top_k(scores, top_n)[::-1]
    colors = [HIGHLIGHT if truth is not None and truth[j] else "#1f77b4" for j in idx]
    # bars start at the prior's 1/2, so that evidence for (right) and against (left) stands out
    fig = go.Figure(go.Bar(
        x=scores[idx] - 0.5, base=0.5, y=[str(feature_names[j]) for j in idx], orientation="h",
        marker_color=colors, customdata=scores[idx],
        hovertemplate="%{y}: %{customdata:.3f}<extra></extra>"))
    fig.add_vline(x=0.5, line=dict(color=FOREGROUND, dash="dot", width=1))
    fig.update_xaxes(title="posterior p(s_j = 1 | y)  (bars start at ½)",
                     range=list(_value_range(scores[idx], 0.5, (0.0, 1.0))))
    fig.update_yaxes(type="category")
    return apply_style(fig, title=title, height=max(300, 18 * idx.size + 80))


def validation_figure(ratios, bia, exact, feature_names, *, position: Position, ising=None,
                      exact_label: str = "exact") -> go.Figure:
    """BIA vs exact posteriors of a small subproblem.

    ``bia``, ``exact`` and optionally ``ising`` (exact marginals of the BIA's Ising model, which
    separates the expansion error from the mean-field error) have shape (len(ratios), p).
    Left: the posteriors per feature at ``position``, a position on ``ratios`` (the check's own
    grid: :meth:`fsengine.methods.bia.validation.SubproblemCheck.position`).
    Right: max |p - p_exact| over features vs Lambda/Lambda* (log-log).
    """
    ratios = np.asarray(ratios, dtype=np.float64)
    bia = np.asarray(bia, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    now = position.row_of(ratios)
    names = [str(n) for n in feature_names]
    fig = make_subplots(rows=1, cols=2, column_widths=[0.6, 0.4], subplot_titles=(
        f"posteriors at Λ/Λ* = {ratios[now]:.3g}", "max |p − p_exact| over features"))
    series = [(exact, exact_label, EXACT_COLOR)]
    if ising is not None:
        series.append((np.asarray(ising, dtype=np.float64), "BIA Ising, exact marginals", ISING_COLOR))
    series.append((bia, "BIA mean field", HIGHLIGHT))
    for values, label, color in series:
        fig.add_trace(go.Bar(x=names, y=values[now], name=label, marker_color=color), 1, 1)
    for values, label, color in series[:0:-1]:  # mean field first, the Ising line dashed on top
        fig.add_trace(go.Scatter(x=ratios, y=np.abs(values - exact).max(axis=1), mode="lines+markers",
                                 name=f"error: {label}",
                                 line=dict(color=color, dash="dash" if color == ISING_COLOR else "solid")),
                      1, 2)
    fig.update_yaxes(title="p(s=1|y)", row=1, col=1)
    fig.update_xaxes(type="category", row=1, col=1)
    fig.update_xaxes(type="log", title="Λ / Λ*", row=1, col=2)
    fig.update_yaxes(type="log", row=1, col=2)
    fig = apply_style(fig, height=380)  # the legend on the right: below, rotated labels and a big font collide
    fig.update_layout(barmode="group")
    return fig


def agreement_figure(agreement: pd.DataFrame, k: int, departure: float | None = None, *,
                     title: str | None = None) -> go.Figure:
    """Overlap of the BIA's top ``k`` with each baseline's top ``k`` and the Spearman correlation of
    the posteriors with b^2 (screening), against Lambda/Lambda* (log axis, large Lambda left);
    ``agreement`` from :func:`fsengine.methods.bia.baselines.path_agreement`."""
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
