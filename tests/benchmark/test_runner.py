"""The benchmark's tasks: folds, fits inside the training fold only, the held-out metric against
scikit-learn's own cross-validation, not applicable and failed methods, and kept tasks."""

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsengine.base import BaseFeatureSelector
from fsengine.benchmark.protocol import Settings
from fsengine.benchmark.runner import applicability, default_methods, outer_folds, run_benchmark
from fsengine.benchmark.suite import SUITE, TINY, Entry
from fsengine.methods.registry import METHODS, MethodSpec, Needs, get_method
from tests.benchmark.tiny import TINY_METHODS, TINY_SETTINGS


def test_outer_folds_are_repeated_stratified_and_cover_every_row_once_per_repeat():
    y = np.repeat([0, 1, 2], [30, 20, 10])
    folds = outer_folds(y, Settings(folds=5, repeats=2, seed=3))
    assert len(folds) == 10
    for r in range(2):
        tests = np.concatenate([folds[r * 5 + f][1] for f in range(5)])
        assert np.array_equal(np.sort(tests), np.arange(60))
    for train, test in folds:
        assert not np.intersect1d(train, test).size
        assert np.bincount(y[test]).tolist() == [6, 4, 2]
    expected = list(RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=3).split(np.zeros(60), y))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, expected))


def test_held_out_metric_equals_sklearn_pipeline_on_the_same_folds(tiny_run):
    """ANOVA F's top k then the stated classifier, inside each training fold: the same predictions as
    scikit-learn's SelectKBest(f_classif) + standardised logistic regression fitted on the fold."""
    ds = TINY[1].load()
    folds = outer_folds(ds.y, TINY_SETTINGS)
    table = tiny_run.folds.query("dataset == 'glm_tiny' and method == 'anova' and k_label == '5'")
    assert len(table) == len(folds)
    for (train, test), row in zip(folds, table.itertuples()):
        model = make_pipeline(SelectKBest(f_classif, k=5), StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
        pred = model.fit(ds.X[train], ds.y[train]).predict(ds.X[test])
        assert row.correct == int(np.sum(pred == ds.y[test]))
        assert row.balanced_accuracy == pytest.approx(balanced_accuracy_score(ds.y[test], pred))
        truth = np.flatnonzero(ds.truth)
        chosen = model[0].get_support(indices=True)
        assert row.recall == pytest.approx(np.isin(truth, chosen).mean())


class _Spy(BaseFeatureSelector):
    """Scores the features by their mean and records the rows it was fitted on (by a row-id column)."""

    seen: list = []
    _parameter_constraints = {"fail_on_three_classes": ["boolean"]}

    def __init__(self, *, fail_on_three_classes: bool = False):
        self.fail_on_three_classes = fail_on_three_classes

    def _fit(self, X, y):
        if self.fail_on_three_classes and np.unique(y).size == 3:
            raise RuntimeError("cannot handle three classes")
        _Spy.seen.append(np.asarray(X[:, 0]).astype(int).copy())
        self.scores_ = np.asarray(X).mean(axis=0)
        self._set_order(np.argsort(-self.scores_, kind="stable"))
        self._rank_and_support(np.zeros(X.shape[1], dtype=bool))
        self.trace_ = pd.DataFrame()


def test_every_selector_sees_its_training_fold_only_and_a_failure_is_recorded(monkeypatch):
    from fsengine.data.dataset import Dataset, Provenance

    rng = np.random.default_rng(0)
    X = np.column_stack([np.arange(60), rng.normal(size=(60, 6))])  # column 0: the row's id
    y = np.repeat([0, 1, 2], 20)
    ds = Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(7)), provenance=Provenance("test"), name="ids")
    two = Dataset(X=X[:40], y=y[:40], feature_names=ds.feature_names, provenance=Provenance("test"), name="ids2")
    spy = MethodSpec("spy", "Spy", "mean", _Spy)
    failing = MethodSpec("fails", "Fails", "mean", lambda: _Spy(fail_on_three_classes=True))
    monkeypatch.setitem(METHODS, "spy", spy)
    monkeypatch.setitem(METHODS, "fails", failing)
    _Spy.seen = []
    settings = Settings(folds=3, repeats=1, k_grid="2")
    entries = (Entry("ids", "-", "three classes", "test"), Entry("ids2", "-", "two classes", "test"))
    run = run_benchmark(entries, [("spy", {}), ("fails", {}), ("bia", {"n_steps": 20})], settings, datasets=[ds, two])
    folds = outer_folds(y, settings)
    trains = [set(t.tolist()) for t, _ in folds] + [set(t.tolist()) for t, _ in outer_folds(y[:40], settings)]
    # every fit (the untimed warm-ups on a few rows of a training fold included) saw rows of one training fold
    assert all(any(set(s.tolist()) <= t for t in trains) for s in _Spy.seen)
    # spy on both datasets and fails on the pair, 3 folds each (+ warm-ups that take a small fold whole)
    assert sum(set(s.tolist()) in trains for s in _Spy.seen) >= 3 * 3
    assert run.status[("ids", "fails")].startswith("failed: Fails on repeat 1 fold 1: RuntimeError: cannot handle")
    assert run.status[("ids", "bia")].startswith("not applicable: BIA needs exactly two classes")
    assert run.status[("ids2", "fails")] == "ok" and run.status[("ids2", "bia")] == "ok"
    assert set(run.folds.query("dataset == 'ids'")["method"]) == {"all features", "spy"}  # the run went on


def test_applicability_and_default_methods():
    wine, digits_pair = SUITE[1].load(), SUITE[2].load()
    assert "exactly two classes" in applicability(get_method("bia"), wine)
    assert applicability(get_method("bia"), digits_pair) is None
    assert applicability(get_method("mi"), wine) is None  # binary-only methods are adapted, not refused
    wide = MethodSpec("narrow", "Narrow", "x", "fsengine.selectors:ANOVASelector", needs=Needs(max_features=10))
    assert "at most 10 features" in applicability(wide, wine)
    keys = default_methods([wine, digits_pair])
    assert keys == [k for k in METHODS if k in keys] and "bia" in keys  # registry order, none listed by hand
    assert set(keys) == set(METHODS)


def test_the_tiny_run_has_every_row_and_marks_what_did_not_run(tiny_run):
    assert tiny_run.status[("wine", "bia")].startswith("not applicable")
    assert sum(v == "ok" for v in tiny_run.status.values()) == len(TINY) * len(TINY_METHODS) - 1
    n_splits = TINY_SETTINGS.folds * TINY_SETTINGS.repeats
    per = tiny_run.folds.groupby(["dataset", "method", "k_label"]).size()
    assert (per == n_splits).all()
    assert tiny_run.ks["wine"] == {"2": 2, "5": 5, "50%": 6} and tiny_run.ks["xor_tiny"]["50%"] == 4
    glm = tiny_run.folds.query("dataset == 'glm_tiny' and method != 'all features'")
    assert glm["recall"].between(0, 1).all() and tiny_run.folds.query("dataset == 'wine'")["recall"].isna().all()
    wine = tiny_run.folds.query("dataset == 'wine'")
    assert (wine["metric"] == wine["balanced_accuracy"]).all()  # 59/71/48 rows: unequal classes
    xor = tiny_run.folds.query("dataset == 'xor_tiny'")
    assert (xor["metric"] == xor["accuracy"]).all() or (xor["metric"] == xor["balanced_accuracy"]).all()


def test_kept_tasks_are_reused_and_give_the_same_tables(tmp_path, tiny_run):
    from fsengine.task_store import keeping_tasks

    entries = TINY[:2]
    with keeping_tasks(tmp_path) as store:
        first = run_benchmark(entries, TINY_METHODS[:2], TINY_SETTINGS)
        computed = store.computed
    with keeping_tasks(tmp_path) as store:
        again = run_benchmark(entries, TINY_METHODS[:2], TINY_SETTINGS)
        assert store.reused == computed and store.computed == 0
    pd.testing.assert_frame_equal(first.folds, again.folds)
