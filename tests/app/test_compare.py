"""AppTest of the page "Compare methods": widgets drive the comparison and the figures' data."""

import json

import numpy as np
import pytest

from fsengine.app.safe_text import md_escape
from fsengine.compare.runner import CompareSettings, run_comparison
from fsengine.data import load_dataset
from fsengine.plots.explorable import slider_values, step_data
from tests.app.test_bia import _array
from tests.conftest import app_test, require_real


def _charts(at) -> dict:
    """Figures by title."""
    out = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        out[spec["layout"]["title"]["text"]] = spec
    return out


def _ok(at):
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])


@pytest.mark.slow
def test_synthetic_run_shows_accuracy_overlap_stability_roc_and_reacts_to_k():
    at = app_test("pages/compare.py", timeout=120)
    _ok(at)
    assert at.info[0].value.startswith("Choose methods and press **Run comparison**")
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.multiselect(key="compare_methods").set_value(["bia", "mi", "variance"]).run()
    at.number_input(key="compare_bia_n_steps").set_value(40).run()
    at.select_slider(key="compare_bootstrap").set_value(3).run()
    at.number_input(key="compare_max_k").set_value(20).run()
    at.button(key="compare_run").click().run()
    _ok(at)

    expected = run_comparison(load_dataset("synthetic_glm"), [("bia", {"n_steps": 40}), "mi", "variance"],
                              CompareSettings(n_bootstrap=3, max_k=20))
    charts = _charts(at)
    accuracy = charts["Held-out accuracy against the number of selected features"]
    lines = [t for t in accuracy["data"] if t.get("fill") != "toself"]
    bands = [t for t in accuracy["data"] if t.get("fill") == "toself"]
    assert [t["name"] for t in lines] == ["BIA", "MI", "Variance", "random features"]
    assert [t["name"] for t in bands] == [f"{c}: interval" for c in ("BIA", "MI", "Variance", "random features")]
    assert accuracy["data"].index(bands[-1]) < accuracy["data"].index(lines[0])  # bands under every line
    bia = expected.accuracy.query("curve == 'BIA'")
    np.testing.assert_array_equal(_array(lines[0]["x"]).astype(int), bia["k"])
    np.testing.assert_allclose(_array(lines[0]["y"]).astype(float), bia["accuracy"])
    # the band is the interval: up along the high ends, back along the low ends
    np.testing.assert_allclose(_array(bands[0]["y"]).astype(float),
                               np.concatenate([bia["high"], bia["low"].to_numpy()[::-1]]))
    assert (bia["low"] < bia["high"]).all() and "Wilson" in accuracy["layout"]["title"]["subtitle"]["text"]

    differences = charts["Paired difference in held-out accuracy from BIA"]
    diff = expected.differences()
    diff_lines = [t for t in differences["data"] if t.get("fill") != "toself"]
    assert [t["name"] for t in diff_lines] == ["MI − BIA", "Variance − BIA"]
    np.testing.assert_allclose(_array(diff_lines[0]["y"]).astype(float), diff.query("method == 'MI'")["difference"])

    # overlap and stability: an explorable that starts at the page's k and carries every k
    explorable = next(c for c in charts.values() if c["layout"].get("sliders"))
    assert slider_values(explorable) == [str(k) for k in range(1, 21)]
    assert explorable["layout"]["sliders"][0]["active"] == 9  # k = 10
    np.testing.assert_allclose(_array(explorable["data"][0]["z"]).astype(float), expected.jaccard(10).to_numpy())
    np.testing.assert_allclose(_array(explorable["data"][1]["y"]).astype(float), expected.stability(10)["kuncheva"])
    for k in (1, 7, 20):
        np.testing.assert_allclose(step_data(explorable, k - 1)[0]["z"], expected.jaccard(k).to_numpy(), rtol=1e-6)
    roc = charts["Recovering the truly relevant features (ROC)"]["data"]
    auc = expected.auc()
    assert [t["name"] for t in roc[1:]] == [f"{m} (AUC {auc[m]:.3f})" for m in ("BIA", "MI", "Variance")]
    # Nogueira's stability and its paired test against the reference: the estimator's numbers on the page's fits
    from fsengine.selection_metrics import nogueira_difference, nogueira_stability

    stability_table = at.dataframe[3].value.set_index("Method")
    boot = {r.label: [row[:10] for row in r.boot_top] for r in expected.runs}
    for label in ("BIA", "MI", "Variance"):
        phi = nogueira_stability(boot[label], expected.n_features)
        np.testing.assert_allclose(stability_table.loc[label, ["Nogueira Φ", "Nogueira: low"]].astype(float),
                                   [phi.value, phi.low], rtol=1e-10)
        np.testing.assert_allclose(float(stability_table.loc[label, "Nogueira: high"]), min(1.0, phi.high), rtol=1e-10)
    level = expected.comparison_level()
    tests = {m: nogueira_difference(boot["BIA"], boot[m], expected.n_features, paired=True, level=level)
             for m in ("MI", "Variance")}
    np.testing.assert_allclose(stability_table.loc[["MI", "Variance"], "p (paired test)"].astype(float),
                               [tests[m].pvalue for m in ("MI", "Variance")], rtol=1e-10)
    holm = np.minimum(1, np.maximum.accumulate(np.sort([t.pvalue for t in tests.values()]) * np.array([2, 1])))
    np.testing.assert_allclose(np.sort(stability_table.loc[["MI", "Variance"], "p, Holm-adjusted"].astype(float)),
                               holm, rtol=1e-10)
    assert stability_table.loc["BIA", "Stability test"] == "reference"
    stability_figure = charts["Stability of the top-10 set against BIA (Nogueira et al., paired)"]
    np.testing.assert_allclose(_array(stability_figure["data"][0]["y"]).astype(float),
                               [tests[m].difference.value for m in ("MI", "Variance")], rtol=1e-10)
    np.testing.assert_allclose(_array(explorable["data"][2]["y"]).astype(float), expected.stability(10)["nogueira"],
                               rtol=1e-6)
    runtime, summary, table = (at.dataframe[0].value, at.dataframe[1].value, at.dataframe[2].value)
    assert summary["Method"].tolist() == ["BIA", "MI", "Variance"]
    assert summary["Verdict"].iloc[0] == "reference" and (summary["Reference"] == "BIA").all()
    # the reference's row has no difference from itself: a dash there, not "None"
    assert summary["Difference from the reference"].isna().tolist() == [True, False, False]
    assert at.dataframe[1].proto.placeholder == "—"
    named = list(summary.columns) + list(runtime.columns) + list(table.columns)
    assert not [c for c in named if "_" in c]  # named for a reader
    at_k = diff[diff["k"] == expected.grid_k(10)]
    assert table["Method"].tolist() == ["MI", "Variance"]
    assert table["Verdict"].tolist() == at_k["verdict"].tolist()
    np.testing.assert_allclose(table["Low"].astype(float), at_k["low"])
    assert any(m.value == f"**{md_escape(expected.resolved_at(10))}**" for m in at.markdown)
    assert any(c.value.startswith(expected.resolution_rule()) for c in at.caption)
    assert (runtime["First call, untimed warm-up incl. compilation (s)"] > 0).all()
    # the accuracy marker sits on the grid point whose accuracy the summary reports
    grid_k = int(summary["k of the accuracy grid point"].iloc[0])
    marker = [s for s in accuracy["layout"]["shapes"] if s.get("line", {}).get("color") == "#d62728"][0]
    assert marker["x0"] == grid_k and grid_k in set(bia["k"])
    label = [a["text"] for a in accuracy["layout"]["annotations"] if "k =" in a["text"]][0]
    assert label == ("k = 10" if grid_k == 10 else f"grid k = {grid_k} (nearest to k = 10)")
    assert [b.label for b in at.get("download_button")] == [
        "All tables (CSV, zip)", "Summary (CSV)", "Report (HTML, self-contained)"]

    # the explorable's slider is the one k control: no server slider; its release reaches the page
    # as ?compare_k= (the URL bridge), and a fresh browser on that URL shows the same k, tables included
    assert not [s for s in at.slider if s.key == "compare_k"] and "compare_k" not in at.query_params
    at.query_params["compare_k"] = "3"
    at.run()
    _ok(at)
    charts = _charts(at)
    explorable = next(c for c in charts.values() if c["layout"].get("sliders"))
    assert explorable["layout"]["sliders"][0]["active"] == 2  # the explorable starts at the URL's k
    np.testing.assert_allclose(_array(explorable["data"][0]["z"]).astype(float), expected.jaccard(3).to_numpy())
    np.testing.assert_allclose(_array(explorable["data"][1]["y"]).astype(float), expected.stability(3)["kuncheva"])
    summary, table = at.dataframe[1].value, at.dataframe[2].value
    assert (summary["k"] == 3).all()
    grid_3 = expected.grid_k(3)
    assert (summary["k of the accuracy grid point"] == grid_3).all()
    at_3 = diff[diff["k"] == grid_3]
    assert table["Verdict"].tolist() == at_3["verdict"].tolist()
    np.testing.assert_allclose(table["Low"].astype(float), at_3["low"])
    assert any(m.value == f"**{md_escape(expected.resolved_at(3))}**" for m in at.markdown)
    accuracy = charts["Held-out accuracy against the number of selected features"]
    marker = [s for s in accuracy["layout"]["shapes"] if s.get("line", {}).get("color") == "#d62728"][0]
    assert marker["x0"] == grid_3  # the curves' marker follows the URL's k
    differences = charts["Paired difference in held-out accuracy from BIA"]
    assert any(s.get("x0") == grid_3 for s in differences["layout"]["shapes"])
    # a value the figure has no step for: the nearest step, for the figure and the tables alike
    at.query_params["compare_k"] = "500"
    at.run()
    _ok(at)
    explorable = next(c for c in _charts(at).values() if c["layout"].get("sliders"))
    assert explorable["layout"]["sliders"][0]["active"] == 19 and (at.dataframe[1].value["k"] == 20).all()
    at.query_params["compare_k"] = "3"
    at.run()

    # another reference: the differences, the verdicts and the sentence follow it (no refit)
    at.selectbox(key="compare_reference").set_value("Variance").run()
    _ok(at)
    assert "Paired difference in held-out accuracy from Variance" in _charts(at)
    assert at.dataframe[2].value["Method"].tolist() == ["BIA", "MI"]
    assert any(m.value == f"**{md_escape(expected.resolved_at(3, 'Variance'))}**" for m in at.markdown)

    # changed settings: the old results stay, with a warning, until the next run
    at.select_slider(key="compare_bootstrap").set_value(0).run()
    assert any("changed since these results" in w.value for w in at.warning)
    # a run interrupted by the user (Cancel, or any widget during the run) is reported
    at.session_state["compare_running"] = True
    at.button(key="compare_cancel").click().run()
    assert any("cancelled; nothing of it was kept" in w.value for w in at.warning)


def test_notmnist_pair_gets_one_relevance_heatmap_per_method():
    require_real(load_dataset, "notmnist")
    at = app_test("pages/compare.py", timeout=120)
    at.multiselect(key="compare_methods").set_value(["bia", "mi"]).run()
    at.select_slider(key="compare_bootstrap").set_value(0).run()
    at.button(key="compare_run").click().run()
    _ok(at)
    charts = _charts(at)
    grid = charts["Relevance per pixel (red squares: each method's top-k)"]
    heat = [t for t in grid["data"] if t["type"] == "heatmap"]
    marks = [t for t in grid["data"] if t["type"] == "scatter"]
    assert [t["name"] for t in heat] == ["BIA", "MI"] and len(marks) == 2
    z = _array(heat[0]["z"]).astype(float)
    assert z.shape == (28, 28) and np.nanmax(z) == 1.0
    assert all(len(_array(t["x"])) == 10 for t in marks)
    explorable = next(c for c in charts.values() if c["layout"].get("sliders"))
    assert [t["type"] for t in explorable["data"]] == ["heatmap"]  # overlap only: no stability bars
    assert any("Stability needs at least two bootstrap resamples." in c.value for c in at.caption)


def test_regression_data_is_refused_with_a_clear_message():
    at = app_test(None, timeout=60)
    at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
    at.sidebar.selectbox(key="ds_synthetic_glm_family").set_value("linear").run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert "has a regression target" in at.error[0].value


def test_page_lists_the_toolbox_and_registered_methods_and_runs_them():
    from fsengine.methods.registry import METHODS, MethodSpec, register_method
    from fsengine.params import Param

    spec = MethodSpec("kbest_page", "SelectKBest (mine)", "ANOVA F of scikit-learn's SelectKBest",
                      "sklearn.feature_selection:SelectKBest", params=(Param("k", "Features kept", 5, min=1, max=50),))
    register_method(spec)   # what an entry script does before the app starts
    try:
        at = app_test("pages/compare.py", timeout=180)
        _ok(at)
        options = at.multiselect(key="compare_methods").options
        for label in ("ANOVA F", "Chi²", "Forest", "Permutation", "RFE", "Stability", "mRMR", "SelectKBest (mine)"):
            assert label in options, options
        at.sidebar.selectbox(key="picker_key").set_value("synthetic_glm").run()
        at.multiselect(key="compare_methods").set_value(["anova", "mrmr", "kbest_page"]).run()
        at.number_input(key="compare_kbest_page_k").set_value(7).run()
        at.select_slider(key="compare_bootstrap").set_value(2).run()
        at.number_input(key="compare_max_k").set_value(10).run()
        at.button(key="compare_run").click().run()
        _ok(at)
        expected = run_comparison(load_dataset("synthetic_glm"), ["anova", "mrmr", ("kbest_page", {"k": 7})],
                                  CompareSettings(n_bootstrap=2, max_k=10))
        accuracy = _charts(at)["Held-out accuracy against the number of selected features"]
        lines = {t["name"]: t for t in accuracy["data"] if "lines" in t.get("mode", "") and "markers" in t["mode"]}
        assert list(lines) == ["ANOVA F", "mRMR", "SelectKBest (mine)", "random features"]
        for label in ["ANOVA F", "mRMR", "SelectKBest (mine)"]:
            curve = expected.accuracy[expected.accuracy["curve"] == label]
            np.testing.assert_allclose(_array(lines[label]["y"]).astype(float), curve["accuracy"])
        assert expected.run("SelectKBest (mine)").support.sum() == 7
    finally:
        METHODS.pop("kbest_page", None)


def test_the_guides_launcher_registers_its_method_before_the_app_runs(tmp_path):
    """The entry script of the user guide's "Your own selector" (docs/user-guide/comparing.md) runs
    as an app and registers its method."""
    import re

    from streamlit.testing.v1 import AppTest

    from fsengine.methods.registry import METHODS
    from tests.conftest import PROJECT_ROOT

    page = (PROJECT_ROOT / "docs" / "user-guide" / "comparing.md").read_text(encoding="utf-8")
    section = page[page.index("## Your own selector"):]
    script = next(block for block in re.findall(r"```python\n(.*?)```", section, re.S) if "register_method" in block)
    launcher = tmp_path / "my_app.py"
    launcher.write_text(script)
    try:
        at = AppTest.from_file(str(launcher), default_timeout=60).run()
        assert not at.exception, at.exception
        assert METHODS["kbest"].label == "SelectKBest" and METHODS["kbest"].defaults() == {"k": 20}
        at.run()                                     # a rerun registers the same spec again: no error
        assert not at.exception, at.exception
    finally:
        METHODS.pop("kbest", None)

