"""The display style applied to every figure: lecture mode, dark theme, decade labels on log axes."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from fsengine.plots.style import FOREGROUND, Style, restyle


def _figure():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(x=[1, 2, 3], y=[0.2, 0.4, 0.3], mode="lines"), 1, 1)
    fig.add_trace(go.Scatter(x=np.geomspace(0.05, 20, 30), y=np.geomspace(1e-4, 1, 30), mode="lines+markers",
                             line=dict(color=FOREGROUND, width=2)), 1, 2)
    fig.add_trace(go.Bar(x=["a", "b"], y=[0.9, 0.8]), 1, 1)
    fig.update_xaxes(type="log", row=1, col=2)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.add_hline(y=0.5, line=dict(color="black"), row=1, col=1)
    return fig


def test_lecture_mode_enlarges_text_and_thickens_lines():
    fig = restyle(_figure(), Style(lecture=True))
    assert fig.layout.font.size >= 16
    for axis in (fig.layout.xaxis, fig.layout.yaxis, fig.layout.xaxis2, fig.layout.yaxis2):
        assert axis.tickfont.size >= 16
    assert fig.data[1].line.width == 2 * 1.8 and fig.data[0].line.width == 2 * 1.8
    normal = restyle(_figure(), Style())
    assert normal.layout.xaxis.tickfont.size < 16 and normal.data[1].line.width == 2


def test_log_axes_label_decades_in_plain_numbers():
    fig = restyle(_figure())
    for axis in (fig.layout.xaxis2, fig.layout.yaxis2):  # 2.6 and 4 decades of data
        assert axis.dtick == 1 and axis.tickformat == "~g" and axis.minorloglabels == "none"
        assert axis.exponentformat == "none"  # no "100μ"
    assert fig.layout.xaxis.dtick is None  # linear axes untouched
    narrow = go.Figure(go.Scatter(x=[2, 3, 5], y=[1, 2, 3]))
    narrow.update_xaxes(type="log")
    narrow = restyle(narrow)
    assert narrow.layout.xaxis.dtick is None and narrow.layout.xaxis.tickformat == "~g"  # < 1 decade: keep ticks


def test_dark_theme_recolours_black_strokes_and_uses_the_dark_template():
    fig = restyle(_figure(), Style(dark=True))
    spec = json.loads(pio.to_json(fig, validate=False))
    assert spec["layout"]["template"]["layout"]["paper_bgcolor"] == pio.templates["plotly_dark"].layout.paper_bgcolor
    assert fig.data[1].line.color != FOREGROUND and fig.layout.shapes[0].line.color != "black"
    assert fig.layout.font.color == Style(dark=True).foreground


def test_plain_dict_figures_are_styled_without_validation():
    d = {"data": [{"type": "scatter", "x": [0.1, 1, 10], "y": [1, 2, 3], "mode": "lines"}],
         "layout": {"xaxis": {"type": "log"}}}
    fig = restyle(d, Style(lecture=True))
    assert fig.layout.xaxis.dtick == 1 and fig.data[0].line.width == 2 * 1.8


def test_typed_arrays_of_a_figure_dict_count_for_the_decades():
    fig = go.Figure(go.Scatter(x=np.geomspace(0.1, 10, 12), y=np.geomspace(1e-6, 1e-1, 12)))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    styled = restyle(fig.to_plotly_json())  # arrays become {"dtype", "bdata"} here
    assert styled.layout.xaxis.dtick == 1 and styled.layout.yaxis.dtick == 1
