"""The notebook helpers: the tqdm adapter of progress callbacks and the slider that redraws figures."""

import io

import numpy as np
import plotly.graph_objects as go
import pytest

from fsengine.notebook import SliderFigures, figure_state, replace_figure
from fsengine.progress import STEPS, TqdmProgress


def test_progress_moves_the_bar_to_each_fraction_with_its_message():
    stream = io.StringIO()
    with TqdmProgress("fit", file=stream) as report:
        report(0.25, "stage 1")
        assert report.bar.n == STEPS // 4
        report(1.7, "over")  # clipped
        assert report.bar.n == STEPS
        report(0.5, "restarted")  # backwards: the bar follows
        assert report.bar.n == STEPS // 2
        assert report.bar.postfix == "restarted"
    assert report.bar.disable or report.bar.n == STEPS // 2
    assert "fit" in stream.getvalue()


def _bars(heights, title):
    return go.Figure(go.Bar(x=list(range(len(heights))), y=heights, marker_color="red"), layout=dict(title=title))


def test_replace_figure_copies_traces_and_layout_and_clears_stale_properties():
    widget = go.FigureWidget(_bars([1, 2, 3], "before"))
    fresh = go.Figure(go.Bar(x=[0, 1], y=[5, 6]), layout=dict(title="after"))
    replace_figure(widget, fresh)
    assert figure_state(widget) == figure_state(fresh)
    assert widget.data[0].marker.color is None  # the old colour does not survive


def test_replace_figure_with_other_trace_types_replaces_the_traces():
    widget = go.FigureWidget(_bars([1, 2], "bars"))
    lines = go.Figure([go.Scatter(x=[0, 1], y=[1, 0]), go.Scatter(x=[0, 1], y=[0, 1])])
    replace_figure(widget, lines)
    assert figure_state(widget) == figure_state(lines)


def test_the_slider_redraws_every_figure_from_the_builders():
    calls = []

    def heights(k):
        calls.append(k)
        return _bars(list(range(k)), f"first {k}")

    view = SliderFigures([2, 4, 8], [heights, lambda k: _bars([k], "one bar")], value=5, description="k")
    assert view.slider.value == 4  # nearest option
    assert [len(f.data[0].y) for f in view.figures] == [4, 1]
    view.slider.value = 8
    assert figure_state(view.figures[0]) == figure_state(heights(8))
    assert view.figures[1].data[0].y == (8,)
    assert calls == [4, 8, 8]
    assert "application/vnd.jupyter.widget-view+json" in view._repr_mimebundle_()


def test_slider_without_options_or_builders_says_what_is_missing():
    with pytest.raises(ValueError, match="at least one option"):
        SliderFigures([], [lambda v: go.Figure()])
    with pytest.raises(ValueError, match="at least one figure builder"):
        SliderFigures([1], [])


def test_gaps_of_heatmaps_reach_the_widget_as_none_not_nan():
    # 2-D arrays travel to the browser as JSON lists, where NaN is invalid: blank cells become None
    z = np.array([[0.1, np.nan], [np.inf, 0.4]])
    view = SliderFigures([1, 2], [lambda k: go.Figure(go.Heatmap(z=z * k))])
    assert [v for row in view.figures[0].data[0].z for v in row] == [0.1, None, None, 0.4]
    view.slider.value = 2
    assert [v for row in view.figures[0].data[0].z for v in row] == [0.2, None, None, 0.8]


def test_a_named_colour_scale_equals_the_list_a_widget_holds():
    """Figures built without validation keep "Viridis"; the FigureWidget expands it to a list:
    both draw the same, and figure_state says so (and still tells different scales apart)."""
    import plotly.graph_objects as go

    from fsengine.notebook import figure_state
    named = go.Figure({"data": [{"type": "heatmap", "z": [[1, 2]], "colorscale": "Viridis"}]}, skip_invalid=True)
    widget = go.FigureWidget(go.Heatmap(z=[[1, 2]], colorscale="Viridis"))
    assert isinstance(widget.data[0].colorscale, tuple)
    assert figure_state(named) == figure_state(widget)
    assert figure_state(named) != figure_state(go.Figure(go.Heatmap(z=[[1, 2]], colorscale="Greys")))


def test_a_view_opened_after_a_move_starts_from_the_current_figure():
    """plotly fills a FigureWidget's synced state only when it is made; a view opened later (a
    reload, a second tab) reads that state. After a move it must hold the figure the slider shows."""
    view = SliderFigures([1, 2, 3], [lambda k: go.Figure(go.Bar(y=[k, 2 * k]), layout=dict(title=f"k = {k}"))],
                         value=1)
    widget = view.figures[0]
    assert list(widget._widget_data[0]["y"]) == [1, 2]
    view.slider.value = 3
    state = widget._widget_data[0]["y"]
    assert list(state) == [3, 6] and widget._widget_layout["title"]["text"] == "k = 3"
    assert figure_state(go.Figure(data=widget._widget_data, layout=widget._widget_layout)) == figure_state(widget)
