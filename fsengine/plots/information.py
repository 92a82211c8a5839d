"""Figures of the information-theoretic family: the unified criterion of Brown, Pocock, Zhao &
Luján (JMLR 13, 2012, Eq. 14) as an explorable whose sliders are its two weights,

    J(X_k) = I(X_k; Y) - beta sum_{j in S} I(X_j; X_k) + gamma sum_{j in S} I(X_j; X_k | Y).

:func:`unified_explorable` draws, for every (beta, gamma) of a grid and both normalisations, the
greedy order (which feature, of which kind, at each step) and J's three terms at each step, with
maps over the (beta, gamma) plane on which the named members (MIM, mRMR, JMI, CIFE, MIFS) are
marked. Every position is embedded; the browser answers the sliders.

Why two sliders work: a slider's step can set only what it carries, so a beta step cannot know
where gamma's slider stands. Every position is therefore drawn once on a canvas, beta's position
``a`` in the columns ``a * m ... a * m + m - 1`` (m steps shown) and gamma's position ``b`` in a
band of rows of its own. The beta slider sets only the x range of the panels (and the vertical
line on the maps), the gamma slider only their y range (and the horizontal line), the
normalisation slider only which of the two canvases is visible: no attribute is set by two
sliders (:func:`fsengine.plots.explorable.explorable_sliders`), so every combination shows its own
selection, in the app, in a notebook and in a saved HTML file alike, with no script of our own. A
single slider over all (beta, gamma) pairs would hide the plane's two directions; buttons for gamma
would each have to carry the whole beta slider.

Pure builder: a grid of the study (:class:`fsengine.methods.information.study.UnifiedGrid`) and
maps over its positions in, ``go.Figure`` out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.io as pio

from fsengine.plots.explorable import Slider, Step, colour_scale, explorable_sliders, position_line

__all__ = ["unified_explorable"]

#: the colour of each kind of feature (by its name in the grid), others from the palette after them
KIND_COLOURS = {"XOR pair": "#d62728", "label copies": "#1f77b4", "noise": "#9a9a9a"}
_MORE_COLOURS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf")
#: J's terms: (name, marker symbol, colour)
TERMS = (("I(X_k; Y)", "circle", "#2ca02c"), ("−β Σ I(X_j; X_k)", "triangle-down", "#ff7f0e"),
         ("+γ Σ I(X_j; X_k | Y)", "triangle-up", "#9467bd"), ("J", "diamond-open", "#8c564b"))
#: the key's glyph of each marker symbol
SYMBOLS = {"circle": "●", "triangle-down": "▼", "triangle-up": "▲", "diamond-open": "◇"}
#: the most greedy steps drawn (the canvas grows with them)
MAX_STEPS = 20
#: the step numbers labelled under the panels
STEP_TICKS = (1, 5, 10, 15, 20)
NORMALISATION_LABELS = {"mean": "÷ |S|", "sum": "sums"}
#: the paper-x extent of the maps (left) and of the selection and terms panels (right)
MAPS, RIGHT = (0.0, 0.2), (0.42, 1.0)
#: the sliders' position on the maps (RGBA)
CROSS_HAIR = (214, 39, 40, 255)
HEIGHT = 488
#: room under the panels for the sliders, their current values and the normalisation's labels (px)
SLIDERS_SPACE = 96


def _colour(kind: str, kinds: Sequence[str]) -> str:
    if kind in KIND_COLOURS:
        return KIND_COLOURS[kind]
    others = [k for k in kinds if k not in KIND_COLOURS]
    return _MORE_COLOURS[others.index(kind) % len(_MORE_COLOURS)]


def _nice_ticks(low: float, high: float) -> np.ndarray:
    """About four round tick values in [low, high] (0 among them when it is inside)."""
    span = max(high - low, 1e-9)
    step = 10 ** np.floor(np.log10(span / 4))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= 5:
            step *= factor
            break
    ticks = np.arange(np.ceil(low / step), np.floor(high / step) + 1) * step
    return np.round(ticks, 12) + 0.0  # no -0 and no 1e-17 among the labels


@dataclass(frozen=True)
class _Canvas:
    """Where every position is drawn: beta's position ``a`` in the columns ``a * m ... a * m + m - 1``
    of both right panels; gamma's ``b`` in rows ``b * band ...`` of the selection panel and at
    ``b * stride`` (+ a term's value, between ``low`` and ``high``) of the terms panel."""

    m: int
    rows: tuple[str, ...]
    low: float
    high: float

    @property
    def band(self) -> int:
        return len(self.rows) + 1  # one empty row between two gamma positions

    @property
    def stride(self) -> float:
        return 1.25 * (self.high - self.low)

    def x_range(self, a: int) -> list[float]:
        return [a * self.m - 0.6, a * self.m + self.m - 0.4]

    def row_y(self, b: int, r: int) -> int:
        """The selection panel's row of kind ``r`` (the first on top) at gamma position ``b``."""
        return b * self.band + len(self.rows) - 1 - r

    def rows_range(self, b: int) -> list[float]:
        return [b * self.band - 0.6, b * self.band + len(self.rows) - 0.4]

    def terms_range(self, b: int) -> list[float]:
        return [b * self.stride + self.low, b * self.stride + self.high]


def _terms(grid, m: int) -> np.ndarray:
    """(4, N, B, G, m): J's three terms and J for the first ``m`` steps of every position."""
    relevance, penalty, bonus = (t[..., :m] for t in grid.terms())
    return np.stack([relevance, penalty, bonus, np.asarray(grid.criterion)[..., :m]])


def _canvas_traces(grid, canvas: _Canvas, kinds: list[str], values: np.ndarray) -> list[tuple[dict, int]]:
    """(trace, normalisation) of the right panels: a mark per step in its kind's row, J's terms per
    step, and each named member's name in the corner of its own terms."""
    m, (N, B, G) = canvas.m, values.shape[1:4]
    column = (np.arange(B)[:, None, None] * m + np.arange(m)[None, None, :]).repeat(G, axis=1)  # (B, G, m)
    gamma_at = np.arange(G)[None, :, None]
    out = []
    for n in range(N):
        kind_of = np.asarray(kinds)[np.asarray(grid.orders)[n, ..., :m]]
        for r, kind in enumerate(canvas.rows):
            mine = kind_of == kind
            rows = np.broadcast_to(canvas.row_y(gamma_at, r), kind_of.shape)
            out.append(({"type": "scattergl", "mode": "markers", "name": kind, "x": column[mine].astype(np.int16),
                         "y": rows[mine].astype(np.int16), "xaxis": "x2", "yaxis": "y2", "hoverinfo": "skip",
                         "marker": {"symbol": "square", "size": 13, "color": _colour(kind, canvas.rows)}}, n))
        for t, (name, symbol, colour) in enumerate(TERMS):
            out.append(({"type": "scattergl", "mode": "markers", "name": name, "x": column.ravel().astype(np.int16),
                         "y": (values[t, n] + gamma_at * canvas.stride).ravel().astype(np.float32), "xaxis": "x3",
                         "yaxis": "y3", "hoverinfo": "skip",
                         "marker": {"symbol": symbol, "size": 11 if t == 3 else 8, "color": colour,
                                    "line": {"width": 2 if t == 3 else 0, "color": colour}}}, n))
        here = [(name, a, b) for name, s, a, b in grid.members() if s == n]
        if here:  # shown when the sliders stand on the member
            out.append(({"type": "scatter", "mode": "text", "x": [a * m + m - 0.5 for _, a, _ in here],
                         "y": [b * canvas.stride + canvas.high for _, _, b in here],
                         "text": [f"<b>{name}</b>" for name, _, _ in here], "textposition": "bottom left",
                         "textfont": {"size": 16, "color": "#7f7f7f"}, "xaxis": "x3", "yaxis": "y3",
                         "hoverinfo": "skip", "cliponaxis": True}, n))
    return out


def _canvas_axes(canvas: _Canvas, B: int, G: int, right: list[float]) -> dict:
    """The right panels' axes: fixed ranges (the sliders set them), labels repeated per position."""
    shown = [k for k in STEP_TICKS if k <= canvas.m]
    steps = {"tickmode": "array", "tickvals": [a * canvas.m + k - 1 for a in range(B) for k in shown],
             "ticktext": [str(k) for _ in range(B) for k in shown]}
    ticks = _nice_ticks(canvas.low, canvas.high)
    fixed = {"fixedrange": True, "autorange": False, "zeroline": False}
    return {
        "xaxis2": {"domain": right, "anchor": "y2", "showgrid": False, "showticklabels": False, **steps, **fixed},
        "yaxis2": {"domain": [0.66, 1.0], "anchor": "x2", "tickmode": "array", **fixed,
                   "tickvals": [canvas.row_y(b, r) for b in range(G) for r in range(len(canvas.rows))],
                   "ticktext": [kind for _ in range(G) for kind in canvas.rows]},
        "xaxis3": {"domain": right, "anchor": "y3", "showgrid": False, **steps, **fixed,
                   "title": {"text": "greedy step (feature selected k-th)"}},
        "yaxis3": {"domain": [0.0, 0.56], "anchor": "x3", "title": {"text": "J's terms [nats]"}, "tickmode": "array",
                   "tickvals": [float(b * canvas.stride + t) for b in range(G) for t in ticks],
                   "ticktext": [f"{t:g}" for _ in range(G) for t in ticks], **fixed},
    }


def _maps(grid, maps, n_start: int, layout: dict) -> tuple[list[tuple[dict, int]], list[tuple[int, int]]]:
    """The maps over the (beta, gamma) plane (left column), their named members and cross-hairs:
    (trace, normalisation) pairs, and (annotation index, normalisation) of the members' names; adds
    axes, titles and the cross-hair images to ``layout``."""
    betas, gammas = np.asarray(grid.betas, dtype=float), np.asarray(grid.gammas, dtype=float)
    N, B, G = len(grid.normalisations), betas.size, gammas.size
    half_b, half_g = (betas[-1] - betas[0]) / max(B - 1, 1) / 2, (gammas[-1] - gammas[0]) / max(G - 1, 1) / 2
    traces, labels = [], []
    span = 1.0 / len(maps)
    for i, (title, unit, z) in enumerate(maps):
        z = np.asarray(z, dtype=float)
        if z.shape != (N, B, G):
            raise ValueError(f"map {title!r}: values of shape {(N, B, G)} expected, got {z.shape}")
        ax, top = 4 + i, 1.0 - i * span
        domain = [max(0.0, top - span + 0.12), top - 0.06]
        bar = {"title": {"text": unit, "side": "top"}, "len": domain[1] - domain[0], "y": domain[1],
               "yanchor": "top", "x": MAPS[1] + 0.01, "xanchor": "left", "thickness": 12}
        for n in range(N):
            traces.append(({"type": "heatmap", "x": betas, "y": gammas, "z": z[n].T.astype(np.float32),
                            "zmin": float(np.nanmin(z)), "zmax": float(np.nanmax(z)), "colorbar": bar,
                            "colorscale": colour_scale("Viridis"), "xaxis": f"x{ax}", "yaxis": f"y{ax}",
                            "hovertemplate": f"β %{{x:g}}, γ %{{y:g}}: {title} %{{z:g}}<extra></extra>"}, n))
            here = [(name, betas[a], gammas[b]) for name, s, a, b in grid.members() if s == n]
            traces.append(({"type": "scatter", "mode": "markers", "x": [x for _, x, _ in here],
                            "y": [y for _, _, y in here], "text": [name for name, _, _ in here], "cliponaxis": False,
                            "marker": {"symbol": "circle-open", "size": 12, "color": "#ffffff", "line": {"width": 2.5}},
                            "xaxis": f"x{ax}", "yaxis": f"y{ax}",
                            "hovertemplate": "%{text}: β %{x:g}, γ %{y:g}<extra></extra>"}, n))
            for name, x, y in here:  # the names beside the marks, shown with their normalisation
                labels.append((len(layout["annotations"]), n))
                layout["annotations"].append({
                    "text": name, "x": x, "y": y, "xref": f"x{ax}", "yref": f"y{ax}", "showarrow": False,
                    "xanchor": "left" if x < 0.5 else "right", "xshift": 7 if x < 0.5 else -7,
                    "yanchor": "bottom" if y < 0.5 else "top", "bgcolor": "rgba(255, 255, 255, 0.85)",
                    "font": {"size": 12, "color": "#222222"}, "visible": n == n_start})
        layout[f"xaxis{ax}"] = {"domain": list(MAPS), "anchor": f"y{ax}", "fixedrange": True, "zeroline": False,
                                "range": [betas[0] - half_b, betas[-1] + half_b], "title": {"text": "β", "standoff": 2}}
        layout[f"yaxis{ax}"] = {"domain": domain, "anchor": f"x{ax}", "fixedrange": True, "zeroline": False,
                                "range": [gammas[0] - half_g, gammas[-1] + half_g],
                                "title": {"text": "γ", "standoff": 2}}
        layout["annotations"].append({"text": title, "xref": f"x{ax} domain", "yref": f"y{ax} domain", "x": 0.0,
                                      "y": 1.0, "xanchor": "left", "yanchor": "bottom", "showarrow": False})
        layout["images"] += [position_line(f"x{ax}", max(half_b, 1e-6) / 3, colour=CROSS_HAIR),
                             position_line(f"y{ax}", max(half_g, 1e-6) / 3, colour=CROSS_HAIR, vertical=False)]
    return traces, labels


def unified_explorable(grid, *, beta: float = 0.0, gamma: float = 0.0, normalise: str = "mean",
                       maps: Sequence[tuple[str, str, np.ndarray]] = (), steps: int | None = None):
    """The unified criterion over ``grid`` (a :class:`~fsengine.methods.information.study.UnifiedGrid`)
    with three sliders: beta, gamma and the normalisation (beta and gamma divided by ``|S|``, as in
    mRMR and JMI, or as they are, as in MIFS and CIFE), starting at the grid position nearest
    (``beta``, ``gamma``, ``normalise``).

    Top right: the first ``steps`` greedy selections (default all, at most ``MAX_STEPS``), one mark
    per step in the row of the selected feature's kind (``grid.kinds``; one row when the grid has
    none). Bottom right: J's terms for the feature selected at each step, I(X_k; Y), the redundancy
    penalty and the conditional-redundancy bonus (divided by ``|S|`` under "÷ ``|S|``"), and J, their sum.
    Left: ``maps``, each (title, colour-bar title, values of shape (N, B, G) over the grid's
    normalisations, betas and gammas), with the named members (``grid.members()``) marked and the
    sliders' position as cross-hairs. Slider values: beta and gamma as ``"0.35"``, the
    normalisation as ``"mean"`` or ``"sum"``.

    Examples
    --------
    >>> from fsengine.data.synthetic.xor import make_xor_redundant
    >>> from fsengine.methods.information.study import unified_grid
    >>> from fsengine.plots.information import unified_explorable
    >>> grid = unified_grid(make_xor_redundant(n=200, n_redundant=2, n_noise=4), betas=[0.0, 1.0],
    ...                     gammas=[0.0, 1.0])
    >>> fig = unified_explorable(grid, beta=1.0, gamma=1.0)
    >>> [slider.name for slider in fig.layout.sliders]
    ['beta', 'gamma', 'normalisation']
    """
    betas, gammas = np.asarray(grid.betas, dtype=float), np.asarray(grid.gammas, dtype=float)
    n_start, a_start, b_start = grid.index(beta, gamma, normalise)
    p = grid.n_features
    m = min(p, MAX_STEPS if steps is None else int(steps))
    if m < 1:
        raise ValueError(f"steps={steps}: draw at least one greedy step")
    kinds = list(grid.kinds) if getattr(grid, "kinds", None) is not None else ["selected features"] * p
    rows = tuple(dict.fromkeys(k for k in (getattr(grid, "kind_order", ()) or kinds) if k in kinds))
    values = _terms(grid, m)
    low, high = float(min(values.min(), 0.0)), float(max(values.max(), 0.0))
    pad = 0.06 * max(high - low, 1e-6)
    canvas = _Canvas(m, rows, low - pad, high + pad)
    right = list(RIGHT) if maps else [0.0, 1.0]
    key = [f"<span style='color:{colour}'>{SYMBOLS[symbol]}</span> {name}" for name, symbol, colour in TERMS]
    layout = {
        "template": pio.templates["plotly_white"].to_plotly_json(), "height": HEIGHT, "font": {"size": 13},
        # no margin grows to fit the colour bars or the sliders (plotly would place them for the
        # narrower plot it lays out first: half the width with lecture fonts) and no legend (its
        # row would run out of the figure): the terms' key is a note above the panels
        "margin": {"l": 60, "r": 20, "t": 70, "b": 64, "autoexpand": False}, "showlegend": False,
        "dragmode": False, "hovermode": "closest", "images": [],
        "annotations": [{"text": f"J's terms at each step (bottom right):   {key[0]}   {key[1]}<br>"
                                 f"{key[2]}   {key[3]}, their sum", "xref": "paper", "yref": "paper", "x": 0.0,
                         "y": 1.0, "xanchor": "left", "yanchor": "bottom", "align": "left", "showarrow": False,
                         "yshift": 4}],
        **_canvas_axes(canvas, betas.size, gammas.size, right),
    }
    traces = _canvas_traces(grid, canvas, kinds, values)
    labels: list[tuple[int, int]] = []
    if maps:
        more, labels = _maps(grid, maps, n_start, layout)
        traces += more
    for trace, n in traces:
        trace["visible"] = n == n_start
    # the cross-hairs: a vertical line sits at an x value (beta's), a horizontal one at a y value
    beta_lines = [i for i, image in enumerate(layout["images"]) if not image["xref"].endswith("domain")]
    gamma_lines = [i for i in range(len(layout["images"])) if i not in beta_lines]
    beta_steps = [Step(f"{v:g}", f"{v:g}", {}, {"xaxis2.range": canvas.x_range(a), "xaxis3.range": canvas.x_range(a),
                                                 **{f"images[{i}].x": float(v) for i in beta_lines}})
                  for a, v in enumerate(betas)]
    gamma_steps = [Step(f"{v:g}", f"{v:g}", {}, {"yaxis2.range": canvas.rows_range(b),
                                                  "yaxis3.range": canvas.terms_range(b),
                                                  **{f"images[{i}].y": float(v) for i in gamma_lines}})
                   for b, v in enumerate(gammas)]
    sliders = [Slider(beta_steps, a_start, "β = ", "beta", x=0.0, length=0.4),
               Slider(gamma_steps, b_start, "γ = ", "gamma", x=0.44, length=0.4)]
    if len(grid.normalisations) > 1:
        sliders.append(Slider([Step(NORMALISATION_LABELS[s], s, {t: {"visible": sheet == n}
                                                                 for t, (_, sheet) in enumerate(traces)},
                                    {f"annotations[{i}].visible": sheet == n for i, sheet in labels})
                               for n, s in enumerate(grid.normalisations)],
                              n_start, "", "normalisation", x=0.86, length=0.14))
    spec = {"data": [trace for trace, _ in traces], "layout": layout}
    return explorable_sliders(spec, sliders, space=SLIDERS_SPACE)
