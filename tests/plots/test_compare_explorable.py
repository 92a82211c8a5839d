"""The Compare page's top-k explorable (fsengine.plots.compare.top_k_explorable): each k carries
the engine's own overlap and stability at that k."""

import numpy as np
import pytest

from fsengine.compare.runner import CompareSettings, run_comparison
from fsengine.data import load_dataset
from fsengine.plots.compare import top_k_explorable
from fsengine.plots.explorable import slider_values, step_data, step_layout


@pytest.fixture(scope="module")
def result():
    glm = load_dataset("synthetic_glm", n=300, p=20, k=4, seed=3)
    settings = CompareSettings(n_bootstrap=3, max_k=12, seed=0)
    return run_comparison(glm, ["mi", ("l1", {"n_Cs": 8}), "variance"], settings)


def test_every_k_carries_the_jaccard_matrix_and_the_stability_of_its_top_k(result):
    fig = top_k_explorable(result, 5).to_plotly_json()
    lo, hi = result.k_range()
    values = slider_values(fig)
    assert values == [str(k) for k in range(lo, hi + 1)] and values[fig["layout"]["sliders"][0]["active"]] == "5"
    for i, k in ((0, lo), (len(values) - 1, hi), (4, 5)):
        data = step_data(fig, i)
        np.testing.assert_allclose(data[0]["z"], result.jaccard(k).to_numpy(), rtol=1e-6)
        stability = result.stability(k).set_index("method")["kuncheva"].dropna()
        np.testing.assert_allclose(data[1]["y"], stability.to_numpy(), rtol=1e-6)
        table = result.stability(k).set_index("method").loc[stability.index]
        if {"low", "high"} <= set(table.columns):  # the jackknife whiskers move with k
            np.testing.assert_allclose(data[1]["error_y.array"], np.nan_to_num(table["high"] - table["kuncheva"]),
                                       rtol=1e-5, atol=1e-7)
        # Nogueira's estimate beside each bar, its asymptotic whiskers moving with k
        np.testing.assert_allclose(data[2]["y"], table["nogueira"].to_numpy(), rtol=1e-6)
        np.testing.assert_allclose(data[2]["error_y.arrayminus"], table["nogueira"] - table["nogueira_low"],
                                   rtol=1e-5, atol=1e-7)
        assert step_layout(fig, i)["title.text"].startswith(f"top {k}:")
