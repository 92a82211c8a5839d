"""A tiny benchmark run, shared by the benchmark tests (seconds, bundled and generated data only)."""

import pytest

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
