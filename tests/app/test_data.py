"""AppTest: the Data page drives its widgets and draws what the data says (figure data checked
against values computed here from the dataset itself)."""

from __future__ import annotations

import base64
import io
import json
import warnings
import zipfile

import numpy as np
import pytest
from sklearn.feature_selection import f_classif

from fsengine.data import load_dataset
from tests.conftest import app_test


def _array(value) -> np.ndarray:
    """A plotly JSON array: a list, or a typed array {"dtype", "bdata" (base64), "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = [int(n) for n in str(value.get("shape", flat.size)).split(",")]
        return flat.reshape(shape).astype(float)
    return np.array(value, dtype=float)


def _chart(at, key: str) -> dict:
    for chart in at.get("plotly_chart"):
        if key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key}; ids: {[c.proto.id for c in at.get('plotly_chart')]}")


def _data_page(dataset: str | None = None):
    at = app_test()
    if dataset:
        at.sidebar.selectbox(key="picker_key").set_value(dataset).run()
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    return at


def test_image_dataset_grid_means_and_scores():
    at = _data_page("digits")
    ds = load_dataset("digits")
    grid = _chart(at, "data_image_grid")["data"][0]
    z = _array(grid["z"])
    assert grid["type"] == "heatmap" and z.shape == (10 * 9 - 1, 12 * 9 - 1)   # 10 classes x 12 images
    at.slider(key="data_per_class").set_value(5).run()
    z = _array(_chart(at, "data_image_grid")["data"][0]["z"])
    assert z.shape == (10 * 9 - 1, 5 * 9 - 1)

    balance = _chart(at, "data_balance")["data"][0]
    np.testing.assert_array_equal(_array(balance["y"]), np.bincount(ds.y))

    means = _chart(at, "data_class_means")["data"]
    assert len(means) == 10                          # one mean image per digit, no difference panel
    np.testing.assert_allclose(_array(means[3]["z"]).ravel(), ds.X[ds.y == 3].mean(axis=0))

    at.slider(key="data_top_n").set_value(7).run()
    bars = _chart(at, "data_top_features")["data"][0]
    assert len(bars["y"]) == 7
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")              # constant border pixels
        F, _ = f_classif(ds.X, ds.y)                 # ANOVA F is the Fisher score up to (n-k)/(k-1)
    F = np.where(np.isfinite(F), F, -1)
    best = [ds.feature_names[j] for j in np.argsort(-F, kind="stable")[:7]]
    assert bars["y"][::-1] == best


def test_two_letter_dataset_shows_difference_of_class_means():
    at = _data_page("letters")
    key_params = dict(letters="BD", n_per_class=500, seed=0)
    ds = load_dataset("letters", **key_params)
    panels = _chart(at, "data_class_means")["data"]
    assert len(panels) == 3
    diff = _array(panels[2]["z"]).ravel()
    np.testing.assert_allclose(diff, ds.X[ds.y == 1].mean(axis=0) - ds.X[ds.y == 0].mean(axis=0), atol=1e-12)
    fmap = _array(_chart(at, "data_feature_map")["data"][0]["z"])
    assert fmap.shape == (28, 28)
    assert any("usable faces" in md.value for md in at.markdown)          # provenance notes shown


def test_table_dataset_shows_rows_and_balance():
    at = _data_page("wine")
    np.testing.assert_array_equal(_array(_chart(at, "data_balance")["data"][0]["y"]), [59, 71, 48])
    assert len(_chart(at, "data_top_features")["data"][0]["y"]) == 13
    assert at.dataframe, "sample rows table missing"


def test_text_dataset_words_and_samples(tmp_path, monkeypatch):
    corpora = tmp_path / "nltk_data" / "corpora"
    corpora.mkdir(parents=True)
    plot = "\n".join(f"the plot of film {i} follows a story" for i in range(12))
    quote = "\n".join(f"a wonderful and moving film {i}" for i in range(12))
    with zipfile.ZipFile(corpora / "subjectivity.zip", "w") as zf:
        zf.writestr("subjectivity/plot.tok.gt9.5000", plot)
        zf.writestr("subjectivity/quote.tok.gt9.5000", quote)
    monkeypatch.setenv("FSENGINE_DATA", str(tmp_path))
    at = _data_page("subjectivity")
    words = _chart(at, "data_words")
    obj_panel = [t for t in words["data"] if t.get("xaxis", "x") == "x" and t["name"] == "obj"][0]
    top_obj = obj_panel["y"][::-1][:5]
    assert set(top_obj) == {"the", "plot", "of", "follows", "story"}
    np.testing.assert_allclose(_array(obj_panel["x"])[::-1][:5], 1.0)       # every plot summary has these words
    at.selectbox(key="data_text_class").set_value("subj").run()
    at.slider(key="data_text_n").set_value(3).run()
    texts = at.dataframe[0].value
    assert list(texts["class"]) == ["subj"] * 3 and texts["text"][0].startswith("a wonderful")


def test_fetch_button_downloads_with_progress(fake_source, store):
    at = _data_page("wine")
    at.button(key="data_fetch_fake").click().run()
    assert not at.exception
    assert (store / "fake" / "blob.bin").is_file()
    assert any("fake stored at" in s.value for s in at.success)
    assert not [b for b in at.button if b.key == "data_fetch_fake"]      # now shown as present


@pytest.mark.slow
def test_lecture_pack_is_offered_as_a_zip():
    """The Data page builds the offline lecture pack of the picked dataset (fsengine.lecture) on a
    click and offers it as a zip; the pack stays offered on the next run without a second build."""
    from fsengine.app.compute import _store

    at = _data_page("digits")
    assert [b.label for b in at.get("download_button") if "lecture" in b.label.lower()] == []
    at.button(key="data_lecture_build").click().run(timeout=300)
    assert not at.exception, at.exception
    labels = [b.label for b in at.get("download_button") if "lecture" in b.label.lower()]
    assert len(labels) == 1 and labels[0].startswith("Download the lecture pack (zip, ")
    archive = next(iter(_store("lecture_pack").items.values()))
    names = zipfile.ZipFile(io.BytesIO(archive)).namelist()
    assert "lecture/index.html" in names and "lecture/plotly.min.js" in names and "lecture/bia.html" in names
    at.slider(key="data_top_n").set_value(7).run()
    assert [b.label for b in at.get("download_button") if "lecture" in b.label.lower()] == labels
