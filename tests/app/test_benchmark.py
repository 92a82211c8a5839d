"""AppTest of the page "Benchmark": a run folder drives the CD diagram, the pairs, the explorables and
the drill-down; the k of the CD slider (the URL) moves the tables and the drill-down; a wrong folder
is an error box, never a traceback."""

import json

import numpy as np
import pytest

from fsengine.plots.explorable import slider_values, step_data
from tests.app.test_bia import _array
from tests.conftest import app_test


def _charts(at) -> dict:
    out = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        out[spec["layout"]["title"]["text"]] = spec
    return out


def _ok(at):
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])


def test_the_page_shows_a_run_folder_and_moves_with_k(tiny_folder, tiny_record):
    at = app_test("pages/benchmark.py", timeout=60)
    _ok(at)
    at.text_input(key="benchmark_folder").set_value(str(tiny_folder)).run()
    _ok(at)
    charts = _charts(at)
    first = tiny_record.k_labels[0]
    cd = next(c for t, c in charts.items() if t.startswith(f"k = {first}: average rank"))
    assert slider_values(cd) == tiny_record.k_labels and cd["layout"]["sliders"][0]["active"] == 0
    r = tiny_record.ranking(first)
    methods = list(tiny_record.methods["key"])
    x = _array(cd["data"][0]["x"])
    np.testing.assert_allclose([v for v in x if v is not None], [r.average_ranks[m] for m in methods if m in r.methods])
    assert cd["layout"]["shapes"][0]["x1"] == pytest.approx(1 + r.cd)
    for title in ("ranks (1 = best) on", "mean Jaccard of the top", "average rank against fit time"):
        assert any(title in t for t in charts), title
    pairs = at.dataframe[0].value
    assert pairs["Verdict"].tolist() == tiny_record.pairs(first)["verdict"].tolist()
    np.testing.assert_allclose(pairs["p after Holm"], tiny_record.pairs(first)["holm_pvalue"])
    assert any(m.value.startswith("Over 2 datasets and 5 methods the Friedman test") for m in at.markdown)
    # the drill-down: the first dataset's accuracy curves and stability at this k
    accuracy = next(c for t, c in charts.items() if "held-out" in t and "against k" in t)
    wine = tiny_record.accuracy_table("wine")
    lines = [t for t in accuracy["data"] if t.get("fill") != "toself"]
    np.testing.assert_allclose(_array(lines[0]["y"]).astype(float), wine[wine["curve"] == lines[0]["name"]]["accuracy"])
    at.selectbox(key="benchmark_dataset").set_value("glm_tiny").run()
    _ok(at)
    stability = _charts(at)[f"Stability of the top-{first} sets over the outer folds"]
    part = tiny_record.summary.query(f"dataset == 'glm_tiny' and k_label == '{first}' and status == 'ok'")
    np.testing.assert_allclose(_array(stability["data"][0]["y"]).astype(float), part["stability"])

    # the CD slider's release reaches the page as ?benchmark_k=: the tables and the drill-down follow
    at.query_params["benchmark_k"] = "5"
    at.run()
    _ok(at)
    charts = _charts(at)
    cd = next(c for t, c in charts.items() if t.startswith("k = 5: average rank"))
    assert cd["layout"]["sliders"][0]["active"] == 1
    np.testing.assert_allclose(step_data(cd, 1)[0]["x"][0], tiny_record.ranking("5").average_ranks[methods[0]])
    assert at.dataframe[0].value["Verdict"].tolist() == tiny_record.pairs("5")["verdict"].tolist()
    assert "Stability of the top-5 sets over the outer folds" in charts
    assert at.dataframe[-1].value["method"].iloc[0] == "all features"


def test_a_wrong_folder_is_an_error_box(tmp_path):
    at = app_test("pages/benchmark.py", timeout=60)
    at.text_input(key="benchmark_folder").set_value(str(tmp_path)).run()
    assert not at.exception
    assert any("is not a benchmark run folder" in e.value for e in at.error)
