"""The benchmark as a hostile user meets it: their own classes (``--methods MODULE:CLASS``) that crash,
exit while importing inside their fit, give NaN scores, reject a parameter on some datasets or rank
fewer features than k, each recorded as that method's failure (one line) while the run goes on; every
mistake that can be seen before a fit stopped in one line before any fit (an import that exits, an
unknown parameter, a class smaller than the folds, a single class, a k grid above p); a slow method
named by the progress while it fits; an interrupted run resumed from kept tasks giving the same
tables; the k-NN classifier against scikit-learn's own pipeline on the same folds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsengine.base import BaseFeatureSelector
from fsengine.benchmark.protocol import Settings
from fsengine.benchmark.record import from_run
from fsengine.benchmark.runner import outer_folds, run_benchmark
from fsengine.benchmark.suite import TINY
from fsengine.cli import main
from fsengine.methods.registry import METHODS, MethodSpec

#: the user's module (written at test time: the test collection imports every module of tests/)
USER_CODE = '''
import numpy as np
from sklearn.base import BaseEstimator


class Crashing(BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("boom in fit\\n  (a second line the report must not carry)")


class ExitsInFit(BaseEstimator):
    def fit(self, X, y):
        import exits_when_imported  # calls sys.exit(3) while importing
        return self


class NaNScores(BaseEstimator):
    def fit(self, X, y):
        self.scores_ = np.full(X.shape[1], np.nan)
        return self


class Picky(BaseEstimator):
    """Scores by variance; a k above the data's features is its parameter error."""

    def __init__(self, k=5):
        self.k = k

    def fit(self, X, y):
        if self.k > X.shape[1]:
            raise ValueError(f"k={self.k} is more than the {X.shape[1]} features")
        self.scores_ = np.asarray(X.var(axis=0)).ravel()
        return self


class TwoOnly(BaseEstimator):
    """Selects two columns and says nothing about the others (no scores, no ranking)."""

    def fit(self, X, y):
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[[3, 1]] = True
        return self

    def get_support(self, indices=False):
        return np.flatnonzero(self.support_) if indices else self.support_
'''
EXITS_WHEN_IMPORTED = "import sys\n\nsys.exit(3)\n"
#: a script that parses its own command line when imported (no __main__ guard)
SCRIPT_MODULE = '''
import argparse

parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--epochs", type=int, required=True)
parser.parse_args()
'''
BASE = ["benchmark", "--datasets", "wine", "glm_tiny", "--folds", "3", "--repeats", "1", "--k", "2,5"]


@pytest.fixture
def user_code(tmp_path, monkeypatch):
    """``user_methods``, ``exits_when_imported`` and ``script_module`` importable from tmp_path/code."""
    import sys

    code = tmp_path / "code"
    code.mkdir()
    (code / "user_methods.py").write_text(USER_CODE)
    (code / "exits_when_imported.py").write_text(EXITS_WHEN_IMPORTED)
    (code / "script_module.py").write_text(SCRIPT_MODULE)
    monkeypatch.syspath_prepend(str(code))
    yield tmp_path
    for name in ("user_methods", "exits_when_imported", "script_module"):
        sys.modules.pop(name, None)


def _run(capsys, argv) -> tuple[int, list[str]]:
    code = main([str(a) for a in argv])
    return code, [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("benchmark [")]


def test_failing_user_classes_are_recorded_in_one_line_and_the_run_goes_on(user_code, capsys):
    classes = ["Crashing", "ExitsInFit", "NaNScores", "Picky", "TwoOnly"]
    methods = ",".join(["anova", "variance", *(f"user_methods:{c}" for c in classes)])
    out = user_code / "run"
    code, err = _run(capsys, [*BASE, "--methods", methods, "--param", "Picky.k=13", "--out", out])
    assert code == 0, err
    status = pd.read_csv(out / "status.csv", keep_default_na=False)
    got = {(r.dataset, r.method.split(":")[-1]): r.status for r in status.itertuples()}
    expected = {"Crashing": "RuntimeError: boom in fit (a second line the report must not carry)",
                "ExitsInFit": "SystemExit: it called sys.exit(3)",
                "NaNScores": "it gave no finite score (13 NaN of 13), so it ranks nothing"}
    for cls, reason in expected.items():
        assert got[("wine", cls)] == f"failed: {cls} on repeat 1 fold 1: {reason}", got[("wine", cls)]
        assert got[("glm_tiny", cls)].startswith(f"failed: {cls} on repeat 1 fold 1: ")
    # a parameter the class rejects on one dataset only: failed there (p = 12), run on wine (p = 13)
    assert got[("wine", "Picky")] == "ok"
    assert got[("glm_tiny", "Picky")] == "failed: Picky on repeat 1 fold 1: k=13 is more than the 12 features"
    assert all("\n" not in s for s in got.values())
    assert got[("wine", "anova")] == got[("glm_tiny", "variance")] == got[("wine", "TwoOnly")] == "ok"
    folds = pd.read_csv(out / "folds.csv", dtype={"k_label": str})
    assert set(folds["method"].str.split(":").str[-1]) == {"all features", "anova", "variance", "Picky", "TwoOnly"}
    assert set(folds.loc[folds["method"].str.endswith("Picky"), "dataset"]) == {"wine"}
    # a method that selects 2 < k = 5 features is scored on its ranking's first 5 (its 2, then the
    # unranked rest in column order) and says so
    two = folds[folds["method"].str.endswith("TwoOnly")]
    assert (two["n_selected_by_method"] == 2).all()
    tops = pd.read_csv(out / "tops.csv")
    first = tops[tops["method"].str.endswith("TwoOnly") & (tops["split"] == 0) & (tops["dataset"] == "wine")]
    assert first.sort_values("rank")["feature"].tolist()[:5] == [1, 3, 0, 2, 4]
    report = (out / "report.md").read_text()
    assert "ExitsInFit: failed: ExitsInFit on repeat 1 fold 1: SystemExit: it called sys.exit(3)" in report
    notes = status.set_index(["dataset", "method"])["notes"]
    assert "no ranking was available, so its selected features come first" in notes[("wine", "user_methods:TwoOnly")]
    assert "Adaptations and warnings" in report and "TwoOnly" in report.split("Adaptations and warnings")[1]


def test_mistakes_seen_before_a_fit_stop_the_command_in_one_line(user_code, capsys):
    one_class = user_code / "one_class.csv"
    pd.DataFrame({"a": np.arange(12.0), "b": np.arange(12.0) ** 2, "label": ["x"] * 12}).to_csv(one_class, index=False)
    small = user_code / "small_class.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({**{f"f{j}": rng.normal(size=22) for j in range(6)},
                  "label": ["x"] * 10 + ["y"] * 10 + ["z"] * 2}).to_csv(small, index=False)
    cases = [
        (["--methods", "anova,script_module:Model"],
         "script_module:Model: cannot import script_module (SystemExit: it called sys.exit(2); it printed "
         "'train.py: error: the following arguments are required: --epochs')"),
        (["--methods", "anova,user_methods:Picky", "--param", "Picky.q=3"], "Picky has no parameter 'q'"),
        (["--methods", "anova,bia", "--param", "bia.n_steps=0"], "n_steps"),
        (["--methods", "anova,mi", "--control", "l1"], "--control l1: name one of --methods"),
        (["--methods", "anova", "--datasets", f"{one_class}::label"], "has a single class"),
        (["--methods", "anova", "--datasets", f"{small}::label"],
         "class 'z' has 2 rows, fewer than the 3 outer folds, so some folds would train or test without it; "
         "drop that class from the data or choose --folds 2 or fewer"),
        (["--methods", "anova", "--datasets", "wine", "--k", "13,20"], "no k of the grid 13,20 is below its 13"),
    ]
    for extra, message in cases:
        argv = [*BASE, *extra] if "--datasets" not in extra else \
            ["benchmark", "--folds", "3", "--repeats", "1", *extra]
        code, err = _run(capsys, [*argv, "--out", user_code / "never"])
        assert code == 2 and len(err) == 1 and message in err[0] and "Traceback" not in err[0], (extra, err)
        assert not (user_code / "never").exists()


class _Slow(BaseFeatureSelector):
    """Remembers the last progress message the run had shown when its fit started (a fit that takes
    minutes shows the same message all along)."""

    heard: list = []
    seen_at_fit: list = []
    _parameter_constraints: dict = {}

    def _fit(self, X, y):
        _Slow.seen_at_fit.append(_Slow.heard[-1] if _Slow.heard else "")
        self.scores_ = np.asarray(X).var(axis=0)
        self._set_order(np.argsort(-self.scores_, kind="stable"))
        self._rank_and_support(np.zeros(X.shape[1], dtype=bool))
        self.trace_ = pd.DataFrame()


def test_progress_names_the_method_while_it_fits(monkeypatch):
    monkeypatch.setitem(METHODS, "slow", MethodSpec("slow", "Slowpoke", "variance, slowly", _Slow))
    _Slow.heard, _Slow.seen_at_fit = [], []
    run_benchmark(TINY[:2], [("anova", {}), ("slow", {}), ("bia", {"n_steps": 20})], Settings(folds=3, repeats=1,
                  k_grid="2"), progress=lambda f, m: _Slow.heard.append(m))
    fits = [m for m in _Slow.seen_at_fit]
    # the method first, then the task (main's progress protocol): warm-ups and the 6 timed fits
    assert len(fits) >= 6 and all(m.startswith("Slowpoke: ") for m in fits), fits
    assert any(m.startswith("Slowpoke: Wine, repeat 1 fold 2, fitting") for m in fits), fits
    # a method that reports its own progress is heard under the task's name while it runs
    assert any(m.startswith("BIA: Planted sparse GLM (tiny), repeat 1 fold 1, ") and "step" in m
               for m in _Slow.heard), [m for m in _Slow.heard if m.startswith("BIA")][:5]


def _comparable(run) -> dict[str, pd.DataFrame]:
    """The run's tables without the seconds (which a resumed run measures again)."""
    record = from_run(run, quick=True, command="t")
    tables = {"folds": record.folds, "summary": record.summary, "tops": record.tops,
              "pairs": record.pairs(record.k_labels[0])}
    return {name: t.drop(columns=[c for c in t.columns if "seconds" in c or c.startswith("fit_")])
            for name, t in tables.items()}


def test_an_interrupted_run_resumes_from_kept_tasks_with_the_same_tables(tmp_path, tiny_run):
    from fsengine.task_store import keeping_tasks

    methods, settings = [("variance", {}), ("anova", {}), ("mi", {})], Settings(folds=3, repeats=1, k_grid="2,5")
    whole = run_benchmark(TINY[:2], methods, settings)
    done = []

    def interrupt_after_ten(fraction, message):
        if " done (" in message:
            done.append(message)
            if len(done) == 10:
                raise KeyboardInterrupt

    with keeping_tasks(tmp_path) as store, pytest.raises(KeyboardInterrupt):
        run_benchmark(TINY[:2], methods, settings, progress=interrupt_after_ten)
    assert store.computed == 10
    with keeping_tasks(tmp_path) as store:
        resumed = run_benchmark(TINY[:2], methods, settings)
        assert store.reused == 10 and store.computed == 2 * 3 * 4 - 10  # 2 datasets x 3 folds x (3 + all features)
    expected, got = _comparable(whole), _comparable(resumed)
    for name in expected:
        pd.testing.assert_frame_equal(got[name], expected[name], check_exact=True, obj=name)


def test_the_knn_classifier_is_scikit_learns_pipeline_on_the_same_folds():
    """ANOVA F's top k then the optional classifier inside each training fold: the same predictions as
    SelectKBest(f_classif) + StandardScaler + KNeighborsClassifier(5) fitted on the fold."""
    entry = TINY[1]
    ds = entry.load()
    settings = Settings(folds=3, repeats=2, k_grid="2,5", classifier="knn")
    run = run_benchmark((entry,), [("anova", {})], settings)
    folds = outer_folds(ds.y, settings)
    for k in (2, 5):
        table = run.folds.query(f"method == 'anova' and k == {k}")
        assert len(table) == len(folds) == 6
        for (train, test), row in zip(folds, table.itertuples()):
            model = make_pipeline(SelectKBest(f_classif, k=k), StandardScaler(), KNeighborsClassifier(n_neighbors=5))
            pred = model.fit(ds.X[train], ds.y[train]).predict(ds.X[test])
            assert row.correct == int(np.sum(pred == ds.y[test]))
    base = run.folds.query("method == 'all features'")
    for (train, test), row in zip(folds, base.itertuples()):
        pred = make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5)).fit(ds.X[train], ds.y[train]) \
            .predict(ds.X[test])
        assert row.correct == int(np.sum(pred == ds.y[test]))


class _Warns(BaseFeatureSelector):
    """Warns on every fit (with the fold's own row count) and, on odd-sized training parts only, once more."""

    _parameter_constraints: dict = {}

    def _fit(self, X, y):
        import warnings

        warnings.warn(f"saw {X.shape[0]} rows (fold {X.shape[0] % 7})", UserWarning, stacklevel=2)
        if X.shape[0] % 2:
            warnings.warn("an odd number of rows", UserWarning, stacklevel=2)
        self.scores_ = np.asarray(X).var(axis=0)
        self._set_order(np.argsort(-self.scores_, kind="stable"))
        self._rank_and_support(np.zeros(X.shape[1], dtype=bool))
        self.trace_ = pd.DataFrame()


def test_a_warning_on_every_fold_is_noted_once_and_one_on_some_folds_says_how_many(monkeypatch):
    monkeypatch.setitem(METHODS, "warns", MethodSpec("warns", "Warns", "variance, with warnings", _Warns))
    run = run_benchmark(TINY[:1], [("warns", {})], Settings(folds=3, repeats=1, k_grid="2"))
    sizes = [train.size for train, _ in outer_folds(TINY[0].load().y, Settings(folds=3, repeats=1))]
    odd = sum(n % 2 for n in sizes)
    assert 0 < odd < 3  # wine's 178 rows: training parts of 118, 119 and 119
    assert run.notes[("wine", "warns")] == (f"Warns: UserWarning: saw {sizes[0]} rows (fold {sizes[0] % 7})",
                                             f"Warns: UserWarning: an odd number of rows (on {odd} of 3 fold fits)")
