"""Figures of the Bayes-factor selection page (Daume III 2004): pure plotly builders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine.plots.style import FEATURE_COLORS, HIGHLIGHT, METHOD_COLORS, apply_style

__all__ = ["beta_rounds_figure", "accuracy_figure", "sign_figure", "pixel_pairs_figure", "approximation_figure",
           "pairs_explorable"]

BF_COLOR = METHOD_COLORS["Bayes factor"]
SIGN_COLORS = {"laplace": BF_COLOR, "printed": "#e377c2"}


def _focus_accuracy_axis(fig, frames, columns) -> None:
    """Zoom the accuracy axis on the models with at least one pair; the bias-only model (often far
    below, e.g. 50% on two balanced classes) is named in a note instead of squashing the curves."""
    vals, base = [], []
    for frame in frames:
        for col in columns:
            if col in frame:
                v = frame[col].to_numpy(dtype=float)
                n = frame["n_features"].to_numpy()
                vals += list(v[(n > 0) & np.isfinite(v)])
                base += list(v[(n == 0) & np.isfinite(v)])
    if not vals:
        return
    lo, hi = min(vals), max(vals)
    pad = max(0.005, 0.1 * (hi - lo))
    low, high = max(0.0, lo - pad), min(1.0, hi + pad)
    fig.update_yaxes(range=[low, high])
    if base and min(base) < low:
        fig.add_annotation(x=1, xref="paper", y=low, xanchor="right", yanchor="bottom", showarrow=False,
                           text=f"0 pairs (bias only): {min(base):.1%}, below the axis",
                           font=dict(size=11, color="#666666"))


def _stop_line(fig, x, text):
    fig.add_vline(x=x, line=dict(color=HIGHLIGHT, dash="dash", width=2))
    fig.add_annotation(x=x, y=1.0, yref="paper", text=text, showarrow=False, xanchor="left",
                       yanchor="bottom", font=dict(color=HIGHLIGHT, size=12))


def signed_log(values) -> np.ndarray:
    """asinh(v): linear near 0 and logarithmic for |v| >> 1, so the first rounds' margins (tens to
    thousands of nats) and the near-zero margins at the stop are both readable."""
    return np.arcsinh(np.asarray(values, dtype=float))


def _signed_log_ticks(values) -> tuple[list[float], list[str]]:
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    top = max(float(np.max(np.abs(finite))) if finite.size else 1.0, 1.0)
    mags = [0.0] + [10.0 ** k for k in range(0, int(np.ceil(np.log10(top))) + 1)]
    lo = float(np.min(finite)) if finite.size else 0.0
    ticks = sorted({m for m in mags} | {-m for m in mags if -m >= min(lo, 0) * 10})
    return [float(v) for v in signed_log(ticks)], [f"{t:g}" for t in ticks]


def beta_rounds_figure(trace: pd.DataFrame, stop_round: int | None, *, title: str | None = None
                       ) -> go.Figure:
    """Top: beta_0 = log p(D | lambda^0) of each round's MAP model. Bottom: beta_g - beta_0 of the
    best candidate at the start of each round, of every feature added in the round (Eq. 14
    re-scored values), and of the best candidate left after the round, on a signed-log axis
    (asinh); the zero line is beta_0. The round where beta_0 first beats every candidate (the
    automatic stop) is marked.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.plots.bayes_factor import beta_rounds_figure
    >>> from fsengine.selectors import BayesFactorSelector
    >>> ds = make_planted_maxent(n_samples=300, n_predicates=20, n_classes=3, n_true=4, n_test=10, seed=0)
    >>> sel = BayesFactorSelector(features_per_round=2).fit(ds.X, ds.y)
    >>> fig = beta_rounds_figure(sel.trace_, sel.stop_round_)
    >>> [t.name for t in fig.data][:2]
    ['β₀', 'best candidate at round start']
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        row_heights=[0.35, 0.65],
                        subplot_titles=("β₀ = log p(D | λ⁰) per round",
                                        "β_g − β₀ (signed log scale; > 0: adding g beats the current model)"))
    rounds = trace["round"].to_numpy()
    fig.add_trace(go.Scatter(x=rounds, y=trace["beta_0"], mode="lines+markers", name="β₀",
                             line=dict(color="#444444"), marker=dict(size=6),
                             hovertemplate="round %{x}<br>β₀ = %{y:.2f}<extra></extra>"), row=1, col=1)
    best = trace["best_margin"].to_numpy(dtype=float)
    fig.add_trace(go.Scatter(x=rounds, y=signed_log(best), customdata=best, mode="lines+markers",
                             name="best candidate at round start", line=dict(color=BF_COLOR),
                             hovertemplate="round %{x}<br>best β_g − β₀ = %{customdata:.3f}"
                                           "<extra></extra>"), row=2, col=1)
    xs, ys, names = [], [], []
    for r, margins, added in zip(rounds, trace["margin_added"], trace["added"]):
        xs += [r] * len(margins)
        ys += list(margins)
        names += list(added)
    fig.add_trace(go.Scatter(x=xs, y=signed_log(ys), customdata=ys, mode="markers",
                             name="added in the round",
                             marker=dict(color=BF_COLOR, size=8, opacity=0.6, symbol="circle-open"),
                             text=names, hovertemplate="round %{x}: %{text}<br>β_g − β₀ = "
                                                       "%{customdata:.3f}<extra></extra>"),
                  row=2, col=1)
    after = trace["best_margin_after"].to_numpy(dtype=float)
    fig.add_trace(go.Scatter(x=rounds, y=signed_log(after), customdata=after, mode="markers",
                             name="best left after the round (Eq. 14)",
                             marker=dict(color="#7f7f7f", size=8, symbol="x"),
                             hovertemplate="round %{x}<br>best remaining = %{customdata:.3f}"
                                           "<extra></extra>"), row=2, col=1)
    fig.add_hline(y=0.0, line=dict(color="#888888", width=1), row=2, col=1)
    if stop_round is not None:
        fig.add_vline(x=stop_round, line=dict(color=HIGHLIGHT, dash="dash", width=2), row="all", col=1)
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"automatic stop (round {stop_round})",
                                 line=dict(color=HIGHLIGHT, dash="dash", width=2)), row=2, col=1)
        if rounds.max() > stop_round:
            fig.add_vrect(x0=stop_round, x1=rounds.max() + 0.4, fillcolor="#888888", opacity=0.1,
                          line_width=0, row="all", col=1)
            fig.add_annotation(x=(stop_round + rounds.max()) / 2, y=0.0, yref="paper",
                               text="traced past the stop", showarrow=False, yanchor="bottom",
                               font=dict(size=11, color="#666666"))
    tickvals, ticktext = _signed_log_ticks(np.r_[best, ys, after])
    fig.update_xaxes(title_text="round", row=2, col=1)
    if rounds.size <= 25:
        fig.update_xaxes(dtick=1)
    fig.update_yaxes(title_text="nats", row=1, col=1)
    fig.update_yaxes(title_text="nats", tickvals=tickvals, ticktext=ticktext, row=2, col=1)
    return apply_style(fig, title=title, height=580)


def accuracy_figure(curves: pd.DataFrame, n_at_stop: int, *, show_train: bool = True,
                    title: str | None = None, stopped: bool = True) -> go.Figure:
    """Accuracy against the number of selected (predicate, class) pairs; ``curves`` has columns
    method, n_features, train_accuracy, heldout_accuracy (method "Bayes factor" first). The
    Bayes-factor stopping point is marked; with ``stopped=False`` (β₀ never won: the run ended
    on its budget or another limit) the line says "end of run" instead.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.bayes_factor import accuracy_figure
    >>> curves = pd.DataFrame({"method": ["Bayes factor"] * 3, "n_features": [0, 2, 4],
    ...                        "train_accuracy": [0.50, 0.80, 0.90], "heldout_accuracy": [0.50, 0.78, 0.85]})
    >>> fig = accuracy_figure(curves, n_at_stop=4)
    >>> [t.name for t in fig.data]
    ['Bayes factor: held-out', 'Bayes factor: train']
    """
    fig = go.Figure()
    for method, part in curves.groupby("method", sort=False):
        part = part.sort_values("n_features")
        color = METHOD_COLORS.get(method, "#333333")
        fig.add_trace(go.Scatter(x=part["n_features"], y=part["heldout_accuracy"],
                                 mode="lines+markers", name=f"{method}: held-out",
                                 line=dict(color=color, width=2.5 if method == "Bayes factor" else 1.8),
                                 hovertemplate=f"{method}<br>%{{x}} pairs<br>held-out %{{y:.4f}}"
                                               "<extra></extra>"))
        if show_train:
            fig.add_trace(go.Scatter(x=part["n_features"], y=part["train_accuracy"],
                                     mode="lines", name=f"{method}: train",
                                     line=dict(color=color, dash="dot", width=1.5),
                                     hovertemplate=f"{method}<br>%{{x}} pairs<br>train %{{y:.4f}}"
                                                   "<extra></extra>"))
    _stop_line(fig, n_at_stop, f"Bayes-factor stop: {n_at_stop} pairs" if stopped else
               f"end of run, no automatic stop: {n_at_stop} pairs")
    fig.update_xaxes(title_text="selected (predicate, class) pairs")
    fig.update_yaxes(title_text="accuracy", tickformat=".1%")
    _focus_accuracy_axis(fig, [curves], ["heldout_accuracy"] + (["train_accuracy"] if show_train else []))
    return apply_style(fig, title=title, height=440)


def sign_figure(laplace: pd.DataFrame, printed: pd.DataFrame, stop_laplace: int, stop_printed: int,
                *, title: str | None = None) -> go.Figure:
    """Held-out accuracy per round of the two sign choices of Eq. (12), each stopping point marked
    (a budget stop is drawn as an open marker).

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.bayes_factor import sign_figure
    >>> laplace = pd.DataFrame({"n_features": [2, 4, 6], "heldout_accuracy": [0.80, 0.85, 0.86]})
    >>> printed = pd.DataFrame({"n_features": [2, 4, 6, 8], "heldout_accuracy": [0.80, 0.84, 0.85, 0.85]})
    >>> fig = sign_figure(laplace, printed, stop_laplace=6, stop_printed=8)
    >>> [t.name for t in fig.data if t.name.startswith("stop")]
    ['stop (Laplace −½ log a_g): 6 pairs', 'stop (printed +½ log a_g): 8 pairs']
    """
    fig = go.Figure()
    for label, curve, stop, key in (("Laplace −½ log a_g", laplace, stop_laplace, "laplace"),
                                    ("printed +½ log a_g", printed, stop_printed, "printed")):
        color = SIGN_COLORS[key]
        fig.add_trace(go.Scatter(x=curve["n_features"], y=curve["heldout_accuracy"],
                                 mode="lines+markers", name=label, line=dict(color=color),
                                 marker=dict(size=5),
                                 hovertemplate=f"{label}<br>%{{x}} pairs<br>held-out %{{y:.4f}}"
                                               "<extra></extra>"))
        at = curve.loc[curve["n_features"] == stop, "heldout_accuracy"]
        if len(at):
            fig.add_trace(go.Scatter(x=[stop], y=[at.iloc[0]], mode="markers",
                                     name=f"stop ({label}): {stop} pairs",
                                     marker=dict(color=color, size=15, symbol="star",
                                                 line=dict(color="black", width=1)),
                                     hovertemplate=f"stop of {label}: %{{x}} pairs<extra></extra>"))
    fig.update_xaxes(title_text="selected (predicate, class) pairs")
    fig.update_yaxes(title_text="held-out accuracy", tickformat=".1%")
    _focus_accuracy_axis(fig, [laplace, printed], ["heldout_accuracy"])
    return apply_style(fig, title=title, height=400)


def pixel_pairs_figure(class_means: np.ndarray, rows, cols, classes, class_names, order, *,
                       title: str | None = None) -> go.Figure:
    """Image data: the selected pixels (numbered in selection order, coloured by the pair's class)
    over the mean training image of each class, side by side.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.bayes_factor import pixel_pairs_figure
    >>> means = np.random.default_rng(0).random((2, 3, 3))          # mean 3 x 3 image of each class
    >>> fig = pixel_pairs_figure(means, rows=[0, 2], cols=[1, 2], classes=[0, 1], class_names=["B", "D"], order=[1, 2])
    >>> [a.text for a in fig.layout.annotations]
    ['mean image of B', 'mean image of D']
    """
    n = class_means.shape[0]
    fig = make_subplots(rows=1, cols=n, subplot_titles=[f"mean image of {c}" for c in class_names],
                        horizontal_spacing=0.03)
    for c in range(n):
        fig.add_trace(go.Heatmap(z=class_means[c], colorscale="Greys", showscale=False,
                                 hoverinfo="skip"), row=1, col=c + 1)
        for k, name in enumerate(class_names):
            pick = np.asarray(classes) == k
            fig.add_trace(go.Scatter(
                x=np.asarray(cols)[pick], y=np.asarray(rows)[pick], mode="markers+text",
                text=[str(o) for o in np.asarray(order)[pick]], textposition="top center",
                textfont=dict(size=10, color=FEATURE_COLORS[k % len(FEATURE_COLORS)]),
                marker=dict(size=9, color=FEATURE_COLORS[k % len(FEATURE_COLORS)],
                            line=dict(color="white", width=1)),
                name=f"pair with class {name}", legendgroup=name, showlegend=c == 0,
                hovertemplate=f"pixel (%{{y}}, %{{x}}) => {name}<br>selected #%{{text}}<extra></extra>"),
                row=1, col=c + 1)
        fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, row=1, col=c + 1)
        fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, autorange="reversed",
                         scaleanchor=f"x{c + 1 if c else ''}", row=1, col=c + 1)
    return apply_style(fig, title=title, height=360 if n <= 3 else 300)


def approximation_figure(check: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Per candidate pair: the full Laplace Bayes factor (every weight re-fitted, full Hessian) next
    to the mean-field margins of Eq. (12) with the Laplace and the printed sign.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.bayes_factor import approximation_figure
    >>> check = pd.DataFrame({"pair": ["x3 => B", "x7 => D"], "full_laplace": [12.1, 3.0],
    ...                       "mean_field": [12.4, 3.1], "mean_field_printed": [14.0, 4.9]})
    >>> len(approximation_figure(check).data)                     # three bars per pair
    3
    """
    fig = go.Figure()
    for col, label, color in (("full_laplace", "full Laplace (Eq. 9, all weights re-fitted)", "#333333"),
                              ("mean_field", "mean field, Laplace sign −½ log a_g", SIGN_COLORS["laplace"]),
                              ("mean_field_printed", "mean field, printed sign +½ log a_g",
                               SIGN_COLORS["printed"])):
        fig.add_trace(go.Bar(x=check["pair"], y=check[col], name=label, marker_color=color,
                             hovertemplate="%{x}<br>%{y:.3f} nats<extra>" + label + "</extra>"))
    fig.add_hline(y=0.0, line=dict(color="#888888", width=1))
    fig.update_layout(barmode="group")
    fig.update_xaxes(tickangle=-30)
    fig.update_yaxes(title_text="log Bayes factor of adding the pair (nats)")
    return apply_style(fig, title=title, height=420)


#: the pairs explorable's slider has at most this many positions (spread evenly over 1..n)
MAX_PAIR_STEPS = 300


def pairs_explorable(run, curves: pd.DataFrame, *, k: int | None = None, predicate_names, class_names,
                     pixels=None, stopped: bool = True, show_train: bool = True,
                     max_steps: int = MAX_PAIR_STEPS) -> go.Figure:
    """The first k selected pairs as one explorable: the accuracy against the number of pairs
    (``curves``: :func:`fsengine.methods.bayes_factor.study.accuracy_curves`) with k marked, and for
    image data (``pixels``: :func:`~fsengine.methods.bayes_factor.study.selected_pixels`) the pixels
    of the first k pairs on every class's mean image, coloured by the pair's class; a line names
    the k-th pair, its round and margin, and the held-out accuracy of the largest round model
    within k pairs.

    ``run``: a :class:`~fsengine.methods.bayes_factor.study.BayesFactorRun`; the slider runs over
    k = 1 .. every pair the run selected (at most ``max_steps`` values) and starts at ``k``
    (default: the automatic stop). Slider values are the k.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.methods.bayes_factor.study import accuracy_curves, heldout_task, run_bayes_factor
    >>> from fsengine.plots.bayes_factor import pairs_explorable
    >>> task = heldout_task(make_planted_maxent(n_samples=300, n_predicates=20, n_classes=3, n_true=4, seed=0))
    >>> run = run_bayes_factor(task, per_round=2)
    >>> fig = pairs_explorable(run, accuracy_curves(run), predicate_names=task.predicate_names,
    ...                        class_names=task.class_names)
    >>> len(fig.layout.sliders[0].steps) == len(run.predicates)     # k = 1 .. every selected pair
    True
    """
    from fsengine.plots.explorable import (
        Step,
        explorable,
        layout_image,
        palette_uri,
        position_line,
        ring_marks,
        spread_rows,
    )

    n = int(len(run.predicates))
    if n < 1:
        raise ValueError("no pair to explore: the run selected none")
    ks = spread_rows(n, max_steps) + 1
    start = int(np.argmin(np.abs(ks - (run.n_at_stop if k is None else k))))
    base = accuracy_figure(curves, run.n_at_stop, title=None, stopped=stopped, show_train=show_train)
    spec = base.to_plotly_json()
    layout, data = spec["layout"], spec["data"]
    image = pixels is not None
    layout["xaxis"] = dict(layout.get("xaxis", {}), domain=[0.0, 0.5 if image else 0.74])
    layout["yaxis"] = dict(layout.get("yaxis", {}), domain=[0.0, 1.0])
    layout["height"] = 470
    layout["margin"] = dict(layout.get("margin", {}), b=50, t=70, r=10)
    # the legend beside the accuracy panel: under the mean images, or on the right without them
    layout["legend"] = {"orientation": "v", "x": 0.56 if image else 0.77, "xanchor": "left", "y": 0.0,
                        "yanchor": "bottom"}
    for note in layout.get("annotations", []):  # the accuracy panel's notes at its own right edge
        if note.get("xref") == "paper" and note.get("x") == 1:
            note["x"] = layout["xaxis"]["domain"][1]
    images = [position_line("x", 0.004 * max(n, 10))]
    heldout = bayes_curve = None
    if curves is not None:
        bayes_curve = curves[curves["method"] == "Bayes factor"].sort_values("n_features")
        heldout = bayes_curve["heldout_accuracy"].to_numpy()
    colours = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in FEATURE_COLORS]
    if image:  # the class means in a grid (up to 5 a row), blank rows and a blank column between them
        means = np.asarray(pixels.class_means, dtype=np.float32)
        n_classes, rows, cols = means.shape
        across = n_classes if n_classes <= 3 else min(5, n_classes)
        down = -(-n_classes // across)
        gap = max(2, rows // 4)  # between grid rows: room for the class names
        origin = [((c // across) * (rows + gap), (c % across) * (cols + 1)) for c in range(n_classes)]
        mosaic = np.full((down * (rows + gap) - gap, across * (cols + 1) - 1), np.nan, dtype=np.float32)
        for c, (y0, x0) in enumerate(origin):
            mosaic[y0:y0 + rows, x0:x0 + cols] = means[c] / max(float(means[c].max()), 1e-12)
        data.append({"type": "heatmap", "z": mosaic, "xaxis": "x2", "yaxis": "y2", "zmin": 0, "zmax": 1,
                     "colorscale": [[0.0, "#ffffff"], [1.0, "#000000"]], "showscale": False, "hoverinfo": "skip"})
        layout["xaxis2"] = {"domain": [0.56, 1.0], "anchor": "y2", "range": [-0.5, mosaic.shape[1] - 0.5],
                            "visible": False, "constrain": "domain"}
        layout["yaxis2"] = {"domain": [0.5, 1.0] if down == 1 else [0.35, 1.0], "anchor": "x2",
                            "range": [mosaic.shape[0] - 0.5, -0.5], "visible": False, "scaleanchor": "x2",
                            "constrain": "domain"}
        name = (lambda c: f"mean of {class_names[c]}") if n_classes <= 3 else (lambda c: str(class_names[c]))
        layout["annotations"] = list(layout.get("annotations", [])) + [
            {"text": name(c), "x": x0 + (cols - 1) / 2, "y": y0 - 0.5, "xref": "x2", "yref": "y2",
             "yanchor": "bottom", "showarrow": False} for c, (y0, x0) in enumerate(origin)]
        images.append(layout_image("", 0, 1, 1, 1, xref="x2 domain", yref="y2 domain"))
        all_rows, all_cols = np.divmod(np.asarray(run.predicates), cols)
    layout.update(images=images, title={"text": "", "x": 0.0, "xanchor": "left"})
    steps = []
    for kk in ks:
        j, c = int(run.predicates[kk - 1]), int(run.classes[kk - 1])
        text = (f"pair {kk}: {predicate_names[j]} → {class_names[c]} (round {int(run.round[kk - 1])}, "
                f"β_g − β₀ = {float(run.margin[kk - 1]):.3g})")
        if heldout is not None:
            sizes = bayes_curve["n_features"].to_numpy()
            within = sizes <= kk
            if within.any():
                text += f"; held-out {heldout[within][-1]:.1%} with {int(sizes[within][-1])}"
        lay = {"images[0].x": float(kk), "title.text": text}
        if image:
            labels = np.zeros(mosaic.shape, dtype=np.uint8)
            for y0, x0 in origin:  # every pair on every class's image, in its class's colour
                labels[all_rows[:kk] + y0, all_cols[:kk] + x0] = np.asarray(run.classes[:kk]) % len(colours) + 1
            lay["images[1].source"] = palette_uri(ring_marks(labels), colours)
        steps.append(Step(str(int(kk)), str(int(kk)), {}, lay))
    return explorable(spec, steps, active=start, prefix="first k pairs: k = ", name="k")
