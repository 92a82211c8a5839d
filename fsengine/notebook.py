"""Interactive figures for Jupyter that need the kernel: a slider that redraws plotly ``FigureWidget``s.

A slider that only changes what is shown belongs in the figure: the explorables of
:mod:`fsengine.plots` (e.g. :func:`fsengine.plots.bia.bia_explorable`) carry every position and
answer their slider in the browser, with a plain ``fig.show()``; the lessons use those and no
widget. :class:`SliderFigures` is for a slider whose every position must be *computed* in the
kernel (a refit, a figure too large to hold every position): it ties an
``ipywidgets.SelectionSlider`` to figures that a function draws for the slider's value, copied into
their ``FigureWidget``s in place::

    view = SliderFigures(ratios, [lambda r: path_figure(sel.path_, position=Position.nearest(sel.path_.index, r))],
                         description="Λ/Λ*", value=1.0)
    view          # the last expression of a cell: slider above the figures

Needs ``ipywidgets`` and, with plotly >= 6, ``anywidget`` (``pip install 'fsengine[notebooks]'``).
Each ``FigureWidget`` carries plotly's whole widget bundle (megabytes per figure, in the notebook
and in the saved file) and takes seconds to appear. A widget's synced state is filled only when it
is made, so after every redraw :func:`resync` stores the figure's whole state in it: a reload, a
second tab or a new output view then starts from the figure the slider shows, not from its first state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale
from plotly.io.json import to_json_plotly


def _pruned(value):
    """A JSON value without empty objects (a cleared ``marker`` stays behind as ``{}``)."""
    if isinstance(value, dict):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v != {}}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _gaps_as_none(value):
    """Non-finite numbers of multi-dimensional arrays (e.g. a heatmap's blank cells) as None.

    A ``FigureWidget`` sends 1-D numeric arrays to the browser as binary buffers but larger ones
    as JSON lists, where NaN is not valid JSON (jupyter_client warns and may drop it); plotly
    draws None as the same gap.
    """
    if isinstance(value, dict):
        return {k: _gaps_as_none(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim > 1 and value.dtype.kind == "f" and not np.isfinite(value).all():
        return np.where(np.isfinite(value), value, None).tolist()
    return value


def widget_ready(figure: go.Figure) -> go.Figure:
    """``figure`` with the gaps of its multi-dimensional arrays as None (see :func:`_gaps_as_none`)."""
    return go.Figure(data=[_gaps_as_none(t.to_plotly_json()) for t in figure.data], layout=figure.layout)


def replace_figure(widget: go.FigureWidget, figure: go.Figure) -> None:
    """Make ``widget`` show ``figure``: its traces and layout, in one update of the view.

    Traces of the same count and types are updated in place (properties the new trace lacks are
    cleared); otherwise every trace is replaced.
    """
    figure = widget_ready(figure)
    same = len(widget.data) == len(figure.data) and all(
        old.type == new.type for old, new in zip(widget.data, figure.data))
    if not same:
        widget.data = ()
        widget.add_traces(list(figure.data))
    with widget.batch_update():
        if same:
            for old, new in zip(widget.data, figure.data):
                fresh = new.to_plotly_json()
                fresh.pop("uid", None)
                stale = {key: None for key in old.to_plotly_json() if key not in fresh and key not in ("type", "uid")}
                old.update({**stale, **fresh}, overwrite=True)
        widget.layout = figure.layout


def resync(widget: go.FigureWidget) -> None:
    """Store ``widget``'s current traces and layout in its synced state (``_widget_data``,
    ``_widget_layout``), which plotly fills only when the widget is made and a view reads when it
    opens: without this, a view opened after a move (a page reload, a second tab, "Create New View
    for Output") draws the first state while the slider shows another."""
    widget._widget_layout = deepcopy(widget._layout_obj._props)
    widget._widget_data = deepcopy(widget._data)


def figure_state(figure: go.Figure) -> dict[str, Any]:
    """Traces (without plotly's random ``uid``) and layout as plain JSON values: equal for figures
    that draw the same, whether ``go.Figure`` or ``go.FigureWidget`` (gaps as None, as a widget
    holds them)."""
    state = json.loads(to_json_plotly({"data": [_gaps_as_none(t.to_plotly_json()) for t in figure.data],
                                       "layout": figure.layout.to_plotly_json()}))
    for trace in state["data"]:
        trace.pop("uid", None)
    return _pruned(_colorscales_as_lists(state))


def _colorscales_as_lists(value):
    """Colour scales as [position, colour] lists, named ones ("Viridis") expanded as plotly does (a
    validated widget holds the list, a figure built without validation the name)."""
    if isinstance(value, dict):
        return {k: _colorscale_list(v) if k.endswith("colorscale") and isinstance(v, str | list)
                else _colorscales_as_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_colorscales_as_lists(v) for v in value]
    return value


def _colorscale_list(scale):
    """A colour scale (name or list) as [position, colour] pairs, positions to 12 digits (plotly's
    expansion of a name can differ in the last bit from the list a builder writes)."""
    pairs = get_colorscale(scale) if isinstance(scale, str) else scale
    return [[round(float(p), 12), c] for p, c in pairs]


def _label(value, fmt: str | Callable[[Any], str] | None) -> str:
    if fmt is None:
        return f"{value:.3g}" if isinstance(value, float | np.floating) else str(value)
    return fmt(value) if callable(fmt) else format(value, fmt)


class SliderFigures:
    """A selection slider over ``options`` and one ``FigureWidget`` per builder in ``draws``.

    ``draws``: functions ``value -> go.Figure`` that only draw (from results computed before).
    ``value``: the starting option, or the option nearest it (default: the first option).
    Attributes ``slider`` and ``figures`` (the widgets); ``box`` lays them out; the object
    displays as ``box``.
    """

    def __init__(self, options: Sequence, draws: Sequence[Callable[[Any], go.Figure]], *,
                 value=None, description: str = "", fmt: str | Callable[[Any], str] | None = None):
        import ipywidgets as widgets

        options = list(options)
        if not options:
            raise ValueError("SliderFigures needs at least one option to slide over")
        if not draws:
            raise ValueError("SliderFigures needs at least one figure builder in draws")
        start = options[0] if value is None else self._nearest(options, value)
        self.draws = list(draws)
        self.slider = widgets.SelectionSlider(
            options=[(_label(v, fmt), v) for v in options], value=start, description=description,
            continuous_update=False, style={"description_width": "initial"},
            layout=widgets.Layout(width="95%"))
        self.figures = [go.FigureWidget(widget_ready(draw(start))) for draw in self.draws]
        self.box = widgets.VBox([self.slider, *self.figures])
        self.slider.observe(self._moved, names="value")

    @staticmethod
    def _nearest(options: list, value):
        if value in options:
            return value
        numeric = np.asarray(options, dtype=np.float64)
        return options[int(np.argmin(np.abs(numeric - float(value))))]

    def _moved(self, change) -> None:
        self.show(change["new"])

    def show(self, value) -> None:
        """Redraw every figure at ``value`` (the slider calls this when it moves)."""
        for widget, draw in zip(self.figures, self.draws):
            replace_figure(widget, draw(value))
            resync(widget)

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)
