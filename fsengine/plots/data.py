"""Figures of the Data page: sample images per class, class means, class balance, feature
relevance preview, word frequencies per class. Pure builders: arrays in, ``go.Figure`` out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine.plots.style import FEATURE_COLORS, HIGHLIGHT, apply_style

__all__ = ["image_grid", "class_mean_images", "class_balance", "target_histogram", "top_features", "feature_map",
           "word_frequencies"]

#: ink = 1 is drawn black on white, as on paper
INK_SCALE = "Greys"


def sample_rows(y: np.ndarray, per_class: int, seed: int = 0) -> dict:
    """label -> up to ``per_class`` row indices of that label (random, seeded, sorted)."""
    rng = np.random.default_rng(seed)
    out = {}
    for label in np.unique(y):
        idx = np.flatnonzero(y == label)
        out[label] = np.sort(rng.choice(idx, size=min(per_class, idx.size), replace=False))
    return out


def image_grid(X: np.ndarray, y: np.ndarray, shape: tuple[int, int], class_names,
               per_class: int = 10, seed: int = 0) -> go.Figure:
    """One row of sample images per class, as a single heatmap mosaic with 1-px gaps.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> from fsengine.plots.data import image_grid
    >>> digits = load_dataset("digits")
    >>> fig = image_grid(digits.X, digits.y, digits.image_shape, digits.target_names, per_class=4)
    >>> fig.data[0].z.shape                               # ten rows of four 8 x 8 images, 1-px gaps
    (89, 35)
    """
    h, w = shape
    rows = sample_rows(y, per_class, seed)
    n_rows, n_cols = len(rows), max(len(v) for v in rows.values())
    mosaic = np.full((n_rows * (h + 1) - 1, n_cols * (w + 1) - 1), np.nan)
    for r, idx in enumerate(rows.values()):
        for c, i in enumerate(idx):
            mosaic[r * (h + 1): r * (h + 1) + h, c * (w + 1): c * (w + 1) + w] = np.asarray(X[i]).reshape(h, w)
    fig = go.Figure(go.Heatmap(z=mosaic, colorscale=INK_SCALE, zmin=0, zmax=float(np.nanmax(mosaic)) or 1.0,
                               showscale=False, hovertemplate="value %{z:.2f}<extra></extra>"))
    centres = [r * (h + 1) + (h - 1) / 2 for r in range(n_rows)]
    fig.update_yaxes(autorange="reversed", tickvals=centres, ticktext=[str(class_names[k]) for k in range(n_rows)],
                     scaleanchor="x", showgrid=False, zeroline=False, tickfont=dict(size=16))
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False)
    apply_style(fig, height=int(90 + 640 * n_rows * (h + 1) / max(n_cols * (w + 1), 1) * 0.9))
    fig.update_layout(margin=dict(l=60, r=10, t=10, b=10))
    return fig


def class_mean_images(means: np.ndarray, shape: tuple[int, int], class_names) -> go.Figure:
    """Mean image of each class; with two classes a third panel shows their difference (class 1
    minus class 0), the pixels a selector should find.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.data import class_mean_images
    >>> means = np.array([[0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]])    # two classes of 2 x 2 images
    >>> fig = class_mean_images(means, (2, 2), ["B", "D"])
    >>> [a.text for a in fig.layout.annotations]                          # with two classes, their difference
    ['mean of B', 'mean of D', 'D minus B']
    """
    k = len(means)
    diff = k == 2
    titles = [f"mean of {n}" for n in class_names] + ([f"{class_names[1]} minus {class_names[0]}"] if diff else [])
    cols = min(k + diff, 5)
    n_rows = int(np.ceil((k + diff) / cols))
    fig = make_subplots(rows=n_rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.03,
                        vertical_spacing=0.08)
    panels = [m.reshape(shape) for m in means]
    for i, img in enumerate(panels):
        fig.add_trace(go.Heatmap(z=img, colorscale=INK_SCALE, zmin=0, zmax=max(float(np.max(means)), 1e-12),
                                 showscale=False, hovertemplate="mean %{z:.2f}<extra></extra>"),
                      row=i // cols + 1, col=i % cols + 1)
    if diff:
        d = (means[1] - means[0]).reshape(shape)
        lim = float(np.abs(d).max()) or 1.0
        fig.add_trace(go.Heatmap(z=d, colorscale="RdBu_r", zmid=0, zmin=-lim, zmax=lim,
                                 colorbar=dict(title="difference", thickness=12, len=0.9),
                                 hovertemplate="difference %{z:.2f}<extra></extra>"),
                      row=(k) // cols + 1, col=k % cols + 1)
    fig.update_yaxes(autorange="reversed", showticklabels=False, scaleanchor="x", showgrid=False,
                     constrain="domain")
    fig.update_xaxes(showticklabels=False, showgrid=False, constrain="domain")
    for i in range(2, n_rows * cols + 1):
        fig.update_yaxes(scaleanchor=f"x{i}", row=(i - 1) // cols + 1, col=(i - 1) % cols + 1)
    apply_style(fig, height=230 * n_rows + 40)
    fig.update_layout(margin=dict(l=10, r=10, t=40, b=10))
    return fig


def class_balance(counts: dict) -> go.Figure:
    """Rows per class, with the count and share printed on each bar.

    Examples
    --------
    >>> from fsengine.plots.data import class_balance
    >>> class_balance({"B": 300, "D": 100}).data[0].text
    ('300 (75%)', '100 (25%)')
    """
    names, values = list(counts), np.array(list(counts.values()), dtype=float)
    share = values / values.sum()
    fig = go.Figure(go.Bar(x=names, y=values, text=[f"{int(v):,} ({s:.0%})" for v, s in zip(values, share)],
                           textposition="outside", marker_color=FEATURE_COLORS[0], cliponaxis=False,
                           hovertemplate="%{x}: %{y:,} rows<extra></extra>"))
    fig.update_yaxes(title="rows", rangemode="tozero", range=[0, values.max() * 1.18])
    fig.update_xaxes(title="class", type="category")
    return apply_style(fig, height=340)


def target_histogram(y: np.ndarray, bins: int = 30) -> go.Figure:
    """Distribution of a regression target.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.data import target_histogram
    >>> fig = target_histogram(np.random.default_rng(0).normal(size=200), bins=20)
    >>> fig.data[0].type, fig.data[0].nbinsx
    ('histogram', 20)
    """
    fig = go.Figure(go.Histogram(x=np.asarray(y, dtype=float), nbinsx=bins, marker_color=FEATURE_COLORS[0]))
    fig.update_xaxes(title="target value")
    fig.update_yaxes(title="rows")
    return apply_style(fig, height=340)


def top_features(names, scores: np.ndarray, score_name: str, top: int = 20) -> go.Figure:
    """Horizontal bars of the ``top`` features by a relevance score, best at the top; infinite
    scores (perfect separation) are drawn at 1.1 x the largest finite one and labelled.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.data import top_features
    >>> fig = top_features(["a", "b", "c"], np.array([0.2, np.inf, 0.5]), "Fisher score", top=2)
    >>> fig.data[0].y, fig.data[0].text                    # best at the top: drawn last
    (('c', 'b'), ('0.5', 'perfect'))
    """
    scores = np.asarray(scores, dtype=float)
    order = np.argsort(-np.where(np.isnan(scores), -np.inf, scores), kind="stable")[:top]
    finite = scores[np.isfinite(scores)]
    cap = 1.1 * finite.max() if finite.size and finite.max() > 0 else 1.0
    shown = np.where(np.isinf(scores[order]), cap, scores[order])
    labels = ["perfect" if np.isinf(s) else f"{s:.3g}" for s in scores[order]]
    fig = go.Figure(go.Bar(x=shown[::-1], y=[str(names[i]) for i in order][::-1], orientation="h",
                           text=labels[::-1], textposition="outside", cliponaxis=False,
                           marker_color=HIGHLIGHT,
                           hovertemplate="%{y}: %{text}<extra></extra>"))
    fig.update_xaxes(title=score_name, rangemode="tozero", range=[0, float(shown.max()) * 1.2 or 1.0])
    fig.update_yaxes(type="category", automargin=True)
    return apply_style(fig, height=max(260, 24 * len(order) + 90))


def feature_map(values: np.ndarray, shape: tuple[int, int], title: str) -> go.Figure:
    """One value per pixel as an image (e.g. the Fisher score of every pixel).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.data import feature_map
    >>> feature_map(np.arange(6.0), (2, 3), "Fisher score").data[0].z.tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    """
    v = np.asarray(values, dtype=float)
    finite = v[np.isfinite(v)]
    top = float(finite.max()) if finite.size else 1.0
    v = np.where(np.isinf(v), top, v)
    fig = go.Figure(go.Heatmap(z=v.reshape(shape), colorscale="Viridis", zmin=0, zmax=top or 1.0,
                               colorbar=dict(title=title, thickness=12),
                               hovertemplate="row %{y}, col %{x}: %{z:.3g}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain", showgrid=False, title="row")
    fig.update_xaxes(showgrid=False, constrain="domain", title="column")
    return apply_style(fig, height=420)


def word_frequencies(words, share_by_class: np.ndarray, class_names, top: int = 15) -> go.Figure:
    """Share of each class's documents containing a word, for the words most typical of each
    class (largest share difference), one panel per class.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.plots.data import word_frequencies
    >>> share = np.array([[0.6, 0.1, 0.3], [0.1, 0.5, 0.3]])      # share of each class's documents
    >>> fig = word_frequencies(["great", "dull", "film"], share, ["pos", "neg"], top=2)
    >>> fig.data[0].y                                             # typical of pos: great first (drawn last)
    ('film', 'great')
    """
    share = np.asarray(share_by_class, dtype=float)
    k = len(class_names)
    fig = make_subplots(rows=1, cols=k, subplot_titles=[f"typical of {n}" for n in class_names],
                        horizontal_spacing=0.18)
    for c in range(k):
        others = np.delete(share, c, axis=0).max(axis=0) if k > 1 else np.zeros(share.shape[1])
        lift = share[c] - others
        order = np.argsort(-lift, kind="stable")[:top][::-1]
        for j, (name, colour) in enumerate(zip(class_names, FEATURE_COLORS)):
            fig.add_trace(go.Bar(x=share[j, order], y=[str(words[i]) for i in order], orientation="h",
                                 name=str(name), marker_color=colour, legendgroup=str(name),
                                 showlegend=c == 0,
                                 hovertemplate="%{y}: in %{x:.1%} of " + str(name) + " documents<extra></extra>"),
                          row=1, col=c + 1)
        fig.update_xaxes(title="share of documents", tickformat=".0%", row=1, col=c + 1)
    fig.update_layout(barmode="group")
    return apply_style(fig, height=max(320, 34 * top + 100))
