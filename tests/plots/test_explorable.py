"""The shared machinery of explorable figures (fsengine.plots.explorable)."""

import json

import numpy as np
import plotly.io as pio
import pytest

from fsengine.plots.explorable import (
    Slider,
    Step,
    colour_pixels,
    colourbar_ticks,
    decoded,
    distinct_labels,
    explorable,
    explorable_sliders,
    heatmap_image,
    image_pixels,
    mask_uri,
    slider_values,
    step_data,
    step_layout,
    typed_array,
)
from fsengine.plots.style import DARK_FOREGROUND, Style, restyle


def _spec():
    return {"data": [{"type": "bar", "x": [0.0, 0.0]},
                     {"type": "scatter", "mode": "markers"},
                     {"type": "heatmap", "z": [[0.0]]}],
            "layout": {"height": 300, "images": [{"source": "", "x": 0}]}}


def _steps(n=4):
    return [Step(f"{i / 2:g}", f"{i / 2:g}",
                 {0: {"x": np.array([i, 2 * i], dtype=np.float64)},
                  1: {"x": np.array([i], dtype=np.int64), "y": np.array([1.5 * i], dtype=np.float32)}},
                 {"images[0].x": float(i), "title.text": f"at {i}"})
            for i in range(n)]


def test_typed_arrays_round_trip_float32_and_the_smallest_integers():
    spec = typed_array(np.array([0.5, np.nan, 2.0]))
    assert spec["dtype"] == "f4"
    np.testing.assert_array_equal(decoded(spec), np.array([0.5, np.nan, 2.0], dtype=np.float32))
    assert typed_array(np.array([0, 200]))["dtype"] == "u1" and typed_array(np.array([-3, 3]))["dtype"] == "i1"
    grid = typed_array(np.arange(6).reshape(2, 3))
    assert grid["shape"] == "2, 3" and decoded(grid).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert decoded([1, 2]) == [1, 2]  # not a typed array: unchanged


def test_the_figure_is_drawn_at_the_active_step_and_each_step_updates_only_what_changes():
    fig = explorable(_spec(), _steps(), active=2, prefix="k = ")
    spec = json.loads(pio.to_json(fig, validate=False))
    slider = spec["layout"]["sliders"][0]
    assert slider["active"] == 2 and slider["currentvalue"]["prefix"] == "k = "
    assert slider_values(spec) == ["0", "0.5", "1", "1.5"]
    # the figure's own data and layout are those of step 2
    np.testing.assert_array_equal(decoded(spec["data"][0]["x"]), [2, 4])
    assert spec["layout"]["images"][0]["x"] == 2.0 and spec["layout"]["title"]["text"] == "at 2"
    # one Plotly.update per step: the changing traces only, a trace without an attribute gets null
    data, layout, traces = slider["steps"][3]["args"]
    assert traces == [0, 1] and slider["steps"][3]["method"] == "update"
    assert data["y"][0] is None and decoded(data["y"][1]).tolist() == [4.5]
    assert layout == {"images[0].x": 3.0, "title.text": "at 3"}
    assert step_data(spec, 3)[0]["x"].tolist() == [3, 6] and step_layout(spec, 1)["title.text"] == "at 1"
    assert spec["layout"]["height"] > 300  # room for the slider below the plot


def test_steps_that_would_unset_an_attribute_or_differ_are_refused():
    spec = _spec()
    spec["data"][1]["y"] = [1.0]
    bad = [Step("0", "0", {0: {"y": np.zeros(2)}, 1: {"x": np.zeros(1)}})]
    with pytest.raises(ValueError, match="trace 0 has .x., which a step would unset"):
        explorable(spec, bad, active=0, prefix="")
    steps = _steps(2)
    steps[1] = Step("1", "1", {0: {"x": np.zeros(2)}}, steps[1].layout)
    with pytest.raises(ValueError, match="same traces and attributes"):
        explorable(_spec(), steps, active=0, prefix="")
    with pytest.raises(ValueError, match="active step 5"):
        explorable(_spec(), _steps(2), active=5, prefix="")


def test_many_steps_hide_the_tick_labels_but_not_the_current_value():
    fig = explorable(_spec(), _steps(40), active=0, prefix="k = ")
    slider = fig.layout.sliders[0]
    assert slider.font.color == "rgba(0, 0, 0, 0)" and slider.currentvalue.font.color not in (None, slider.font.color)
    dark = restyle(explorable(_spec(), _steps(40), active=0, prefix=""), Style(dark=True))
    assert dark.layout.sliders[0].currentvalue.font.color == DARK_FOREGROUND


def test_heatmap_images_are_the_colours_plotly_would_draw_and_nan_is_transparent():
    values = np.array([[0.0, 0.5], [1.0, np.nan]])
    pixels = image_pixels(heatmap_image(values, 0.0, 1.0))
    np.testing.assert_array_equal(pixels, colour_pixels(values, 0.0, 1.0))
    assert pixels[1, 1, 3] == 0 and pixels[0, 0, 3] == 255
    assert tuple(pixels[0, 0, :3]) == (68, 1, 84) and tuple(pixels[1, 0, :3]) == (253, 231, 37)  # Viridis ends
    mask = np.zeros((3, 5), dtype=bool)
    mask[1, 2] = True
    marks = image_pixels(mask_uri(mask, (214, 39, 40)))
    assert marks.shape[:2] == (3, 5)


def test_labels_stay_distinct_and_colour_bar_ticks_tell_neighbours_apart():
    assert distinct_labels([0.1, 0.10004, 20.0]) == ["0.1", "0.10004", "20"]
    assert colourbar_ticks(0.498, 0.503, 5) == ["0.498", "0.499", "0.500", "0.502", "0.503"]
    assert colourbar_ticks(0.5, 0.9, 3) == ["0.50", "0.70", "0.90"]


def test_names_in_steps_are_disarmed_like_the_figure_s_own_text():
    steps = [Step("0", "0", {0: {"y": ["<a href='x'>a</a>", "b"], "x": np.zeros(2)}})]
    fig = restyle(explorable(_spec(), steps, active=0, prefix=""))
    assert fig.layout.sliders[0].steps[0].args[0]["y"][0][0] == "&lt;a href='x'>a&lt;/a>"


def test_several_sliders_compose_each_setting_only_its_own_attributes():
    """Two sliders that change disjoint attributes: the figure is drawn at both active steps, each
    step carries its own slider's changes only (so a move of one leaves the other's as it is), and
    the helpers read any slider."""
    spec = {"data": [{"type": "scatter", "x": [0]}, {"type": "bar", "y": [0]}],
            "layout": {"height": 300, "xaxis": {}, "images": [{"x": 0}, {"y": 0}]}}
    across = [Step(str(i), str(i), {0: {"x": np.array([i])}}, {"xaxis.range": [i, i + 1], "images[0].x": i})
              for i in range(3)]
    up = [Step(str(j), f"v{j}", {1: {"y": np.array([10 * j])}}, {"images[1].y": j}) for j in range(4)]
    fig = explorable_sliders(spec, [Slider(across, 2, "a = ", "a", x=0.0, length=0.5),
                                    Slider(up, 1, "b = ", "b", x=0.55, length=0.45)])
    layout = json.loads(pio.to_json(fig))["layout"]
    a, b = layout["sliders"]
    assert (a["active"], a["x"], a["len"], b["active"], b["x"], b["len"]) == (2, 0.0, 0.5, 1, 0.55, 0.45)
    assert layout["xaxis"]["range"] == [2, 3] and layout["images"][0]["x"] == 2 and layout["images"][1]["y"] == 1
    assert decoded(json.loads(pio.to_json(fig))["data"][1]["y"]).tolist() == [10]
    assert slider_values(fig, 1) == ["v0", "v1", "v2", "v3"] and slider_values(fig) == ["0", "1", "2"]
    assert step_layout(fig, 0, slider=1) == {"images[1].y": 0} and set(step_layout(fig, 0)) == {"xaxis.range",
                                                                                                  "images[0].x"}
    assert step_data(fig, 3, slider=1) == {1: {"y": pytest.approx([30])}} and list(step_data(fig, 1)) == [0]
    assert layout["height"] == 300 + 80


def test_sliders_that_would_undo_each_other_are_refused():
    spec = {"data": [{"type": "scatter", "x": [0]}], "layout": {"images": [{"x": 0}]}}
    one = [Step(str(i), str(i), {}, {"images[0].x": i}) for i in range(2)]
    with pytest.raises(ValueError, match="both change"):
        explorable_sliders(spec, [Slider(one, 0, "", "a"), Slider(one, 0, "", "b")])
    traced = [Step(str(i), str(i), {0: {"x": np.array([i])}}) for i in range(2)]
    with pytest.raises(ValueError, match="both change"):
        explorable_sliders(spec, [Slider(traced, 0, "", "a"), Slider(traced, 1, "", "b")])
    with pytest.raises(ValueError, match="at least one slider"):
        explorable_sliders(spec, [])


def test_a_narrow_slider_hides_its_tick_labels_sooner():
    spec = {"data": [], "layout": {}}
    steps = [Step(str(i), str(i), {}, {"images[0].x": i}) for i in range(21)]
    narrow = explorable_sliders(spec, [Slider(steps, 0, "", "a", length=0.4)]).layout.sliders[0]
    wide = explorable_sliders({"data": [], "layout": {}}, [Slider(steps, 0, "", "a")]).layout.sliders[0]
    assert narrow.font.color == "rgba(0, 0, 0, 0)" and wide.font.color is None
