"""Figures of the method comparison: held-out accuracy against k with interval bands, paired
differences from a reference method, top-k overlap (Jaccard), selection stability (Kuncheva's
index and Nogueira et al.'s estimator, with interval whiskers, and Nogueira's paired test against
the reference), ROC against a known truth, and relevance heatmaps per method.

Pure builders: tables and arrays in (as :class:`fsengine.compare.analyses.ComparisonResult` returns them),
``go.Figure`` out.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine.plots.style import FEATURE_COLORS, FOREGROUND, HIGHLIGHT, METHOD_COLORS, apply_style

__all__ = ["accuracy_curves", "difference_curves", "jaccard_heatmap", "stability_bars", "roc_curves",
           "relevance_grid", "top_k_explorable"]

BASELINE_COLOR = "#555555"


def method_color(label: str, position: int = 0) -> str:
    """The method's colour from ``METHOD_COLORS``, else one of the feature palette."""
    return METHOD_COLORS.get(label, FEATURE_COLORS[position % len(FEATURE_COLORS)])


def _rgba(color: str, alpha: float) -> str:
    """``#rrggbb`` as ``rgba(r, g, b, alpha)`` (a band's fill in its line's colour)."""
    h = color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


#: opacity of an interval band: light enough that several overlapping bands stay readable
BAND_ALPHA = 0.12


def _band(x, low, high, color: str, name: str, group: str) -> go.Scatter:
    """A filled band from ``low`` to ``high`` over ``x`` (one closed polygon, no outline, no hover),
    toggled with its curve (same legend group)."""
    x = list(x)
    return go.Scatter(x=x + x[::-1], y=list(high) + list(low)[::-1], fill="toself", fillcolor=_rgba(color, BAND_ALPHA),
                      line=dict(width=0), mode="lines", name=name, legendgroup=group, showlegend=False,
                      hoverinfo="skip")


def _k_axis(fig: go.Figure, ks: np.ndarray, k: int | None) -> None:
    """The k axis (log beyond k = 20, ticks at the grid) and a dotted marker at the grid point
    nearest ``k`` (values exist on the grid only)."""
    log_axis = bool(ks.max() > 20)
    if k is not None:
        at = int(ks[np.argmin(np.abs(ks - k))])
        fig.add_vline(x=at, line=dict(color=HIGHLIGHT, dash="dot", width=1))
        # annotations on a log axis take log10 coordinates (shapes take data coordinates)
        fig.add_annotation(x=float(np.log10(at)) if log_axis else at, y=1.0, yref="paper",
                           text=f"k = {k}" if at == k else f"grid k = {at} (nearest to k = {k})",
                           showarrow=False, xanchor="left", yanchor="bottom", font=dict(color=HIGHLIGHT))
    fig.update_xaxes(title="number of features k (first k of each ranking)",
                     type="log" if log_axis else "linear", tickmode="array", tickvals=ks.tolist())


def _subtitle(fig: go.Figure, note: str | None) -> None:
    """``note`` under the title, with room above the plot for it and the k marker's label (also
    at lecture mode's font sizes)."""
    if note:
        fig.update_layout(title_subtitle_text=note, margin_t=110)


def accuracy_curves(accuracy: pd.DataFrame, *, all_features: float, majority: float, random_label: str,
                    k: int | None = None, title: str | None = None, all_features_interval=None,
                    note: str | None = None) -> go.Figure:
    """Held-out accuracy of the downstream classifier on the first k features of each ranking.

    ``accuracy`` has columns curve, k, accuracy and, when present, low and high: each curve's
    interval, drawn as a band in the curve's colour (under every line, toggled with it in the
    legend; the hover gives the interval). The ``random_label`` curve is drawn as a grey dashed
    baseline, ``all_features`` and ``majority`` as horizontal lines (``all_features_interval``, an
    object with ``low`` and ``high``, adds its interval to the label), ``k`` as a dotted vertical
    line; ``note`` (what the bands are) goes under the title.

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> from fsengine.compare import RANDOM
    >>> from fsengine.plots.compare import accuracy_curves
    >>> fig = accuracy_curves(result.accuracy, all_features=result.all_features_accuracy,
    ...                       majority=result.majority_accuracy, random_label=RANDOM, k=3)
    >>> [t.name for t in fig.data if t.mode == "lines+markers"]      # after one band per curve
    ['ANOVA F', 'MI', 'random features']
    """
    fig = go.Figure()
    curves = [c for c in dict.fromkeys(accuracy["curve"]) if c != random_label] + [random_label]
    bands = {"low", "high"} <= set(accuracy.columns)
    parts, colors = {}, {}
    for i, curve in enumerate(curves):
        part = accuracy[accuracy["curve"] == curve].sort_values("k")
        if not part.empty:
            parts[curve] = part
            colors[curve] = BASELINE_COLOR if curve == random_label else method_color(curve, i)
    if bands:
        for curve, part in parts.items():
            fig.add_trace(_band(part["k"], part["low"], part["high"], colors[curve], f"{curve}: interval", curve))
    for curve, part in parts.items():
        baseline = curve == random_label
        interval = "<br>interval [%{customdata[0]:.3f}, %{customdata[1]:.3f}]" if bands else ""
        fig.add_trace(go.Scatter(
            x=part["k"], y=part["accuracy"], mode="lines+markers", name=curve, legendgroup=curve,
            customdata=np.column_stack([part["low"], part["high"]]) if bands else None,
            line=dict(color=colors[curve], width=1.5 if baseline else 2.5, dash="dash" if baseline else "solid"),
            marker=dict(size=5 if baseline else 7),
            hovertemplate=f"{curve}<br>k = %{{x}}<br>accuracy = %{{y:.3f}}{interval}<extra></extra>"))
    text = f"all features {all_features:.3f}"
    if all_features_interval is not None:
        text += f" [{all_features_interval.low:.3f}, {all_features_interval.high:.3f}]"
    fig.add_hline(y=all_features, line=dict(color=BASELINE_COLOR, dash="dot", width=1.5),
                  annotation_text=text, annotation_position="top left")
    fig.add_hline(y=majority, line=dict(color="#aaaaaa", dash="dot", width=1),
                  annotation_text=f"majority class {majority:.3f}", annotation_position="top right")
    _k_axis(fig, np.sort(accuracy["k"].unique()), k)
    fig.update_yaxes(title="held-out accuracy (logistic regression)")
    fig = apply_style(fig, title=title or "Held-out accuracy against the number of selected features", height=440)
    _subtitle(fig, note)
    return fig


#: marker of a difference whose interval excludes 0 (filled) and of one that does not (open)
RESOLVED_MARKER, UNRESOLVED_MARKER = "circle", "circle-open"


def difference_curves(differences: pd.DataFrame, *, k: int | None = None, title: str | None = None,
                      note: str | None = None) -> go.Figure:
    """Paired differences in held-out accuracy of each method from the reference against k.

    ``differences`` has the columns of :meth:`fsengine.compare.analyses.ComparisonResult.differences`
    (method, reference, k, difference, low, high, verdict): one line per method with its interval
    as a band; filled markers where the verdict is resolved (the interval excludes 0), open
    markers where it is not; a line at 0 (no difference). ``note`` goes under the title.

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> from fsengine.plots.compare import difference_curves
    >>> fig = difference_curves(result.differences("ANOVA F"), k=3)
    >>> [t.name for t in fig.data]                                     # the band, then the line
    ['MI: interval', 'MI − ANOVA F']
    """
    reference = str(differences["reference"].iloc[0]) if len(differences) else ""
    fig = go.Figure()
    methods = list(dict.fromkeys(differences["method"]))
    colors = {m: method_color(m, i + 1) for i, m in enumerate(methods)}
    parts = {m: differences[differences["method"] == m].sort_values("k") for m in methods}
    for m, part in parts.items():
        fig.add_trace(_band(part["k"], part["low"], part["high"], colors[m], f"{m}: interval", m))
    for m, part in parts.items():
        resolved = (part["verdict"] != "not resolved").to_numpy()
        fig.add_trace(go.Scatter(
            x=part["k"], y=part["difference"], mode="lines+markers", name=f"{m} − {reference}", legendgroup=m,
            line=dict(color=colors[m], width=2.5),
            marker=dict(size=9, symbol=np.where(resolved, RESOLVED_MARKER, UNRESOLVED_MARKER).tolist(),
                        line=dict(width=2, color=colors[m])),
            customdata=np.column_stack([part["low"], part["high"], part["verdict"]]),
            hovertemplate=f"{m} − {reference}<br>k = %{{x}}<br>difference = %{{y:+.3f}}<br>interval "
                          "[%{customdata[0]:+.3f}, %{customdata[1]:+.3f}]<br>%{customdata[2]}<extra></extra>"))
    fig.add_hline(y=0.0, line=dict(color=BASELINE_COLOR, dash="dot", width=1.5))
    if len(differences):
        _k_axis(fig, np.sort(differences["k"].unique()), k)
    fig.update_yaxes(title=f"accuracy − accuracy of {reference}<br><sup>dotted line at 0: no difference</sup>",
                     zeroline=False)
    fig = apply_style(fig, title=title or f"Paired difference in held-out accuracy from {reference}", height=440)
    _subtitle(fig, note)
    return fig


def jaccard_heatmap(matrix: pd.DataFrame, k: int) -> go.Figure:
    """Pairwise Jaccard overlap ``|A ∩ B| / |A ∪ B|`` of the methods' top-k sets (1 on the diagonal).

    Examples
    --------
    >>> import pandas as pd
    >>> from fsengine.plots.compare import jaccard_heatmap
    >>> overlap = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["MI", "L1"], columns=["MI", "L1"])
    >>> jaccard_heatmap(overlap, k=10).data[0].z.tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    labels = [str(c) for c in matrix.columns]
    z = matrix.to_numpy(dtype=np.float64)
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, zmin=0.0, zmax=1.0, colorscale="Blues", colorbar=dict(title="Jaccard"),
        text=np.round(z, 2), texttemplate="%{text:.2f}",
        hovertemplate="%{y} vs %{x}<br>Jaccard = %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", side="bottom")
    size = max(320, 60 * len(labels) + 140)
    return apply_style(fig, title=f"Overlap of the top-{k} sets (Jaccard)", height=size)


#: colour of Nogueira's estimate beside each Kuncheva bar (readable on light and dark pages; its
#: whiskers are FOREGROUND, which the dark style turns light)
NOGUEIRA_COLOR = "#555555"


def _nogueira_trace(labels, phi, low, high) -> go.Scatter:
    """Nogueira's estimate with its asymptotic interval as a marker with whiskers, placed beside
    each method's bar (``offsetgroup`` with ``scattermode="group"``)."""
    return go.Scatter(
        x=labels, y=phi, mode="markers", name="Nogueira Φ, asymptotic 95%", offsetgroup="nogueira",
        marker=dict(symbol="diamond", size=9, color=NOGUEIRA_COLOR),
        error_y=dict(type="data", symmetric=False, array=np.nan_to_num(high - phi), arrayminus=np.nan_to_num(phi - low),
                     color=FOREGROUND, thickness=1.5, width=6),
        customdata=np.column_stack([low, high]) if len(labels) else None,
        hovertemplate="%{x}<br>Nogueira Φ = %{y:.3f}<br>asymptotic interval [%{customdata[0]:.3f}, "
                      "%{customdata[1]:.3f}]<extra></extra>")


def stability_bars(stability: pd.DataFrame, k: int) -> go.Figure:
    """Stability of each method's top-k set over bootstrap resamples (0 = chance, 1 = identical
    every time): Kuncheva's index as a bar with its interval (columns ``low``, ``high``, when given
    and finite) as a whisker, and, when the table has them (columns ``nogueira``, ``nogueira_low``,
    ``nogueira_high``), Nogueira et al.'s estimate beside it as a diamond with its asymptotic
    interval. Hatched bars: some fit had tied scores at the cut.

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> from fsengine.plots.compare import stability_bars
    >>> fig = stability_bars(result.stability(3), 3)
    >>> [t.name for t in fig.data]
    ['Kuncheva index, jackknife 95%', 'Nogueira Φ, asymptotic 95%']
    """
    table = stability.dropna(subset=["kuncheva"])
    labels = table["method"].tolist()
    ties = table["ties_at_cut"].to_numpy()
    value = table["kuncheva"].to_numpy(dtype=np.float64)
    has_interval = {"low", "high"} <= set(table.columns) and bool(np.isfinite(table["low"]).any())
    low = table["low"].to_numpy(dtype=np.float64) if has_interval else value
    high = table["high"].to_numpy(dtype=np.float64) if has_interval else value
    interval = "<br>interval [%{customdata[3]:.3f}, %{customdata[4]:.3f}]" if has_interval else ""
    fig = go.Figure(go.Bar(
        x=labels, y=value, marker_color=[method_color(m, i) for i, m in enumerate(labels)], offsetgroup="kuncheva",
        marker_pattern_shape=["/" if t else "" for t in ties], name="Kuncheva index, jackknife 95%",
        text=[f"{v:.2f}" for v in value], textposition="inside", insidetextanchor="start",
        error_y=dict(type="data", symmetric=False, array=np.nan_to_num(high - value),
                     arrayminus=np.nan_to_num(value - low), color=FOREGROUND, thickness=1.5, width=8,
                     visible=has_interval),
        customdata=np.column_stack([table["pairs"], ties, table["resamples"], low, high]) if len(table) else None,
        hovertemplate="%{x}<br>Kuncheva = %{y:.3f}" + interval + "<br>mean over %{customdata[0]} pairs of "
                      "%{customdata[2]} resamples<br>fits with a tie at the cut: %{customdata[1]}<extra></extra>"))
    nogueira = "nogueira" in table.columns
    floor_values = [value, low]
    if nogueira:
        phi_low = table["nogueira_low"].to_numpy(dtype=np.float64)
        fig.add_trace(_nogueira_trace(labels, table["nogueira"].to_numpy(dtype=np.float64), phi_low,
                                      table["nogueira_high"].to_numpy(dtype=np.float64)))
        floor_values.append(phi_low)
        fig.update_layout(barmode="group", scattermode="group", bargroupgap=0.1)
    fig.add_hline(y=0.0, line=dict(color=BASELINE_COLOR, dash="dot", width=1),
                  annotation_text="chance", annotation_position="bottom right")
    floor = np.nanmin(np.concatenate(floor_values)) if len(table) else 0.0
    fig.update_yaxes(title="stability of the top-k set", range=[min(-0.1, float(floor) - 0.1), 1.12])
    fig.update_xaxes(type="category")
    fig = apply_style(fig, title=f"Stability of the top-{k} set (bootstrap)", height=420)
    if nogueira:
        fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0))
    notes = (["bars: Kuncheva, 95% jackknife over the resamples"] if has_interval else [])
    notes += (["diamonds: Nogueira et al. (2018), asymptotic 95%"] if nogueira else [])
    _subtitle(fig, "; ".join(notes) or None)
    return fig


def stability_differences(stability: pd.DataFrame, k: int, *, note: str | None = None) -> go.Figure:
    """Nogueira et al.'s paired test of equal stability against the reference at top-k size ``k``:
    Phi_method - Phi_reference per method with its interval (columns ``stability_difference``,
    ``stability_difference_low``, ``stability_difference_high`` of
    :meth:`fsengine.compare.analyses.ComparisonResult.stability`), a filled marker where the verdict
    (Holm-adjusted p-value, ``stability_p_holm``) is resolved, an open one where it is not; a
    line at 0 (equally stable)."""
    table = stability.dropna(subset=["stability_difference"])
    reference = str(stability["reference"].iloc[0]) if len(stability) else ""
    labels = table["method"].tolist()
    d = table["stability_difference"].to_numpy(dtype=np.float64)
    low = table["stability_difference_low"].to_numpy(dtype=np.float64)
    high = table["stability_difference_high"].to_numpy(dtype=np.float64)
    resolved = (table["stability_verdict"] != "not resolved").to_numpy()
    colors = [method_color(m, i + 1) for i, m in enumerate(labels)]
    fig = go.Figure(go.Scatter(
        x=labels, y=d, mode="markers", showlegend=False,
        marker=dict(size=11, color=colors, symbol=np.where(resolved, RESOLVED_MARKER, UNRESOLVED_MARKER).tolist(),
                    line=dict(width=2, color=colors)),
        error_y=dict(type="data", symmetric=False, array=np.nan_to_num(high - d), arrayminus=np.nan_to_num(d - low),
                     color=FOREGROUND, thickness=1.5, width=8),
        customdata=np.column_stack([low, high, table["stability_p"], table["stability_p_holm"],
                                    table["stability_verdict"]]) if len(table) else None,
        hovertemplate=f"%{{x}} − {reference}<br>Φ difference = %{{y:+.3f}}<br>interval [%{{customdata[0]:+.3f}}, "
                      "%{customdata[1]:+.3f}]<br>p = %{customdata[2]:.3g}, Holm-adjusted %{customdata[3]:.3g}"
                      "<br>%{customdata[4]}<extra></extra>"))
    fig.add_hline(y=0.0, line=dict(color=BASELINE_COLOR, dash="dot", width=1.5))
    fig.update_xaxes(type="category")
    fig.update_yaxes(title=f"Φ − Φ of {reference}<br><sup>dotted line at 0: equally stable</sup>", zeroline=False)
    fig = apply_style(fig, title=f"Stability of the top-{k} set against {reference} (Nogueira et al., paired)",
                      height=400)
    _subtitle(fig, note)
    return fig


def roc_curves(roc: dict[str, tuple[np.ndarray, np.ndarray]], auc: pd.Series) -> go.Figure:
    """ROC of each method's scores against the truly relevant features, AUC in the legend.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from fsengine.plots.compare import roc_curves
    >>> fig = roc_curves({"MI": (np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0]))}, pd.Series({"MI": 1.0}))
    >>> [t.name for t in fig.data]
    ['chance (AUC 0.5)', 'MI (AUC 1.000)']
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance (AUC 0.5)",
                             line=dict(color="#aaaaaa", dash="dot"), hoverinfo="skip"))
    for i, (label, (fpr, tpr)) in enumerate(roc.items()):
        fig.add_trace(go.Scatter(
            x=fpr, y=tpr, mode="lines", name=f"{label} (AUC {auc[label]:.3f})",
            line=dict(color=method_color(label, i), width=2.5),
            hovertemplate=f"{label}<br>false positive rate %{{x:.3f}}<br>true positive rate %{{y:.3f}}<extra></extra>"))
    fig.update_xaxes(title="false positive rate (irrelevant features ranked above the cut)", range=[-0.02, 1.02])
    fig.update_yaxes(title="true positive rate (relevant features found)", range=[-0.02, 1.02])
    return apply_style(fig, title="Recovering the truly relevant features (ROC)", height=460)


def normalised(scores: np.ndarray) -> np.ndarray:
    """Scores mapped to [0, 1] by their finite min and max; non-finite scores become NaN."""
    s = np.asarray(scores, dtype=np.float64)
    out = np.full(s.shape, np.nan)
    finite = np.isfinite(s)
    if finite.any():
        lo, hi = s[finite].min(), s[finite].max()
        out[finite] = (s[finite] - lo) / (hi - lo) if hi > lo else 0.5
    return out


def relevance_grid(scores: dict[str, np.ndarray], image_shape: tuple[int, int], *,
                   top: dict[str, np.ndarray] | None = None, columns: int = 4) -> go.Figure:
    """One heatmap per method of its scores over the image (each scaled to [0, 1] by its own
    range; blank: no score), with its top-k pixels marked by red squares.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.compare import relevance_grid
    >>> scores = {"MI": np.arange(12.0), "L1": np.arange(12.0)[::-1]}     # 3 x 4 images
    >>> fig = relevance_grid(scores, (3, 4), top={"MI": np.array([11, 10])})
    >>> [t.type for t in fig.data]                                         # MI's top pixels marked
    ['heatmap', 'scatter', 'heatmap']
    """
    labels = list(scores)
    n_cols = min(columns, len(labels))
    n_rows = math.ceil(len(labels) / n_cols)
    rows, cols = image_shape
    fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=labels, horizontal_spacing=0.03,
                        vertical_spacing=0.08 if n_rows > 1 else 0.0)
    for i, label in enumerate(labels):
        r, c = divmod(i, n_cols)
        fig.add_trace(go.Heatmap(
            z=normalised(scores[label]).reshape(rows, cols), zmin=0.0, zmax=1.0, colorscale="Viridis",
            showscale=i == 0, colorbar=dict(title="relative<br>score", len=0.8), name=label,
            hovertemplate=f"{label}<br>pixel (%{{y}}, %{{x}})<br>relative score %{{z:.3f}}<extra></extra>"),
            row=r + 1, col=c + 1)
        if top is not None and label in top:
            ty, tx = np.divmod(np.asarray(top[label], dtype=np.intp), cols)
            fig.add_trace(go.Scatter(x=tx, y=ty, mode="markers", showlegend=False, name=f"{label} top-k",
                                     marker=dict(symbol="square-open", color=HIGHLIGHT, size=6, line=dict(width=1.5)),
                                     hovertemplate="top pixel (%{y}, %{x})<extra></extra>"),
                          row=r + 1, col=c + 1)
    for i in range(1, len(labels) + 1):
        suffix = "" if i == 1 else str(i)
        fig.update_layout({f"yaxis{suffix}": dict(scaleanchor=f"x{suffix}", range=[rows - 0.5, -0.5],
                                                  constrain="domain", showticklabels=False, showgrid=False,
                                                  zeroline=False),
                           f"xaxis{suffix}": dict(showticklabels=False, showgrid=False, zeroline=False,
                                                  range=[-0.5, cols - 0.5], constrain="domain")})
    fig = apply_style(fig, title="Relevance per pixel (red squares: each method's top-k)",
                      height=250 * n_rows + 90)
    fig.update_layout(margin=dict(l=20, r=20, t=80, b=20))
    return fig


#: the top-k explorable's slider has at most this many values of k (spread evenly)
MAX_K_STEPS = 200


def top_k_steps(result, max_steps: int = MAX_K_STEPS) -> list[int]:
    """The k of the top-k explorable's slider steps: every k of the comparison's range, or
    ``max_steps`` of them spread evenly."""
    from fsengine.plots.explorable import spread_rows

    lo, hi = result.k_range()
    return [int(v) for v in spread_rows(hi - lo + 1, max_steps) + lo]


def nearest_step(result, k: int, max_steps: int = MAX_K_STEPS) -> int:
    """The slider step of the top-k explorable nearest ``k`` (what the figure shows for it)."""
    ks = np.asarray(top_k_steps(result, max_steps))
    return int(ks[int(np.argmin(np.abs(ks - k)))])


def top_k_explorable(result, k: int | None = None, *, max_steps: int = MAX_K_STEPS) -> go.Figure:
    """The top-k size as one explorable: the methods' pairwise Jaccard overlap of their top-k sets
    (left) and the stability of each method's top-k set over the bootstrap fits (right, when there
    were at least two: Kuncheva's index as bars with jackknife whiskers, Nogueira et al.'s estimate
    as diamonds with asymptotic whiskers), at every k of the comparison's range.

    ``result``: a :class:`~fsengine.compare.analyses.ComparisonResult` (its ``k_range``, ``jaccard``
    and ``stability``); the slider starts at ``k`` (default 10, or the largest k). Slider values
    are the k. A step restyles the two small traces (a whole redraw of a small figure).

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> from fsengine.plots.compare import top_k_explorable
    >>> fig = top_k_explorable(result, k=3)
    >>> [step.label for step in fig.layout.sliders[0].steps]               # one step per k
    ['1', '2', '3', '4', '5', '6']
    """
    from fsengine.plots.explorable import Step, colour_scale, explorable

    lo, hi = result.k_range()
    ks = np.asarray(top_k_steps(result, max_steps))
    start = int(np.argmin(np.abs(ks - (min(10, hi) if k is None else k))))
    labels = [r.label for r in result.runs]
    stable = result.stability(int(ks[0]))["kuncheva"].notna().to_numpy()
    data = [{"type": "heatmap", "x": labels, "y": labels, "zmin": 0.0, "zmax": 1.0, "colorscale": colour_scale("Blues"),
             "colorbar": {"title": {"text": "Jaccard"}, "x": 0.38 if stable.any() else 1.0},
             "texttemplate": "%{text}", "hovertemplate": "%{y} vs %{x}<br>Jaccard = %{z:.3f}<extra></extra>"}]
    layout = apply_style(go.Figure(), height=max(340, 50 * len(labels) + 160)).layout.to_plotly_json()
    layout.update(xaxis={"domain": [0.0, 0.35 if stable.any() else 0.9], "type": "category"},
                  yaxis={"autorange": "reversed", "type": "category"},
                  title={"text": "", "x": 0.0, "xanchor": "left"}, margin=dict(layout["margin"], t=60))
    shown = [m for m, s in zip(labels, stable, strict=True) if s]
    columns = set(result.stability(int(ks[0])).columns)
    whiskers = {"low", "high"} <= columns
    nogueira = "nogueira" in columns
    if shown:
        data.append({"type": "bar", "x": shown, "xaxis": "x2", "yaxis": "y2", "textposition": "outside",
                     "offsetgroup": "kuncheva", "name": "Kuncheva, jackknife 95%",
                     "error_y": {"type": "data", "symmetric": False, "color": FOREGROUND, "thickness": 1.5,
                                 "width": 8, "visible": whiskers},
                     "marker": {"color": [method_color(m, labels.index(m)) for m in shown]},
                     "hovertemplate": "%{x}<br>Kuncheva = %{y:.3f}<extra></extra>", "showlegend": nogueira})
        if nogueira:
            data.append({"type": "scatter", "mode": "markers", "x": shown, "xaxis": "x2", "yaxis": "y2",
                         "offsetgroup": "nogueira", "name": "Nogueira Φ, asymptotic 95%",
                         "marker": {"symbol": "diamond", "size": 9, "color": NOGUEIRA_COLOR},
                         "error_y": {"type": "data", "symmetric": False, "color": FOREGROUND, "thickness": 1.5,
                                     "width": 6},
                         "hovertemplate": "%{x}<br>Nogueira Φ = %{y:.3f}<extra></extra>"})
            layout.update(barmode="group", scattermode="group", bargroupgap=0.1,
                          legend={"orientation": "h", "x": 1.0, "xanchor": "right", "y": -0.12, "yanchor": "top"})
        layout.update(xaxis2={"domain": [0.66, 1.0], "anchor": "y2", "type": "category"},
                      yaxis2={"anchor": "x2", "range": [-0.2, 1.12], "title": {"text": "stability"}})
    steps = []
    for kk in ks:
        z = result.jaccard(int(kk)).to_numpy(dtype=np.float64)
        step = {0: {"z": z.astype(np.float32), "text": [[f"{v:.2f}" for v in row] for row in z], "y": labels}}
        title = f"top {int(kk)}: overlap (Jaccard)"
        if shown:
            table = result.stability(int(kk)).set_index("method").loc[shown]
            kuncheva = table["kuncheva"].to_numpy(dtype=np.float64)
            low = table["low"].to_numpy(dtype=np.float64) if whiskers else kuncheva
            high = table["high"].to_numpy(dtype=np.float64) if whiskers else kuncheva
            step[1] = {"y": kuncheva.astype(np.float32), "text": [f"{v:.2f}" for v in kuncheva],
                       "error_y.array": np.nan_to_num(high - kuncheva).astype(np.float32),
                       "error_y.arrayminus": np.nan_to_num(kuncheva - low).astype(np.float32),
                       "marker.pattern.shape": ["/" if t else "" for t in table["ties_at_cut"]]}
            title += " and stability (Kuncheva"
            if nogueira:
                phi = table["nogueira"].to_numpy(dtype=np.float64)
                step[2] = {"y": phi.astype(np.float32),
                           "error_y.array": np.nan_to_num(table["nogueira_high"].to_numpy(dtype=np.float64)
                                                          - phi).astype(np.float32),
                           "error_y.arrayminus": np.nan_to_num(phi - table["nogueira_low"].to_numpy(dtype=np.float64)
                                                               ).astype(np.float32)}
                title += " bars, Nogueira diamonds"
            title += ")"
        steps.append(Step(str(int(kk)), str(int(kk)), step, {"title.text": title}))
    return explorable({"data": data, "layout": layout}, steps, active=start, prefix="top-k size k = ", name="k")
