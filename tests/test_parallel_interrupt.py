"""Ctrl-C during a parallel run (issue 15): the interrupt reaches the caller at once and the tasks
not yet started never run, on joblib's local processes and on a Dask cluster that outlives the
interrupted client; ``fsengine compare --n-jobs 2`` exits with code 130 and says so."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, restore_sigint

#: signals and worker start-up under a deadline: run alone (make test's serial part)
pytestmark = [pytest.mark.serial, pytest.mark.slow]

distributed = pytest.importorskip("distributed")

N_TASKS = 40  # 0.4 s each (tests/parallel_tasks.touch_after): 8 s of work on 2 workers

RUN = """
import sys
from fsengine.parallel import map_tasks
from tests.parallel_tasks import touch_after
folder, where = sys.argv[1], sys.argv[2]
settings = {"n_jobs": 2} if where == "joblib" else {"scheduler": where}
try:
    map_tasks(touch_after, range(int(sys.argv[3])), shared=folder,
              progress=lambda fraction, message: " done (" in message and print("finished:", message, flush=True),
              **settings)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("completed", flush=True)
"""


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as local:
        yield local.scheduler_address


def _env() -> dict:
    return {**os.environ, "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(PROJECT_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _descendants(pid: int) -> set[int]:
    """Processes started by ``pid`` and by them, from /proc (Linux)."""
    out = set()
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in map(int, children.read_text().split()):
            out |= {child} | _descendants(child)
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _interrupt_after_first_task(cmd: list[str], marker: str, cwd=PROJECT_ROOT,
                                sig=signal.SIGINT, workers: set | None = None) -> tuple[int, str, float]:
    """Start ``cmd``, send ``sig`` when a stdout line contains ``marker``; (exit code, output, seconds
    from the signal to the exit). ``workers`` receives the processes ``cmd`` had started by then."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=restore_sigint)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if marker in line:
            break
    else:
        proc.wait()
        pytest.fail("the run ended before its first task finished:\n" + "".join(lines))
    if workers is not None:
        workers |= _descendants(proc.pid)
    proc.send_signal(sig)
    sent = time.monotonic()
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, "".join(lines) + out, time.monotonic() - sent


@pytest.mark.parametrize("backend", ["joblib", "dask"])
def test_ctrl_c_stops_the_tasks_not_yet_started(backend, cluster, tmp_path):
    where = "joblib" if backend == "joblib" else cluster
    code, out, seconds = _interrupt_after_first_task(
        [sys.executable, "-c", RUN, str(tmp_path), where, str(N_TASKS)], "finished:")
    assert code == 130 and "interrupted" in out and "completed" not in out, out
    assert seconds < 20, f"the interrupted run took {seconds:.1f} s to stop"
    at_exit = len(list(tmp_path.glob("*.done")))
    time.sleep(2.5)  # tasks still running when the signal came may finish; nothing new may start
    after = len(list(tmp_path.glob("*.done")))
    assert 1 <= at_exit <= after <= at_exit + 2 and after < N_TASKS // 2, (at_exit, after)


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_or_sigterm_in_fsengine_compare_on_two_processes(sig, code, word, tmp_path):
    out = tmp_path / "cmp"
    returned, text, seconds = _interrupt_after_first_task(
        [sys.executable, "-m", "fsengine", "compare", "--methods", "l1,mi", "--data", "synthetic_glm:n=600,p=60",
         "--bootstrap", "40", "--max-k", "5", "--k", "5", "--n-jobs", "2", "--out", str(out)], " done (", cwd=tmp_path,
        sig=sig, workers=(workers := set()))
    assert returned == code and word in text.lower(), text
    assert "Traceback" not in text
    assert seconds < 30
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert workers  # the two worker processes (and joblib's resource tracker)
    deadline = time.monotonic() + 10  # no worker of the stopped run is left computing
    while [pid for pid in workers if _running(pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in workers if _running(pid)]
