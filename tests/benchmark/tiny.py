"""A tiny benchmark run, shared by the benchmark tests (seconds, bundled and generated data only)."""

import numpy as np
import pandas as pd
import pytest

from fsengine.base import BaseFeatureSelector
from fsengine.benchmark.protocol import Settings
from fsengine.benchmark.suite import TINY

#: the tiny run's methods: fast ones, one that needs two classes (not applicable on wine), one that
#: needs binary features (adapted)
TINY_METHODS = [("variance", {}), ("anova", {}), ("mi", {}), ("bia", {"n_steps": 20}), ("l1", {"n_Cs": 6})]
TINY_SETTINGS = Settings(folds=3, repeats=2, k_grid="2,5,0.5")


@pytest.fixture(scope="session")
def tiny_run():
    from fsengine.benchmark.runner import run_benchmark

    return run_benchmark(TINY, TINY_METHODS, TINY_SETTINGS)


@pytest.fixture(scope="session")
def tiny_record(tiny_run):
    from fsengine.benchmark.record import from_run

    return from_run(tiny_run, quick=True, command="tiny")


@pytest.fixture(scope="session")
def tiny_folder(tiny_record, tmp_path_factory):
    """The tiny run written as a run folder (report included)."""
    from fsengine.benchmark.report import write

    folder = tmp_path_factory.mktemp("tiny_benchmark")
    write(tiny_record, folder)
    return folder


class FailsOnThreeClasses(BaseFeatureSelector):
    """Variance scores that fail on more than two classes (a failed cell of a run folder)."""

    _parameter_constraints: dict = {}

    def _fit(self, X, y):
        if np.unique(y).size > 2:
            raise RuntimeError("cannot handle more than two classes")
        self.scores_ = np.asarray(X).var(axis=0)
        self._set_order(np.argsort(-self.scores_, kind="stable"))
        self._rank_and_support(np.zeros(X.shape[1], dtype=bool))
        self.trace_ = pd.DataFrame()


@pytest.fixture(scope="session")
def gappy_folder(tmp_path_factory):
    """A run folder with failed and not-applicable cells: BIA is not applicable to three-class wine and
    'Fails on 3 classes' failed there; four methods on the tiny suite, 3 folds."""
    from fsengine.benchmark.record import from_run
    from fsengine.benchmark.report import write
    from fsengine.benchmark.runner import run_benchmark
    from fsengine.methods.registry import MethodSpec

    failing = MethodSpec("fails3", "Fails on 3 classes", "variance, but not on three classes", FailsOnThreeClasses)
    run = run_benchmark(TINY, [("anova", {}), ("bia", {"n_steps": 20}), ("mi", {}), (failing, {})],
                        Settings(folds=3, repeats=1, k_grid="2,5,0.5"))
    folder = tmp_path_factory.mktemp("gappy_benchmark")
    write(from_run(run, quick=True, command="gappy"), folder)
    return folder
