"""Figures of the Classic criteria page (Jaakkola, lecture 12): MI ranking, MDL curve, L1 path,
boosting rounds, and per-pixel heatmaps for image data.

The builders named after a selector (``l1_selector_path``, ``mdl_chosen_image``,
``l1_coefficient_image``, ``boosting_image``) take the fitted selector; the page, ``fsengine select``
(:mod:`fsengine.plots.select`) and the notebook draw the same figures with them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine.plots.style import FEATURE_COLORS, HIGHLIGHT, METHOD_COLORS, MUTED, apply_style
from fsengine.position import Position

__all__ = ["mi_bars", "feature_image", "mdl_curve", "l1_path", "boosting_rounds", "prefix_comparison",
           "mdl_chosen_image", "l1_selector_path", "l1_coefficient_image", "boosting_image", "l1_explorable"]

MAX_LABELLED_PATHS = 12
MAX_LABELLED_FEATURES = 60


def mi_bars(scores: np.ndarray, names: Sequence[str], *, top: int = 25,
            selected: np.ndarray | None = None) -> go.Figure:
    """Horizontal bars of the ``top`` features by I(X; Y) (Eq. 2), best at the top; features in
    ``selected`` (e.g. significant ones) in the highlight colour.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.classic import mi_bars
    >>> scores = np.array([0.01, 0.30, 0.12])
    >>> fig = mi_bars(scores, ["a", "b", "c"], top=2, selected=np.array([False, True, False]))
    >>> fig.data[0].y, fig.layout.yaxis.autorange        # best first, on a top-down axis
    (('b', 'c'), 'reversed')
    """
    order = np.argsort(-np.asarray(scores), kind="stable")[:top]
    colors = [HIGHLIGHT if selected is not None and selected[j] else METHOD_COLORS["MI"] for j in order]
    fig = go.Figure(go.Bar(
        x=np.asarray(scores)[order], y=[names[j] for j in order], orientation="h",
        marker_color=colors, customdata=order,
        hovertemplate="%{y} (feature %{customdata})<br>I = %{x:.4g} nats<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed", title=None, type="category")
    fig.update_xaxes(title="mutual information I(X; Y) [nats]")
    return apply_style(fig, title=f"Top {len(order)} features by mutual information",
                       height=max(320, 22 * len(order) + 90))


def feature_image(values: np.ndarray, image_shape: tuple[int, int], *, title: str,
                  colorbar: str, colorscale: str = "Viridis", text: np.ndarray | None = None,
                  background: np.ndarray | None = None, zmid: float | None = None,
                  blank_zero: bool = False) -> go.Figure:
    """A per-feature quantity shown as an image (one cell per pixel). NaN cells (and zeros with
    ``blank_zero``) are transparent and show ``background`` (e.g. the mean image, in grey)
    beneath; ``text`` labels cells; ``zmid`` centres a diverging colour scale.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.classic import feature_image
    >>> fig = feature_image(np.arange(6.0), (2, 3), title="I(X; Y) per pixel", colorbar="nats")
    >>> fig.data[-1].z.tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    """
    rows, cols = image_shape
    values = np.asarray(values, dtype=np.float64)
    if blank_zero:
        values = np.where(values != 0.0, values, np.nan)
    fig = go.Figure()
    if background is not None:
        fig.add_trace(go.Heatmap(z=np.asarray(background, dtype=np.float64).reshape(rows, cols),
                                 colorscale="Greys", showscale=False, opacity=0.45, hoverinfo="skip",
                                 name="mean image"))
    heat = go.Heatmap(z=values.reshape(rows, cols), colorscale=colorscale,
                      colorbar=dict(title=colorbar), zmid=zmid, name=colorbar,
                      hovertemplate="row %{y}, col %{x}<br>" + colorbar + " = %{z:.4g}<extra></extra>")
    if text is not None:
        heat.update(text=np.asarray(text, dtype=object).reshape(rows, cols), texttemplate="%{text}",
                    textfont=dict(size=9))
    fig.add_trace(heat)
    fig.update_yaxes(range=[rows - 0.5, -0.5], scaleanchor="x", showgrid=False, zeroline=False,
                     constrain="domain")
    fig.update_xaxes(range=[-0.5, cols - 0.5], showgrid=False, zeroline=False, constrain="domain")
    fig = apply_style(fig, title=title, height=420)
    fig.update_layout(margin=dict(l=30, r=20, t=50, b=30), plot_bgcolor="white")
    return fig


def mdl_curve(trace: pd.DataFrame, chosen_size: int) -> go.Figure:
    """DL-data, DL-model and their total (Eq. 10, 13-15) against the subset size, minimiser marked.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots.classic import mdl_curve
    >>> from fsengine.selectors import MDLSelector
    >>> mdl = MDLSelector(max_features=8).fit(digits.X, digits.y)
    >>> fig = mdl_curve(mdl.trace_, mdl.best_size_)
    >>> [t.name for t in fig.data][:3]
    ['DL-data (Eq. 10)', 'DL-model (Eq. 13-14)', 'DL total (Eq. 15)']
    """
    size = trace["size"].to_numpy()
    fig = go.Figure()
    for column, label, color, dash in (
        ("dl_data", "DL-data (Eq. 10)", METHOD_COLORS["MI"], "dot"),
        ("dl_model", "DL-model (Eq. 13-14)", METHOD_COLORS["L1"], "dash"),
        ("dl_total", "DL total (Eq. 15)", METHOD_COLORS["MDL"], "solid"),
    ):
        fig.add_trace(go.Scatter(x=size, y=trace[column], mode="lines+markers", name=label,
                                 line=dict(color=color, dash=dash, width=2.5 if column == "dl_total" else 2),
                                 marker=dict(size=5),
                                 hovertemplate="|J| = %{x}<br>" + label + " = %{y:.1f} nats<extra></extra>"))
    best = trace.loc[trace["size"] == chosen_size, "dl_total"].iloc[0]
    fig.add_trace(go.Scatter(x=[chosen_size], y=[best], mode="markers", name=f"minimum: |J| = {chosen_size}",
                             marker=dict(color=HIGHLIGHT, size=14, symbol="star"),
                             hovertemplate="chosen |J| = %{x}<br>DL = %{y:.1f} nats<extra></extra>"))
    fig.add_vline(x=chosen_size, line=dict(color=HIGHLIGHT, dash="dot", width=1))
    fig.update_xaxes(title="number of features |J|")
    fig.update_yaxes(title="description length [nats]")
    return apply_style(fig, title="MDL: description length of the labels and of the model", height=440)


def l1_path(path: pd.DataFrame, trace: pd.DataFrame, order: Sequence[int], names: Sequence[str], *,
            held_out: pd.Series | None = None, chosen_C: float | None = None,
            ylabel: str = "coefficient") -> go.Figure:
    """Top: every feature's path value against log10 C (the first ``MAX_LABELLED_PATHS`` to enter
    coloured and named, the rest grey), with the number of non-zeros on a top axis.
    Bottom: training, cross-validated and held-out accuracy against log10 C.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots.classic import l1_path
    >>> from fsengine.selectors import L1PathSelector
    >>> l1 = L1PathSelector(n_Cs=8).fit(digits.X, digits.y)
    >>> fig = l1_path(l1.path_, l1.trace_, l1.order_, digits.feature_names)
    >>> fig.layout.xaxis2.title.text
    'log10 C  (C = 1/lambda of Eq. 18)'
    """
    log_c = np.log10(path.index.to_numpy(dtype=np.float64))
    values = path.to_numpy()
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.65, 0.35], vertical_spacing=0.08)
    labelled = list(order[:MAX_LABELLED_PATHS])
    rest = [j for j in np.flatnonzero(np.any(values != 0, axis=0)) if j not in set(labelled)]
    if rest:
        xs = np.concatenate([np.append(log_c, np.nan) for _ in rest])
        ys = np.concatenate([np.append(values[:, j], np.nan) for j in rest])
        fig.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line=dict(color=MUTED, width=1),
                                   name=f"{len(rest)} later features", hoverinfo="skip"), row=1, col=1)
    for i, j in enumerate(labelled):
        fig.add_trace(go.Scattergl(
            x=log_c, y=values[:, j], mode="lines", name=f"{i + 1}. {names[j]}",
            line=dict(color=FEATURE_COLORS[i % len(FEATURE_COLORS)], width=2),
            hovertemplate=f"{names[j]}<br>log10 C = %{{x:.2f}}<br>{ylabel} = %{{y:.3g}}<extra></extra>",
        ), row=1, col=1)
    for column, label, dash in (("train_accuracy", "training", "dot"), ("cv_accuracy", "cross-validated", "dash")):
        if column in trace and trace[column].notna().any():
            fig.add_trace(go.Scatter(x=log_c, y=trace[column], mode="lines+markers", name=f"{label} accuracy",
                                     line=dict(color="#555555", dash=dash), marker=dict(size=4),
                                     legendgroup="accuracy"), row=2, col=1)
    if held_out is not None:
        fig.add_trace(go.Scatter(x=log_c, y=held_out.to_numpy(), mode="lines+markers", name="held-out accuracy",
                                 line=dict(color=HIGHLIGHT, width=2.5), marker=dict(size=5),
                                 legendgroup="accuracy"), row=2, col=1)
    if chosen_C is not None:
        for row in (1, 2):
            fig.add_vline(x=float(np.log10(chosen_C)), line=dict(color=HIGHLIGHT, dash="dot", width=1), row=row, col=1)
    ticks = np.unique(np.linspace(0, log_c.size - 1, min(log_c.size, 8)).round().astype(int))
    fig.update_layout(xaxis3=dict(overlaying="x", side="top", matches="x", showgrid=False,
                                  tickvals=log_c[ticks].tolist(),
                                  ticktext=[str(int(v)) for v in trace["n_active"].to_numpy()[ticks]],
                                  title=dict(text="non-zero features", standoff=2)))
    fig.add_trace(go.Scatter(x=log_c[[0, -1]], y=[None, None], xaxis="x3", yaxis="y", showlegend=False,
                             hoverinfo="skip"))
    fig.update_yaxes(title=ylabel, row=1, col=1)
    fig.update_yaxes(title="accuracy", row=2, col=1)
    fig.update_xaxes(title="log10 C  (C = 1/lambda of Eq. 18)", row=2, col=1)
    fig = apply_style(fig, title=None, height=640)
    fig.update_layout(margin=dict(l=60, r=20, t=70, b=50))
    return fig


def boosting_rounds(trace: pd.DataFrame, names: Sequence[str]) -> go.Figure:
    """Top: training loss (Eq. 27 / n) and training error per round. Bottom: the feature each
    round's stump uses (marker size ~ alpha, colour = weighted error).

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots.classic import boosting_rounds
    >>> from fsengine.selectors import BoostingSelector
    >>> boost = BoostingSelector(n_estimators=10).fit(digits.X, digits.y)
    >>> fig = boosting_rounds(boost.trace_, digits.feature_names)
    >>> len(fig.data[-1].x)                         # one marker per round
    10
    """
    rounds = trace["round"].to_numpy()
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.4, 0.6], vertical_spacing=0.08)
    fig.add_trace(go.Scatter(x=rounds, y=trace["train_loss"], mode="lines+markers", name="training loss (exp.)",
                             line=dict(color=METHOD_COLORS["Boosting"], width=2.5), marker=dict(size=4)), row=1, col=1)
    fig.add_trace(go.Scatter(x=rounds, y=trace["train_error"], mode="lines", name="training error",
                             line=dict(color="#555555", dash="dot")), row=1, col=1)
    features = trace["feature"].to_numpy()
    first_use = list(dict.fromkeys(features.tolist()))
    labels = [names[j] for j in features]
    alpha = trace["alpha"].to_numpy()
    size = 6 + 14 * alpha / alpha.max() if alpha.size and alpha.max() > 0 else 8
    fig.add_trace(go.Scatter(
        x=rounds, y=labels, mode="markers", name="stump feature",
        marker=dict(size=size, color=trace["weighted_error"], colorscale="Viridis", showscale=True,
                    colorbar=dict(title="weighted<br>error", len=0.55, y=0.28)),
        customdata=np.stack([trace["threshold"], alpha, trace["weighted_error"]], axis=1),
        hovertemplate="round %{x}: %{y} <= %{customdata[0]:.4g}<br>alpha = %{customdata[1]:.3f}, "
                      "error = %{customdata[2]:.3f}<extra></extra>",
    ), row=2, col=1)
    fig.update_yaxes(title="loss / error", rangemode="tozero", row=1, col=1)
    categories = [names[j] for j in first_use]
    every_label = len(categories) <= MAX_LABELLED_FEATURES
    fig.update_yaxes(title=None, type="category", categoryorder="array", categoryarray=categories,
                     autorange="reversed", tickmode="array" if every_label else "auto",
                     tickvals=categories if every_label else None, row=2, col=1)
    fig.update_xaxes(title="boosting round m", row=2, col=1)
    lower_panel = 20 * min(len(categories), MAX_LABELLED_FEATURES)  # about 20 px per feature label
    fig = apply_style(fig, title="AdaBoost with decision stumps", height=max(520, int(220 + lower_panel / 0.6)))
    fig.update_layout(legend=dict(x=1.02, y=1.0))
    return fig


def prefix_comparison(sizes: Sequence[int], curves: dict[str, Sequence[float]], *, chosen_size: int,
                      ylabel: str, title: str) -> go.Figure:
    """A score of the first k features of several orderings against k, the MDL size marked.

    Examples
    --------
    >>> from fsengine.plots.classic import prefix_comparison
    >>> fig = prefix_comparison([1, 2, 3], {"MDL order": [0.80, 0.90, 0.92], "MI ranking": [0.78, 0.85, 0.90]},
    ...                         chosen_size=2, ylabel="held-out accuracy", title="First k features")
    >>> [t.name for t in fig.data]
    ['MDL order', 'MI ranking']
    """
    fig = go.Figure()
    palette = {"MDL": METHOD_COLORS["MDL"], "MI": METHOD_COLORS["MI"]}
    for label, values in curves.items():
        key = label.split()[0]
        fig.add_trace(go.Scatter(x=list(sizes), y=list(values), mode="lines+markers", name=label,
                                 line=dict(color=palette.get(key, "#555555"), width=2), marker=dict(size=5)))
    fig.add_vline(x=chosen_size, line=dict(color=HIGHLIGHT, dash="dot", width=1),
                  annotation_text=f"MDL size {chosen_size}", annotation_position="top right")
    fig.update_xaxes(title="number of features k")
    fig.update_yaxes(title=ylabel)
    return apply_style(fig, title=title, height=380)


def ordinal_labels(order: Sequence[int], p: int) -> np.ndarray:
    """Cell texts "1", "2", ... for the features in ``order`` (empty for the other p features)."""
    labels = np.full(p, "", dtype=object)
    labels[np.asarray(order, dtype=np.intp)] = [str(i + 1) for i in range(len(order))]
    return labels


def mdl_chosen_image(selector, image_shape: tuple[int, int], *, background: np.ndarray | None = None) -> go.Figure:
    """The pixels of the MDL subset (the first ``best_size_`` of ``order_``), numbered in the order added.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots.classic import mdl_chosen_image
    >>> from fsengine.selectors import MDLSelector
    >>> mdl = MDLSelector(max_features=8).fit(digits.X, digits.y)
    >>> fig = mdl_chosen_image(mdl, digits.image_shape)
    >>> sorted(t for t in fig.data[-1].text.ravel() if t) == [str(i) for i in range(1, mdl.best_size_ + 1)]
    True
    """
    chosen = np.asarray(selector.order_[: selector.best_size_])
    p = selector.n_features_in_
    entered = np.full(p, np.nan)
    entered[chosen] = np.arange(1, chosen.size + 1)
    return feature_image(entered, image_shape, title="Chosen pixels (order added)", colorbar="added at step",
                         colorscale="Plasma_r", text=ordinal_labels(chosen, p), background=background)


def _two_classes(selector) -> bool:
    return selector.coefs_.shape[1] == 1


def l1_value_label(selector) -> str:
    """What ``path_`` holds: the coefficient (two classes) or the norm of the class coefficients."""
    return "coefficient" if _two_classes(selector) else "norm of class coefficients"


def l1_selector_path(selector, names: Sequence[str], *, held_out: pd.Series | None = None,
                     chosen_C: float | None = None) -> go.Figure:
    """:func:`l1_path` of a fitted ``L1PathSelector``: the features that enter, in entry order.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots.classic import l1_selector_path
    >>> from fsengine.selectors import L1PathSelector
    >>> l1 = L1PathSelector(n_Cs=8).fit(digits.X, digits.y)
    >>> fig = l1_selector_path(l1, digits.feature_names)
    >>> fig.layout.xaxis2.title.text
    'log10 C  (C = 1/lambda of Eq. 18)'
    """
    entered = [int(j) for j in selector.order_ if selector.scores_[j] > 0]
    return l1_path(selector.path_, selector.trace_, entered, list(names), held_out=held_out, chosen_C=chosen_C,
                   ylabel=l1_value_label(selector))


def l1_coefficient_image(selector, at: Position, image_shape: tuple[int, int], *,
                         background: np.ndarray | None = None) -> go.Figure:
    """Every pixel's path value at the grid position ``at`` of ``Cs_`` (zeros blank).

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots import Position
    >>> from fsengine.plots.classic import l1_coefficient_image
    >>> from fsengine.selectors import L1PathSelector
    >>> l1 = L1PathSelector(n_Cs=8).fit(digits.X, digits.y)
    >>> fig = l1_coefficient_image(l1, Position.nearest(l1.Cs_, 1.0), digits.image_shape)
    >>> fig.data[-1].z.shape
    (8, 8)
    """
    label = l1_value_label(selector)
    two = _two_classes(selector)
    return feature_image(selector.path_.iloc[at.index].to_numpy(), image_shape, title=f"{label} at C = {at.value:.3g}",
                         colorbar=label.split()[0], colorscale="RdBu" if two else "Viridis",
                         zmid=0.0 if two else None, background=background, blank_zero=True)


def boosting_image(selector, image_shape: tuple[int, int], *, background: np.ndarray | None = None) -> go.Figure:
    """Total alpha per pixel, the pixels numbered by first use.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots.classic import boosting_image
    >>> from fsengine.selectors import BoostingSelector
    >>> boost = BoostingSelector(n_estimators=10).fit(digits.X, digits.y)
    >>> boosting_image(boost, digits.image_shape).data[-1].z.shape
    (8, 8)
    """
    used = selector.order_[: int(np.count_nonzero(selector.scores_ > 0))]
    return feature_image(selector.scores_, image_shape, blank_zero=True,
                         title="Chosen pixels (total alpha, first-use order)", colorbar="total alpha",
                         text=ordinal_labels(used, selector.n_features_in_), background=background)


def l1_explorable(selector, position: Position, names: Sequence[str], *, image_shape: tuple[int, int] | None = None,
                  background: np.ndarray | None = None, held_out: pd.Series | None = None,
                  chosen_C: float | None = None) -> go.Figure:
    """The L1 path with C as one explorable: the path and the accuracies (:func:`l1_selector_path`)
    with the current C marked, and for image data every pixel's coefficient at that C (zeros blank,
    over the mean image ``background``); a line says how many coefficients are non-zero there and
    which are largest.

    ``selector``: a fitted ``L1PathSelector``; ``position``: where the slider starts, a position on
    ``selector.Cs_``. Slider values are the C values' labels.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits").subset_classes([3, 8])          # 8 x 8 images, two classes
    >>> from fsengine.plots import Position
    >>> from fsengine.plots.classic import l1_explorable
    >>> from fsengine.selectors import L1PathSelector
    >>> l1 = L1PathSelector(n_Cs=8).fit(digits.X, digits.y)
    >>> fig = l1_explorable(l1, Position.nearest(l1.Cs_, 1.0), digits.feature_names, image_shape=digits.image_shape)
    >>> len(fig.layout.sliders[0].steps)            # one step per C of the path
    8
    """
    from fsengine.plots.explorable import (
        Step,
        colour_scale,
        colourbar_ticks,
        distinct_labels,
        explorable,
        heatmap_image,
        layout_image,
        position_line,
    )

    Cs = np.asarray(selector.Cs_, dtype=np.float64)
    start = position.row_of(Cs)
    spec = l1_selector_path(selector, names, held_out=held_out, chosen_C=chosen_C).to_plotly_json()
    layout, data = spec["layout"], spec["data"]
    image = image_shape is not None
    layout["xaxis3"] = dict(layout.get("xaxis3", {}), title={"text": ""})  # the text above says how many
    if image:  # the image takes the legend's place (hover names the lines; the text the largest)
        for axis in ("xaxis", "xaxis2", "xaxis3"):
            layout.setdefault(axis, {})["domain"] = [0.0, 0.52]
        layout["showlegend"] = False
    layout["height"] = 500  # with the slider: one 1280 x 800 screen, also in lecture mode (x 1.25)
    layout["margin"] = dict(layout.get("margin", {}), t=90, r=20)
    values = selector.path_.to_numpy(dtype=np.float64)
    label = l1_value_label(selector)
    two = _two_classes(selector)
    width = 0.006 * float(np.ptp(np.log10(Cs))) or 0.01
    images = [position_line("x", width), position_line("x2", width)]
    cbar = None
    scale = colour_scale("RdBu" if two else "Viridis")
    if image:
        rows, cols = image_shape
        if background is not None:
            data.append({"type": "heatmap", "z": np.asarray(background, dtype=np.float32).reshape(rows, cols),
                         "xaxis": "x4", "yaxis": "y4", "colorscale": "Greys", "showscale": False, "opacity": 0.45,
                         "hoverinfo": "skip"})
        cbar = len(data)
        data.append({"type": "heatmap", "z": np.zeros(image_shape, dtype=np.uint8), "xaxis": "x4", "yaxis": "y4",
                     "zmin": 0.0, "zmax": 1.0, "opacity": 0, "colorscale": scale,
                     "colorbar": {"title": {"text": label.split()[0]}, "x": 0.97, "len": 0.65, "y": 1.0,
                                  "yanchor": "top", "tickmode": "array", "tickvals": [0.0, 0.25, 0.5, 0.75, 1.0]},
                     "hovertemplate": "row %{y}, col %{x}<extra></extra>"})
        layout["xaxis4"] = {"domain": [0.58, 0.95], "anchor": "y4", "range": [-0.5, cols - 0.5], "visible": False,
                            "constrain": "domain"}
        layout["yaxis4"] = {"domain": [0.35, 1.0], "anchor": "x4", "range": [rows - 0.5, -0.5], "visible": False,
                            "scaleanchor": "x4", "constrain": "domain"}
        images.append(layout_image("", 0, 1, 1, 1, xref="x4 domain", yref="y4 domain"))
    layout.update(images=images, title={"text": "", "x": 0.0, "xanchor": "left"})
    labels = distinct_labels(Cs)
    accuracy = None if held_out is None else np.asarray(held_out, dtype=np.float64)
    steps = []
    for i, C in enumerate(Cs):
        row = values[i]
        active = np.flatnonzero(row != 0)
        largest = active[np.argsort(-np.abs(row[active]), kind="stable")][:3]
        text = f"C = {labels[i]}: {active.size:,} non-zero"
        if largest.size:
            text += " (largest: " + ", ".join(str(names[j]) for j in largest) + ")"
        if accuracy is not None and np.isfinite(accuracy[i]):
            text += f"; held-out {accuracy[i]:.3f}"
        lay = {"images[0].x": float(np.log10(C)), "images[1].x": float(np.log10(C)), "title.text": text}
        step = {}
        if image:
            z = np.where(row != 0, row, np.nan).reshape(rows, cols)
            top = float(np.nanmax(np.abs(z))) if active.size else 1.0
            low, high = (-top, top) if two else (0.0, top)
            lay["images[2].source"] = heatmap_image(z, low, high, scale)
            step[cbar] = {"colorbar.ticktext": colourbar_ticks(low, high, 5)}
        steps.append(Step(labels[i], labels[i], step, lay))
    return explorable(spec, steps, active=start, prefix="C = ", name="C")
