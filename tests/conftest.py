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

#: the loopback download server fixtures (fake_source, server, store)
pytest_plugins = ["tests.loopback"]

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


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory):
    """``run(name) -> (report path, progress fractions)``: ``reproduce NAME --quick`` on the real
    data, run once per session however many tests read its output (real-data policy of
    ``require_real``)."""
    from fsengine.reproduce import get_target

    runs = {}

    def run(name: str):
        if name not in runs:
            out = tmp_path_factory.mktemp(name)
            fractions = []
            report = require_real(get_target(name), out, True, lambda f, message="": fractions.append(f))
            runs[name] = (report, fractions)
        return runs[name]

    return run


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
