"""AppTest of the page "BIA: Lambda paths": widgets drive the figures' data."""

import base64
import json

import numpy as np
import pytest

from fsengine.app.safe_text import md_escape
from fsengine.data import load_dataset
from tests.conftest import app_test, require_real


def _array(value):
    """Plotly JSON arrays come either as lists or as base64 typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            arr = arr.reshape([int(s) for s in str(shape).split(",")])
        return arr
    return np.asarray(value, dtype=object)



def _n_lines(trace):
    x = _array(trace["x"]).astype(float)  # one NaN after each line (y is NaN where not converged too)
    return int(np.isnan(x).sum())


def _named(fig, prefix):
    found = [t for t in fig["data"] if t.get("name", "").startswith(prefix)]
    assert len(found) == 1, [t.get("name") for t in fig["data"]]
    return found[0]


@pytest.mark.slow
def test_default_notmnist_b_vs_d_path_heatmap_samples_and_slider():
    require_real(load_dataset, "notmnist")
    at = app_test("pages/bia.py", timeout=120)
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Samples n"] == "1,000" and metrics["Features p"] == "784"
    path, heat, samples, check, screening = (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
    fill, grey, red = (_named(path, name) for name in ("breakdown", "next 180 of 764", "top 20"))
    assert grey["type"] == red["type"] == "scatter"
    assert _n_lines(grey) == 180 and _n_lines(red) == 20  # 200 lines drawn, top 20 in red
    assert _named(path, "all 784 features")["fill"] == "tonexty"  # the band summarises every feature
    assert path["layout"]["xaxis"]["type"] == "log" and max(fill["x"]) == 1.0
    z_at_star = _array(heat["data"][0]["z"]).astype(float)
    assert z_at_star.shape == (28, 28) and z_at_star.max() > 0.55
    # Fig. 2C: three B and three D, each with the top-20 pixels marked
    assert sum(t["type"] == "heatmap" for t in samples["data"]) == 6
    marks = [t for t in samples["data"] if t["type"] == "scatter"]
    assert len(marks) == 6 and all(len(_array(t["x"])) == 20 for t in marks)
    # the BIA's top 20 against correlation screening: identical at Lambda*, departing lower down
    # (recorded report: first at Lambda/Lambda* = 0.5), said in words under the figure
    overlap = {t["name"]: t for t in screening["data"]}["overlap with correlation screening"]
    x, y = _array(overlap["x"]).astype(float), _array(overlap["y"]).astype(float)
    assert y[x == 1.0].tolist() == [1.0] and y.min() < 1.0  # Lambda = Lambda* is a point of the comparison
    said = " ".join(m.value for m in at.markdown)
    assert "shares **100%** of its features with the top 20 by |corr(x, y)|" in said
    # the exact check ran on 6 features with a Laplace reference
    assert [t["name"] for t in check["data"] if t["type"] == "bar"][0] == "exact (Laplace evidence)"
    assert len(check["data"][0]["x"]) == 6

    # a stronger prior: posteriors shrink towards 1/2, the heatmap updates from the cached path
    slider = at.select_slider(key="bia_ratio")
    assert max(float(o) for o in slider.options) == 20.0
    slider.set_value(20.0).run()
    heat_big = json.loads(at.get("plotly_chart")[1].proto.spec)
    z_big = _array(heat_big["data"][0]["z"]).astype(float)
    assert np.abs(z_big - 0.5).max() < np.abs(z_at_star - 0.5).max() / 3

    at.number_input(key="bia_topk").set_value(5).run()
    at.radio(key="bia_quantity").set_value("magnetization").run()
    path = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert _n_lines(_named(path, "top 5")) == 5
    assert path["layout"]["yaxis"]["title"]["text"] == "magnetization m_j"
    assert not at.exception and not at.error


def test_synthetic_non_image_bars_linear_family_and_bad_input():
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.sidebar.number_input(key="ds_synthetic_glm_p").set_value(30).run()
    at.switch_page("pages/bia.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    bars = charts[1]["data"][0]
    assert bars["type"] == "bar" and len(bars["y"]) == 30
    assert _n_lines(_named(charts[0], "top 3")) == 3  # top-k defaults to a tenth of p (at least 3)
    # truly relevant features (x3, x7, x13, x18, x22 for the default seed) are red; the best
    # bar (drawn last) is one of them
    names, colors = list(bars["y"]), list(bars["marker"]["color"])
    red = {n for n, c in zip(names, colors) if c == "#d62728"}
    assert red == {"x3", "x7", "x13", "x18", "x22"} and names[-1] in red
    # switching the model to the linear family works on 0/1 labels too
    at.selectbox(key="bia_family").set_value("linear").run()
    check = json.loads(at.get("plotly_chart")[-2].proto.spec)
    assert check["data"][0]["name"] == "exact (closed-form evidence)"
    # a real-valued target with the logistic family gets a clear error, not a traceback
    at.sidebar.selectbox(key="ds_synthetic_glm_family").set_value("linear").run()
    at.selectbox(key="bia_family").set_value("logistic").run()
    assert not at.exception
    assert at.error and "two classes" in at.error[0].value


def test_constant_pixels_are_named_excluded_and_can_be_kept():
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("digits").run()
    at.switch_page("pages/bia.py").run()
    assert "constant" in at.warning[0].value and md_escape("px(0,0)") in at.warning[0].value
    assert at.checkbox(key="bia_exclude").value  # excluded by default, and said so
    assert not at.error and not at.exception
    heat = json.loads(at.get("plotly_chart")[1].proto.spec)
    z = _array(heat["data"][0]["z"]).astype(float)
    n_constant = int(at.warning[0].value.split()[0])
    assert z.shape == (8, 8) and np.isnan(z[0, 0]) and np.isfinite(z).sum() == 64 - n_constant
    at.checkbox(key="bia_exclude").uncheck().run()
    assert at.error and md_escape("constant feature(s)") in at.error[0].value and not at.exception


@pytest.mark.slow
@pytest.mark.parametrize("pair", [("A", "J")])
def test_any_letter_pair(pair):
    require_real(load_dataset, "notmnist")
    at = app_test()
    at.sidebar.multiselect(key="ds_notmnist_letters").set_value(["A", "B", "J"]).run()
    at.switch_page("pages/bia.py").run()
    at.selectbox(key="bia_pair_c0").set_value(pair[0]).run()
    at.selectbox(key="bia_pair_c1").set_value(pair[1]).run()
    assert not at.exception and not at.error
    samples = json.loads(at.get("plotly_chart")[2].proto.spec)
    assert [a["text"] for a in samples["layout"]["annotations"]][:2] == list(pair)


@pytest.mark.slow
def test_default_page_on_a_fresh_install_uses_generated_letters(tmp_path, monkeypatch):
    """No real notMNIST anywhere: the default B-vs-D task runs on generated letters, whose
    always-blank corner pixels are excluded (and named), not an error box."""
    monkeypatch.setenv("FSENGINE_DATA", str(tmp_path))
    at = app_test()
    at.switch_page("pages/bia.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    texts = [e.value for kind in ("caption", "info", "markdown") for e in at.get(kind)]
    assert any("rendered from every font face" in t for t in texts), texts  # the generator, not real data
    heat = json.loads(at.get("plotly_chart")[1].proto.spec)
    z = _array(heat["data"][0]["z"]).astype(float)
    constant = int(at.warning[0].value.split()[0]) if at.warning else 0
    assert z.shape == (28, 28) and np.isfinite(z).sum() == 784 - constant


@pytest.mark.slow
def test_data_dependent_defaults_and_captions_follow_the_dataset():
    """Top-k and the exact check's size follow the data; captions describe the data shown."""
    at = app_test("pages/bia.py", timeout=120)  # the default 28 x 28 letters: top 20
    assert at.number_input(key="bia_topk").value == 20
    at.sidebar.selectbox(key="picker_key").set_value("digits").run()
    assert at.number_input(key="bia_topk").value == 6  # 8 x 8 digits: a tenth of 64, not the stale 20
    captions = " ".join(c.value for c in at.caption)
    assert "B's middle bar" not in captions and "mean images of 0 and 1" in captions
    assert "does not converge" in captions  # digits 0 vs 1 oscillates below Lambda*: said, and not drawn
    path = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "mean field not converged" in _named(path, "mean field not converged")["name"]
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.sidebar.number_input(key="ds_synthetic_glm_k").set_value(2).run()
    at.sidebar.number_input(key="ds_synthetic_glm_p").set_value(3).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="bia_topk").value == 3
    assert at.slider(key="bia_check_p").value == 3  # clamped to the 3 features, no red error
    path = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert _n_lines(_named(path, "top 3")) == 3


@pytest.mark.slow
def test_paper_preset_restores_fig_2_settings():
    require_real(load_dataset, "notmnist")
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("digits").run()
    at.switch_page("pages/bia.py").run()
    at.number_input(key="bia_topk").set_value(3).run()
    at.radio(key="bia_quantity").set_value("magnetization").run()
    next(b for b in at.button if b.label.startswith("As in the paper")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.sidebar.selectbox(key="picker_key").value == "notmnist"
    assert at.sidebar.multiselect(key="ds_notmnist_letters").value == ["B", "D"]
    assert at.number_input(key="ds_notmnist_n_per_class").value == 500
    assert at.number_input(key="bia_topk").value == 20 and at.radio(key="bia_quantity").value == "posterior"
    assert at.selectbox(key="bia_family").value == "logistic"
    assert {m.label: m.value for m in at.metric}["Samples n"] == "1,000"


@pytest.mark.slow
def test_lecture_mode_stacks_side_by_side_figures_and_axes_keep_to_the_data():
    require_real(load_dataset, "notmnist")
    at = app_test("pages/bia.py", timeout=120)

    def in_columns():
        return sum(len(c.get("plotly_chart")) for c in at.columns)

    assert in_columns() == 2  # Fig. 2B beside Fig. 2C
    at.toggle(key="lecture").set_value(True).run()
    assert not at.exception and not at.error
    assert in_columns() == 0  # one below the other, each the full width
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert all(c["layout"]["font"]["size"] >= 16 for c in charts)
    # the screening figure's log axis covers the path (0.1 to 20), not the width of its note
    screening = charts[-1]
    x = _array(screening["data"][0]["x"]).astype(float)
    low, high = sorted(10.0 ** np.asarray(screening["layout"]["xaxis"]["range"], dtype=float))
    assert x.min() / 1.5 < low <= x.min() and x.max() <= high < x.max() * 1.5
    assert screening["layout"]["xaxis"]["range"][0] > screening["layout"]["xaxis"]["range"][1]  # large Λ left



def test_one_slider_position_reaches_every_figure_and_caption():
    """Synthetic GLM (50 features, no image): the slider's Λ/Λ* is the path figure's current line
    and top-k legend, the bar chart's title and, on the exact check's own grid, the nearest checked
    ratio, whose error the caption states (recomputed here from the figure's own bars)."""
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.switch_page("pages/bia.py").run()
    assert at.select_slider(key="bia_ratio").value == 1.0  # the page opens at Λ = Λ*
    checked = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
    for k in (3, 7, 200, 1):  # path step k sits at Λ/Λ* = 1/(0.05 k); these steps are slider options
        value = 1.0 / (k * 0.05)
        at.select_slider(key="bia_ratio").set_value(value).run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        path, bars, check, _ = (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
        assert _named(path, "current")["x"] == [value, value]
        assert _named(path, "top 5")["name"] == f"top 5 at Λ/Λ* = {value:.3g}"
        assert bars["layout"]["title"]["text"] == f"Posteriors at Λ/Λ* = {value:.3g}"
        nearest = min(checked, key=lambda r: abs(np.log(r / value)))
        assert check["layout"]["annotations"][0]["text"] == f"posteriors at Λ/Λ* = {nearest:.3g}"
        exact, _ising, bia = ([float(v) for v in _array(t["y"])] for t in check["data"] if t["type"] == "bar")
        error = max(abs(b - e) for b, e in zip(bia, exact))
        caption = next(c.value for c in at.caption if c.value.startswith("Subproblem Λ*"))
        assert f"at the nearest checked Λ/Λ*: {error:.2g};" in caption
