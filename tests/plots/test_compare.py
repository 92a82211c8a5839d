"""Comparison figures: interval bands, difference markers and stability whiskers, in every style."""

import numpy as np
import pandas as pd
import pytest

from fsengine.plots.compare import (
    BAND_ALPHA,
    RESOLVED_MARKER,
    UNRESOLVED_MARKER,
    accuracy_curves,
    difference_curves,
    stability_bars,
    stability_differences,
)
from fsengine.plots.style import DARK_FOREGROUND, Style, restyle
from fsengine.stats import Estimate

ACCURACY = pd.DataFrame({
    "curve": ["BIA"] * 3 + ["random features"] * 3, "k": [1, 2, 4] * 2,
    "accuracy": [0.8, 0.9, 0.92, 0.55, 0.6, 0.7], "low": [0.75, 0.86, 0.88, 0.5, 0.55, 0.65],
    "high": [0.85, 0.93, 0.95, 0.6, 0.65, 0.75]})


def test_accuracy_bands_are_the_intervals_under_the_lines():
    fig = accuracy_curves(ACCURACY, all_features=0.93, majority=0.5, random_label="random features", k=2,
                          all_features_interval=Estimate(0.93, 0.9, 0.95, 0.95, "m"), note="bands: 95% Wilson")
    bands = [t for t in fig.data if t.fill == "toself"]
    lines = [t for t in fig.data if t.fill != "toself"]
    assert [t.name for t in bands] == ["BIA: interval", "random features: interval"]
    assert list(fig.data[:2]) == bands  # drawn first: every line stays on top
    np.testing.assert_allclose(bands[0].y, [0.85, 0.93, 0.95, 0.88, 0.86, 0.75])
    assert list(bands[0].x) == [1, 2, 4, 4, 2, 1]
    assert bands[0].legendgroup == lines[0].legendgroup == "BIA" and not bands[0].showlegend
    assert bands[0].fillcolor == f"rgba(31, 119, 180, {BAND_ALPHA})" and bands[0].line.width == 0
    np.testing.assert_allclose(np.asarray(lines[0].customdata, dtype=float), ACCURACY[["low", "high"]][:3])
    assert "interval [%{customdata[0]:.3f}" in lines[0].hovertemplate
    assert fig.layout.title.subtitle.text == "bands: 95% Wilson"
    assert any(a.text == "all features 0.930 [0.900, 0.950]" for a in fig.layout.annotations)


def test_accuracy_without_intervals_draws_no_band():
    fig = accuracy_curves(ACCURACY[["curve", "k", "accuracy"]], all_features=0.9, majority=0.5,
                          random_label="random features")
    assert [t.name for t in fig.data] == ["BIA", "random features"] and fig.data[0].customdata is None


@pytest.mark.parametrize("dark", [False, True])
def test_lecture_mode_thickens_lines_and_keeps_bands_light_and_unframed(dark):
    fig = restyle(accuracy_curves(ACCURACY, all_features=0.9, majority=0.5, random_label="random features"),
                  Style(lecture=True, dark=dark))
    bands = [t for t in fig.data if t.fill == "toself"]
    lines = [t for t in fig.data if t.fill != "toself"]
    assert all(t.line.width == 0 and t.fillcolor.endswith(f", {BAND_ALPHA})") for t in bands)
    assert lines[0].line.width == pytest.approx(2.5 * 1.8)


def test_difference_markers_are_filled_where_resolved():
    table = pd.DataFrame({"method": ["MI"] * 3, "reference": "BIA", "k": [1, 2, 4],
                          "difference": [0.05, 0.01, -0.04], "low": [0.01, -0.02, -0.07],
                          "high": [0.09, 0.04, -0.01], "verdict": ["better", "not resolved", "worse"]})
    fig = difference_curves(table, k=2, note="bands: 97.5%")
    band, line = fig.data
    assert band.fill == "toself" and line.name == "MI − BIA"
    assert list(line.marker.symbol) == [RESOLVED_MARKER, UNRESOLVED_MARKER, RESOLVED_MARKER]
    assert list(line.customdata[:, 2]) == ["better", "not resolved", "worse"]
    assert fig.layout.title.text == "Paired difference in held-out accuracy from BIA"
    assert [s.y0 for s in fig.layout.shapes if s.y0 == s.y1] == [0.0]  # the line of no difference


def test_stability_whiskers_are_the_interval_and_turn_light_in_the_dark():
    table = pd.DataFrame({"method": ["BIA", "MI"], "kuncheva": [0.8, 0.5], "low": [0.7, 0.2], "high": [0.9, 0.6],
                          "pairs": [10, 10], "ties_at_cut": [0, 1], "resamples": [5, 5]})
    fig = stability_bars(table, 10)
    bars = fig.data[0]
    np.testing.assert_allclose(bars.error_y.array, [0.1, 0.1])
    np.testing.assert_allclose(bars.error_y.arrayminus, [0.1, 0.3])
    assert bars.error_y.visible and fig.layout.title.text == "Stability of the top-10 set (bootstrap)"
    assert restyle(fig, Style(dark=True)).data[0].error_y.color == DARK_FOREGROUND
    no_interval = stability_bars(table.assign(low=np.nan, high=np.nan), 10)
    assert not no_interval.data[0].error_y.visible and not no_interval.layout.title.subtitle.text


def test_nogueira_diamonds_sit_beside_the_bars_with_their_own_whiskers():
    table = pd.DataFrame({"method": ["BIA", "MI"], "kuncheva": [0.8, 0.5], "low": [0.7, 0.2], "high": [0.9, 0.6],
                          "pairs": [10, 10], "ties_at_cut": [0, 1], "resamples": [5, 5], "nogueira": [0.8, 0.5],
                          "nogueira_low": [0.75, 0.4], "nogueira_high": [0.85, 0.65]})
    fig = stability_bars(table, 10)
    bars, diamonds = fig.data
    assert diamonds.marker.symbol == "diamond" and bars.offsetgroup != diamonds.offsetgroup
    assert fig.layout.scattermode == "group" and fig.layout.barmode == "group"
    np.testing.assert_allclose(diamonds.y, [0.8, 0.5])
    np.testing.assert_allclose(diamonds.error_y.array, [0.05, 0.15])
    np.testing.assert_allclose(diamonds.error_y.arrayminus, [0.05, 0.1])
    assert "Nogueira" in fig.layout.title.subtitle.text and "jackknife" in fig.layout.title.subtitle.text
    assert restyle(fig, Style(dark=True)).data[1].error_y.color == DARK_FOREGROUND


def test_stability_difference_markers_are_filled_where_holm_resolves():
    table = pd.DataFrame({"method": ["BIA", "MI", "L1"], "reference": "BIA",
                          "stability_difference": [np.nan, -0.3, 0.05],
                          "stability_difference_low": [np.nan, -0.5, -0.1],
                          "stability_difference_high": [np.nan, -0.1, 0.2], "stability_p": [np.nan, 0.001, 0.5],
                          "stability_p_holm": [np.nan, 0.002, 0.5],
                          "stability_verdict": ["reference", "less stable", "not resolved"]})
    fig = stability_differences(table, 10, note="whiskers: 97.5%")
    (points,) = fig.data
    assert list(points.x) == ["MI", "L1"] and list(points.marker.symbol) == [RESOLVED_MARKER, UNRESOLVED_MARKER]
    np.testing.assert_allclose(points.error_y.arrayminus, [0.2, 0.15])
    np.testing.assert_allclose(points.error_y.array, [0.2, 0.15])
    assert list(points.customdata[:, 4]) == ["less stable", "not resolved"]
    assert fig.layout.title.text == "Stability of the top-10 set against BIA (Nogueira et al., paired)"
    assert [s.y0 for s in fig.layout.shapes if s.y0 == s.y1] == [0.0]
