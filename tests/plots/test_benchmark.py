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
