"""AppTest of the page "BIA: Lambda paths": widgets drive the figures' data."""

import base64
import json

import numpy as np
import pytest

from fsengine.app.safe_text import md_escape
from fsengine.data import load_dataset
from fsengine.plots.explorable import image_pixels, slider_values, step_data, step_layout
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


def _explorable(at):
    """The page's explorable (the first chart) as a figure dict."""
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def _active(spec):
    slider = spec["layout"]["sliders"][0]
    return slider["steps"][slider["active"]]["value"]


def _image(spec, xref, index=None):
    """Pixels of the explorable's layout image on ``xref`` (its heatmap: x2, its marks: x3), as drawn
    or at step ``index``."""
    where = next(i for i, image in enumerate(spec["layout"]["images"]) if image["xref"] == xref)
    source = spec["layout"]["images"][where]["source"] if index is None else \
        step_layout(spec, index)[f"images[{where}].source"]
    return image_pixels(source)


def _ticks(spec, index):
    """The heatmap's colour bar labels at step ``index`` (its range at that position)."""
    return [float(t) for t in next(iter(step_data(spec, index).values()))["colorbar.ticktext"]]


@pytest.mark.slow
def test_default_notmnist_b_vs_d_explorable_starts_from_the_url():
    require_real(load_dataset, "notmnist")
    at = app_test("pages/bia.py", timeout=120)
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Samples n"] == "1,000" and metrics["Features p"] == "784"
    explorable, check, screening = (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
    assert _active(explorable) == "1" and len(explorable["layout"]["sliders"][0]["steps"]) == 100
    fill, red = (_named(explorable, name) for name in ("Λ < Λ*", "top 20 at Λ*"))
    assert red["type"] == "scatter" and _n_lines(red) == 20  # the top 20 at Λ* in red
    assert _named(explorable, "all 784")["fill"] == "tonexty"  # the band summarises every feature
    assert explorable["layout"]["xaxis"]["type"] == "log" and max(fill["x"]) == 1.0
    assert _image(explorable, "x2 domain").shape[:2] == (28, 28)  # Fig. 2B, one cell per pixel
    values = slider_values(explorable)
    at_star, at_20 = _ticks(explorable, values.index("1")), _ticks(explorable, values.index("20"))
    assert at_star[-1] > 0.55 and at_20[-1] - at_20[0] < (at_star[-1] - at_star[0]) / 3  # shrinks towards ½
    # the BIA's top 20 against correlation screening: identical at Lambda*, departing lower down
    overlap = {t["name"]: t for t in screening["data"]}["overlap with correlation screening"]
    x, y = _array(overlap["x"]).astype(float), _array(overlap["y"]).astype(float)
    assert y[x == 1.0].tolist() == [1.0] and y.min() < 1.0
    said = " ".join(m.value for m in at.markdown)
    assert "shares **100%** of its features with the top 20 by |corr(x, y)|" in said
    # the exact check ran on 6 features with a Laplace reference
    assert [t["name"] for t in check["data"] if t["type"] == "bar"][0] == "exact (Laplace evidence)"
    assert len(check["data"][0]["x"]) == 6

    at.query_params["bia_ratio"] = "20"  # a link to a strong prior: every figure starts there
    at.run()
    assert _active(_explorable(at)) == "20"
    at.number_input(key="bia_topk").set_value(5).run()
    at.radio(key="bia_quantity").set_value("magnetization").run()
    explorable = _explorable(at)
    assert _n_lines(_named(explorable, "top 5 at Λ*")) == 5 and _active(explorable) == "20"
    assert explorable["layout"]["yaxis"]["title"]["text"] == "magnetization m_j"
    assert not at.exception and not at.error


def test_synthetic_non_image_bars_linear_family_and_bad_input():
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.sidebar.number_input(key="ds_synthetic_glm_p").set_value(30).run()
    at.switch_page("pages/bia.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    bars = next(t for t in charts[0]["data"] if t["type"] == "bar")
    assert len(bars["y"]) == 20  # the 20 highest posteriors at Λ*
    assert _n_lines(_named(charts[0], "top 3 at Λ*")) == 3  # top-k defaults to a tenth of p (at least 3)
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
    heat = _image(_explorable(at), "x2 domain")  # excluded pixels are transparent
    n_constant = int(at.warning[0].value.split()[0])
    assert heat.shape[:2] == (8, 8) and heat[0, 0, 3] == 0 and (heat[..., 3] > 0).sum() == 64 - n_constant
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
    assert [a["text"] for a in _explorable(at)["layout"]["annotations"]] == list(pair)  # Fig. 2C's classes


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
    heat = _image(_explorable(at), "x2 domain")
    constant = int(at.warning[0].value.split()[0]) if at.warning else 0
    assert heat.shape[:2] == (28, 28) and (heat[..., 3] > 0).sum() == 784 - constant


@pytest.mark.slow
def test_data_dependent_defaults_and_captions_follow_the_dataset():
    """Top-k and the exact check's size follow the data; captions describe the data shown."""
    at = app_test("pages/bia.py", timeout=120)  # the default 28 x 28 letters: top 20
    assert at.number_input(key="bia_topk").value == 20
    at.sidebar.selectbox(key="picker_key").set_value("digits").run()
    assert at.number_input(key="bia_topk").value == 6  # 8 x 8 digits: a tenth of 64, not the stale 20
    captions = " ".join(c.value for c in at.caption)
    path = _explorable(at)
    texts = " ".join(str(v) for v in step_layout(path, 0).values())
    assert "B's middle bar" not in captions and "where 0 and 1 differ most" in texts  # Fig. 2C says it
    assert "does not converge" in captions  # digits 0 vs 1 oscillates below Lambda*: said, and not drawn
    assert _named(path, "not converged")["fill"] == "toself"  # shaded, and the steps there not drawn
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.sidebar.number_input(key="ds_synthetic_glm_k").set_value(2).run()
    at.sidebar.number_input(key="ds_synthetic_glm_p").set_value(3).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="bia_topk").value == 3
    assert at.slider(key="bia_check_p").value == 3  # clamped to the 3 features, no red error
    assert _n_lines(_named(_explorable(at), "top 3 at Λ*")) == 3


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
def test_lecture_mode_keeps_the_explorable_and_its_slider_on_one_screen():
    require_real(load_dataset, "notmnist")
    at = app_test("pages/bia.py", timeout=120)
    at.toggle(key="lecture").set_value(True).run()
    assert not at.exception and not at.error
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert all(c["layout"]["font"]["size"] >= 16 for c in charts)
    assert charts[0]["layout"]["height"] <= 740  # path, heatmap, pixels and slider: one 1280 x 800 screen
    # the screening figure's log axis covers the path (0.1 to 20), not the width of its note
    screening = charts[-1]
    x = _array(screening["data"][0]["x"]).astype(float)
    low, high = sorted(10.0 ** np.asarray(screening["layout"]["xaxis"]["range"], dtype=float))
    assert x.min() / 1.5 < low <= x.min() and x.max() <= high < x.max() * 1.5
    assert screening["layout"]["xaxis"]["range"][0] > screening["layout"]["xaxis"]["range"][1]  # large Λ left


def test_the_url_s_position_starts_every_figure():
    """Synthetic GLM (50 features, no image): the URL's Λ/Λ* (what the explorable's slider writes)
    is where the explorable starts, with the bars of the path's posteriors there, and where the exact
    check starts, on its own grid (the nearest checked ratio)."""
    from fsengine.methods.bia.study import run_bia_path

    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.switch_page("pages/bia.py").run()
    assert _active(_explorable(at)) == "1"  # the page opens at Λ = Λ*
    result = run_bia_path(load_dataset("synthetic_glm"), "logistic", n_steps=200, exclude_constant=True)
    names = list(load_dataset("synthetic_glm").feature_names)
    checked = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
    for k in (3, 7, 200, 1):  # path step k sits at Λ/Λ* = 1/(0.05 k)
        value = 1.0 / (k * 0.05)
        at.query_params["bia_ratio"] = f"{value:.6g}"
        at.run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        explorable, check, _ = (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
        position = result.position(value)
        assert float(_active(explorable)) == pytest.approx(position.value, rel=5e-3)  # 3 digits
        bars = next(t for t in explorable["data"] if t["type"] == "bar")
        best = names[result.top_features(position, 1)[0]]
        assert list(bars["y"])[-1] == best  # the highest posterior there: the top bar
        nearest = min(checked, key=lambda r: abs(np.log(r / value)))
        assert float(_active(check)) == nearest
        title = check["layout"]["annotations"][0]["text"]
        assert title.startswith(f"posteriors at Λ/Λ* = {nearest:g}<br>largest error")
    caption = next(c.value for c in at.caption if c.value.startswith("Subproblem Λ*"))
    assert "at Λ/Λ* = 10:" in caption
