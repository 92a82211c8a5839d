"""Figure builders of the Classic criteria page (pure plotly, no Streamlit)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

from fsengine.plots.classic import (
    boosting_image,
    boosting_rounds,
    feature_image,
    l1_coefficient_image,
    l1_path,
    l1_selector_path,
    mdl_chosen_image,
    mdl_curve,
    mi_bars,
    ordinal_labels,
)
from fsengine.position import Position


def test_mi_bars_sorted_and_highlighted():
    scores = np.array([0.1, 0.5, 0.3, 0.0])
    fig = mi_bars(scores, ["a", "b", "c", "d"], top=3, selected=np.array([False, True, False, False]))
    bar = fig.data[0]
    assert list(bar.y) == ["b", "c", "a"] and list(bar.x) == [0.5, 0.3, 0.1]
    assert bar.marker.color[0] != bar.marker.color[1]


def test_feature_image_blanks_zeros_over_a_background():
    fig = feature_image(np.array([0.0, 2.0, 0.0, 1.0]), (2, 2), title="t", colorbar="v",
                        background=np.ones(4), blank_zero=True, zmid=0.0)
    assert len(fig.data) == 2
    z = np.array(fig.data[1].z, dtype=float)
    assert np.isnan(z[0, 0]) and z[0, 1] == 2.0 and fig.data[1].zmid == 0.0
    assert list(fig.layout.yaxis.range) == [1.5, -0.5]


def test_mdl_curve_marks_the_chosen_size():
    trace = pd.DataFrame({"size": [0, 1, 2], "dl_data": [10.0, 5.0, 4.5], "dl_model": [1.0, 3.0, 5.0]})
    trace["dl_total"] = trace["dl_data"] + trace["dl_model"]
    fig = mdl_curve(trace, 1)
    star = [t for t in fig.data if t.name.startswith("minimum")][0]
    assert list(star.x) == [1] and list(star.y) == [8.0]


def test_l1_path_top_axis_counts_nonzeros_and_greys_later_features():
    Cs = np.array([0.1, 1.0, 10.0])
    values = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, -0.2, 0.1]])
    path = pd.DataFrame(values, index=pd.Index(Cs, name="C"))
    trace = pd.DataFrame({"n_active": [0, 1, 3], "train_accuracy": [0.5, 0.8, 0.9], "cv_accuracy": np.nan})
    fig = l1_path(path, trace, [0, 1, 2], ["x0", "x1", "x2"], held_out=pd.Series([0.5, 0.7, 0.75], index=Cs))
    assert list(fig.layout.xaxis3.ticktext) == ["0", "1", "3"]
    names = [t.name for t in fig.data]
    assert "1. x0" in names and "held-out accuracy" in names and "cross-validated accuracy" not in names


def test_boosting_rounds_orders_features_by_first_use():
    trace = pd.DataFrame({"round": [1, 2, 3], "feature": [2, 0, 2], "threshold": [0.5, 1.0, 0.2],
                          "alpha": [1.0, 0.5, 0.4], "weighted_error": [0.1, 0.3, 0.35],
                          "train_loss": [0.6, 0.5, 0.45], "train_error": [0.1, 0.1, 0.05]})
    fig = boosting_rounds(trace, ["f0", "f1", "f2"])
    assert list(fig.layout.yaxis2.categoryarray) == ["f2", "f0"]
    assert list(fig.data[2].y) == ["f2", "f0", "f2"]


def test_ordinal_labels_number_the_given_order():
    assert ordinal_labels([3, 0], 5).tolist() == ["2", "", "", "1", ""]


def test_mdl_chosen_image_numbers_the_chosen_prefix():
    selector = SimpleNamespace(order_=np.array([2, 0, 3, 1]), best_size_=2, n_features_in_=4)
    fig = mdl_chosen_image(selector, (2, 2), background=np.full(4, 0.5))
    z = np.array(fig.data[1].z, dtype=float).ravel()
    assert z[2] == 1.0 and z[0] == 2.0 and np.isnan(z[[1, 3]]).all()
    assert np.array(fig.data[1].text).ravel().tolist() == ["2", "", "1", ""]


def _l1(n_classes_columns: int):
    Cs = np.array([0.1, 1.0, 10.0])
    values = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.4, 0.0, 0.0], [-0.3, 0.9, 0.0, 0.2]])
    path = pd.DataFrame(values, index=pd.Index(Cs, name="C"))
    trace = pd.DataFrame({"n_active": [0, 1, 3], "train_accuracy": [0.5, 0.7, 0.8], "cv_accuracy": np.nan})
    return SimpleNamespace(path_=path, trace_=trace, Cs_=Cs, coefs_=np.zeros((3, n_classes_columns, 4)),
                           order_=np.array([1, 0, 3, 2]), scores_=np.array([1.0, 2.0, 0.0, 1.0]))


def test_l1_coefficient_image_shows_the_path_at_the_position():
    two = _l1(1)
    fig = l1_coefficient_image(two, Position.at(two.Cs_, 2), (2, 2))
    z = np.array(fig.data[0].z, dtype=float).ravel()
    np.testing.assert_array_equal(z[[0, 1, 3]], [-0.3, 0.9, 0.2])
    assert np.isnan(z[2]) and fig.data[0].zmid == 0.0 and fig.layout.title.text == "coefficient at C = 10"
    many = l1_coefficient_image(_l1(3), Position.at(two.Cs_, 1), (2, 2))
    assert many.data[0].zmid is None and many.layout.title.text == "norm of class coefficients at C = 1"


def test_l1_selector_path_labels_the_features_that_enter_in_entry_order():
    fig = l1_selector_path(_l1(1), ["a", "b", "c", "d"])
    labelled = [t.name for t in fig.data if t.name and t.name[0].isdigit()]
    assert labelled == ["1. b", "2. a", "3. d"]  # c never enters (score 0)


def test_boosting_image_blanks_unused_pixels_and_numbers_first_use():
    selector = SimpleNamespace(scores_=np.array([0.0, 0.7, 1.2, 0.0]), order_=np.array([2, 1, 0, 3]),
                               n_features_in_=4)
    fig = boosting_image(selector, (2, 2))
    z = np.array(fig.data[0].z, dtype=float).ravel()
    assert np.isnan(z[[0, 3]]).all() and z[1] == 0.7 and z[2] == 1.2
    assert np.array(fig.data[0].text).ravel().tolist() == ["", "2", "1", ""]
