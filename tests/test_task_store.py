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
    assert task_store.TaskStore(tmp_path / "kept").load(kept.stem) == (True, again[0])  # rewritten whole


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


# ------------------------------------------------------- integrity: checksums, wrong objects, the folder
def _flip_the_result(path, value: int) -> None:
    """Flip the lowest bit of the pickled small int ``value`` (opcode BININT1): still a valid pickle,
    holding value ^ 1, in the old plain format and in the checksummed one alike."""
    data = bytearray(path.read_bytes())
    at = data.index(b"K" + bytes([value])) + 1
    data[at] ^= 1
    path.write_bytes(bytes(data))


def test_a_flipped_bit_fails_the_checksum_and_the_result_is_computed_again(folder, tmp_path):
    first = run(folder, tmp_path / "kept", items=[2, 3, 4])
    keys = {}
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        context = store.context(logged_square, str(folder))
        keys = {x: store.key(context, x) for x in (2, 3, 4)}
    for x, key in keys.items():
        _flip_the_result(tmp_path / "kept" / f"{key}.pkl", x * x)
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        again = map_tasks(logged_square, [2, 3, 4], shared=str(folder))
    assert [v[0] for v in again] == [4, 9, 16] and again != first          # recomputed, never 5, 8, 17
    assert (store.reused, store.computed) == (0, 3) and calls(folder) == [2, 2, 3, 3, 4, 4]
    assert sorted(store.rejected) == sorted((tmp_path / "kept" / f"{key}.pkl", "checksum mismatch")
                                            for key in keys.values())
    assert store.rejection_note().startswith(f"--keep-tasks {tmp_path / 'kept'}: 3 kept result(s) failed their "
                                             "check and were computed again: ")
    assert run(folder, tmp_path / "kept", items=[2, 3, 4]) == again        # rewritten with good checksums


def test_a_valid_pickle_of_the_wrong_object_is_named_and_computed_again(folder, tmp_path):
    run(folder, tmp_path / "kept", items=[0, 1])
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        context = store.context(logged_square, str(folder))
        zero, one = (tmp_path / "kept" / f"{store.key(context, x)}.pkl" for x in (0, 1))
    zero.write_bytes(pickle.dumps({"not": "a task result"}))                # a valid pickle of something else
    swapped = tmp_path / "kept" / "swap"
    one.rename(swapped)                                                     # a kept result under another key
    run(folder, tmp_path / "kept", items=[0])
    swapped.rename(zero)
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        out = map_tasks(logged_square, [0], shared=str(folder))
    assert out[0][0] == 0 and store.reused == 0
    assert store.rejected == [(zero, "checksum mismatch")]
    zero.unlink()
    zero.symlink_to("/dev/zero")                                            # would never end if read
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        map_tasks(logged_square, [0], shared=str(folder))
    assert store.rejected == [(zero, "not a regular file")] and not zero.is_symlink()  # rewritten whole
    (tmp_path / "kept" / zero.name).write_bytes(pickle.dumps([1, 2, 3]))
    with task_store.keeping_tasks(tmp_path / "kept") as store:
        map_tasks(logged_square, [0], shared=str(folder))
    assert store.rejection_note() == (f"--keep-tasks {tmp_path / 'kept'}: 1 kept result(s) failed their check and "
                                      f"were computed again: {zero.name} (not a checksummed fsengine task result)")


def test_reproduce_warns_naming_the_folder_and_the_files_that_failed(tmp_path, capsys, monkeypatch):
    import fsengine.commands.reproduce as reproduce

    (tmp_path / "work").mkdir()

    def target(out, quick, progress):
        values = map_tasks(logged_square, [0, 1, 2], shared=str(tmp_path / "work"))
        (out / "report.md").write_text(f"squares {[v[0] for v in values]}\n")
        return out / "report.md"

    monkeypatch.setattr(reproduce, "get_target", lambda name: target)
    monkeypatch.setattr(reproduce, "_accepts", lambda name: {"--n-jobs": False, "--scheduler": False,
                                                             "--keep-tasks": True})
    argv = ["reproduce", "fake", "--keep-tasks", str(tmp_path / "kept"), "--out", str(tmp_path / "out")]
    assert main(argv) == 0 and "warning" not in capsys.readouterr().err
    (bad,) = sorted((tmp_path / "kept").glob("*.pkl"))[:1]
    bad.write_bytes(pickle.dumps("not a result"))
    assert main(argv) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: --keep-tasks {tmp_path / 'kept'}: 1 kept result(s) failed their check and were "
                        f"computed again: {bad.name} (not a checksummed fsengine task result)"]
    assert (tmp_path / "out" / "report.md").read_text() == "squares [0, 1, 4]\n"


@pytest.mark.parametrize("setup,pattern", [
    ("proc", r"^--keep-tasks /proc/fsengine-kept: cannot create the folder \(No such file or directory\); choose a "
             r"folder you can write to\.$"),
    ("world", r"--keep-tasks .*/kept: the folder may be written by every user, and loading a kept result \(a pickle\) "
              r"runs code from it; keep tasks in a folder only you can write\.$"),
])
def test_an_unusable_or_shared_folder_is_one_line_before_anything_runs(setup, pattern, tmp_path, capsys):
    import os
    import re

    folder = "/proc/fsengine-kept" if setup == "proc" else str(tmp_path / "kept")
    if setup == "world":
        os.mkdir(folder)
        os.chmod(folder, 0o777)
    with pytest.raises(ValueError, match=pattern):
        task_store.TaskStore(folder)
    argv = ["reproduce", "rtm-roc", "--quick", "--keep-tasks", folder, "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(pattern[1:], err[0]) and err[0].startswith("fsengine reproduce: error: ")
    assert not (tmp_path / "out").exists()


def test_the_keep_tasks_help_says_that_loading_a_pickle_runs_code(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("Results are pickles, and loading a pickle runs code from it: DIR must be a folder only you can "
            "write") in text
    assert "Each result carries a SHA-256 checksum; one that fails it is computed again" in text
