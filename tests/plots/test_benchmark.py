"""The benchmark's explorables carry, at every k, the numbers of the run's record."""

import numpy as np
import pytest

from fsengine.plots import benchmark as plots
from fsengine.plots.explorable import slider_values, step_data, step_layout


def test_cd_diagram_steps_are_the_average_ranks_and_the_critical_difference(tiny_record):
    fig = plots.cd_explorable(tiny_record, "5")
    assert slider_values(fig) == tiny_record.k_labels and fig.layout.sliders[0].active == 1
    methods = list(tiny_record.methods["key"])
    for i, label in enumerate(tiny_record.k_labels):
        r = tiny_record.ranking(label)
        data, layout = step_data(fig, i), step_layout(fig, i)
        x = data[0]["x"]
        for m, value in zip(methods, x):
            assert value == pytest.approx(r.average_ranks[m]) if m in r.methods else value is None
        assert layout["shapes[0].x1"] - 1.0 == pytest.approx(r.cd)
        assert f"F = {r.friedman.f:.2f}" in layout["title.subtitle.text"]
        # every clique bar spans methods whose ranks differ by less than the CD
        xs = [v for v in data[1]["x"] if v is not None]
        for lo, hi in zip(xs[::2], xs[1::2]):
            assert (hi - 0.03) - (lo + 0.03) < r.cd


def test_cliques_are_maximal_runs_within_the_critical_difference():
    assert plots.cliques(list("abcde"), np.array([1.0, 1.2, 1.9, 3.5, 3.6]), 1.0) == [(0, 2), (3, 4)]
    # a gap of exactly CD is resolved: 1.0 and 2.0 are not joined, so the groups overlap at 1.2
    assert plots.cliques(list("abc"), np.array([1.0, 1.2, 2.0]), 1.0) == [(0, 1), (1, 2)]
    assert plots.cliques(list("ab"), np.array([1.0, 3.0]), 1.0) == []
    assert plots.cliques(list("ab"), np.array([1.0, 3.0]), None) == []


def test_ranks_similarity_and_tradeoff_steps_hold_the_records_tables(tiny_record):
    methods = list(tiny_record.methods["key"])
    datasets = list(tiny_record.info["dataset"])
    ranks, similarity = plots.ranks_explorable(tiny_record), plots.similarity_explorable(tiny_record)
    tradeoff = plots.tradeoff_explorable(tiny_record)
    for i, label in enumerate(tiny_record.k_labels):
        expected = tiny_record.ranking(label).ranks.reindex(index=datasets, columns=methods).to_numpy()
        np.testing.assert_allclose(step_data(ranks, i)[0]["z"], expected, rtol=1e-6)
        np.testing.assert_allclose(step_data(similarity, i)[0]["z"], tiny_record.similarity(label).to_numpy(),
                                   rtol=1e-6)
        t = tiny_record.tradeoff(label).set_index("method")
        data = step_data(tradeoff, i)
        np.testing.assert_allclose(np.array(data[1]["y"], dtype=float), t.loc[methods, "average_rank"])
        np.testing.assert_allclose(np.array(data[1]["x"], dtype=float), t.loc[methods, "cpu_seconds"])
        front = t[t["pareto"]].sort_values("cpu_seconds")
        assert data[0]["x"] == pytest.approx(front["cpu_seconds"].tolist())
    assert np.isnan(step_data(ranks, 0)[0]["z"][datasets.index("wine")]).all()  # wine is left out: BIA has no result


def test_stability_bars_of_one_dataset(tiny_record):
    fig = plots.stability_bars(tiny_record, "glm_tiny", "2")
    part = tiny_record.summary.query("dataset == 'glm_tiny' and k_label == '2' and status == 'ok'")
    np.testing.assert_allclose(np.asarray(fig.data[0].y, dtype=float), part["stability"])
    np.testing.assert_allclose(np.asarray(fig.data[0].error_y.array, dtype=float),
                               part["stability_high"] - part["stability"])


def test_blank_rank_cells_say_why_and_labels_stay_inside_the_axes(tiny_record):
    ranks = plots.ranks_explorable(tiny_record)
    methods, datasets = list(tiny_record.methods["key"]), list(tiny_record.info["dataset"])
    wine = step_data(ranks, 0)[0]["text"][datasets.index("wine")]
    # BIA is not applicable to three-class wine, so wine leaves the ranks: the others ran there ("–")
    assert wine == ["n/a" if m == "bia" else "–" for m in methods]
    cd = plots.cd_explorable(tiny_record)
    for i in range(len(tiny_record.k_labels)):
        data = step_data(cd, i)[0]
        middle = (1 + len(methods)) / 2
        for m, x, side in zip(methods, data["x"], data["textposition"]):
            assert side == ("middle left" if x is not None and x > middle else "middle right"), (m, x, side)
    tradeoff = plots.tradeoff_explorable(tiny_record)
    for i, label in enumerate(tiny_record.k_labels):
        text = dict(zip(methods, step_data(tradeoff, i)[1]["text"]))
        front = tiny_record.tradeoff(label).query("pareto")["method"]
        assert all(text[m] == tiny_record.labels[m] for m in front)  # the front is always named
        assert set(text.values()) - {""} <= set(tiny_record.labels.values())
    ticks = ranks.layout.xaxis.ticktext
    assert list(ticks) == [tiny_record.labels[m] for m in methods]  # every method named, none skipped


def test_labels_that_would_cover_each_other_are_left_to_the_hover():
    """Label boxes (centred above their points) are compared as rectangles: a label is dropped only
    when its box meets one already placed, the front's labels are kept whatever they cover."""
    where = {"a": (0.50, 0.50), "b": (0.52, 0.53), "c": (0.50, 0.70), "d": (0.9, 0.51), "e": (0.51, 0.52)}
    names = {"a": "Alpha", "b": "Beta", "c": "Gamma", "d": "Delta", "e": "Eps"}
    shown = plots.spaced_labels(where, names, first=["e"])
    # e (front) first; a's box (5 chars) meets e's; b meets e; c is 0.18 higher; d is far to the right
    assert shown == {"e", "c", "d"}
    assert plots.spaced_labels(where, names, first=[]) == {"a", "c", "d"}  # a (best ranked) placed first
    long_title = "MADELON-style hypercube clusters (small)"
    assert max(len(line) for line in plots._wrap(long_title).split("<br>")) <= 24


def test_one_dataset_s_accuracy_figure_names_the_metric_and_the_classifier(tiny_record):
    fig = plots.accuracy_figure(tiny_record, "wine", "5")
    assert fig.layout.yaxis.title.text == "held-out balanced accuracy (logistic regression)"
    table = tiny_record.accuracy_table("wine")
    lines = [t for t in fig.data if t.fill != "toself"]
    for line in lines:
        np.testing.assert_allclose(np.asarray(line.y, dtype=float), table[table["curve"] == line.name]["accuracy"])
    assert {line.name for line in lines} == {"Variance", "ANOVA F", "MI", "L1"}  # BIA: not applicable to wine
