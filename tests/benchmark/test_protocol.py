"""The frozen protocol: the k grid, the metric rule, the settings' checks and the fingerprint."""

import numpy as np
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


def test_the_fingerprint_follows_the_code_behind_the_numbers(tmp_path, monkeypatch):
    """One changed line in the runner's source changes the fingerprint; the same sources give the same."""
    before = fingerprint(Settings())
    copies = []
    for source in protocol.NUMBER_SOURCES:
        copy = tmp_path / source.name
        copy.write_bytes(source.read_bytes())
        copies.append(copy)
    monkeypatch.setattr(protocol, "NUMBER_SOURCES", tuple(copies))
    assert fingerprint(Settings()) == before
    copies[1].write_text(copies[1].read_text() + "\n# one more line\n")
    assert fingerprint(Settings()) != before


def test_the_classifiers_are_the_stated_ones():
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    logistic = protocol.classifier("logistic", sparse=False)
    assert isinstance(logistic[-1], LogisticRegression) and logistic[-1].C == 1.0 and logistic[0].with_mean
    assert not protocol.classifier("logistic", sparse=True)[0].with_mean
    assert isinstance(protocol.classifier("knn", sparse=False)[-1], KNeighborsClassifier)


def test_the_docstring_s_numbers_are_the_statistics_own():
    """The protocol's docstring explains the two families with numbers: they are what
    signed_rank_reach computes (13 and 17 datasets and 27 methods; 26 comparisons with the control)."""
    from fsengine.stats import signed_rank_reach

    doc = " ".join(protocol.__doc__.split())

    def sci(x: float) -> str:  # 0.00024 -> "2.4e-4", as the docstring writes it
        mantissa, exponent = f"{x:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"

    every = signed_rank_reach(13, 27 * 26 // 2)
    assert (f"With 13 datasets (version 1's suite) and 27 methods that is {sci(every.floor)} against "
            f"{sci(every.threshold)}: no pair could have been resolved") in doc
    assert not every.possible
    suite = signed_rank_reach(17, 27 * 26 // 2)
    assert suite.possible and f"With the 17 datasets of version 2 the floor is {sci(suite.floor)}" in doc
    assert f"better on at least {suite.min_wins} of the 17 datasets (its two losses" in doc and suite.max_losses == 2
    assert f"(two classes only: 15 datasets) needs {signed_rank_reach(15, 351).min_wins} of its 15" in doc
    assert f"at least {signed_rank_reach(17, 26).min_wins} of them" in doc
    control = signed_rank_reach(11, 26)
    assert f"0.05 / 26 = {sci(control.threshold)}, which 11 or more datasets can reach" in doc
    assert control.possible and not signed_rank_reach(10, 26).possible and control.min_datasets == 11
    assert protocol.VERSION == "2" and "17 datasets" in doc


def test_the_control_is_fixed_registered_and_applies_to_every_kind_of_dataset():
    from fsengine.methods.registry import get_method

    assert Settings().control == protocol.CONTROL == "anova" and protocol.CONTROL in protocol.description()["control"]
    needs = get_method(protocol.CONTROL).needs
    assert not (needs.two_classes or needs.binary_features or needs.non_negative or needs.non_constant)
    assert needs.sparse_ok and needs.max_features is None and "classification" in needs.tasks
    a, b = fingerprint(Settings()), fingerprint(Settings(control="mi"))
    assert a != b  # the control is part of what a run was asked to do


def test_the_suite_docstring_says_what_the_suite_holds():
    """The suite's composition in its docstring (17 datasets: 7 images, 5 generated, 3 text, 2 tables)
    is the catalogue's own grouping of the suite's specs; the correlated GLM is the GLM's planted
    model with only the correlation changed."""
    from fsengine.benchmark import suite
    from fsengine.data import load_dataset, parse_spec

    groups = [parse_spec(e.spec)[0].group for e in suite.SUITE]
    counts = {g: groups.count(g) for g in set(groups)}
    from fsengine.reproduce import TARGETS

    assert len(suite.SUITE) == 17 == len({e.slug for e in suite.SUITE})
    assert f"the {len(suite.SUITE)}-dataset suite" in TARGETS["benchmark"][2]
    assert counts == {"Images": 7, "Synthetic": 5, "Text": 3, "Tables": 2}
    doc = " ".join(suite.__doc__.split())
    assert "from 13 to 17 datasets" in doc and "7 of the 17 are images" in doc and "5 are generated" in doc
    assert "3 are text and 2 are tables" in doc
    assert all(f"``{e.slug}``" in suite.__doc__ and " ".join(e.why.split()) in doc for e in suite.SUITE)
    glm, correlated = (next(e for e in suite.SUITE if e.slug == s) for s in ("glm", "glm_correlated"))
    a, b = load_dataset(glm.spec), load_dataset(correlated.spec)
    assert np.array_equal(a.truth, b.truth) and np.array_equal(a.extras["coef"], b.extras["coef"])
    lag1 = [np.corrcoef(ds.X[:, :-1].ravel(), ds.X[:, 1:].ravel())[0, 1] for ds in (a, b)]
    assert lag1 == pytest.approx([0.5, 0.9], abs=0.02)
