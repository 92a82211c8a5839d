"""Figure builders of the BIA page (pure plotly, no Streamlit)."""

import numpy as np
import pandas as pd
import plotly.io as pio
import pytest

from fsengine import ranking
from fsengine.plots.bia import (
    path_figure,
    posterior_bars,
    posterior_heatmap,
    samples_with_top_pixels,
    thinned_rows,
    validation_figure,
)
from fsengine.plots.style import HIGHLIGHT, Style, restyle
from fsengine.position import Position


def _toy_path(p=12, steps=40):
    ratios = 1.0 / (np.arange(1, steps + 1) * 0.05)
    strength = np.linspace(0.0, 1.0, p)
    post = 0.5 + 0.4 * strength[None, :] * (1 - np.exp(-1.0 / ratios[:, None]))
    return pd.DataFrame(post, index=pd.Index(ratios, name="lambda_ratio"),
                        columns=[f"px({j // 4},{j % 4})" for j in range(p)])


def _at(path, ratio):
    """The row of ``path`` nearest ``ratio``, as the page's slider gives it."""
    return Position.nearest(path.index, ratio)


def _lines(trace):
    """Split a NaN-separated trace into its lines."""
    y = np.asarray(trace.y, dtype=float)
    x = np.asarray(trace.x, dtype=float)
    cuts = np.flatnonzero(np.isnan(x))
    return np.split(np.arange(y.size), cuts + 1)[:-1]


def _trace(fig, prefix):
    found = [t for t in fig.data if (t.name or "").startswith(prefix)]
    assert len(found) == 1, [t.name for t in fig.data]
    return found[0]


def test_path_figure_packs_lines_and_marks_top_and_breakdown():
    path = _toy_path()
    fig = path_figure(path, position=_at(path, 1.0), top_k=3, image_shape=(3, 4))
    grey, red = _trace(fig, "other features"), _trace(fig, "top 3")
    fill, now = _trace(fig, "breakdown"), _trace(fig, "current")
    assert grey.type == red.type == "scatter"
    assert len(_lines(grey)) == 9 and len(_lines(red)) == 3
    assert red.line.color == HIGHLIGHT
    # red lines are the three strongest features; hover shows their pixel (row, col)
    assert {tuple(red.customdata[i[0]]) for i in _lines(red)} == {(2, 1), (2, 2), (2, 3)}
    assert "pixel (%{customdata[0]}, %{customdata[1]})" in red.hovertemplate
    # breakdown region spans Lambda/Lambda* from the smallest ratio to 1; x axis is logarithmic
    assert max(fill.x) == 1.0 and min(fill.x) == path.index.min()
    assert fig.layout.xaxis.type == "log"
    assert now.x[0] == 1.0
    capped = path_figure(path, position=_at(path, 1.0), top_k=3, max_lines=5)
    assert len(_lines(_trace(capped, "next 2 of 9"))) == 2
    mag = path_figure(path, position=_at(path, 1.0), top_k=3, quantity="magnetization")
    red_mag = _trace(mag, "top 3")
    np.testing.assert_allclose(np.nanmax(np.asarray(red_mag.y, dtype=float)), 2 * path.to_numpy().max() - 1,
                               rtol=1e-6)
    assert red_mag.customdata[0][0] == "px(2,3)"  # no image shape: hover shows the name


def test_top_k_follows_the_current_ratio():
    path = _toy_path()
    path.iloc[:, 0] = np.where(path.index > 5, 0.99, 0.5)  # feature 0 leads only at large Lambda
    big = path_figure(path, position=_at(path, 20.0), top_k=1)
    small = path_figure(path, position=_at(path, 1.0), top_k=1)
    assert _trace(big, "top 1").customdata[0][0] == "px(0,0)"
    assert _trace(small, "top 1").customdata[0][0] == "px(2,3)"


def test_thinned_steps_are_log_spaced_and_keep_the_current_one():
    x = np.sort(1.0 / (np.arange(1, 201) * 0.05))
    plain = thinned_rows(x)
    assert np.diff(np.log10(x[plain]))[:-1].min() >= 0.03 - 1e-12  # the last gap may be shorter
    assert 40 <= plain.size <= 80  # 200 steps over 2.3 decades
    rows = thinned_rows(x, keep=[57])
    assert 57 not in plain and 57 in rows and rows[0] == 0 and rows[-1] == 199
    fig = path_figure(_toy_path(steps=200), position=_at(_toy_path(steps=200), x[57]), top_k=2)
    assert len(_lines(_trace(fig, "top 2"))[0]) == rows.size + 1  # those steps and the NaN separator


def test_band_summarises_every_feature_beyond_the_drawn_lines():
    rng = np.random.default_rng(1)
    ratios = 1.0 / (np.arange(1, 41) * 0.05)
    path = pd.DataFrame(rng.random((40, 50)), index=pd.Index(ratios, name="lambda_ratio"))
    fig = path_figure(path, position=_at(path, 1.0), top_k=3, max_lines=10)
    band = [t for t in fig.data if t.fill == "tonexty"]
    assert [t.name for t in band] == ["all 50 features: 5-95 %", "25-75 %"]
    x = np.asarray(band[0].x, dtype=float)
    rows = np.searchsorted(np.sort(ratios), x.astype(np.float32).astype(float) - 1e-5)
    P = path.to_numpy()[np.argsort(ratios)][rows]
    np.testing.assert_allclose(np.asarray(band[0].y, dtype=float), np.percentile(P, 95, axis=1), rtol=1e-5)
    lower = [t for t in fig.data if t.legendgroup == band[0].name and t.fill != "tonexty"][0]
    np.testing.assert_allclose(np.asarray(lower.y, dtype=float), np.percentile(P, 5, axis=1), rtol=1e-5)


def test_non_converged_steps_are_not_drawn_and_named():
    path = _toy_path(steps=40)
    ok = path.index.to_numpy() > 2.0  # the recursion oscillates below Lambda/Lambda* = 2
    fig = path_figure(path, position=_at(path, 5.0), top_k=3, converged=ok)
    red = _trace(fig, "top 3")
    x, y = np.asarray(red.x, dtype=float), np.asarray(red.y, dtype=float)
    drawn = np.isfinite(y)
    assert drawn.any() and (x[drawn] > 2.0).all() and (~drawn[np.isfinite(x) & (x <= 2.0)]).all()
    shade = _trace(fig, "mean field not converged")
    assert max(shade.x) == path.index[~ok].max() and min(shade.x) == path.index.min()
    assert "not drawn" in shade.name


def test_path_figure_payload_for_784_features_and_200_steps():
    """What one slider move costs on the default page: the path figure's JSON (deterministic)."""
    rng = np.random.default_rng(0)
    ratios = 1.0 / (np.arange(1, 201) * 0.05)
    P = 0.5 + 0.5 * np.tanh(rng.normal(size=784)[None, :] / ratios[:, None])
    path = pd.DataFrame(P, index=pd.Index(ratios, name="lambda_ratio"))
    fig = path_figure(path, position=_at(path, 1.0), top_k=20, image_shape=(28, 28), max_lines=200)
    size = len(pio.to_json(restyle(fig, Style(lecture=True)), validate=False))
    assert size < 200_000, size
    assert len(_lines(_trace(fig, "top 20"))) == 20 and len(_lines(_trace(fig, "next 180"))) == 180


def test_heatmap_samples_bars_and_validation():
    scores = np.linspace(0, 1, 12)
    heat = posterior_heatmap(scores, (3, 4))
    np.testing.assert_allclose(heat.data[0].z, scores.reshape(3, 4))
    assert heat.layout.yaxis.autorange == "reversed"

    images = np.random.default_rng(0).random((4, 12))
    top = ranking.top_k(scores, 2)
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
    val = validation_figure(ratios, bia, exact, ["a", "b"], ising=exact, position=Position.nearest(ratios, 2.0))
    bars_now = [t for t in val.data if t.type == "bar"]
    assert [t.name for t in bars_now] == ["exact", "BIA Ising, exact marginals", "BIA mean field"]
    np.testing.assert_allclose(bars_now[2].y, bia[1])
    err = [t for t in val.data if t.type == "scatter" and t.name == "error: BIA mean field"][0]
    np.testing.assert_allclose(err.y, [0.05, 0.01, 0.001])


def test_figures_take_one_position_and_refuse_one_from_another_grid():
    path = _toy_path(steps=40)
    pos = Position.at(path.index, 13)  # Lambda/Lambda* = 20/14
    fig = path_figure(path, position=pos, top_k=2)
    assert list(_trace(fig, "current").x) == [pos.value, pos.value]
    assert _trace(fig, "top 2").name == f"top 2 at Λ/Λ* = {pos.value:.3g}"
    thin = path.iloc[::3]
    with pytest.raises(ValueError, match="not a position on this grid"):
        path_figure(thin, position=pos, top_k=2)  # row 13 of the full path is another row of the thinned one
    with pytest.raises(ValueError, match="not a position on this grid"):
        path_figure(path, position=Position(40, 0.5), top_k=2)
    ratios = np.array([1.0, 2.0, 10.0])
    values = np.array([[0.9, 0.2], [0.8, 0.3], [0.6, 0.45]])
    val = validation_figure(ratios, values, values, ["a", "b"], position=Position.at(ratios, 2))
    assert val.layout.annotations[0].text == "posteriors at Λ/Λ* = 10"
    np.testing.assert_allclose(val.data[0].y, values[2])
    with pytest.raises(ValueError, match="not a position on this grid"):
        validation_figure(ratios, values, values, ["a", "b"], position=Position(2, 7.0))


# --- the explorable ------------------------------------------------------------------------------

def _toy_result(p=12, steps=40, converged_below=None):
    from fsengine.methods.bia.study import BIAPathResult

    path = _toy_path(p=p, steps=steps)
    ratios = path.index.to_numpy()
    residual = np.where(ratios < converged_below, 1.0, 0.0) if converged_below else np.zeros(steps)
    trace = pd.DataFrame({"lambda_ratio": ratios, "fixed_point_residual": residual})
    return BIAPathResult(path=path, trace=trace, features=np.arange(p), excluded=np.array([], dtype=np.intp),
                         n_features_total=p, lambda_star=100.0, rms_correlation=0.1, n_samples=50, family="logistic")


def _images(spec, xref):
    return [i for i, image in enumerate(spec["layout"]["images"]) if image["xref"] == xref]


def test_bia_explorable_steps_carry_each_position_s_heatmap_marks_dots_and_ranges():
    from fsengine.plots.bia import bia_explorable
    from fsengine.plots.explorable import colour_pixels, image_pixels, slider_values, step_data, step_layout

    result = _toy_result()
    images = np.linspace(0, 1, 4 * 12).reshape(4, 12)
    fig = bia_explorable(result, result.position(1.0), top_k=3, image_shape=(3, 4),
                         samples=(images, np.array([0, 0, 1, 1]), ["B", "D"]), class_names=["B", "D"],
                         discriminative=np.arange(12) >= 9)
    spec = fig.to_plotly_json()
    positions = result.slider_positions(200)
    labels = slider_values(spec)
    assert len(labels) == len(positions) and float(labels[spec["layout"]["sliders"][0]["active"]]) == 1.0
    heat, = _images(spec, "x2 domain")
    marks, = _images(spec, "x3 domain")
    dots = _images(spec, "x")[1:]  # after the current-position line
    assert len(dots) == 3
    for i in (0, len(positions) // 2, len(positions) - 1):
        pos, layout = positions[i], step_layout(spec, i)
        assert float(labels[i]) == pytest.approx(pos.value, rel=5e-3)
        z = result.full_scores(pos).reshape(3, 4)
        np.testing.assert_array_equal(image_pixels(layout[f"images[{heat}].source"]),
                                      colour_pixels(z, z.min(), z.max()))
        ticks = next(iter(step_data(spec, i).values()))["colorbar.ticktext"]
        assert ticks[0] == f"{z.min():.{len(ticks[0]) - 2}f}" and ticks[-1] == f"{z.max():.{len(ticks[-1]) - 2}f}"
        top = result.top_features(pos, 3)
        marked = image_pixels(layout[f"images[{marks}].source"])[::4, ::4] > 0  # one cell per data pixel
        rows, cols = np.divmod(top, 4)
        expected = np.zeros(marked.shape, dtype=bool)
        for offset in (0, 5, 12, 17):  # two images per class, one blank column between, two between classes
            expected[rows, cols + offset] = True
        np.testing.assert_array_equal(marked, expected)
        assert [layout[f"images[{k}].y"] for k in dots] == pytest.approx(list(result.scores_at(pos)[top]))
        assert [layout[f"images[{k}].x"] for k in dots] == pytest.approx([np.log10(pos.value)] * 3)
        share = np.mean(top >= 9)
        assert f"{share:.0%} where B and D differ most" in next(v for k, v in layout.items() if "label" in k and v)
    # the lines: every feature that is ever in the top 3, the top 3 at Λ* in red
    red = next(t for t in spec["data"] if t.get("name") == "top 3 at Λ*")
    assert red["line"]["color"] == HIGHLIGHT


def test_bia_explorable_for_non_image_data_moves_bars_and_says_where_the_mean_field_fails():
    from fsengine.plots.bia import bia_explorable
    from fsengine.plots.explorable import step_data, step_layout

    result = _toy_result(converged_below=1.0)
    names = [f"f{j}" for j in range(12)]
    truth = np.arange(12) >= 10
    fig = bia_explorable(result, result.position(5.0), top_k=2, feature_names=names, truth=truth)
    spec = fig.to_plotly_json()
    positions = result.slider_positions(200)
    bars = next(i for i, t in enumerate(spec["data"]) if t["type"] == "bar")
    for i in (0, len(positions) - 1):
        pos, data = positions[i], step_data(spec, i)[bars]
        order = ranking.top_k(result.scores_at(pos), 12)[::-1]
        assert list(data["y"]) == [names[j] for j in order]
        np.testing.assert_allclose(data["x"], result.scores_at(pos)[order] - 0.5, rtol=1e-6)
        assert data["marker.color"][-1] == HIGHLIGHT  # the best bar: a truly relevant feature
        warning = step_layout(spec, i)["shapes[0].label.text"]
        assert ("not converged" in warning) == (pos.value < 1.0)


def test_bia_explorable_payload_for_784_pixels_and_200_steps():
    """The budget: the default notMNIST B/D explorable (784 pixels, a path of 200 steps) under
    1.5 MB as the app sends it (plotly's JSON, lecture mode)."""
    from fsengine.methods.bia.study import BIAPathResult
    from fsengine.plots.bia import bia_explorable

    rng = np.random.default_rng(0)
    ratios = 1.0 / (np.arange(1, 201) * 0.05)
    P = 0.5 + 0.5 * np.tanh(rng.normal(size=784)[None, :] / ratios[:, None])
    path = pd.DataFrame(P, index=pd.Index(ratios, name="lambda_ratio"))
    trace = pd.DataFrame({"lambda_ratio": ratios, "fixed_point_residual": np.zeros(200)})
    result = BIAPathResult(path=path, trace=trace, features=np.arange(784), excluded=np.array([], dtype=np.intp),
                           n_features_total=784, lambda_star=1e5, rms_correlation=0.2, n_samples=1000,
                           family="logistic")
    images = rng.random((6, 784))
    fig = bia_explorable(result, result.position(1.0), top_k=20, image_shape=(28, 28),
                         samples=(images, np.array([0, 0, 0, 1, 1, 1]), ["B", "D"]), class_names=["B", "D"],
                         discriminative=rng.random(784) > 0.75)
    size = len(pio.to_json(restyle(fig, Style(lecture=True)), validate=False))
    assert size < 1_500_000, size
    assert len(fig.layout.sliders[0].steps) == 100


def test_validation_explorable_moves_the_bars_and_names_the_error():
    from fsengine.plots.bia import validation_explorable
    from fsengine.plots.explorable import step_data, step_layout

    ratios = np.array([0.5, 1.0, 2.0])
    bia = np.array([[0.9, 0.2], [0.8, 0.3], [0.7, 0.4]])
    exact = bia + 0.01 * np.arange(1, 4)[:, None]
    fig = validation_explorable(ratios, bia, exact, ["a", "b"], position=Position.at(ratios, 1))
    spec = fig.to_plotly_json()
    assert spec["layout"]["sliders"][0]["active"] == 1
    np.testing.assert_allclose(step_data(spec, 2)[1]["y"], bia[2], rtol=1e-6)
    assert step_layout(spec, 2)["annotations[0].text"] == "posteriors at Λ/Λ* = 2<br>largest error 0.03"
