"""The frozen protocol: the k grid, the metric rule, the settings' checks and the fingerprint."""

import pytest

from fsengine.benchmark import protocol
from fsengine.benchmark.protocol import KSpec, Settings, fingerprint, metric_name, parse_k_grid


def test_k_grid_sizes_and_fractions_resolve_per_dataset():
    grid = parse_k_grid("5,10,20,0.05")
    assert [k.label for k in grid] == ["5", "10", "20", "5%"]
    assert [k.resolve(13) for k in grid] == [5, 10, None, 1]  # wine: 20 >= p is not evaluated; 5% of 13 -> 1
    assert [k.resolve(784) for k in grid] == [5, 10, 20, 39]
    assert KSpec(0.5, True).resolve(3) == 2 and KSpec(3.0, False).resolve(3) is None
    for bad in ("0", "1.5", "a", "", "5,5", "-0.1"):
        with pytest.raises(ValueError, match="--k"):
            parse_k_grid(bad)


def test_metric_rule_is_fixed_by_the_class_counts():
    assert metric_name([500, 500]) == "accuracy"
    assert metric_name([110, 100]) == "accuracy"  # exactly the bound
    assert metric_name([111, 100]) == "balanced accuracy"
    assert metric_name([59, 71, 48]) == "balanced accuracy"  # wine
    assert protocol.IMBALANCE == 1.1


def test_settings_are_checked_and_give_the_corrected_t_ratio():
    assert Settings().test_train_ratio == pytest.approx(1 / (protocol.FOLDS - 1))
    assert (Settings().folds, Settings().repeats, Settings().k_grid) == (5, 2, "5,10,20,0.05")
    for bad in (dict(folds=1), dict(folds=2, repeats=1), dict(classifier="svm"), dict(k_grid="0")):
        with pytest.raises(ValueError):
            Settings(**bad)


def test_the_fingerprint_follows_the_settings():
    a, b = fingerprint(Settings()), fingerprint(Settings(seed=1))
    assert a != b and a == fingerprint(Settings()) and len(a) == 16


def test_the_classifiers_are_the_stated_ones():
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    logistic = protocol.classifier("logistic", sparse=False)
    assert isinstance(logistic[-1], LogisticRegression) and logistic[-1].C == 1.0 and logistic[0].with_mean
    assert not protocol.classifier("logistic", sparse=True)[0].with_mean
    assert isinstance(protocol.classifier("knn", sparse=False)[-1], KNeighborsClassifier)
