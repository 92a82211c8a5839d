"""``fsengine benchmark``: the run folder, the output-folder rules, one-line errors; and the same tables
serially, on two local processes and on a local Dask cluster (the test-sized suite)."""

import pandas as pd
import pytest

from fsengine.cli import main
from fsengine.commands.output import MARKER

TINY_ARGS = ["benchmark", "--methods", "variance,anova,mi,bia", "--param", "bia.n_steps=20", "--datasets", "wine",
             "glm_tiny", "xor_tiny", "--folds", "3", "--repeats", "1", "--k", "2,5,0.5"]
#: tables whose numbers must not depend on where the tasks ran (seconds and the run's own timing excluded)
COMPARED = ("folds", "summary", "tops", "ranks", "friedman", "pairs", "similarity", "status")


def _tables(folder) -> dict[str, pd.DataFrame]:
    out = {}
    for name in COMPARED:
        table = pd.read_csv(folder / f"{name}.csv", dtype={"k_label": str})
        out[name] = table.drop(columns=[c for c in table.columns if "seconds" in c or c.startswith("fit_")])
    return out


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "serial"
    assert main([*TINY_ARGS, "--out", str(out)]) == 0
    return out


def test_the_run_folder(serial, capsys):
    assert (serial / MARKER).is_file()
    for name in (*COMPARED, "datasets", "methods", "tradeoff"):
        assert (serial / f"{name}.csv").is_file(), name
    assert {"report.md", "report.html", "results.json", "run.json"} <= {p.name for p in serial.iterdir()}
    status = pd.read_csv(serial / "status.csv")
    assert status.query("dataset == 'wine' and method == 'bia'")["status"].iloc[0].startswith("not applicable")
    text = (serial / "report.md").read_text()
    assert "--methods variance,anova,mi,bia" in text and "bia: n_steps=20" in text


def test_errors_are_one_line_and_nothing_is_written(tmp_path, capsys):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep")
    cases = [([*TINY_ARGS, "--out", str(foreign)], "already holds files fsengine did not write"),
             ([*TINY_ARGS[:-2], "--k", "0", "--out", str(tmp_path / "a")], "--k"),
             (["benchmark", "--methods", "anova", "--param", "bia.n_steps=20", "--out", str(tmp_path / "b")],
              "not among --methods"),
             (["benchmark", "--datasets", "no_such_thing", "--out", str(tmp_path / "c")], "Unknown dataset"),
             (["benchmark", "--methods", "anova", "--n-jobs", "2", "--scheduler", "tcp://x:1", "--out",
               str(tmp_path / "d")], "not both")]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign"]
    assert [p.name for p in foreign.iterdir()] == ["mine.txt"]


@pytest.mark.slow
@pytest.mark.serial
@pytest.mark.parametrize("where", ["n_jobs", "dask"])
def test_the_same_tables_on_two_processes_and_on_a_dask_cluster(serial, tmp_path, where):
    if where == "dask":
        distributed = pytest.importorskip("distributed")
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None) as cluster:
            assert main([*TINY_ARGS, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "o")]) == 0
    else:
        assert main([*TINY_ARGS, "--n-jobs", "2", "--out", str(tmp_path / "o")]) == 0
    expected, got = _tables(serial), _tables(tmp_path / "o")
    for name in COMPARED:
        pd.testing.assert_frame_equal(got[name], expected[name], check_exact=True, obj=name)


def test_kept_tasks_resume_with_the_same_tables(serial, tmp_path, capsys):
    tasks = tmp_path / "tasks"
    assert main([*TINY_ARGS, "--keep-tasks", str(tasks), "--out", str(tmp_path / "first")]) == 0
    kept = len(list(tasks.glob("*.pkl")))
    assert kept > 0
    assert main([*TINY_ARGS, "--keep-tasks", str(tasks), "--out", str(tmp_path / "again")]) == 0
    assert "tasks kept from" in capsys.readouterr().err and len(list(tasks.glob("*.pkl"))) == kept
    for name, table in _tables(tmp_path / "again").items():
        pd.testing.assert_frame_equal(table, _tables(serial)[name], check_exact=True, obj=name)
