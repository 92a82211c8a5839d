"""The shared machinery of explorable figures (fsengine.plots.explorable)."""

import json

import numpy as np
import plotly.io as pio
import pytest

from fsengine.plots.explorable import (
    Step,
    colour_pixels,
    colourbar_ticks,
    decoded,
    distinct_labels,
    explorable,
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
