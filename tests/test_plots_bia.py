"""Figure builders of the BIA page (pure plotly, no Streamlit)."""

import numpy as np
import pandas as pd

from fsengine.plots.bia import (
    path_figure,
    posterior_bars,
    posterior_heatmap,
    samples_with_top_pixels,
    top_features,
    validation_figure,
)
from fsengine.plots.style import HIGHLIGHT


def _toy_path(p=12, steps=40):
    ratios = 1.0 / (np.arange(1, steps + 1) * 0.05)
    strength = np.linspace(0.0, 1.0, p)
    post = 0.5 + 0.4 * strength[None, :] * (1 - np.exp(-1.0 / ratios[:, None]))
    return pd.DataFrame(post, index=pd.Index(ratios, name="lambda_ratio"),
                        columns=[f"px({j // 4},{j % 4})" for j in range(p)])


def _lines(trace):
    """Split a NaN-separated trace into its lines."""
    y = np.asarray(trace.y, dtype=float)
    cuts = np.flatnonzero(np.isnan(y))
    return np.split(np.arange(y.size), cuts + 1)[:-1]


def test_path_figure_packs_lines_and_marks_top_and_breakdown():
    path = _toy_path()
    fig = path_figure(path, top_k=3, current_ratio=1.0, image_shape=(3, 4))
    fill, grey, red, now = fig.data
    assert grey.type == red.type == "scattergl"
    assert len(_lines(grey)) == 9 and len(_lines(red)) == 3
    assert red.line.color == HIGHLIGHT
    # red lines are the three strongest features; hover shows their pixel (row, col)
    assert {tuple(red.customdata[i[0]]) for i in _lines(red)} == {(2, 1), (2, 2), (2, 3)}
    assert "pixel (%{customdata[0]}, %{customdata[1]})" in red.hovertemplate
    # breakdown region spans Lambda/Lambda* from the smallest ratio to 1; x axis is logarithmic
    assert max(fill.x) == 1.0 and min(fill.x) == path.index.min()
    assert fig.layout.xaxis.type == "log"
    assert now.x[0] == 1.0
    capped = path_figure(path, top_k=3, current_ratio=1.0, max_lines=5)
    assert len(_lines(capped.data[1])) == 2 and "2 highest of 9 shown" in capped.data[1].name
    mag = path_figure(path, top_k=3, current_ratio=1.0, quantity="magnetization")
    np.testing.assert_allclose(np.nanmax(mag.data[2].y), 2 * path.to_numpy().max() - 1)
    assert mag.data[2].customdata[0][0] == "px(2,3)"  # no image shape: hover shows the name


def test_top_k_follows_the_current_ratio():
    path = _toy_path()
    path.iloc[:, 0] = np.where(path.index > 5, 0.99, 0.5)  # feature 0 leads only at large Lambda
    big = path_figure(path, top_k=1, current_ratio=20.0)
    small = path_figure(path, top_k=1, current_ratio=1.0)
    assert big.data[2].customdata[0][0] == "px(0,0)"
    assert small.data[2].customdata[0][0] == "px(2,3)"


def test_heatmap_samples_bars_and_validation():
    scores = np.linspace(0, 1, 12)
    heat = posterior_heatmap(scores, (3, 4))
    np.testing.assert_allclose(heat.data[0].z, scores.reshape(3, 4))
    assert heat.layout.yaxis.autorange == "reversed"

    images = np.random.default_rng(0).random((4, 12))
    top = top_features(scores, 2)
    assert top.tolist() == [11, 10]
    fig = samples_with_top_pixels(images, np.array([0, 0, 1, 1]), ["B", "D"], top, (3, 4))
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    marks = [t for t in fig.data if t.type == "scatter"]
    assert len(heatmaps) == 4 and len(marks) == 4
    assert list(marks[0].x) == [3, 2] and list(marks[0].y) == [2, 2]

    truth = np.zeros(12, dtype=bool)
    truth[11] = True
    bars = posterior_bars(scores, [f"f{j}" for j in range(12)], top_n=5, truth=truth)
    assert list(bars.data[0].y) == ["f7", "f8", "f9", "f10", "f11"]
    assert bars.data[0].marker.color[-1] == HIGHLIGHT and bars.data[0].marker.color[0] != HIGHLIGHT
    np.testing.assert_allclose(bars.data[0].base + bars.data[0].x, scores[7:])  # bars start at 1/2

    ratios = np.array([1.0, 2.0, 10.0])
    exact = np.array([[0.9, 0.2], [0.8, 0.3], [0.6, 0.45]])
    bia = exact + np.array([[0.05], [0.01], [0.001]])
    val = validation_figure(ratios, bia, exact, ["a", "b"], ising=exact, current_ratio=2.0)
    bars_now = [t for t in val.data if t.type == "bar"]
    assert [t.name for t in bars_now] == ["exact", "BIA Ising, exact marginals", "BIA mean field"]
    np.testing.assert_allclose(bars_now[2].y, bia[1])
    err = [t for t in val.data if t.type == "scatter" and t.name == "error: BIA mean field"][0]
    np.testing.assert_allclose(err.y, [0.05, 0.01, 0.001])
