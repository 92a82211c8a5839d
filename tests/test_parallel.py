"""The task map on every backend (serial, joblib processes, a 2-worker loopback Dask cluster):
submission order, named errors, cancellation, a worker killed mid-run; comparisons and the RTM
experiments whose tables are identical to the serial run's whatever runs them. One file, in this
order, so the worker processes import the engine once (cancelling stops the local workers: last)."""

import time

import numpy as np
import pandas as pd
import pytest

from fsengine.compare.runner import CompareSettings, ComparisonCancelled, run_comparison
from fsengine.data import load_dataset
from fsengine.data.corpora import read_sentence_polarity
from fsengine.methods.rtm import study as rtm_exp
from fsengine.methods.rtm.fit import RTMSettings
from fsengine.parallel import MAX_RESCATTERS, TaskError, TasksCancelled, backend_for, map_tasks
from tests.conftest import require_real
from tests.parallel_tasks import (
    always_crash,
    always_crash_with_shared,
    crash_once,
    fails_on_three,
    logged_square,
    slow_square,
    stepping,
    touch_after,
)

#: local Dask clusters and process pools starting under a deadline (slow): run alone (make test's serial part)
pytestmark = [pytest.mark.serial, pytest.mark.slow]

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """2 worker processes, 1 thread each, on the loopback interface; a worker whose task crashes
    it once is retried elsewhere, twice counts as a failure."""
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None) as local:
            yield local.scheduler_address


# --- comparisons first: the workers import the engine once ---------------------------------------

SETTINGS = CompareSettings(n_bootstrap=3, max_k=8, seed=5)
METHODS = ["mi", ("l1", {"n_Cs": 6}), "variance", ("bia", {"n_steps": 20})]


@pytest.fixture(scope="module")
def glm():
    return load_dataset("synthetic_glm", n=240, p=16, k=4, seed=7)


@pytest.fixture(scope="module")
def serial(glm):
    return run_comparison(glm, METHODS, SETTINGS)


def _tables(result):
    tables = result.tables(5)
    tables["runtime"] = tables["runtime"].drop(columns=[c for c in tables["runtime"] if "seconds" in c])
    tables["summary"] = tables["summary"].drop(columns=[c for c in tables["summary"] if "seconds" in c])
    return tables


@pytest.mark.parametrize("backend", ["joblib", "dask"])
def test_a_parallel_comparison_equals_the_serial_one(cluster, glm, serial, backend):
    where = {"joblib": dict(n_jobs=2), "dask": dict(scheduler=cluster)}[backend]
    seen = []
    result = run_comparison(glm, METHODS, SETTINGS, progress=lambda f, m: seen.append(f), **where)
    n_tasks = len(METHODS) * (1 + SETTINGS.n_bootstrap)
    assert len(seen) > n_tasks and seen == sorted(seen) and seen[-1] == 1.0
    expected, got = _tables(serial), _tables(result)
    assert expected.keys() == got.keys()
    for name in expected:
        pd.testing.assert_frame_equal(got[name], expected[name], check_exact=True, obj=name)
    for a, b in zip(serial.runs, result.runs):
        np.testing.assert_array_equal(a.boot_top, b.boot_top)
        np.testing.assert_array_equal(a.boot_top_scores, b.boot_top_scores)


# the RTM experiments: seeds and (fold, method) pairs as tasks
SYNTH = dict(n_samples=200, n_tags=50, n_relevant=6, settings=RTMSettings(alpha0=5.0))


def test_synthetic_roc_on_two_processes_equals_the_serial_run():
    serial = rtm_exp.synthetic_roc((0, 1, 2), **SYNTH)
    parallel = rtm_exp.synthetic_roc((0, 1, 2), **SYNTH, n_jobs=2)
    pd.testing.assert_frame_equal(parallel.auc, serial.auc, check_exact=True)
    pd.testing.assert_frame_equal(parallel.fits, serial.fits, check_exact=True)
    for label, trace in serial.traces.items():  # the first seed's traces
        pd.testing.assert_frame_equal(parallel.traces[label].drop(columns="seconds", errors="ignore"),
                                      trace.drop(columns="seconds", errors="ignore"), check_exact=True)


def test_cross_validation_on_two_processes_equals_the_serial_run():
    require_real(read_sentence_polarity)
    kw = dict(folds=2, max_docs=300)
    serial = rtm_exp.cv_accuracy("sentence_polarity", **kw)
    parallel = rtm_exp.cv_accuracy("sentence_polarity", **kw, n_jobs=2)
    assert len(serial) == 2 * (len(rtm_exp.METHODS) + len(rtm_exp.BASELINES))
    pd.testing.assert_frame_equal(parallel.drop(columns="seconds"), serial.drop(columns="seconds"), check_exact=True)


# --- the task map ----------------------------------------------------------------------------------

def backends(cluster):
    return {"serial": dict(), "joblib": dict(n_jobs=2), "dask": dict(scheduler=cluster)}


@pytest.mark.parametrize("backend", ["serial", "joblib", "dask"])
def test_results_come_back_in_submission_order_with_progress_per_task(cluster, backend):
    seen = []
    out = map_tasks(slow_square, range(10), progress=lambda f, m: seen.append((f, m)), **backends(cluster)[backend])
    assert out == [x * x for x in range(10)]
    done = [(f, m) for f, m in seen if " done (" in m]
    assert [f for f, _ in done] == [(i + 1) / 10 for i in range(10)]
    assert sorted(m.split(" done")[0] for _, m in done) == sorted(f"task {i + 1}" for i in range(10))
    # every task is announced by name before it ends (from the workers: a start may come after a
    # very short task's end, and then it is not announced)
    announced = {m for _, m in seen if " done (" not in m}
    assert announced <= {f"task {i + 1}" for i in range(10)} and (backend != "serial" or len(announced) == 10)
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)


@pytest.mark.parametrize("backend", ["serial", "joblib", "dask"])
def test_a_task_reports_from_inside_it_on_every_backend(cluster, backend):
    """What a task says of itself reaches the caller behind its name, from worker processes too
    (fsengine.task_progress): announced first, then its steps, then its end."""
    seen = []
    out = map_tasks(stepping, range(4), names=[f"fit {i}" for i in range(4)], progress=lambda f, m: seen.append((f, m)),
                    task_progress=True, **backends(cluster)[backend])
    assert out == [0, 1, 2, 3]
    messages = [m for _, m in seen]
    for i in range(4):
        mine = [m for m in messages if m.startswith(f"fit {i}")]
        assert mine[0] == f"fit {i}" and mine[-1].startswith(f"fit {i} done (")
        assert [m for m in mine if ", step" in m] == [f"fit {i}, step {k} of 3" for k in (1, 2, 3)]
    assert [f for f, _ in seen] == sorted(f for f, _ in seen) and seen[-1][0] == 1.0


@pytest.mark.parametrize("backend", ["joblib", "dask"])
def test_kept_results_are_reused_and_only_the_rest_is_submitted(cluster, backend, tmp_path):
    """With a task store, a rerun submits only the tasks that have no kept result (tests/test_task_store.py
    covers the store on the serial backend)."""
    from fsengine.task_store import keeping_tasks

    work = tmp_path / "work"
    work.mkdir()
    with keeping_tasks(tmp_path / "kept"):
        first = map_tasks(logged_square, [0, 1, 2], shared=str(work), **backends(cluster)[backend])
        seen = []
        again = map_tasks(logged_square, [0, 1, 2, 3, 4], shared=str(work), progress=lambda f, m: seen.append(m),
                          **backends(cluster)[backend])
    assert again[:3] == first and [v[0] for v in again] == [0, 1, 4, 9, 16]
    assert sorted(int(x) for x in (work / "calls").read_text().split()) == [0, 1, 2, 3, 4]
    assert seen[0] == f"3 of 5 tasks kept from {tmp_path / 'kept'}"
    assert sorted(m.split(" done")[0] for m in seen if " done (" in m) == ["task 4", "task 5"]  # only these ran


@pytest.mark.parametrize("backend", ["serial", "joblib", "dask"])
def test_a_failing_task_is_named_and_its_error_kept(cluster, backend):
    with pytest.raises(TaskError, match=r"task 'item 3' failed: ValueError: no shared three") as info:
        map_tasks(fails_on_three, range(6), shared="shared", names=[f"item {i}" for i in range(6)],
                  **backends(cluster)[backend])
    assert isinstance(info.value.__cause__, ValueError) and info.value.task == "item 3"


@pytest.mark.parametrize("backend", ["serial", "dask", "joblib"])
def test_cancel_stops_the_remaining_tasks(cluster, backend, tmp_path):
    state = {"calls": 0}

    def cancel():
        state["calls"] += 1
        return state["calls"] > 1  # after the first finished task

    with pytest.raises(TasksCancelled, match="Cancelled after 1 of 16 tasks"):
        map_tasks(touch_after, range(16), shared=str(tmp_path), cancel=cancel, **backends(cluster)[backend])
    time.sleep(2.0)  # tasks already running (or queued on a worker) may finish; the rest never start
    assert 1 <= len(list(tmp_path.glob("*.done"))) <= 8


def test_settings_are_checked_before_any_work():
    assert backend_for() == backend_for(1) == "serial" and backend_for(2) == "joblib"
    assert backend_for(scheduler="tcp://127.0.0.1:1") == "dask"
    with pytest.raises(ValueError, match="either n_jobs .* or scheduler"):
        backend_for(2, "tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="n_jobs=0: use 1"):
        backend_for(0)


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch):
    monkeypatch.setattr("fsengine.parallel.CONNECT_TIMEOUT", 1)
    with pytest.raises(ValueError, match=r"Could not reach the Dask scheduler at tcp://127.0.0.1:9 within 1 s"):
        map_tasks(slow_square, [1], scheduler="tcp://127.0.0.1:9")


def test_a_worker_killed_mid_run_is_replaced_and_the_results_are_complete(cluster, tmp_path):
    out = map_tasks(crash_once, range(6), shared=str(tmp_path), scheduler=cluster)
    assert (tmp_path / "crashed").exists()
    assert out == [x + 100 for x in range(6)]


def test_shared_data_lost_with_its_only_worker_is_scattered_again(tmp_path):
    """On a 1-worker cluster the scattered ``shared`` lives on that worker alone; when a task kills
    it, the scheduler forgets the data and cancels every task that needs it (this failed as
    FutureCancelledError "already forgotten" before; on 2 workers it happened when the crash hit the
    worker holding the only copy). map_tasks scatters again and resubmits the unfinished tasks; a
    task that kills every worker it runs on fails, naming itself, after MAX_RESCATTERS tries."""
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None) as local:  # one cluster for both runs
        out = map_tasks(crash_once, range(6), shared=str(tmp_path), scheduler=local.scheduler_address)
        assert (tmp_path / "crashed").exists()
        assert out == [x + 100 for x in range(6)]
        with pytest.raises(TaskError, match=r"task 'poison' failed: the Dask workers holding its shared data "
                                            rf"died {MAX_RESCATTERS + 1} times"):
            map_tasks(always_crash_with_shared, [0], shared="data", names=["poison"],
                      scheduler=local.scheduler_address)


def test_a_task_that_keeps_killing_workers_fails_with_a_clear_message(cluster):
    with pytest.raises(TaskError, match=r"task 'poison' failed: the Dask workers running it died"):
        map_tasks(always_crash, [0], names=["poison"], scheduler=cluster)


def test_a_cancelled_parallel_comparison_keeps_nothing(glm):
    """Cancelled before any task started (mid-run cancellation of the pool: the task-map tests)."""
    with pytest.raises(ComparisonCancelled):
        run_comparison(glm, METHODS, SETTINGS, n_jobs=2, cancel=lambda: True)
