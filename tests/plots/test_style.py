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
    assert narrow.layout.xaxis.dtick is None and narrow.layout.xaxis.tickformat == "~g"  # < 2 decades: 1-2-5


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


def test_log_axes_across_less_than_two_decades_get_plain_1_2_5_ticks():
    """Plotly's own ticks there are minor ones ("2" meaning 20) or a single decade label."""
    from fsengine.plots.style import nice_log_ticks

    assert nice_log_ticks(40, 300) == [50.0, 100.0, 200.0]
    assert nice_log_ticks(2, 5) == [2.0, 3.0, 4.0, 5.0]  # 1-2-5 gives two: every digit instead
    assert nice_log_ticks(0.15, 0.9) == [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    fig = go.Figure(go.Scatter(x=[10, 20, 40, 60, 100, 160], y=[1, 2, 3, 4, 5, 6]))  # SGC Fig. 5's sizes
    fig.update_xaxes(type="log")
    axis = restyle(fig, Style(lecture=True)).layout.xaxis
    assert axis.tickmode == "array" and list(axis.tickvals) == [10.0, 20.0, 50.0, 100.0]
    assert axis.tickformat == "~g" and axis.minorloglabels == "none"
    ranged = go.Figure(go.Scatter(x=[], y=[]))
    ranged.update_xaxes(type="log", range=[np.log10(3), np.log10(300)])  # a range and no data: the range counts
    assert restyle(ranged).layout.xaxis.dtick == 1


def test_lecture_mode_enlarges_small_annotations():
    fig = _figure()
    fig.add_annotation(x=0.5, y=0.5, text="note", font=dict(size=11))
    assert restyle(fig, Style(lecture=True)).layout.annotations[-1].font.size >= 16


def test_a_bar_axis_that_does_not_start_at_zero_says_so():
    import pandas as pd

    from fsengine.plots.rtm import accuracy_figure, auc_figure
    from fsengine.plots.style import bar_value_axis

    table = pd.DataFrame({"polarity": [0.74, 0.71]}, index=["RTM EM", "BernoulliNB"])
    acc = accuracy_figure(table).layout.yaxis
    assert acc.range[0] == 0.6 and "axis starts at 0.6, not 0" in acc.title.text
    auc = auc_figure(pd.DataFrame({"RTM EP": [0.88, 0.86], "MI": [0.85, 0.87]})).layout.yaxis
    assert auc.range[0] > 0 and f"axis starts at {auc.range[0]:.2g}, not 0" in auc.title.text
    zero = bar_value_axis(go.Figure(go.Bar(x=["a"], y=[0.3])), "accuracy", 0.0).layout.yaxis
    assert zero.title.text == "accuracy" and tuple(zero.range) == (0.0, 1.0)


def test_figures_shown_as_built_have_no_minor_log_labels():
    """A notebook's fig.show() and the lecture pack draw builders' figures without restyle: their log
    axes are labelled in plain numbers already (no "... 8 9 1 2 3 ... 10 2")."""
    import pandas as pd

    from fsengine.plots.explorable import Step, explorable
    from fsengine.plots.gain import gain_computations

    trace = pd.DataFrame({"stage": np.arange(30), "gain_computations": np.geomspace(1, 5e4, 30).astype(int),
                          "seconds": np.linspace(0.01, 3, 30), "gain": np.geomspace(1, 1e-6, 30)})
    static = gain_computations({"IFS": trace, "SGC": trace})
    spec = {"data": [{"type": "scatter", "x": [0.1, 20.0], "y": [1, 2]}],
            "layout": {"xaxis": {"type": "log", "range": [-1, np.log10(20)]}}}
    moving = explorable(spec, [Step("a", "a", {}, {"title.text": "a"}), Step("b", "b", {}, {"title.text": "b"})],
                        active=0, prefix="")
    for fig in (static, moving):
        logs = [fig.layout[name] for name in fig.layout if name.startswith(("xaxis", "yaxis"))
                and fig.layout[name].type == "log"]
        assert logs
        for axis in logs:
            assert axis.minorloglabels == "none" and axis.tickformat == "~g"
            assert axis.dtick == 1 or axis.tickvals is not None
