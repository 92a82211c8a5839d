"""Task functions for tests/test_parallel.py, in a module that imports nothing heavy, so worker
processes that unpickle them start fast."""

import os
import time
from pathlib import Path


def slow_square(x):
    """Later items finish first, so completion order differs from submission order."""
    time.sleep(0.05 * (4 - x % 5))
    return x * x


def fails_on_three(shared, x):
    if x == 3:
        raise ValueError(f"no {shared} three")
    return x


def touch_after(folder, x):
    time.sleep(0.4)
    Path(folder, f"{x}.done").touch()
    return x


def crash_once(folder, x):
    """Kills its worker process the first time item 2 runs (a marker file remembers)."""
    marker = Path(folder, "crashed")
    if x == 2 and not marker.exists():
        marker.touch()
        os._exit(1)
    return x + 100


def always_crash(_):
    os._exit(1)


def always_crash_with_shared(_shared, _item):
    os._exit(1)


def logged_square(folder, x):
    """x * x and a stamp that differs on every call; appends x to ``folder/calls`` (one line per
    call, from any process), and raises on x == 3 while ``folder/fail`` exists."""
    folder = Path(folder)
    with open(folder / "calls", "a") as fh:
        fh.write(f"{x}\n")
    if x == 3 and (folder / "fail").exists():
        raise RuntimeError("three fails")
    return x * x, time.time_ns(), os.getpid()


def stepping(x, progress=None):
    """Says 'step k of 3' (fraction (k - 1) / 3) before each of three 0.3 s steps; returns x."""
    for k in range(1, 4):
        if progress is not None:
            progress((k - 1) / 3, f"step {k} of 3")
        time.sleep(0.3)
    return x
