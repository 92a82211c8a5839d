"""Shared fixtures.

Real-data policy: when FSENGINE_DATA is set (CI), a test that needs a missing real file FAILS;
when it is unset, such tests skip with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fsengine import config
from fsengine.data.paths import DataNotFoundError

#: the loopback download server fixtures (fake_source, server, store) and the tiny benchmark run (tiny_run, ...)
pytest_plugins = ["tests.loopback", "tests.benchmark.tiny"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def require_real(fn, *args, **kwargs):
    """Call a loader; skip when data is absent and FSENGINE_DATA is unset, fail when it is set."""
    try:
        return fn(*args, **kwargs)
    except DataNotFoundError as exc:
        if config.data_required():
            pytest.fail(f"FSENGINE_DATA is set but real data is missing: {exc}")
        pytest.skip(f"real data not available (set FSENGINE_DATA): {exc}")


def require_file_uploader(at) -> None:
    """Skip when this Streamlit's AppTest cannot drive ``st.file_uploader`` (it can from 1.56 on;
    the lowest-versions run, ``make test-min``, has an older one). The parsing of uploads is
    tested without AppTest (tests/data/test_upload.py, tests/test_bad_inputs.py)."""
    if not hasattr(at.sidebar, "file_uploader"):
        import streamlit

        pytest.skip(f"AppTest drives st.file_uploader from streamlit 1.56 on; this is {streamlit.__version__}")


def restore_sigint() -> None:
    """``preexec_fn`` for a child a test stops with SIGINT or SIGHUP: a shell starts background jobs
    with SIGINT ignored (POSIX, without job control) and ``nohup`` ignores SIGHUP; the child would
    inherit that (Python then never raises KeyboardInterrupt, ``fsengine app`` keeps a nohup). The
    child gets the default dispositions back, as in a terminal."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory, request):
    """``run(name) -> (report path, progress fractions)``: ``reproduce NAME --quick`` on the real
    data, run once per session however many tests read its output (real-data policy of
    ``require_real``). Under pytest-xdist (``make test`` runs two workers) the run is shared by the
    workers: the first to ask runs it in a folder beside both workers' temporary folders, under a
    file lock, and the others read its report and progress fractions."""
    from fsengine.reproduce import get_target

    runs = {}
    worker = getattr(request.config, "workerinput", None)  # set in pytest-xdist workers only
    shared = None if worker is None else tmp_path_factory.getbasetemp().parent / "quick-reproductions"

    def produce(name: str, out: Path):
        fractions = []
        report = require_real(get_target(name), out, True, lambda f, message="": fractions.append(f))
        return report, fractions

    def run(name: str):
        if name not in runs:
            if shared is None:
                runs[name] = produce(name, tmp_path_factory.mktemp(name))
            else:
                runs[name] = _shared_run(shared / name, lambda out: produce(name, out))
        return runs[name]

    return run


def _shared_run(folder: Path, produce):
    """``produce(folder / "out")`` once across pytest-xdist workers (an ``fcntl`` lock on
    ``folder / "lock"``); its (report, fractions) recorded in ``folder / "done.json"``. A run that
    skipped or failed records nothing, so each worker meets the skip or failure itself."""
    import fcntl
    import json

    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "done.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.is_file():
                out = folder / folder.name  # named after the target, as a test's own folder is
                if out.exists():
                    import shutil

                    shutil.rmtree(out)
                out.mkdir()
                report, fractions = produce(out)
                done.write_text(json.dumps({"report": str(report), "fractions": fractions}), encoding="utf-8")
            record = json.loads(done.read_text(encoding="utf-8"))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return Path(record["report"]), record["fractions"]


@pytest.fixture
def shared_data_root() -> Path:
    """The FSENGINE_DATA folder; skips when unset."""
    root = config.data_root()
    if root is None:
        pytest.skip("FSENGINE_DATA is not set")
    if not root.is_dir():
        pytest.fail(f"FSENGINE_DATA={root} is not a folder")
    return root


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Keep generated caches of tests out of the working tree unless a test opts in."""
    if "FSENGINE_CACHE" not in os.environ:
        monkeypatch.setenv("FSENGINE_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    # no server-start preparation in the background of AppTests (a test of it runs it itself)
    monkeypatch.setenv("FSENGINE_PREPARE", os.environ.get("FSENGINE_PREPARE", "0"))


class _V2PagesManager:
    """Factory replacing AppTest's PagesManager so the ``pages/`` folder is not run as a v1 MPA.

    AppTest resets ``PagesManager.uses_pages_directory`` before every run and then sets it from the
    mere existence of ``pages/`` next to ``app.py``; from the second run on it would execute the
    current page file alone (skipping ``app.py``'s sidebar picker). The real server sets the flag
    to False for good at the first ``st.navigation`` call, so forcing it here matches the server.
    """

    def __new__(cls, *args, **kwargs):
        from streamlit.runtime.pages_manager import PagesManager

        manager = PagesManager(*args, **kwargs)
        PagesManager.uses_pages_directory = False
        return manager


def app_test(page: str | None = None, timeout: float = 60):
    """An AppTest of ``app.py`` (the real shell with its sidebar picker), optionally switched to
    ``page`` (e.g. ``"pages/bia.py"``) and run once."""
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.testing.v1 import AppTest

    app_test_module.PagesManager = _V2PagesManager
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=max(timeout, 30))
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    return at


#: files scheduled together by ``make test``'s ``--dist loadfile`` (one unit, one worker): the browser
#: modules that open pages on the app server of ``tests/app/conftest.py`` (``app_url``). A server computes
#: a page's fits once and serves them to every later visit, so on one worker the Gain, Compare, Bayes-factor,
#: RTM and Benchmark pages are fitted once, where two workers' servers fitted each of them twice (issue 32,
#: item 7). ``tests/app/test_suite_layout.py`` checks that every module asking for ``app_url`` is listed.
SCHEDULED_TOGETHER = {
    "app-server": ("tests/app/test_benchmark_browser.py", "tests/app/test_browser.py",
                   "tests/app/test_deep_links.py", "tests/app/test_explorables.py"),
}


#: the collected modules whose tests ask for ``app_url`` (recorded at collection, before deselection)
APP_SERVER_MODULES = pytest.StashKey[set]()


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, with the files of each :data:`SCHEDULED_TOGETHER` group as one unit, handed
    out first: a group is the longest unit of the run (the app-server group: about a third of the
    parallel part's test time), and xdist otherwise orders units by their number of tests, which
    can start it last and leave one worker running it alone at the end."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    group_of = {path: group for group, paths in SCHEDULED_TOGETHER.items() for path in paths}

    class GroupedFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return group_of.get(scope, scope)

        def _assign_work_unit(self, node) -> None:
            for group in SCHEDULED_TOGETHER:
                if group in self.workqueue:
                    self.workqueue.move_to_end(group, last=False)
            super()._assign_work_unit(node)

    return GroupedFileScheduling(config, log)


def pytest_addoption(parser):
    parser.addoption("--serial-files", metavar="PATH", default=None,
                     help="write the test files that hold tests marked serial (as collected, before -k and -m "
                          "deselect) to PATH, one a line: make test's serial part then collects only those files")


def _module(item) -> str:
    return Path(item.path).relative_to(PROJECT_ROOT).as_posix()


def pytest_collection_modifyitems(config, items):
    """A test that reads a quick paper reproduction (the ``quick_reproduction`` fixture: a real-data
    run of up to a minute and a half) is ``slow``: ``make test`` runs it, ``make test-fast`` does not."""
    for item in items:
        if "quick_reproduction" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    # before -k and -m deselect (pytest's own hook runs after a conftest's): read by tests/app/test_shared_server.py
    config.stash[APP_SERVER_MODULES] = {_module(item) for item in items
                                         if "app_url" in getattr(item, "fixturenames", ())}
    serial_files = config.getoption("serial_files")
    if serial_files:
        _write_serial_files(Path(serial_files), sorted({_module(item) for item in items
                                                        if item.get_closest_marker("serial")}))


def _write_serial_files(path: Path, modules: list[str]) -> None:
    """``--serial-files``: the serial part of ``make test`` collects these files instead of the whole
    suite again (the whole suite's collection took 17 s, 11 CPU s; the serial files' 5 s). Written by
    each pytest-xdist worker (the same list), so through a rename: a reader never sees half a list."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text("".join(f"{module}\n" for module in modules), encoding="utf-8")
    partial.replace(path)

