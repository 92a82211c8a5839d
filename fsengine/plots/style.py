"""Shared look of every figure: colours, the common layout, and the display style (lecture mode,
light or dark) applied to a finished figure by :func:`restyle`.

The builders draw for the normal light style; :func:`restyle` adapts any figure afterwards (the
app calls it once per figure), so no builder needs a style argument:

- lecture mode: fonts of at least 18 px (tick labels 18 px), lines 1.8x as thick, figures 1.25x
  as tall;
- dark: the ``plotly_dark`` template on a transparent background, black strokes (lines, shapes,
  error bars) become light;
- lecture mode: annotations (subplot titles, notes in the plot) at least the tick size;
- always: log axes label decades only (``0.1, 1, 10``) when the data span two decades or more,
  and 1-2-5 values (``10, 20, 50, 100``) across less, in plain numbers ("100μ" and minor labels such as
  "2" meaning 20 never appear).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy and plotly are imported when a figure is styled: the sidebar needs only Style
    import plotly.graph_objects as go

HIGHLIGHT = "#d62728"  # red, for selected / top features (as in Fisher & Mehta Fig. 2)
MUTED = "rgba(120, 120, 120, 0.35)"
FOREGROUND = "black"  # axis-like strokes (current-position lines, reference lines); light in dark mode
FEATURE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22", "#17becf")
METHOD_COLORS = {
    "BIA": "#1f77b4", "IFS": "#ff7f0e", "SGC": "#2ca02c", "SGC-LA": "#98df8a",
    "Bayes factor": "#9467bd", "MI": "#8c564b", "MDL": "#e377c2", "L1": "#7f7f7f",
    "Boosting": "#bcbd22", "RTM": "#17becf", "RTM Power EP": "#17becf", "RTM EP": "#aec7e8", "RTM EM": "#ffbb78",
    "RTM Power EP + ARD": "#0e7c8a", "RTM EP + ARD": "#5b8fc7", "RTM EM + ARD": "#e08a2c",
    "Count cutoff": "#c49c94", "Variance": "#c7c7c7",
    "ANOVA F": "#393b79", "Chi²": "#637939", "Forest": "#2d6a2d", "Permutation": "#8c6d31",
    "RFE": "#843c39", "Stability": "#7b4173", "mRMR": "#3182bd",
    "JMI": "#08519c", "CMIM": "#e6550d", "DISR": "#31a354", "CIFE": "#756bb1", "ICAP": "#fd8d3c",
    "FCBF": "#a50f15", "Unified criterion": "#636363",
    "Boruta": "#d6616b", "SFS": "#6b6ecf",
    "ReliefF": "#b15928", "MultiSURF": "#e7ba52",
}
#: lecture mode makes figures this much taller: 18 px axis titles need the room
LECTURE_HEIGHT_SCALE = 1.25
#: transparent: a dark figure sits on Streamlit's dark page without a frame
DARK_BACKGROUND = "rgba(0, 0, 0, 0)"
DARK_FOREGROUND = "#e6e6e6"


@dataclass(frozen=True)
class Style:
    """How figures are shown: ``lecture`` (large fonts, thick lines) and ``dark`` (dark theme)."""

    lecture: bool = False
    dark: bool = False

    @property
    def font_size(self) -> int:
        return 18 if self.lecture else 13

    @property
    def tick_size(self) -> int:
        return 18 if self.lecture else 12

    @property
    def line_scale(self) -> float:
        return 1.8 if self.lecture else 1.0

    @property
    def foreground(self) -> str:
        return DARK_FOREGROUND if self.dark else FOREGROUND


def apply_style(fig: go.Figure, *, title: str | None = None, height: int = 420) -> go.Figure:
    """Common layout: white template, compact margins, legend outside the plot area; log axes
    labelled in plain numbers (:func:`log_axis_labels`), so that a figure shown as it is built (a
    notebook's ``fig.show()``, a saved HTML file) reads as it does in the app.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from fsengine.plots import apply_style
    >>> fig = apply_style(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), title="Two points", height=300)
    >>> fig.layout.title.text, fig.layout.height
    ('Two points', 300)
    """
    fig.update_layout(
        template="plotly_white", height=height, margin=dict(l=60, r=20, t=50 if title else 20, b=50),
        title=title, legend=dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.02),
        font=dict(size=13),
    )
    return log_axis_labels(fig)


def bar_value_axis(fig: go.Figure, title: str, low: float, high: float = 1.0) -> go.Figure:
    """The value axis of a bar chart from ``low`` to ``high``. Bars are read by their length, so an
    axis that does not start at 0 says so in its title ("axis starts at 0.6, not 0")."""
    if low > 0:
        title = f"{title}<br><sup>axis starts at {low:.2g}, not 0</sup>"
    fig.update_yaxes(title=title, range=[low, high])
    return fig


def _positive_range(values) -> tuple[float, float] | None:
    """Smallest and largest positive finite value (None when there are none)."""
    import base64

    import numpy as np

    if values is None:
        return None
    if isinstance(values, dict) and "bdata" in values:  # a typed array of a figure dict (plotly >= 6)
        values = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
    try:
        arr = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None
    arr = arr[np.isfinite(arr) & (arr > 0)]
    return (float(arr.min()), float(arr.max())) if arr.size else None


def _axis_values(fig: go.Figure, axis_name: str) -> list:
    """The data of every trace drawn on layout axis ``axis_name`` (``xaxis``, ``yaxis2``, ...)."""
    letter = axis_name[0]
    ref = letter + axis_name[5:]  # "xaxis2" -> "x2", "xaxis" -> "x"
    return [getattr(trace, letter, None) for trace in fig.data
            if (getattr(trace, letter + "axis", None) or letter) == ref]


#: decades a log axis must span to be labelled at the decades only (at least three labels)
DECADE_LABELS_FROM = 2.0


def nice_log_ticks(low: float, high: float) -> list[float]:
    """Tick values for a log axis spanning less than two decades: 1, 2, 5 x 10^k inside
    [low, high], or every 1..9 x 10^k when that gives fewer than three (e.g. 50, 100, 200 for
    40..300)."""
    import math

    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    ticks: list[float] = []
    for mantissas in ((1, 2, 5), range(1, 10)):
        ticks = [float(f"{m}e{e}") for e in decades for m in mantissas]
        ticks = [t for t in ticks if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
        if len(ticks) >= 3:
            break
    return ticks


def log_axis_labels(fig: go.Figure) -> go.Figure:
    """Log axes in plain numbers: labels at the decades only when the data span at least two
    decades (``0.1, 1, 10``); across less at 1-2-5 values (``10, 20, 50, 100``), never plotly's
    minor labels (a "2" meaning 20, which read "... 8 9 1 2 3 ... 10 2" along an axis) nor a lone
    decade label. Changes ``fig`` in place and returns it; an axis with its own ticks keeps them,
    so applying it twice changes nothing."""
    _decade_ticks(fig)
    return fig


def _decade_ticks(fig: go.Figure) -> None:
    """:func:`log_axis_labels` (in place)."""
    import math

    for axis_name in [k for k in fig.layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]:
        axis = fig.layout[axis_name]
        if axis.type != "log":
            continue
        ranges = [r for r in map(_positive_range, _axis_values(fig, axis_name)) if r is not None]
        if axis.range is not None:
            ranges.append(tuple(10.0 ** float(v) for v in sorted(axis.range)))
        axis.update(tickformat="~g", exponentformat="none", minorloglabels="none")
        if not ranges or axis.dtick is not None or axis.tickvals is not None:
            continue
        low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
        if math.log10(high / low) >= DECADE_LABELS_FROM:
            axis.update(dtick=1)
        else:
            axis.update(tickmode="array", tickvals=nice_log_ticks(low, high))


def _is_black(color) -> bool:
    return isinstance(color, str) and color.replace(" ", "").lower() in ("black", "#000", "#000000",
                                                                       "rgb(0,0,0)")


#: the start of an HTML link tag (``<a``, ``</a``, any case) in text plotly renders
_LINK_TAG = re.compile(r"<(?=\s*/?\s*a\b)", re.IGNORECASE)
#: trace attributes that may hold user text (feature, class or file names)
_TEXT_ATTRIBUTES = ("x", "y", "text", "hovertext", "name", "labels")


def _disarmed(value):
    """``value`` with every link tag's ``<`` written as ``&lt;`` (shown as ``<``, never a link):
    a string, or a (nested) sequence or array of strings such as a heatmap's hover text. Anything
    else, and text without link tags, is returned as it is (the same object)."""
    if isinstance(value, str):
        return _LINK_TAG.sub("&lt;", value) if _LINK_TAG.search(value) else value
    if getattr(value, "dtype", None) is not None:
        if value.dtype.kind not in "OU":
            return value  # numbers
        value = value.tolist()
    if isinstance(value, list | tuple) and value and isinstance(value[0], str | list | tuple):
        items = [_disarmed(v) for v in value]
        if any(new is not old for new, old in zip(items, value, strict=True)):
            return items
    return value


def disarm_links(fig: go.Figure) -> go.Figure:
    """Plotly renders ``<a href=...>`` in tick labels, legend names, hover and annotation text as a
    live link; a feature named so by an uploaded file must show as text. Changes ``fig`` in place."""
    for trace in fig.data:
        for attr in _TEXT_ATTRIBUTES:
            value = getattr(trace, attr, None) if attr in trace else None
            new = _disarmed(value)
            if new is not value:
                setattr(trace, attr, new)
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        if axis.ticktext is not None:
            axis.ticktext = _disarmed(axis.ticktext)
    for annotation in fig.layout.annotations:
        if annotation.text:
            annotation.text = _disarmed(annotation.text)
    for slider in fig.layout.sliders:  # an explorable's steps restyle traces with texts too
        for step in slider.steps:
            if step.args and isinstance(step.args[0], dict):
                for attr in set(step.args[0]) & set(_TEXT_ATTRIBUTES):
                    step.args[0][attr] = [_disarmed(v) for v in step.args[0][attr]]
    return fig


def restyle(fig, style: Style | None = None) -> go.Figure:
    """The figure (``go.Figure`` or plain dict) adapted to ``style``; a dict is wrapped without
    re-validation, and figures are changed in place. Link tags in its text are disarmed
    (:func:`disarm_links`)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    style = style or Style()
    if isinstance(fig, dict):
        fig = go.Figure(fig, _validate=False)
    disarm_links(fig)
    _decade_ticks(fig)
    font = dict(size=style.font_size)
    if style.dark:
        fig.update_layout(template=pio.templates["plotly_dark"].to_plotly_json(), paper_bgcolor=DARK_BACKGROUND,
                          plot_bgcolor=DARK_BACKGROUND)
        font["color"] = DARK_FOREGROUND
    fig.update_layout(font=font)
    if style.lecture and fig.layout.height is not None:  # room for the larger axis titles and ticks
        fig.layout.height = int(fig.layout.height * LECTURE_HEIGHT_SCALE)
    fig.update_xaxes(tickfont=dict(size=style.tick_size))
    fig.update_yaxes(tickfont=dict(size=style.tick_size))
    for trace in fig.data:
        error_y = getattr(trace, "error_y", None)
        if style.dark and error_y is not None and _is_black(error_y.color):
            error_y.color = style.foreground  # interval whiskers
        line = getattr(trace, "line", None)
        if line is None:
            continue
        if style.lecture and trace.type in ("scatter", "scattergl") and "lines" in (trace.mode or "lines"):
            trace.line.width = (line.width if line.width is not None else 2) * style.line_scale
        if style.dark and _is_black(line.color):
            trace.line.color = style.foreground
    if style.lecture:
        for annotation in fig.layout.annotations:
            if annotation.font.size is not None and annotation.font.size < style.tick_size:
                annotation.font.size = style.tick_size
    for slider in fig.layout.sliders:  # an explorable's current value, above its slider
        if style.dark and slider.currentvalue.font.color is not None:
            slider.currentvalue.font.color = style.foreground
    if style.dark:
        for shape in fig.layout.shapes:
            if _is_black(shape.line.color):
                shape.line.color = style.foreground
        for annotation in fig.layout.annotations:
            if _is_black(annotation.font.color):
                annotation.font.color = style.foreground
    return fig
