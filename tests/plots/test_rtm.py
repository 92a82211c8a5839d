"""Figures of the RTM page and reproduction (fsengine.plots.rtm)."""

import numpy as np
import pandas as pd

from fsengine.plots import rtm as rtm_plots


def test_accuracy_bars_draw_each_interval_as_a_whisker_and_state_it_on_hover():
    table = pd.DataFrame({"corpus A": [0.80, 0.70], "corpus B": [0.90, 0.85]}, index=["RTM EM", "L1"])
    low, high = table - np.array([[0.02, 0.01], [0.03, 0.02]]), table + np.array([[0.01, 0.02], [0.04, 0.01]])
    fig = rtm_plots.accuracy_figure(table, low=low, high=high)
    assert fig.layout.title.text == "Test accuracy (95% intervals)"
    for trace, method in zip(fig.data, table.index, strict=True):
        y = np.asarray(trace.y, dtype=float)
        np.testing.assert_allclose(y - np.asarray(trace.error_y.arrayminus), low.loc[method])
        np.testing.assert_allclose(y + np.asarray(trace.error_y.array), high.loc[method])
        np.testing.assert_allclose(np.asarray(trace.customdata, dtype=float), np.c_[low.loc[method], high.loc[method]])
        assert "[%{customdata[0]:.3f}, %{customdata[1]:.3f}]" in trace.hovertemplate and trace.text is None
    plain = rtm_plots.accuracy_figure(table)
    assert plain.layout.title.text == "Test accuracy"
    assert [list(t.text) for t in plain.data] == [["0.800", "0.900"], ["0.700", "0.850"]]
    assert all(t.error_y.array is None for t in plain.data)
