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

__all__ = ["path_figure", "posterior_heatmap", "mark_top_pixels", "samples_with_top_pixels", "posterior_bars",
           "validation_figure", "agreement_figure", "bia_explorable", "validation_explorable"]

BREAKDOWN_FILL = "rgba(255, 160, 0, 0.13)"
EXACT_COLOR = "#1f77b4"
ISING_COLOR = "#9467bd"
#: bottom margin of the exact check (px): its vertical feature names in lecture mode
FEATURE_NAMES_MARGIN = 130


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

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> from fsengine.plots import Position
    >>> from fsengine.plots.bia import path_figure
    >>> from fsengine.selectors import BIASelector
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")
    >>> bia = BIASelector(n_steps=20).fit(ds.X, ds.y)
    >>> fig = path_figure(bia.path_, position=Position.nearest(bia.path_.index, 1.0), top_k=3)
    >>> fig.layout.xaxis.type
    'log'
    """
    row = position.row_of(path.index)
    x_all, P_all, ok, order = _ascending(path, converged)
    now = int(np.flatnonzero(order == row)[0])  # the current row among the ascending steps
    p = P_all.shape[1]
    top = ranking.top_k(P_all[now], top_k)
    shown = ranking.top_k(P_all[now], max_lines) if max_lines is not None and max_lines < p else np.arange(p)
    data, (lo, hi) = _path_traces(x_all, P_all, ok, keep=[now], top=top, shown=shown, quantity=quantity,
                                  names=[str(c) for c in path.columns], image_shape=image_shape,
                                  top_label=f"top {top.size} at Λ/Λ* = {x_all[now]:.3g}")
    data.append({"type": "scatter", "x": [x_all[now], x_all[now]], "y": [lo, hi], "mode": "lines",
                 "name": "current Λ/Λ*", "hoverinfo": "skip",
                 "line": {"color": FOREGROUND, "dash": "dot", "width": 1}})
    layout = _layout(title, 460) | {
        "xaxis": {"type": "log", "title": {"text": "Λ / Λ*  (prior strength)"}},
        "yaxis": {"title": {"text": _quantity_title(quantity)}, "range": [lo, hi]},
    }
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def _quantity_title(quantity: str) -> str:
    return "posterior p(s_j = 1 | y)" if quantity == "posterior" else "magnetization m_j"


def _ascending(path: pd.DataFrame, converged=None):
    """The path by ascending Lambda/Lambda*: x (S,), posteriors (S, p), converged (S,) and the
    original row of each."""
    order = np.argsort(path.index.to_numpy())
    x_all = path.index.to_numpy(dtype=np.float64)[order]
    P_all = path.to_numpy(dtype=np.float64)[order]
    ok = np.ones(x_all.size, dtype=bool) if converged is None else np.asarray(converged, dtype=bool)[order]
    return x_all, P_all, ok, order


def _path_traces(x_all, P_all, ok, *, keep, top, shown, quantity: str, names, image_shape, top_label: str,
                 min_decades: float = MIN_STEP_DECADES):
    """The traces of Fig. 2A on ascending steps ``x_all`` (thinned, rows ``keep`` kept): the
    breakdown region, the not-converged region, the band of all features (when ``shown`` are
    not all), the lines of ``shown`` in grey and of ``top`` in red. Returns (traces, y range)."""
    if quantity not in ("posterior", "magnetization"):
        raise ValueError("quantity must be 'posterior' or 'magnetization'")
    rows = thinned_rows(x_all, keep=keep, min_decades=min_decades)
    x, P, ok_rows = x_all[rows], P_all[rows], ok[rows]
    Y = P if quantity == "posterior" else 2.0 * P - 1.0
    Y = np.where(ok_rows[:, None], Y, np.nan)
    label = "p(s=1|y)" if quantity == "posterior" else "m"
    neutral = 0.5 if quantity == "posterior" else 0.0
    lo, hi = _value_range(Y, neutral=neutral, bounds=(0.0, 1.0) if quantity == "posterior" else (-1.0, 1.0))
    p = P_all.shape[1]
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
                 "name": top_label, "hovertemplate": template,
                 "line": {"color": HIGHLIGHT, "width": 2}, "connectgaps": False})
    return data, (lo, hi)


def posterior_heatmap(scores, image_shape, *, title: str | None = None, zmin=None, zmax=None) -> go.Figure:
    """Fig. 2B: posterior of every pixel as an image (row 0 at the top). Built without validation
    (it is redrawn on every slider move).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.bia import posterior_heatmap
    >>> fig = posterior_heatmap(np.linspace(0.0, 1.0, 6), (2, 3))
    >>> np.asarray(fig.data[0].z).shape
    (2, 3)
    """
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
    """The figure of :func:`samples_base` with the pixels ``top`` marked in red on every image.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.bia import mark_top_pixels, samples_base
    >>> images = np.random.default_rng(0).random((4, 6))            # two 2 x 3 images per class
    >>> base = samples_base(images, np.array([0, 0, 1, 1]), ["B", "D"], (2, 3))
    >>> fig = mark_top_pixels(base, [5], (2, 3))                    # pixel 5: row 1, column 2
    >>> marks = next(t for t in fig.data if t.type == "scatter" and len(t.x))
    >>> [int(v) for v in marks.x], [int(v) for v in marks.y]
    ([2], [1])
    """
    ty, tx = np.divmod(np.asarray(top, dtype=np.intp), image_shape[1])
    data = [dict(t, x=tx, y=ty) if t["type"] == "scatter" else t for t in base["data"]]
    layout = dict(base["layout"], title={"text": title})
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def samples_with_top_pixels(images, labels, class_names, top, image_shape, *,
                            title: str | None = None) -> go.Figure:
    """Fig. 2C: sample images (one row per class) with the top pixels marked in red.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.bia import samples_with_top_pixels
    >>> images = np.random.default_rng(0).random((4, 6))
    >>> fig = samples_with_top_pixels(images, np.array([0, 0, 1, 1]), ["B", "D"], [0, 5], (2, 3))
    >>> sum(t.type == "heatmap" for t in fig.data)                 # one heatmap per sample image
    4
    """
    return mark_top_pixels(samples_base(images, labels, class_names, image_shape), top, image_shape, title=title)


def posterior_bars(scores, feature_names, *, top_n: int = 40, truth=None,
                   title: str | None = None) -> go.Figure:
    """Posterior per feature for non-image data: the ``top_n`` best, best on top.

    With a known ``truth`` mask (synthetic data), truly relevant features are drawn in red.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.bia import posterior_bars
    >>> fig = posterior_bars(np.array([0.2, 0.9, 0.6]), ["a", "b", "c"], top_n=2)
    >>> list(fig.data[0].y)                                         # best on top
    ['c', 'b']
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
    Right: ``max |p - p_exact|`` over features vs Lambda/Lambda* (log-log).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots import Position
    >>> from fsengine.plots.bia import validation_figure
    >>> ratios = np.array([10.0, 3.0, 1.0])
    >>> bia = np.array([[0.50, 0.52], [0.50, 0.60], [0.55, 0.80]])     # (len(ratios), p) posteriors
    >>> exact = np.array([[0.50, 0.52], [0.50, 0.61], [0.56, 0.83]])
    >>> fig = validation_figure(ratios, bia, exact, ["a", "b"], position=Position.nearest(ratios, 1.0))
    >>> [round(float(v), 3) for v in fig.data[-1].y]                    # max |p - p_exact| per ratio
    [0.0, 0.01, 0.03]
    """
    ratios = np.asarray(ratios, dtype=np.float64)
    bia = np.asarray(bia, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    now = position.row_of(ratios)
    names = [str(n) for n in feature_names]
    # two-line titles and a wide gap: one line each ran into the other, and the right panel's
    # tick labels into the left panel's bars, at a 1280-wide lecture screen's column width
    fig = make_subplots(rows=1, cols=2, column_widths=[0.6, 0.4], horizontal_spacing=0.18, subplot_titles=(
        f"posteriors at Λ/Λ* = {ratios[now]:.3g}", "max |p − p_exact|<br>over features"))
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
    fig = apply_style(fig, height=480)  # the legend on the right: below, rotated labels and a big font collide
    # room for the two-line titles, and below the bars for their vertical feature names at lecture
    # mode's 18 px (an explorable's slider goes under that margin)
    fig.update_layout(barmode="group", margin=dict(t=60, b=FEATURE_NAMES_MARGIN))
    return fig


def agreement_figure(agreement: pd.DataFrame, k: int, departure: float | None = None, *,
                     title: str | None = None) -> go.Figure:
    """Overlap of the BIA's top ``k`` with each baseline's top ``k`` and the Spearman correlation of
    the posteriors with b^2 (screening), against Lambda/Lambda* (log axis, large Lambda left);
    ``agreement`` from :func:`fsengine.methods.bia.baselines.path_agreement`.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.bia import agreement_figure
    >>> agreement = pd.DataFrame({"lambda_ratio": [10.0, 1.0, 0.1], "overlap with screening": [1.0, 0.9, 0.6],
    ...                           "Spearman with screening": [1.0, 0.95, 0.7]})
    >>> fig = agreement_figure(agreement, k=20, departure=1.0)
    >>> [t.name for t in fig.data]
    ['overlap with screening', 'Spearman with screening']
    """
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


# --- the explorable: Fig. 2A, 2B and 2C in one figure that carries its own Λ/Λ* slider ------------

#: the explorable's slider has about this many path positions at most, evenly spread on the log
#: Λ/Λ* axis (:meth:`~fsengine.methods.bia.study.BIAPathResult.slider_positions`): the default path
#: of 200 steps (linear in 1/Λ, crowded at small Λ) gives 100 distinct positions
MAX_POSITIONS = 200
#: the explorable's height in pixels before the slider's room (a 1280 x 800 screen holds it with its
#: slider, also in lecture mode, which makes figures 1.25x as tall)
EXPLORABLE_HEIGHT = 500
#: bars of the non-image explorable (the highest posteriors at each position)
EXPLORABLE_BARS = 20
#: the explorable's lines are drawn through steps this far apart (log10 Λ/Λ*): half the payload of
#: :data:`MIN_STEP_DECADES`, still smooth at the explorable's size
EXPLORABLE_STEP_DECADES = 0.05
#: the current-position line and the top-k dots, as layout images: widths in decades of Λ/Λ*
LINE_DECADES, DOT_DECADES = 0.007, 0.045
#: the current-position line (an image: a colour readable on the light and the dark theme)
LINE_COLOUR = (128, 128, 128, 255)
#: the top pixels' marks on the sample images (the highlight colour)
MARK_RGB = (214, 39, 40)
#: tick positions of the heatmap's colour bar (0 to 1); their labels name each position's range
COLOURBAR_TICKS = [0.0, 0.25, 0.5, 0.75, 1.0]


def _annotation(text, x, y, *, xanchor="center", yanchor="bottom", size=None) -> dict:
    font = {} if size is None else {"size": size}
    return {"text": text, "x": x, "y": y, "xref": "paper", "yref": "paper", "xanchor": xanchor,
            "yanchor": yanchor, "showarrow": False, "font": font}


def bia_explorable(result, position: Position, *, top_k: int = 20, quantity: str = "posterior",
                   image_shape=None, samples=None, feature_names=None, truth=None, discriminative=None,
                   class_names=None, max_positions: int = MAX_POSITIONS, max_lines: int = 200) -> go.Figure:
    """Fisher & Mehta's Fig. 2 as one explorable: Λ/Λ* moves the current-position line and the
    dots of the top ``top_k`` on the path (Fig. 2A), the posterior heatmap (Fig. 2B) and the top
    pixels marked on sample images (Fig. 2C); for data that are not images, the bars of the
    highest posteriors replace 2B and 2C.

    ``result``: a :class:`~fsengine.methods.bia.study.BIAPathResult`; ``position``: where the
    slider starts (a position on its path, e.g. ``result.position(1.0)``). ``samples``: Fig. 2C's
    ``(images, labels, class_names)`` (:func:`fsengine.methods.bia.study.sample_images`);
    ``discriminative`` (bool per feature) marks the quarter of pixels whose class means differ most
    and ``class_names`` names the two classes: each position then says what share of its top
    pixels lie there. ``truth`` (bool per feature, synthetic data) colours the truly relevant bars
    red. The slider's positions are :meth:`~fsengine.methods.bia.study.BIAPathResult.slider_positions`
    and its values their Λ/Λ* labels (:func:`fsengine.plots.explorable.distinct_labels`).

    Static: the band of all features, the lines of every feature that is ever among the top
    ``top_k`` (and the next highest at Λ*, up to ``max_lines``), the top ``top_k`` at Λ = Λ* in
    red. A step moves layout images only (:mod:`fsengine.plots.explorable`): the line, the dots,
    the heatmap (its colours span the position's own range; the colour bar's labels say which)
    and the marks; and rewrites two texts.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> from fsengine.methods.bia.study import run_bia_path
    >>> from fsengine.plots.bia import bia_explorable
    >>> ds = load_dataset("synthetic_glm:n=200,p=16,k=3")
    >>> result = run_bia_path(ds, n_steps=20)
    >>> fig = bia_explorable(result, result.position(1.0), top_k=3, image_shape=(4, 4))   # 16 features as a 4 x 4 image
    >>> steps = fig.layout.sliders[0].steps
    >>> len(steps) == len(result.slider_positions()), steps[fig.layout.sliders[0].active].label
    (True, '1')
    """
    from fsengine.plots.explorable import (
        Step,
        distinct_labels,
        explorable,
        layout_image,
        line_image,
        marker_image,
        text_box,
    )

    positions = result.slider_positions(max_positions)
    grid = np.array([pos.value for pos in positions])
    start = int(np.argmin(np.abs(np.log(grid / position.value))))
    x_all, P_all, ok, _ = _ascending(result.path, result.converged)
    rows = np.searchsorted(x_all, grid)  # ascending path rows of the positions
    features = np.asarray(result.features)
    names = [str(n) for n in (feature_names if feature_names is not None else range(int(result.n_features_total)))]
    Y_all = P_all if quantity == "posterior" else 2.0 * P_all - 1.0
    tops = [ranking.top_k(P_all[r], top_k) for r in rows]  # analysed columns, best first
    star = int(np.argmin(np.abs(np.log(x_all))))
    top_star = ranking.top_k(P_all[star], top_k)
    shown = _explorable_lines(P_all[star], tops + [top_star], max_lines)
    image = image_shape is not None
    top_y = [0.5, 1.0] if image else [0.0, 1.0]
    path_x = [0.0, 0.5] if image else [0.0, 0.55]
    data, (lo, hi) = _path_traces(x_all, P_all, ok, keep=[star], top=top_star, shown=shown, quantity=quantity,
                                  names=[names[j] for j in features],
                                  image_shape=image_shape if not result.excluded.size else None,
                                  top_label=f"top {top_star.size} at Λ*", min_decades=EXPLORABLE_STEP_DECADES)
    short = {"breakdown": "Λ < Λ*", "mean field": "not converged", "next ": f"{shown.size - top_star.size} more",
             "other features": f"{shown.size - top_star.size} more"}
    for trace in data:  # a legend short enough for one row above the figure, also in lecture mode
        name = trace.get("name", "")
        if name in ("25-75 %", "median of all"):
            trace["showlegend"] = False
        elif name.startswith("all "):
            trace["name"] = name.replace(" features:", ":")
        else:
            trace["name"] = next((new for old, new in short.items() if name.startswith(old)), name)
    data.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers", "hoverinfo": "skip",
                 "name": f"top {top_k} now", "marker": {"color": HIGHLIGHT, "size": 9}})
    log_x = np.log10(x_all)
    layout = _layout(None, EXPLORABLE_HEIGHT) | {
        "xaxis": {"type": "log", "title": {"text": "Fig. 2A: Λ / Λ*  (prior strength)", "standoff": 4},
                  "domain": path_x,
                  "anchor": "y", "range": [float(log_x.min()), float(log_x.max())]},
        "yaxis": {"title": {"text": _quantity_title(quantity)}, "range": [lo, hi], "domain": top_y, "anchor": "x"},
        "legend": {"orientation": "h", "x": 0.0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"},
        "margin": {"l": 60, "r": 10, "t": 40, "b": 50},
        "hovermode": "closest",
    }
    annotations = []
    shapes = [text_box(path_x[0] + 0.01, path_x[1], top_y[0] + 0.01, top_y[0] + 0.08, position="bottom left",
                          colour=HIGHLIGHT)]
    labels = distinct_labels(grid)
    step_data = [{} for _ in positions]
    step_layout = [{} for _ in positions]
    images = [layout_image(line_image(LINE_COLOUR), 0.0, hi, LINE_DECADES, hi - lo, xanchor="center")]
    dot = marker_image()
    images += [layout_image(dot, 0.0, 0.0, DOT_DECADES, hi - lo, xanchor="center", yanchor="middle", sizing="contain")
               for _ in range(top_k)]
    for i, (r, top) in enumerate(zip(rows, tops, strict=True)):
        lay = step_layout[i]
        lay["images[0].x"] = float(log_x[r])
        y = Y_all[r, top] if ok[r] else np.full(top.size, lo - (hi - lo))  # not converged: below the axis
        for k in range(top_k):
            lay[f"images[{1 + k}].x"] = float(log_x[r]) if k < top.size else -99.0
            lay[f"images[{1 + k}].y"] = float(y[k]) if k < top.size else lo
        lay["shapes[0].label.text"] = "" if ok[r] else f"Λ/Λ* = {labels[i]}: the mean field has not converged"
    if image:
        _heatmap_panel(data, layout, annotations, images, step_data, step_layout, result, P_all, rows, image_shape,
                       top_y)
        if samples is not None:
            _samples_panel(data, layout, annotations, shapes, images, step_layout, samples, tops, features, labels,
                           image_shape, discriminative, class_names)
    else:
        _bars_panel(data, layout, annotations, step_data, step_layout, P_all, rows, features, names, truth)
    layout.update(annotations=annotations, shapes=shapes, images=images)
    steps = [Step(labels[i], labels[i], step_data[i], step_layout[i]) for i in range(len(positions))]
    return explorable({"data": data, "layout": layout}, steps, active=start, prefix="Λ/Λ* = ", name="Λ/Λ*")


def _explorable_lines(at_star, tops, max_lines: int) -> np.ndarray:
    """The features whose lines the explorable draws: every one that is ever in a top set, then the
    highest at Λ* up to ``max_lines`` in all."""
    ever = np.unique(np.concatenate(tops))
    p = at_star.size
    if max_lines >= p:
        return np.arange(p)
    rest = [j for j in ranking.top_k(at_star, max_lines) if j not in set(ever.tolist())]
    return np.union1d(ever, np.asarray(rest[:max(0, max_lines - ever.size)], dtype=np.intp))


def _full(P_row, features, p_total):
    """Posteriors of all ``p_total`` features (NaN where excluded) from the analysed ones."""
    out = np.full(p_total, np.nan)
    out[features] = P_row
    return out


def _heatmap_panel(data, layout, annotations, images, step_data, step_layout, result, P_all, rows, image_shape,
                   top_y) -> None:
    """Fig. 2B at each position: every pixel's posterior as an image, coloured over the position's
    own range (the colour bar's labels), excluded pixels blank. A transparent heatmap beneath
    carries the colour bar and names the pixel under the pointer."""
    from fsengine.plots.explorable import colour_scale, colourbar_ticks, heatmap_image, layout_image

    n_rows, n_cols = image_shape
    features, p_total = np.asarray(result.features), int(result.n_features_total)
    heat = len(data)
    data.append({"type": "heatmap", "xaxis": "x2", "yaxis": "y2", "z": np.zeros(image_shape, dtype=np.uint8),
                 "zmin": 0.0, "zmax": 1.0, "opacity": 0, "colorscale": colour_scale("Viridis"),
                 "colorbar": {"title": {"text": "p(s=1|y)", "side": "right"}, "x": 0.93, "xanchor": "left",
                              "len": top_y[1] - top_y[0], "y": top_y[1], "yanchor": "top", "thickness": 14,
                              "tickmode": "array", "tickvals": COLOURBAR_TICKS},
                 "hovertemplate": "pixel (%{y}, %{x})<extra></extra>"})
    layout["xaxis2"] = {"domain": [0.6, 0.92], "anchor": "y2", "range": [-0.5, n_cols - 0.5], "constrain": "domain",
                        "showticklabels": False, "ticks": "", "showgrid": False, "zeroline": False, "showline": False,
                        "title": {"text": "Fig. 2B: posterior", "standoff": 4}}
    layout["yaxis2"] = {"domain": top_y, "anchor": "x2", "range": [n_rows - 0.5, -0.5], "scaleanchor": "x2",
                        "constrain": "domain", "visible": False}
    where = len(images)
    images.append(layout_image("", 0, 1, 1, 1, xref="x2 domain", yref="y2 domain"))
    for i, r in enumerate(rows):
        z = _full(P_all[r], features, p_total)
        low, high = float(np.nanmin(z)), float(np.nanmax(z))
        step_layout[i][f"images[{where}].source"] = heatmap_image(z.reshape(n_rows, n_cols), low, high)
        step_data[i][heat] = {"colorbar.ticktext": colourbar_ticks(low, high, len(COLOURBAR_TICKS))}


def _samples_panel(data, layout, annotations, shapes, images, step_layout, samples, tops, features, labels, image_shape,
                   discriminative, class_names) -> None:
    """Fig. 2C: the sample images side by side in one mosaic (one heatmap, grouped by class), the
    current top pixels marked on every image by one transparent image over it."""
    from fsengine.plots.explorable import layout_image, mask_uri, text_box

    images_, sample_labels, sample_names = samples
    n_rows, n_cols = image_shape
    sample_labels = np.asarray(sample_labels)
    classes = list(dict.fromkeys(sample_labels.tolist()))
    order = [k for c in classes for k in np.flatnonzero(sample_labels == c)]
    offsets, x0, groups = [], 0, []
    for slot, k in enumerate(order):
        new_class = slot == 0 or sample_labels[k] != sample_labels[order[slot - 1]]
        if new_class and slot:
            x0 += 2  # a wider gap between the classes
        if new_class:
            groups.append([str(sample_names[sample_labels[k]]), x0, x0])
        offsets.append(x0)
        groups[-1][2] = x0 + n_cols
        x0 += n_cols + 1
    width = x0 - 1
    mosaic = np.full((n_rows, width), np.nan, dtype=np.float32)
    for k, off in zip(order, offsets, strict=True):
        mosaic[:, off:off + n_cols] = np.asarray(images_[k], dtype=np.float32).reshape(n_rows, n_cols)
    data.append({"type": "heatmap", "xaxis": "x3", "yaxis": "y3", "z": mosaic, "zmin": 0, "zmax": 1,
                 "colorscale": [[0.0, "#ffffff"], [1.0, "#000000"]], "showscale": False, "hoverinfo": "skip"})
    layout["xaxis3"] = {"domain": [0.0, 1.0], "anchor": "y3", "visible": False, "constrain": "domain",
                        "range": [-0.5, width - 0.5]}
    layout["yaxis3"] = {"domain": [0.06, 0.34], "anchor": "x3", "visible": False, "range": [n_rows - 0.5, -0.5],
                        "scaleanchor": "x3", "constrain": "domain"}
    annotations.extend({"text": name, "x": (a + b - 1) / 2, "y": n_rows - 0.5, "xref": "x3", "yref": "y3",
                        "yanchor": "top", "showarrow": False} for name, a, b in groups)
    shapes.append(text_box(0.0, 1.0, 0.35, 0.41, position="middle left"))
    text_at = len(shapes) - 1
    where = len(images)
    images.append(layout_image("", 0, 1, 1, 1, xref="x3 domain", yref="y3 domain"))
    strong = None if discriminative is None else np.asarray(discriminative, dtype=bool)
    pair = None if class_names is None or len(class_names) != 2 else list(class_names)
    scale = 4  # marks drawn at 4 image pixels per data pixel: a hollow square
    ring = np.ones((scale, scale), dtype=bool)
    ring[1:-1, 1:-1] = False
    for i, top in enumerate(tops):
        ry, rx = np.divmod(features[top], n_cols)
        marks = np.zeros((n_rows, width, scale, scale), dtype=bool)
        for off in offsets:
            marks[ry, rx + off] = ring
        step_layout[i][f"images[{where}].source"] = mask_uri(
            marks.transpose(0, 2, 1, 3).reshape(n_rows * scale, width * scale), MARK_RGB)
        text = f"Fig. 2C: the top {top.size} pixels"
        if strong is not None and pair is not None and top.size:
            share = strong[features[top]].mean()
            text += f", {share:.0%} where {pair[0]} and {pair[1]} differ most (chance 25%)"
        step_layout[i][f"shapes[{text_at}].label.text"] = text


def _bars_panel(data, layout, annotations, step_data, step_layout, P_all, rows, features, names, truth) -> None:
    """Data that are not images: the highest posteriors at each position as bars from ½ (a trace:
    its categories change with the position)."""
    bars = len(data)
    data.append({"type": "bar", "orientation": "h", "base": 0.5, "xaxis": "x2", "yaxis": "y2", "showlegend": False,
                 "hovertemplate": "%{y}: %{customdata:.3f}<extra></extra>"})
    n = min(EXPLORABLE_BARS, features.size)
    truth = None if truth is None else np.asarray(truth, dtype=bool)
    shown = [ranking.top_k(P_all[r], n)[::-1] for r in rows]
    values = np.concatenate([P_all[r, s] for r, s in zip(rows, shown, strict=True)])
    lo, hi = _value_range(values, 0.5, (0.0, 1.0))
    layout["xaxis2"] = {"domain": [0.7, 1.0], "anchor": "y2", "range": [lo, hi],
                        "title": {"text": "posterior (bars start at ½)"}}
    layout["yaxis2"] = {"domain": [0.0, 1.0], "anchor": "x2", "type": "category", "automargin": True}
    annotations.append(_annotation(f"the {n} highest posteriors at the current Λ/Λ*", 0.85, 1.0))
    for i, (r, s) in enumerate(zip(rows, shown, strict=True)):
        cols = features[s]
        step_data[i][bars] = {"x": (P_all[r, s] - 0.5).astype(np.float32), "y": [names[j] for j in cols],
                              "customdata": P_all[r, s].astype(np.float32),
                              "marker.color": [HIGHLIGHT if truth is not None and truth[j] else "#1f77b4"
                                               for j in cols]}


def validation_explorable(ratios, bia, exact, feature_names, *, position: Position, ising=None,
                          exact_label: str = "exact") -> go.Figure:
    """:func:`validation_figure` with its own Λ/Λ* slider over the checked ``ratios``: a step
    moves the bars of the left panel and names the largest error there; it starts at
    ``position`` (a position on ``ratios``).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots import Position
    >>> from fsengine.plots.bia import validation_explorable
    >>> ratios = np.array([10.0, 3.0, 1.0])
    >>> bia = np.array([[0.50, 0.52], [0.50, 0.60], [0.55, 0.80]])
    >>> exact = np.array([[0.50, 0.52], [0.50, 0.61], [0.56, 0.83]])
    >>> fig = validation_explorable(ratios, bia, exact, ["a", "b"], position=Position.nearest(ratios, 1.0))
    >>> len(fig.layout.sliders[0].steps)
    3
    """
    from fsengine.plots.explorable import Step, distinct_labels, explorable

    ratios = np.asarray(ratios, dtype=np.float64)
    start = position.row_of(ratios)
    fig = validation_figure(ratios, bia, exact, feature_names, position=position, ising=ising,
                            exact_label=exact_label)
    spec = fig.to_plotly_json()
    series = [np.asarray(exact, dtype=np.float64)] + ([np.asarray(ising, dtype=np.float64)] if ising is not None
                                                        else []) + [np.asarray(bia, dtype=np.float64)]
    error = np.abs(np.asarray(bia, dtype=np.float64) - series[0]).max(axis=1)
    labels = distinct_labels(ratios)
    steps = [Step(labels[i], labels[i], {t: {"y": values[i].astype(np.float32)} for t, values in enumerate(series)},
                  {"annotations[0].text": f"posteriors at Λ/Λ* = {labels[i]}<br>largest error {error[i]:.2g}"})
             for i in range(ratios.size)]
    return explorable(spec, steps, active=start, prefix="Λ/Λ* of the check = ", name="Λ/Λ*")
