"""Figures for the Relevance Tagging Machine: ROC of tag relevance, convergence traces, the most
relevant tags with their posterior theta, AUC and accuracy comparisons."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from fsengine import stats
from fsengine.plots.style import FEATURE_COLORS, HIGHLIGHT, METHOD_COLORS, apply_style, bar_value_axis

__all__ = ["roc_figure", "auc_figure", "convergence_figure", "relevant_tags_figure", "accuracy_figure",
           "theta_image_figure", "threshold_explorable"]

_EXTRA_COLORS = {"BernoulliNB": "#393b79", "MultinomialNB": "#637939", "L2 logistic": "#8c6d31",
                 "Slides": "#bbbbbb"}


def method_color(label: str, k: int = 0) -> str:
    """The project colour of a method label, else a palette colour."""
    return METHOD_COLORS.get(label) or _EXTRA_COLORS.get(label) or FEATURE_COLORS[k % len(FEATURE_COLORS)]


def roc_figure(curves: dict[str, tuple], auc: dict[str, float] | None = None, *,
               title: str = "Finding the relevant tags (ROC)") -> go.Figure:
    """One ROC curve per method (fpr, tpr), AUC in the legend, chance diagonal dashed.

    Examples
    --------
    >>> from fsengine.plots.rtm import roc_figure
    >>> fig = roc_figure({"RTM": ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])}, {"RTM": 1.0})
    >>> [t.name for t in fig.data]
    ['chance', 'RTM (AUC 1.000)']
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                             line=dict(color="#aaaaaa", dash="dash", width=1), hoverinfo="skip"))
    for k, (label, (fpr, tpr)) in enumerate(curves.items()):
        name = f"{label} (AUC {auc[label]:.3f})" if auc and label in auc else label
        fig.add_trace(go.Scatter(x=np.asarray(fpr), y=np.asarray(tpr), mode="lines", name=name,
                                 line=dict(color=method_color(label, k), width=2.5 if label.startswith("RTM") else 1.8,
                                           shape="hv")))
    fig.update_xaxes(title="false positive rate (irrelevant tags kept)", range=[0, 1])
    fig.update_yaxes(title="true positive rate (relevant tags found)", range=[0, 1.01])
    return apply_style(fig, title=title, height=460)


def auc_figure(auc: pd.DataFrame) -> go.Figure:
    """AUC per method across seeds: one dot per seed and the mean as a bar, with the 95% t interval
    of the mean over seeds (:func:`fsengine.stats.t_interval`) as its error bar when there are at
    least two seeds.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.rtm import auc_figure
    >>> auc = pd.DataFrame({"RTM": [0.90, 0.88, 0.93], "MI": [0.85, 0.86, 0.80]})     # one row per seed
    >>> fig = auc_figure(auc)
    >>> fig.data[0].x, [round(v, 3) for v in fig.data[0].y]                          # the means, best first
    (('RTM', 'MI'), [0.903, 0.837])
    """
    order = auc.mean().sort_values(ascending=False).index
    means = [float(auc[m].mean()) for m in order]
    error = None
    if len(auc) >= 2:
        est = [stats.t_interval(auc[m], what="seeds") for m in order]
        error = dict(type="data", symmetric=False, array=[e.high - e.value for e in est],
                     arrayminus=[e.value - e.low for e in est], color="#555555", thickness=1.2)
    fig = go.Figure()
    name = "mean over seeds (95% t interval)" if error else "mean over seeds"
    fig.add_trace(go.Bar(x=list(order), y=means, name=name, opacity=0.55, error_y=error,
                         marker_color=[method_color(m, k) for k, m in enumerate(order)]))
    for seed, row in auc.iterrows():
        fig.add_trace(go.Scatter(x=list(order), y=[row[m] for m in order], mode="markers",
                                 name="one dot per seed", legendgroup="seeds", marker=dict(color="#333333", size=6),
                                 hovertemplate=f"%{{x}}, seed {seed}: AUC %{{y:.3f}}<extra></extra>",
                                 showlegend=bool(seed == auc.index[0])))
    low = float(np.nanmin(auc.to_numpy())) if auc.size else 0.5
    if error is not None:
        low = min(low, min(e.low for e in est))
    bar_value_axis(fig, "AUC", round(max(0.0, low - 0.05), 2))
    return apply_style(fig, title="AUC of tag relevance over seeds", height=380)


def convergence_figure(traces: dict[str, pd.DataFrame], tol: float | None = None) -> go.Figure:
    """Per sweep: largest change of a posterior mean (log scale), the evidence estimate (EM: its
    lower bound) and the number of skipped factors, one colour per method.

    Examples
    --------
    >>> from fsengine.data.synthetic.rtm import make_rtm
    >>> from fsengine.plots.rtm import convergence_figure
    >>> from fsengine.selectors import RTMSelector
    >>> ds = make_rtm(n_samples=200, n_tags=20, n_relevant=3, tag_rate=0.15, min_effect=0.3, seed=0)
    >>> traces = {m: RTMSelector(method=m).fit(ds.X, ds.y).trace_ for m in ("power_ep", "em")}
    >>> fig = convergence_figure(traces, tol=1e-4)
    >>> len(fig.data)                                # three panels per method
    6
    """
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        subplot_titles=("max change of a posterior mean", "log evidence estimate",
                                        "factors skipped (undefined tilted distribution)"))
    for k, (label, tr) in enumerate(traces.items()):
        color = method_color(label, k)
        it = tr["iteration"].to_numpy()
        fig.add_trace(go.Scatter(x=it, y=tr["max_change"].clip(lower=1e-12), mode="lines", name=label,
                                 legendgroup=label, line=dict(color=color)), row=1, col=1)
        fig.add_trace(go.Scatter(x=it, y=tr["log_evidence"], mode="lines", name=label, legendgroup=label,
                                 showlegend=False, line=dict(color=color)), row=2, col=1)
        fig.add_trace(go.Scatter(x=it, y=tr["n_skipped"], mode="lines", name=label, legendgroup=label,
                                 showlegend=False, line=dict(color=color)), row=3, col=1)
    if tol is not None:
        fig.add_hline(y=tol, line=dict(color="#888888", dash="dot"), row=1, col=1,
                      annotation_text="tolerance", annotation_position="bottom right")
    fig.update_yaxes(type="log", dtick=1, exponentformat="power", row=1, col=1)
    fig.update_xaxes(title="sweep", row=3, col=1)
    return apply_style(fig, title="Convergence per sweep", height=640)


def relevant_tags_figure(table: pd.DataFrame, *, class_names=("class 0", "class 1")) -> go.Figure:
    """Dot-and-interval plot of the posterior theta_j = P(class 1 | tag j) for the listed tags
    (columns: tag, mean, lower, upper, log_bf), most relevant on top; 0.5 = irrelevant.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.rtm import relevant_tags_figure
    >>> table = pd.DataFrame({"tag": ["great", "dull"], "mean": [0.8, 0.25], "lower": [0.7, 0.15],
    ...                       "upper": [0.88, 0.37], "log_bf": [6.1, 3.2]})
    >>> fig = relevant_tags_figure(table, class_names=("negative", "positive"))
    >>> [(t.name, list(t.y)) for t in fig.data]       # coloured by the class a tag points to
    [('points to positive', ['great']), ('points to negative', ['dull'])]
    """
    table = table.iloc[::-1]
    up = table["mean"] >= 0.5
    fig = go.Figure()
    for mask, name, color in ((up, f"points to {class_names[1]}", HIGHLIGHT),
                              (~up, f"points to {class_names[0]}", "#1f77b4")):
        part = table[mask]
        fig.add_trace(go.Scatter(
            x=part["mean"], y=part["tag"], mode="markers", name=name, marker=dict(color=color, size=9),
            error_x=dict(type="data", symmetric=False, array=part["upper"] - part["mean"],
                         arrayminus=part["mean"] - part["lower"], color=color, thickness=1.5),
            customdata=np.column_stack([part["log_bf"]]),
            hovertemplate="%{y}: theta %{x:.3f}<br>log Bayes factor %{customdata[0]:.2f}<extra></extra>"))
    fig.add_vline(x=0.5, line=dict(color="#888888", dash="dash"))
    fig.update_xaxes(title="posterior theta_j = P(class 1 | tag present), 90% interval", range=[0, 1])
    fig.update_yaxes(type="category", automargin=True)
    return apply_style(fig, title="Most relevant tags", height=max(320, 24 * len(table) + 120))


def accuracy_figure(table: pd.DataFrame, *, low: pd.DataFrame | None = None,
                    high: pd.DataFrame | None = None) -> go.Figure:
    """Grouped bars: rows of ``table`` are methods, columns datasets (test accuracy), each labelled
    with its value; ``low`` and ``high`` (same shape) draw each bar's interval as a whisker, and the
    value with its interval moves from the label (the whisker would cross it) to the hover text.

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.rtm import accuracy_figure
    >>> table = pd.DataFrame({"polarity": [0.76, 0.77], "subjectivity": [0.88, 0.89]}, index=["RTM EM", "L1"])
    >>> fig = accuracy_figure(table)
    >>> [t.name for t in fig.data], list(fig.data[0].text)
    (['RTM EM', 'L1'], ['0.760', '0.880'])
    """
    fig = go.Figure()
    for k, method in enumerate(table.index):
        values = table.loc[method].to_numpy(dtype=float)
        labels = dict(text=[f"{v:.3f}" if np.isfinite(v) else "" for v in values], textposition="outside")
        error = None
        if low is not None and high is not None:
            lo, hi = low.loc[method].to_numpy(dtype=float), high.loc[method].to_numpy(dtype=float)
            error = dict(type="data", symmetric=False, array=hi - values, arrayminus=values - lo, color="#555555",
                         thickness=1.2)
            labels = dict(customdata=np.stack([lo, hi], axis=1),
                          hovertemplate="%{x}: %{y:.3f} [%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
                                        f"<extra>{method}</extra>")
        fig.add_trace(go.Bar(x=list(table.columns), y=values, name=str(method),
                             marker_color=method_color(str(method), k), error_y=error, **labels))
    values = table.to_numpy(dtype=float)
    floor = float(np.nanmin(values if low is None else low.to_numpy(dtype=float)))
    floor = floor if np.isfinite(floor) else 0.5
    fig.update_layout(barmode="group")
    bar_value_axis(fig, "test accuracy", round(max(0.0, floor - 0.1), 1))
    return apply_style(fig, title="Test accuracy" + (" (95% intervals)" if low is not None else ""), height=420)


def theta_image_figure(theta_mean: np.ndarray, image_shape: tuple[int, int], *,
                       class_names=("class 0", "class 1")) -> go.Figure:
    """Posterior mean theta_j of every pixel tag as an image, diverging around 0.5 (white): red
    pixels, when on, point to class 1, blue ones to class 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.rtm import theta_image_figure
    >>> fig = theta_image_figure(np.linspace(0.1, 0.9, 6), (2, 3), class_names=("B", "D"))
    >>> fig.data[0].z.shape, round(fig.data[0].zmin + fig.data[0].zmax, 6)    # symmetric about 0.5
    ((2, 3), 1.0)
    """
    img = np.asarray(theta_mean, dtype=float).reshape(image_shape)
    span = max(float(np.nanmax(np.abs(img - 0.5))), 1e-6)
    fig = go.Figure(go.Heatmap(
        z=img[::-1], zmin=0.5 - span, zmax=0.5 + span, colorscale="RdBu_r",
        colorbar=dict(title="theta"),
        hovertemplate="row %{customdata[0]}, col %{x}: theta %{z:.3f}<extra></extra>",
        customdata=np.repeat(np.arange(image_shape[0])[::-1, None], image_shape[1], axis=1)[..., None]))
    fig.update_xaxes(showticklabels=False, constrain="domain")
    fig.update_yaxes(showticklabels=False, scaleanchor="x")
    return apply_style(fig, title=f"Pixel tags: red points to {class_names[1]}, blue to {class_names[0]}",
                       height=420)


#: the relevance thresholds of the threshold explorable (log Bayes factors; 0 = even odds)
THRESHOLDS = np.round(np.arange(-5.0, 5.01, 0.5), 2)


def threshold_explorable(relevance, threshold: float = 0.0, *, truth=None, theta=None, image_shape=None,
                         class_names=("class 0", "class 1"), ard_active: int | None = None,
                         thresholds=THRESHOLDS) -> go.Figure:
    """The relevance threshold as one explorable: every tag's log Bayes factor of θ_j against
    θ_j = ½ (Savage-Dickey), sorted, with the threshold as a line; how many tags lie above it (and,
    when ``truth`` marks the truly relevant tags, how many of those are relevant); for image data
    (``theta``: the posterior means, ``image_shape``) the tags above it marked on the θ image.

    ``relevance`` (p,): a fit's log Bayes factors; the slider runs over ``thresholds`` and starts
    at the one nearest ``threshold``. Slider values are the thresholds (``"0.5"``).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.rtm import threshold_explorable
    >>> relevance = np.array([4.2, -1.0, 0.8, -3.5, 2.2])               # log Bayes factors of five tags
    >>> fig = threshold_explorable(relevance, 0.0, truth=np.array([True, False, True, False, False]))
    >>> fig.layout.sliders[0].steps[fig.layout.sliders[0].active].label
    '0'
    """
    from fsengine.plots.explorable import Step, colour_scale, explorable, layout_image, mask_uri, position_line

    relevance = np.asarray(relevance, dtype=np.float64)
    thresholds = np.asarray(thresholds, dtype=np.float64)
    start = int(np.argmin(np.abs(thresholds - threshold)))
    order = np.argsort(-relevance, kind="stable")
    ranked = relevance[order]
    p = relevance.size
    truth = None if truth is None else np.asarray(truth, dtype=bool)
    image = theta is not None and image_shape is not None
    left = [0.0, 0.5] if image else [0.0, 1.0]
    mode = "markers" if p <= 2000 else "lines"
    data = []
    groups = [(np.ones(p, dtype=bool), "tags", "#1f77b4")] if truth is None else \
        [(~truth[order], "irrelevant tags", "#7f7f7f"), (truth[order], "truly relevant tags", HIGHLIGHT)]
    for keep, name, colour in groups:
        data.append({"type": "scatter", "x": np.flatnonzero(keep) + 1, "y": ranked[keep].astype(np.float32),
                     "mode": mode, "name": name, "marker": {"color": colour, "size": 5}, "line": {"color": colour},
                     "hovertemplate": "rank %{x}: log Bayes factor %{y:.2f}<extra></extra>"})
    finite = ranked[np.isfinite(ranked)]
    low = float(min(thresholds.min() - 1, np.quantile(finite, 0.01) if finite.size else -6))
    high = float(max(thresholds.max() + 1, np.quantile(finite, 0.99) if finite.size else 6))
    layout = {
        "template": pio.templates["plotly_white"].to_plotly_json(), "height": 420, "font": {"size": 13},
        "margin": {"l": 60, "r": 20, "t": 70, "b": 50},
        "title": {"text": "", "x": 0.0, "xanchor": "left"},
        "legend": {"orientation": "h", "x": 0.0, "y": 1.0, "yanchor": "bottom"},
        "xaxis": {"domain": left, "anchor": "y", "title": {"text": "tags, most relevant first"},
                  "type": "log" if p > 200 else "linear"},
        "yaxis": {"domain": [0.0, 1.0], "anchor": "x", "range": [low, high],
                  "title": {"text": "log Bayes factor (θ_j vs ½)"}},
    }
    images = [position_line("y", (high - low) / 150, colour=(214, 39, 40, 255), vertical=False)]
    if image:
        rows, cols = image_shape
        img = np.asarray(theta, dtype=float).reshape(image_shape)
        span = max(float(np.nanmax(np.abs(img - 0.5))), 1e-6)
        data.append({"type": "heatmap", "z": img.astype(np.float32), "xaxis": "x2", "yaxis": "y2",
                     "zmin": 0.5 - span, "zmax": 0.5 + span, "colorscale": colour_scale("RdBu_r"),
                     "colorbar": {"title": {"text": "θ"}, "len": 0.9, "y": 0.9, "yanchor": "top"},
                     "hovertemplate": "row %{y}, col %{x}: θ %{z:.3f}<extra></extra>"})
        layout["xaxis2"] = {"domain": [0.6, 0.95], "anchor": "y2", "range": [-0.5, cols - 0.5], "visible": False,
                            "constrain": "domain"}
        layout["yaxis2"] = {"domain": [0.0, 0.9], "anchor": "x2", "range": [rows - 0.5, -0.5], "visible": False,
                            "scaleanchor": "x2", "constrain": "domain"}
        note = f"θ (red: {class_names[1]}, blue: {class_names[0]}), □ above"
        layout["annotations"] = [{"text": note, "x": 0.775, "y": 0.92, "xref": "paper",
                                  "yref": "paper", "yanchor": "bottom", "showarrow": False}]
        images.append(layout_image("", 0, 1, 1, 1, xref="x2 domain", yref="y2 domain"))
    layout["images"] = images
    scale, ring = 4, np.ones((4, 4), dtype=bool)
    ring[1:-1, 1:-1] = False
    steps = []
    for t in thresholds:
        chosen = relevance > t
        text = f"threshold {t:g}: {int(chosen.sum()):,} of {p:,} tags above"
        if truth is not None:
            text += (f"; truly relevant among them {int((chosen & truth).sum()):,} of {int(truth.sum()):,}, "
                     f"irrelevant {int((chosen & ~truth).sum()):,}")
        if ard_active is not None:
            text += f" (the ARD left {ard_active:,} unpinned)"
        lay = {"images[0].y": float(t), "title.text": text}
        if image:
            marks = np.zeros((rows, cols, scale, scale), dtype=bool)
            marks[chosen.reshape(rows, cols)] = ring
            lay["images[1].source"] = mask_uri(marks.transpose(0, 2, 1, 3).reshape(rows * scale, cols * scale),
                                               (0, 0, 0))
        steps.append(Step(f"{t:g}", f"{t:g}", {}, lay))
    return explorable({"data": data, "layout": layout}, steps, active=start, prefix="log Bayes factor above ",
                      name="relevance threshold")
