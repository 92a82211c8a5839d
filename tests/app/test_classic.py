"""AppTest of the Classic criteria page: every view, widgets driven, figure data checked."""

import base64
import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import mutual_info_classif

from fsengine.app.safe_text import md_escape
from fsengine.data import registry
from fsengine.data.bundled import load_bundled
from fsengine.data.catalogue import DatasetSpec
from fsengine.data.dataset import Dataset, Provenance
from fsengine.methods.registry import method_defaults
from fsengine.plots.explorable import image_pixels, slider_values, step_layout
from tests.conftest import app_test
from tests.methods.classic.test_boosting import brute_force_errors

PAGE = "pages/classic.py"


def decode(value):
    """Plotly's JSON arrays: plain lists or typed arrays ``{"dtype", "bdata"[, "shape"]}``."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            array = array.reshape([int(s) for s in str(value["shape"]).split(",")])
        return array
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def spec(at, i=0) -> dict:
    return decode(json.loads(at.get("plotly_chart")[i].proto.spec))


def traces(at, i=0) -> list[dict]:
    return spec(at, i)["data"]


def by_name(at, i, prefix) -> dict:
    return next(t for t in traces(at, i) if t.get("name", "").startswith(prefix))


def check_clean(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_mi_and_mdl_on_images_with_two_class_restriction():
    at = app_test(PAGE)
    at.sidebar.selectbox(key="picker_key").set_value("digits").run()
    check_clean(at)
    assert len(at.get("plotly_chart")) == 2  # bars + per-pixel heatmap
    bars = traces(at, 0)[0]
    assert len(bars["x"]) == 25 and np.all(np.diff(bars["x"]) <= 0)
    digits = load_bundled("digits")
    X01 = (digits.X > 0.5).astype(float)  # the page's "auto" rule for [0, 1] images
    reference = mutual_info_classif(X01, digits.y, discrete_features=True)
    assert bars["x"][0] == pytest.approx(reference.max(), rel=1e-12)
    heat = traces(at, 1)[0]
    assert np.array(heat["z"], dtype=float).shape == (8, 8)
    assert np.nanmax(np.array(heat["z"], dtype=float)) == pytest.approx(reference.max(), rel=1e-12)
    at.slider(key="classic_mi_top").set_value(10).run()
    assert len(traces(at, 0)[0]["x"]) == 10
    assert any(md_escape("binarised as x > 0.5") in info.value for info in at.info)

    at.radio(key="classic_view").set_value("MDL").run()
    check_clean(at)
    total = by_name(at, 0, "DL total")
    star = by_name(at, 0, "minimum")
    assert len(total["y"]) == 31  # sizes 0..30
    assert star["x"][0] == int(np.argmin(total["y"]))
    data_dl, model_dl = by_name(at, 0, "DL-data"), by_name(at, 0, "DL-model")
    np.testing.assert_allclose(np.add(data_dl["y"], model_dl["y"]), total["y"])
    assert np.nansum(np.array(traces(at, 1)[1]["z"], dtype=float) > 0) == star["x"][0]

    at.toggle(key="classic_two_classes").set_value(True).run()
    at.selectbox(key="classic_pair_c0").set_value("3").run()
    at.selectbox(key="classic_pair_c1").set_value("8").run()
    check_clean(at)
    assert any(c.value.startswith("digits[3,8]: 357 samples") for c in at.caption)
    counts = np.array([np.sum(digits.y == 3), np.sum(digits.y == 8)])
    n = counts.sum()
    empty = -(counts * np.log(counts / n)).sum() + np.log(n + 1)  # n H(Y) + log(n + 1), Eq. (10, 14)
    assert by_name(at, 0, "DL total")["y"][0] == pytest.approx(empty, rel=1e-12)
    table = at.dataframe[0].value
    assert table["size"].tolist() == list(range(1, 31))
    assert table["name"].tolist() == [digits.feature_names[j] for j in table["feature"]]


def test_image_figures_of_the_l1_path_explorable_and_boosting():
    at = app_test(PAGE)
    at.sidebar.selectbox(key="picker_key").set_value("digits").run()
    at.toggle(key="classic_two_classes").set_value(True).run()
    at.selectbox(key="classic_pair_c0").set_value("3").run()
    at.selectbox(key="classic_pair_c1").set_value("8").run()
    at.radio(key="classic_view").set_value("L1 path").run()
    check_clean(at)
    fig = spec(at, 0)  # the path, the accuracies and the coefficient image, with C as the slider
    log_c = np.asarray(by_name(at, 0, "held-out")["x"], dtype=float)
    n_active = int(fig["layout"]["xaxis3"]["ticktext"][-1])
    values = slider_values(fig)
    assert len(values) == log_c.size and fig["layout"]["sliders"][0]["active"] == log_c.size // 2
    first, last = step_layout(fig, 0), step_layout(fig, log_c.size - 1)
    assert (image_pixels(first["images[2].source"])[..., 3] == 0).all()  # at l1_min_c every coefficient is zero
    assert first["title.text"].startswith(f"C = {values[0]}: 0 non-zero")
    z = image_pixels(last["images[2].source"])
    assert z.shape[:2] == (8, 8) and np.count_nonzero(z[..., 3]) == n_active
    assert last["title.text"].startswith(f"C = {values[-1]}: {n_active} non-zero")
    at.query_params["classic_l1_C"] = values[0]  # a link to the smallest C: the explorable starts there
    at.run()
    assert spec(at, 0)["layout"]["sliders"][0]["active"] == 0

    at.radio(key="classic_view").set_value("Boosting").run()
    at.slider(key="classic_boost_rounds").set_value(10).run()
    check_clean(at)
    first = by_name(at, 0, "stump feature")["y"][0]
    text = np.array(traces(at, 1)[-1]["text"], dtype=object).ravel()
    names = load_bundled("digits").feature_names
    assert names[int(np.flatnonzero(text == "1")[0])] == first  # pixel "1" is the first round's stump


def test_l1_path_and_boosting_on_a_table():
    at = app_test(PAGE)
    at.sidebar.selectbox(key="picker_key").set_value("breast_cancer").run()
    at.radio(key="classic_view").set_value("L1 path").run()
    check_clean(at)
    l1 = method_defaults("l1")  # the sliders start at the registry's defaults, as the CLI and the API
    assert (at.slider(key="classic_l1_nCs").value, 10.0 ** at.select_slider(key="classic_l1_span").value) == (
        l1["n_Cs"], l1["C_span"])
    at.slider(key="classic_l1_nCs").set_value(10).run()
    check_clean(at)
    fig = spec(at)
    held = by_name(at, 0, "held-out")
    assert len(held["x"]) == 10 and all(0.0 <= a <= 1.0 for a in held["y"])
    assert held["y"][0] < max(held["y"]) - 0.2  # the empty model predicts one class
    top_axis = fig["layout"]["xaxis3"]
    assert top_axis["ticktext"][0] == "0" and int(top_axis["ticktext"][-1]) > 5
    labelled = [t for t in fig["data"] if t.get("name", "")[:3] == "1. "]
    assert len(labelled) == 1
    at.checkbox(key="classic_l1_cv").check().run()
    check_clean(at)
    cv = by_name(at, 0, "cross-validated")
    assert len(cv["y"]) == 10
    marked = {shape["x0"] for shape in spec(at)["layout"]["shapes"]}
    assert marked == {cv["x"][int(np.argmax(cv["y"]))]}  # the CV-chosen C: first best CV accuracy

    at.radio(key="classic_view").set_value("Boosting").run()
    assert at.slider(key="classic_boost_rounds").value == method_defaults("boosting")["n_estimators"]
    at.slider(key="classic_boost_rounds").set_value(10).run()
    check_clean(at)
    loss = by_name(at, 0, "training loss")["y"]
    assert len(loss) == 10 and np.all(np.diff(loss) < 0)
    stumps = by_name(at, 0, "stump feature")
    bc = load_bundled("breast_cancer")
    errors = brute_force_errors(bc.X, bc.y, np.full(bc.n_samples, 1 / bc.n_samples), 2)
    first = min(errors, key=errors.get)[0]  # round 1: uniform weights, smallest weighted error
    assert stumps["y"][0] == bc.feature_names[first]
    at.checkbox(key="classic_boost_gini").check().run()
    check_clean(at)
    table = at.dataframe[0].value
    assert len(table) == 10
    assert np.all(table["weighted_error"] <= table["gini_weighted_error"] + 1e-12)


@pytest.fixture
def sparse_tags(monkeypatch):
    """A small sparse word-presence dataset registered in the picker for the duration of a test."""
    rng = np.random.default_rng(0)
    n, p = 240, 120
    y = rng.integers(0, 2, n)
    dense = (rng.random((n, p)) < 0.05).astype(float)
    dense[:, 0] = (rng.random(n) < np.where(y == 1, 0.6, 0.05))
    dense[:, 1] = (rng.random(n) < np.where(y == 0, 0.5, 0.05))
    ds = Dataset(X=sp.csr_matrix(dense), y=y, feature_names=tuple(f"word{j}" for j in range(p)),
                 target_names=("neg", "pos"), provenance=Provenance("test tags"), name="tags")
    monkeypatch.setitem(registry._SPECS, "classic_test_tags",
                        DatasetSpec("classic_test_tags", "Test tags", "Text", "sparse tags", lambda: ds))
    return ds


def test_every_view_on_sparse_text_tags(sparse_tags):
    at = app_test(PAGE)
    at.sidebar.selectbox(key="picker_key").set_value("classic_test_tags").run()
    check_clean(at)
    assert traces(at, 0)[0]["y"][:2] in (["word0", "word1"], ["word1", "word0"])
    assert len(at.get("plotly_chart")) == 1  # no image
    for view in ("MDL", "L1 path", "Boosting"):
        at.radio(key="classic_view").set_value(view).run()
        check_clean(at)
        assert at.get("plotly_chart")
    assert set(by_name(at, 0, "stump feature")["y"][:2]) == {"word0", "word1"}
