"""Figures served as prepared bytes: a cached page costs the server no plotly work per view.

``st.plotly_chart`` turns a figure into its wire form on every call: it copies the figure
(``to_dict``), validates a plain dict by building a ``go.Figure`` from it, and encodes it as JSON;
with the app's restyling (lecture mode, dark theme; :func:`fsengine.plots.style.restyle` walks
an explorable's every slider step) that was most of the server's CPU time for one view of the BIA
page with its fit cached, on every rerun and for every visitor (benchmarks/RESULTS.md, issue 32).

A :class:`PreparedFigure` holds a finished figure (a plain dict, never changed) and its JSON
specification per display style, each made once for the whole server. :func:`draw_prepared` hands
that JSON to the page as the same ``PlotlyChart`` element ``st.plotly_chart(restyle(fig),
theme=None)`` sends (a test compares the two), so a rerun or another visitor costs a lookup.

:func:`prepared_figure` is the decorator for a view's cached figure builders: the builder runs
once per arguments for the server (arguments named with a leading ``_`` are not part of the key,
as in ``st.cache_data``), from a page or from the server-start preparation
(:mod:`fsengine.app.prepare`), which can fill it before the first visitor arrives.
"""

from __future__ import annotations

import copy
import functools
import inspect
import threading
from collections.abc import Callable, Hashable
from typing import Any

from fsengine.plots.style import Style, restyle


class PreparedFigure:
    """A finished figure and its JSON specification per :class:`Style` (made on first use)."""

    def __init__(self, figure) -> None:
        self.figure: dict = figure if isinstance(figure, dict) else figure.to_plotly_json()
        self._specs: dict[Style, tuple[str, int | None]] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:  # sent from the preparation's process with the specs made there
        return {"figure": self.figure, "specs": dict(self._specs)}

    def __setstate__(self, state: dict) -> None:
        self.figure, self._specs, self._lock = state["figure"], state["specs"], threading.Lock()

    def spec(self, style: Style | None = None) -> tuple[str, int | None]:
        """(the JSON ``st.plotly_chart`` would send for the figure in ``style``, its height)."""
        import plotly.io as pio

        style = style or Style()
        with self._lock:
            if style not in self._specs:
                fig = restyle(copy.deepcopy(self.figure), style)
                self._specs[style] = (pio.to_json(fig, validate=False), fig.layout.height)
            return self._specs[style]


def _key(signature: inspect.Signature, args, kwargs) -> tuple:
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple((name, value) for name, value in bound.arguments.items() if not name.startswith("_"))


def _with_default_spec(fig: PreparedFigure) -> PreparedFigure:
    fig.spec(Style())
    return fig


def prepared_figure(*, max_entries: int = 8) -> Callable:
    """Decorate a figure builder (returning a ``go.Figure`` or a figure dict): the decorated
    function returns a :class:`PreparedFigure`, built once per key for the server (the arguments
    not named ``_...``, which must be hashable), the last ``max_entries`` kept."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from fsengine.app.compute import computed_once, prepare

    def decorate(build: Callable[..., Any]) -> Callable[..., PreparedFigure]:
        signature = inspect.signature(build)
        store = f"figure:{build.__module__}.{build.__qualname__}"

        @functools.wraps(build)
        def prepared(*args, **kwargs) -> PreparedFigure:
            key: Hashable = _key(signature, args, kwargs)
            make = lambda report: PreparedFigure(build(*args, **kwargs))
            if get_script_run_ctx(suppress_warning=True) is None:  # no page: the server-start preparation,
                # which also makes the default style's JSON before it hands the figure to pages
                return prepare(store, key, lambda report: _with_default_spec(make(report)), max_entries=max_entries)
            return computed_once(store, key, make, text="Drawing the figure ...", max_entries=max_entries)

        return prepared

    return decorate


def draw_prepared(where, fig: PreparedFigure, style: Style, *, key: str | None = None) -> None:
    """Draw ``fig`` in ``where`` (``st`` or a container) as ``st.plotly_chart(restyle(fig, style),
    theme=None, width="stretch", key=key)`` would, from its prepared JSON: the element (its
    specification, configuration, identity and layout) is built as ``st.plotly_chart`` builds it,
    without re-encoding the figure."""
    from streamlit.elements.lib import agent_spec
    from streamlit.elements.lib.form_utils import current_form_id
    from streamlit.elements.lib.layout_utils import LayoutConfig
    from streamlit.elements.lib.utils import compute_and_register_element_id, to_key
    from streamlit.elements.plotly_chart import _plotly_data
    from streamlit.proto.PlotlyChart_pb2 import PlotlyChart as PlotlyChartProto

    dg = where.plotly_chart.__self__  # st.plotly_chart is bound to the main container
    spec, height = fig.spec(style)
    key = to_key(key)
    proto = PlotlyChartProto()
    proto.theme = ""
    proto.form_id = current_form_id(dg)
    proto.spec = spec
    proto.config = "{}"
    proto.id = compute_and_register_element_id(
        "plotly_chart", user_key=key, key_as_main_identity=False, dg=dg, plotly_spec=spec, plotly_config="{}",
        selection_mode=("points", "box", "lasso"), is_selection_activated=False, theme=None, width="stretch",
        height="content", alt=None)
    dg._enqueue("plotly_chart", proto,
                layout_config=LayoutConfig(width="stretch", height=int(height) if height and height > 0 else 450),
                agent_props=agent_spec.element("plotly_chart", key=key, data_builder=lambda: _plotly_data(spec)))
