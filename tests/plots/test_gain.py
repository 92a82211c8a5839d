"""Figure builders of the gain family (Zhou et al. Figs. 3-5; pure plotly, no Streamlit): the
figures carry the traces' numbers, checked against what IFS must compute at every stage."""

import numpy as np
import pandas as pd
import pytest

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData
from fsengine.methods.gain.model import select_features
from fsengine.plots import gain as plots
from fsengine.plots.select import gain_figures
from fsengine.selectors import IFSSelector, SGCSelector


@pytest.fixture(scope="module")
def traces():
    ds = make_planted_maxent(n_samples=1500, n_predicates=60, n_classes=3, n_true=8, seed=3)
    data = MaxentData(ds.X, ds.y)
    runs = {"IFS": ("ifs", {}), "SGC": ("sgc", {}), "SGC-LA": ("sgc", {"lookahead": 5}), "Count cutoff": ("count", {})}
    return {name: select_features(data, m, n_features=10, **kw).trace for name, (m, kw) in runs.items()}, \
        int(data.candidate_pairs(1)[0].size)


def test_gain_figures_leave_out_the_count_cutoff_and_carry_the_traces(traces):
    traces, n = traces
    gain = plots.gain_per_stage(traces)
    assert [t.name for t in gain.data] == ["IFS", "SGC", "SGC-LA"] and gain.layout.yaxis.type == "log"
    for t in gain.data:
        np.testing.assert_array_equal(t.x, np.arange(1, 11))
        np.testing.assert_array_equal(t.y, traces[t.name]["gain"])
    comps = plots.gain_computations(traces)
    # Fig. 3 is the running mean from stage 1: IFS computes n, n - 1, ..., n - k + 1 gains
    ifs = next(t for t in comps.data if t.name == "IFS")
    np.testing.assert_allclose(ifs.y, [n - (k - 1) / 2 for k in range(1, 11)])
    sgc = next(t for t in comps.data if t.name == "SGC")
    assert sgc.y[0] == n and sgc.y[-1] < ifs.y[-1] / 5
    time = plots.cumulative_time(traces)
    for t in time.data:
        np.testing.assert_array_equal(t.y, np.maximum(traces[t.name]["seconds"], 1e-4))


def test_scores_and_overlap_figures():
    curves = pd.DataFrame({"method": ["IFS", "IFS", "SGC"], "n_features": [10, 20, 10],
                           "precision": [80.0, 85.0, 79.0], "f1": [78.0, 84.0, 77.5]})
    fig = plots.scores_vs_features(curves, {"precision": 90.0, "f1": 89.0, "n_features": 1234})
    assert [t.name for t in fig.data] == ["IFS precision", "SGC precision", "IFS F1", "SGC F1"]
    assert [s.y0 for s in fig.layout.shapes] == [90.0, 89.0]
    assert "all 1,234 features" in fig.layout.annotations[0].text
    bands = pd.DataFrame({"method": ["IFS", "IFS", "SGC"], "n_features": [10, 20, 10], "f1": [78.0, 84.0, 77.5],
                          "low": [76.0, 83.0, 75.0], "high": [80.0, 85.5, 79.0]})
    bands.attrs.update(level=0.9)
    banded = plots.scores_vs_features(curves, f1_intervals=bands)
    ifs, sgc = banded.data[:2]  # the bands first, under the lines
    assert (ifs.name, ifs.fill, ifs.showlegend) == ("IFS F1, 90% interval", "toself", False)
    assert list(ifs.x) == [10, 20, 20, 10] and list(ifs.y) == [80.0, 85.5, 83.0, 76.0]
    assert list(sgc.y) == [79.0, 75.0] and [t.name for t in banded.data[2:]] == [t.name for t in fig.data]
    overlap = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["IFS", "SGC"], columns=["IFS", "SGC"])
    heat = plots.overlap_heatmap(overlap)
    np.testing.assert_array_equal(heat.data[0].z, overlap.to_numpy())


def test_select_command_figures_of_a_fitted_gain_selector():
    ds = make_planted_maxent(n_samples=1500, n_predicates=60, n_classes=3, n_true=8, seed=3)
    for cls, label in ((IFSSelector, "IFS"), (SGCSelector, "SGC")):
        sel = cls(n_features_to_select=5).fit(ds.X, ds.y)
        figures = gain_figures(sel, ds.feature_names, None)
        assert list(figures) == ["gain_per_stage", "gain_computations"]
        assert [t.name for t in figures["gain_per_stage"].data] == [label]
        np.testing.assert_array_equal(figures["gain_per_stage"].data[0].y, sel.trace_["gain"])
