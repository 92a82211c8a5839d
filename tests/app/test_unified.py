"""AppTest of the unified-criterion page: the task's widgets and presets driven, the explorable's
data read back as the browser shows them and compared with a greedy selection written out from
the definition, the figure's start taken from the URL, the members' table and the replicates."""

import json

import numpy as np

from fsengine.data.synthetic.xor import make_xor_redundant
from fsengine.methods.information import study
from fsengine.methods.registry import METHODS
from fsengine.plots.explorable import decoded
from fsengine.plots.information import MAX_STEPS
from tests.app.test_classic import check_clean
from tests.conftest import app_test
from tests.methods.information.test_study import Definition
from tests.plots.test_information import shown

PAGE = "pages/unified.py"


def figure(at) -> dict:
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)


def position(fig) -> tuple[int, int, int]:
    return tuple(s.get("active", 0) for s in fig["layout"]["sliders"])


def kinds_of(task: dict, beta: float, gamma: float, normalise: str) -> list[str]:
    ds = make_xor_redundant(**task)
    order, _ = Definition(ds).path(beta, gamma, normalise)
    return [study.ROLE_NAMES[r] for r in np.asarray(ds.extras["role"])[order]]


def test_the_page_draws_the_lesson_task_and_its_widgets_refit():
    at = app_test(PAGE)
    check_clean(at)
    fig = figure(at)
    assert [s["name"] for s in fig["layout"]["sliders"]] == ["beta", "gamma", "normalisation"]
    assert [len(s["steps"]) for s in fig["layout"]["sliders"]] == [21, 21, 2]
    assert position(fig) == (0, 0, 0)  # MIM, without a position in the URL
    seen = shown(fig, 0, 0, 0)
    assert seen["kinds"] == kinds_of(study.LESSON_TASK, 0.0, 0.0, "mean") and seen["names"] == ["<b>MIM</b>"]
    assert seen["kinds"][:5] == ["label copies"] * 5
    jmi = shown(fig, 20, 20, 0)
    assert jmi["kinds"] == kinds_of(study.LESSON_TASK, 1.0, 1.0, "mean") and jmi["names"] == ["<b>JMI</b>"]
    assert any("same full order as their selectors." in c.value for c in at.caption)
    members = at.dataframe[0].value
    assert members["member"].tolist() == ["MIM", "mRMR", "JMI", "CIFE", "MIFS"]
    replicates = at.dataframe[1].value
    assert len(replicates) == 5 and all("[" in v for v in replicates["partner at once (share of draws)"])

    at.slider(key="unified_copies").set_value(3)
    at.slider(key="unified_noise").set_value(4).run()
    check_clean(at)
    task = {**study.LESSON_TASK, "n_redundant": 3, "n_noise": 4}
    fig = figure(at)
    cife = shown(fig, 20, 20, 1)
    assert len(cife["kinds"]) == 9 and cife["kinds"] == kinds_of(task, 1.0, 1.0, "sum")
    np.testing.assert_allclose(cife["terms"], Definition(make_xor_redundant(**task)).path(1.0, 1.0, "sum")[1],
                               atol=2e-5)
    assert cife["names"] == ["<b>CIFE</b>"]


#: the named members' grid positions (beta step, gamma step, normalisation) and their registry methods
#: (MIM and MIFS are the registry's "unified" at those weights)
REGISTRY_MEMBERS = {(0, 0, 0): ("unified", {}), (20, 0, 0): ("mrmr", {}), (20, 20, 0): ("jmi", {}),
                    (20, 20, 1): ("cife", {}), (20, 0, 1): ("unified", {"beta": 1.0, "normalise": "sum"})}


def test_the_named_members_positions_show_the_registry_selectors_orders():
    """At each named member's grid position the figure shows, step by step, the kinds of the
    features the registry's own selector selects on the same draw (its defaults otherwise)."""
    at = app_test(PAGE)
    check_clean(at)
    fig = figure(at)
    ds = make_xor_redundant(**study.LESSON_TASK)
    roles = np.asarray(ds.extras["role"])
    seen = set()
    for (a, b, n), (key, params) in REGISTRY_MEMBERS.items():
        selector = METHODS[key].build({**params, "max_features": ds.n_features}).fit(ds.X, ds.y)
        want = [study.ROLE_NAMES[r] for r in roles[selector.order_[:MAX_STEPS]]]
        assert shown(fig, a, b, n)["kinds"] == want, key
        seen.add(tuple(want))
    assert len(seen) >= 3, "the members differ on this task: the check could tell them apart"


def test_the_catalogue_preset_draws_the_catalogue_task():
    at = app_test(PAGE)
    at.button(key="preset_The catalogue's defaults").click().run()
    check_clean(at)
    assert at.slider(key="unified_noise").value == 20 and at.select_slider(key="unified_copy_noise").value == 0.2
    fig = figure(at)
    heat = [t for t in fig["data"] if t["type"] == "heatmap"]
    assert decoded(heat[0]["z"]).shape == (21, 21)
    assert len(shown(fig, 3, 5, 1)["kinds"]) == 20  # 27 features, the first 20 steps drawn
    assert any("catalogue default 20" in c.value for c in at.caption)


def test_the_figure_starts_at_the_url_s_position_and_ignores_what_it_cannot_show():
    at = app_test()
    at.query_params["unified_beta"] = "0.35"
    at.query_params["unified_gamma"] = "1"
    at.query_params["unified_norm"] = "sum"
    at.switch_page(PAGE).run()
    check_clean(at)
    assert position(figure(at)) == (7, 20, 1)
    at.query_params["unified_beta"] = "0.333"
    at.query_params["unified_norm"] = "median"
    at.run()
    check_clean(at)
    assert position(figure(at)) == (0, 20, 0)
