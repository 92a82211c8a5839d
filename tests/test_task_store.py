"""Kept task results (fsengine.task_store): a rerun reuses exactly the results a run with the same
code, shared data and items left, computes everything else, and an interrupted run resumes with
the tasks it had not finished."""

import pickle

import pytest

from fsengine import task_store
from fsengine.cli import main
from fsengine.parallel import TaskError, map_tasks
from tests.parallel_tasks import logged_square


def calls(folder):
    path = folder / "calls"
    return sorted(int(line) for line in path.read_text().split()) if path.exists() else []


def run(folder, store, items=(0, 1, 2, 3, 4), shared=None, n_jobs=None):
    with task_store.keeping_tasks(store):
        return map_tasks(logged_square, list(items), shared=str(folder) if shared is None else shared, n_jobs=n_jobs)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def test_a_rerun_reads_every_result_and_computes_nothing(folder, tmp_path):
    first = run(folder, tmp_path / "kept")
    assert calls(folder) == [0, 1, 2, 3, 4] and len(task_store.TaskStore(tmp_path / "kept")) == 5
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        again = map_tasks(logged_square, list(range(6)), shared=str(folder))
        note = task_store.reuse_note()
    assert again[:5] == first and calls(folder) == [0, 1, 2, 3, 4, 5]  # the stamps are the first run's
    assert (store.reused, store.computed) == (5, 1)
    assert note == (", after reading 5 of 6 task results kept by a previous run of the same code "
                    "(their time is not in it)")
    assert task_store.reuse_note() == ""


def test_without_a_store_every_task_runs_again(folder, tmp_path):
    first = run(folder, tmp_path / "kept")
    again = map_tasks(logged_square, list(range(5)), shared=str(folder))
    assert [v[0] for v in again] == [v[0] for v in first] and again != first
    assert calls(folder) == sorted(2 * [0, 1, 2, 3, 4])


def test_an_interrupted_run_resumes_with_the_unfinished_tasks(folder, tmp_path):
    (folder / "fail").touch()
    with pytest.raises(TaskError, match="three fails"):
        run(folder, tmp_path / "kept")
    assert calls(folder) == [0, 1, 2, 3]
    (folder / "fail").unlink()
    out = run(folder, tmp_path / "kept")
    assert [v[0] for v in out] == [0, 1, 4, 9, 16]
    assert calls(folder) == [0, 1, 2, 3, 3, 4]  # 0-2 kept, 3 and 4 computed


def test_new_items_other_shared_data_or_other_code_are_computed(folder, tmp_path, monkeypatch):
    run(folder, tmp_path / "kept")
    run(folder, tmp_path / "kept", items=range(7))
    assert calls(folder) == [0, 1, 2, 3, 4, 5, 6]
    other = tmp_path / "other"
    other.mkdir()
    run(folder, tmp_path / "kept", items=range(2), shared=str(other))  # other shared data: another key
    assert calls(other) == [0, 1]
    monkeypatch.setattr(task_store, "code_fingerprint", lambda: "changed code")
    run(folder, tmp_path / "kept", items=range(2))
    assert calls(folder) == [0, 0, 1, 1, 2, 3, 4, 5, 6]


def test_an_unreadable_kept_file_is_computed_again(folder, tmp_path):
    first = run(folder, tmp_path / "kept", items=[2])
    (kept,) = (tmp_path / "kept").glob("*.pkl")
    kept.write_bytes(kept.read_bytes()[:5])
    again = run(folder, tmp_path / "kept", items=[2])
    assert calls(folder) == [2, 2] and again[0][0] == 4 and again != first
    assert pickle.loads(kept.read_bytes()) == again[0]  # rewritten whole


def test_worker_processes_keep_and_reuse_results(folder, tmp_path):
    first = run(folder, tmp_path / "kept", n_jobs=2)
    assert len({pid for _, _, pid in first}) >= 1 and calls(folder) == [0, 1, 2, 3, 4]
    assert run(folder, tmp_path / "kept", n_jobs=2) == first == run(folder, tmp_path / "kept")
    assert calls(folder) == [0, 1, 2, 3, 4]


def test_no_store_outside_the_block_and_a_file_is_refused(tmp_path):
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        assert task_store.active() is store
    assert task_store.active() is None
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="this is a file, not a folder"):
        with task_store.keeping_tasks(tmp_path / "file"):
            pass


def test_the_cli_names_a_file_given_as_the_folder_in_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    argv = ["reproduce", "rtm-roc", "--quick", "--keep-tasks", str(tmp_path / "file"), "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--keep-tasks" in err[0] and "this is a file, not a folder" in err[0]


def test_the_key_follows_the_computing_code_only(tmp_path):
    for name in ("methods/rtm/study.py", "stats.py", "app/views/rtm.py", "reproduce/rtm.py", "cli.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    before = task_store.source_fingerprint(tmp_path)
    for name in ("app/views/rtm.py", "reproduce/rtm.py", "cli.py"):  # pages, reports, commands
        (tmp_path / name).write_text("x = 2\n")
        assert task_store.source_fingerprint(tmp_path) == before, name
    for name in ("methods/rtm/study.py", "stats.py"):
        (tmp_path / name).write_text("x = 2\n")
        assert task_store.source_fingerprint(tmp_path) != before, name
        before = task_store.source_fingerprint(tmp_path)
    (tmp_path / "methods/new.py").write_text("")
    assert task_store.source_fingerprint(tmp_path) != before
