"""Output folders: checked before computing, written whole or not at all, never mixed; an
interrupted ``compare`` (SIGINT while it writes) leaves the previous complete set."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fsengine.cli import main
from fsengine.commands.output import MARKER, OutputError, check_target, output_folder
from tests.conftest import restore_sigint


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.endswith((".partial", ".old")))


def write_table(path: Path, n: int = 60, seed: int = 0, p: int = 6) -> Path:
    """A small two-class table (``p`` numeric features, the first informative, a text target)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(p)])
    df["label"] = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    df.to_csv(path, index=False)
    return path


def test_a_completed_set_replaces_the_previous_one_whole(tmp_path):
    out = tmp_path / "res"
    with output_folder(out) as stage:
        (stage / "a.csv").write_text("first")
        (stage / "only_first.html").write_text("x")
    assert sorted(_snapshot(out)) == sorted([MARKER, "a.csv", "only_first.html"])
    with output_folder(out) as stage:
        (stage / "a.csv").write_text("second")
    assert sorted(_snapshot(out)) == [MARKER, "a.csv"] and (out / "a.csv").read_text() == "second"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("error", [RuntimeError("disk trouble"), KeyboardInterrupt()])
def test_an_error_or_interrupt_while_writing_keeps_the_previous_set(tmp_path, error):
    out = tmp_path / "res"
    with output_folder(out) as stage:
        (stage / "scores.csv").write_text("old")
    before = _snapshot(out)
    with pytest.raises(type(error)), output_folder(out) as stage:
        (stage / "scores.csv").write_text("new")
        (stage / "path.csv").write_text("new")
        raise error
    assert _snapshot(out) == before and _leftovers(tmp_path) == []


def test_an_interrupted_first_run_leaves_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt), output_folder(tmp_path / "res") as stage:
        (stage / "scores.csv").write_text("half")
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_force_replaces_a_foreign_folder_but_never_the_current_one(tmp_path, monkeypatch):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep?")
    with pytest.raises(OutputError, match="did not write"):
        check_target(foreign)
    with output_folder(foreign, force=True) as stage:
        (stage / "scores.csv").write_text("new")
    assert sorted(_snapshot(foreign)) == [MARKER, "scores.csv"]
    monkeypatch.chdir(foreign)
    with pytest.raises(OutputError, match="current, home or root folder"):
        check_target(Path("."), force=True)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    for target in (Path("."), Path(".."), Path("/")):
        with pytest.raises(OutputError, match="current, home or root folder"):
            check_target(target)


@pytest.mark.serial
def test_sigint_while_compare_writes_leaves_the_previous_complete_set(tmp_path):
    """``fsengine compare`` is interrupted (SIGINT) as soon as its staging folder appears, i.e. while
    it writes; the output folder must then be the previous complete set (or, when the signal came
    during the final swap, the new complete set), and no staging folder may be left behind."""
    # 3,000 features: files large enough that writing them takes longer than the signal's trip
    data = write_table(tmp_path / "t.csv", p=3000)
    out = tmp_path / "cmp"
    base = ["compare", "--methods", "variance,l1", "--data", str(data), "--target", "label", "--bootstrap", "0",
            "--max-k", "5", "--out", str(out)]
    assert main([*base, "--k", "2"]) == 0
    previous = _snapshot(out)
    assert {"report.html", "scores.csv", MARKER} <= set(previous)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    interrupted = 0
    for _ in range(10):  # a loaded machine may finish the write before the signal lands: try again
        proc = subprocess.Popen([sys.executable, "-m", "fsengine", *base, "--k", "3"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=restore_sigint)
        staged = False
        while proc.poll() is None and not staged:
            staged = any(p.name.endswith(".partial") for p in tmp_path.iterdir())
            time.sleep(0.0005)
        if staged:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        now = _snapshot(out)
        assert _leftovers(tmp_path) == []
        if proc.returncode == 130 and now == previous:
            assert b"interrupted" in err
            interrupted += 1
            break
        # the signal came too late (after the swap): the new set is complete, never a mix
        assert set(now) == set(previous) and now["report.html"].rstrip().endswith(b"</html>")
        previous = now
    assert interrupted == 1, "the signal never arrived while compare was writing"


def test_a_killed_runs_staging_folder_is_removed_by_the_next_run(tmp_path):
    """SIGKILL gives no chance to clean up: the staging folder stays, and the next run into the
    same folder removes it (its process is gone). A live process's folder and unrelated hidden
    folders are left alone."""
    out = tmp_path / "res"
    code = ("import sys, time\nfrom pathlib import Path\nfrom fsengine.commands.output import output_folder\n"
            "with output_folder(Path(sys.argv[1])) as stage:\n"
            "    (stage / 'half.csv').write_text('1')\n    print('ready', flush=True)\n    time.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.kill()
    proc.wait(timeout=30)
    killed = _leftovers(tmp_path)
    assert len(killed) == 1 and killed[0].startswith(f".res.{proc.pid}.")
    live = tmp_path / f".res.{os.getpid()}.abcd1234.partial"      # a concurrent run: still writing
    unrelated = tmp_path / ".res.notes"
    other = tmp_path / ".res.v2.12345.abcd1234.partial"           # belongs to a folder named res.v2
    for folder in (live, unrelated, other):
        folder.mkdir()
    with output_folder(out) as stage:
        (stage / "scores.csv").write_text("new")
    assert not (tmp_path / killed[0]).exists()
    assert live.is_dir() and unrelated.is_dir() and other.is_dir()
    assert sorted(_snapshot(out)) == [MARKER, "scores.csv"]
