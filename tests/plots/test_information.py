"""The unified-criterion explorable (fsengine.plots.information) read back as a browser shows it:
the three sliders' steps applied to the figure, the points inside the panels' visible ranges decoded
through the axes' own labels, and compared with a greedy selection written out from Brown et al.'s
definition (tests/methods/information/test_study.py's ``Definition``) at several grid positions."""

import json

import numpy as np
import plotly.io as pio
import pytest

from fsengine.data.synthetic.xor import make_xor_redundant
from fsengine.methods.information import study
from fsengine.plots.explorable import decoded, slider_values, step_data, step_layout
from fsengine.plots.information import MAX_STEPS, TERMS, unified_explorable
from tests.methods.information.test_study import POSITIONS, SMALL, Definition


@pytest.fixture(scope="module")
def drawn():
    ds = make_xor_redundant(**SMALL)
    grid = study.unified_grid(ds)
    summary = study.grid_summary(grid)
    fig = unified_explorable(grid, beta=1.0, gamma=1.0, normalise="mean", maps=study.summary_maps(summary))
    return ds, grid, summary, json.loads(pio.to_json(fig)), Definition(ds)


def _window(values, low, high):
    return (values >= low) & (values <= high)


def shown(fig, a: int, b: int, n: int) -> dict:
    """What the figure shows with the beta slider at step a, gamma at b and the normalisation at n:
    the kind of feature at each step (by the marks' row labels), J's terms at each step (by the terms
    axis' labels), the member name shown in the panel and the maps' visible member labels."""
    layout = fig["layout"]
    x_range = step_layout(fig, a, 0)["xaxis2.range"]
    assert step_layout(fig, a, 0)["xaxis3.range"] == x_range
    y2 = step_layout(fig, b, 1)["yaxis2.range"]
    y3 = step_layout(fig, b, 1)["yaxis3.range"]
    visible = {t for t, attrs in step_data(fig, n, 2).items() if attrs["visible"]}
    first = int(np.ceil(x_range[0]))
    labels2 = dict(zip(layout["yaxis2"]["tickvals"], layout["yaxis2"]["ticktext"]))
    zero = [v for v, t in zip(layout["yaxis3"]["tickvals"], layout["yaxis3"]["ticktext"]) if t == "0"
            and y3[0] <= v <= y3[1]]
    assert len(zero) == 1, "the terms axis labels one 0 in the visible band"
    kinds, terms, names = {}, {name: {} for name, _, _ in TERMS}, []
    for t, trace in enumerate(fig["data"]):
        if t not in visible:
            continue
        x, y = (np.asarray(decoded(trace.get(axis, [])), dtype=float) for axis in ("x", "y"))
        if trace.get("xaxis") == "x2" and trace["type"] == "scattergl":
            inside = _window(x, *x_range) & _window(y, *y2)
            for xi, yi in zip(x[inside], y[inside]):
                assert int(xi) - first not in kinds, "one mark per step"
                kinds[int(xi) - first] = labels2[int(yi)]
                assert labels2[int(yi)] == trace["name"]  # the row's label names the mark's kind
        elif trace.get("xaxis") == "x3" and trace["type"] == "scattergl":
            inside = _window(x, *x_range) & _window(y, *y3)
            terms[trace["name"]] = {int(xi) - first: yi - zero[0] for xi, yi in zip(x[inside], y[inside])}
        elif trace.get("xaxis") == "x3" and trace.get("mode") == "text":
            inside = _window(x, *x_range) & _window(y, *y3)
            names += [trace["text"][i] for i in np.flatnonzero(inside)]
    steps = sorted(kinds)
    assert steps == list(range(len(steps)))
    values = np.array([[terms[name][k] for name, _, _ in TERMS] for k in steps])
    return {"kinds": [kinds[k] for k in steps], "terms": values, "names": names}


def test_the_figure_shows_the_definition_s_selection_and_terms_at_every_position_checked(drawn):
    ds, grid, _, fig, definition = drawn
    roles = np.asarray(ds.extras["role"])
    assert [s["name"] for s in fig["layout"]["sliders"]] == ["beta", "gamma", "normalisation"]
    assert slider_values(fig, 2) == ["mean", "sum"] and len(slider_values(fig, 0)) == len(slider_values(fig, 1)) == 21
    for n, normalise in enumerate(("mean", "sum")):
        for beta, gamma in POSITIONS:
            a = slider_values(fig, 0).index(f"{beta:g}")
            b = slider_values(fig, 1).index(f"{gamma:g}")
            order, terms = definition.path(beta, gamma, normalise)
            seen = shown(fig, a, b, n)
            assert seen["kinds"] == [study.ROLE_NAMES[r] for r in roles[order][:MAX_STEPS]], (beta, gamma, normalise)
            np.testing.assert_allclose(seen["terms"], terms, atol=2e-5)


def test_the_named_members_are_named_where_they_sit(drawn):
    _, grid, _, fig, _ = drawn
    at = {("mean", 0, 0): ["MIM"], ("mean", 20, 0): ["mRMR"], ("mean", 20, 20): ["JMI"], ("sum", 20, 20): ["CIFE"],
          ("sum", 20, 0): ["MIFS"], ("sum", 0, 0): ["MIM"], ("mean", 7, 12): [], ("sum", 20, 19): []}
    for (normalise, a, b), names in at.items():
        seen = shown(fig, a, b, ("mean", "sum").index(normalise))["names"]
        assert [name.removeprefix("<b>").removesuffix("</b>") for name in seen] == names
    annotations = fig["layout"]["annotations"]
    for n, members in enumerate((["MIM", "mRMR", "JMI"], ["MIM", "CIFE", "MIFS"])):
        toggles = step_layout(fig, n, 2)
        labels = [annotations[int(path.split("[")[1].split("]")[0])]["text"] for path, on in toggles.items() if on]
        assert sorted(labels) == sorted(members * 2)  # beside the marks on both maps


def test_maps_hold_the_summary_and_the_cross_hairs_follow_the_sliders(drawn):
    _, grid, summary, fig, _ = drawn
    heat = [t for t in fig["data"] if t["type"] == "heatmap"]
    assert len(heat) == 4  # two maps, two normalisations
    for i, values in enumerate((summary.pair_complete, summary.copies_before)):
        for n in range(2):
            np.testing.assert_array_equal(decoded(heat[2 * i + n]["z"]), values[n].T)
    images = fig["layout"]["images"]
    for a, beta in enumerate(grid.betas):
        moved = {int(p.split("[")[1].split("]")[0]) for p in step_layout(fig, a, 0) if p.startswith("images")}
        assert all(step_layout(fig, a, 0)[f"images[{i}].x"] == pytest.approx(beta) for i in moved) and len(moved) == 2
    for b, gamma in enumerate(grid.gammas):
        moved = [p for p in step_layout(fig, b, 1) if p.startswith("images")]
        assert len(moved) == 2 and all(step_layout(fig, b, 1)[p] == pytest.approx(gamma) for p in moved)
    assert len(images) == 4


def test_the_figure_starts_where_it_is_asked_and_its_data_agree_with_the_start(drawn):
    _, grid, summary, fig, _ = drawn
    a, b, n = (s["active"] for s in fig["layout"]["sliders"])
    assert (grid.betas[a], grid.gammas[b], grid.normalisations[n]) == (1.0, 1.0, "mean")
    assert fig["layout"]["xaxis2"]["range"] == step_layout(fig, a, 0)["xaxis2.range"]
    assert fig["layout"]["yaxis3"]["range"] == step_layout(fig, b, 1)["yaxis3.range"]
    visible = [t.get("visible") for t in fig["data"]]
    assert visible == [step_data(fig, n, 2)[t]["visible"] for t in range(len(fig["data"]))]
    other = unified_explorable(grid, beta=0.3, gamma=0.0, normalise="sum", maps=study.summary_maps(summary))
    assert [s.active for s in other.layout.sliders] == [6, 0, 1]


def test_a_grid_without_roles_or_maps_draws_one_row_and_no_map():
    ds = make_xor_redundant(n=120, n_redundant=1, n_noise=2, seed=1)
    ds = ds.__class__(**{**ds.__dict__, "extras": {}})
    grid = study.unified_grid(ds, betas=[0.0, 1.0], gammas=[0.0, 1.0], normalisations=["mean"])
    fig = json.loads(pio.to_json(unified_explorable(grid, steps=3)))
    assert len(fig["layout"]["sliders"]) == 2  # one normalisation: no slider for it
    assert fig["layout"]["yaxis2"]["ticktext"] == ["selected features"] * 2
    assert not any(t["type"] == "heatmap" for t in fig["data"])
    with pytest.raises(ValueError, match="at least one greedy step"):
        unified_explorable(grid, steps=0)
    with pytest.raises(ValueError, match="values of shape"):
        unified_explorable(grid, maps=[("m", "u", np.zeros((2, 2, 2)))])
