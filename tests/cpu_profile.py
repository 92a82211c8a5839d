"""Per-test CPU and waits, for finding where ``make test``'s time goes (issue 32, item 7). Opt-in plugin:

    PYTHONPATH=$PWD python -m pytest -p tests.cpu_profile -n 2 --dist loadfile ... (FSENGINE_CPU_PROFILE=folder)

writes one JSON line per test to ``FOLDER/WORKER.jsonl`` (default ``test-artifacts/cpu-profile``): ``self``,
the test process's CPU seconds (every thread, setup to teardown); ``child``, the CPU of the child processes
it waited for meanwhile (``RUSAGE_CHILDREN``: command-line runs, notebook kernels, a stopped server);
``live``, the change in CPU of every descendant still running (pool and Dask workers, the app server,
Chromium), so a server's work shows in the tests that asked for it rather than at the session's end;
``waited``, the wall seconds in the browser helpers' waits (``wait_for_run``: the page's script quiet
for four polls of 0.4 s; Playwright's ``wait_for_timeout``), and ``start`` / ``end`` (wall clock).
CPU, not wall, is what compares across runs on a shared machine."""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import psutil
import pytest

_ME = psutil.Process()
_WAITED = [0.0]


def _descendants_cpu() -> float:
    total = 0.0
    for proc in _ME.children(recursive=True):
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _cpu() -> tuple[float, float, float]:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime, _descendants_cpu()


def _timed(fn):
    def wrapper(*args, **kwargs):
        t0 = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            _WAITED[0] += time.monotonic() - t0

    return wrapper


def pytest_configure(config):
    """Time the waits before the test modules import them."""
    from playwright.sync_api import Page

    from tests import browser_tools

    browser_tools.wait_for_run = _timed(browser_tools.wait_for_run)
    Page.wait_for_timeout = _timed(Page.wait_for_timeout)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    (p0, c0, d0), w0, waited0 = _cpu(), time.time(), _WAITED[0]
    yield
    (p1, c1, d1), w1 = _cpu(), time.time()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    folder = Path(os.environ.get("FSENGINE_CPU_PROFILE", "test-artifacts/cpu-profile"))
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{worker}.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps({"id": item.nodeid, "self": p1 - p0, "child": c1 - c0, "live": d1 - d0,
                              "waited": _WAITED[0] - waited0, "start": w0, "end": w1, "worker": worker}) + "\n")
