"""One upload cannot take the server down (issue 30): the svmlight bomb (800 bytes naming feature
2,000,000,000) uploaded in headless Chromium shows one error line, and the server goes on serving
another session. The server runs with a capped address space, so that a regression fails this
test instead of exhausting the machine."""

from __future__ import annotations

import urllib.request

import pytest

from tests.browser_tools import (
    app_env,
    chromium_browser,
    full_page_screenshot,
    require_chromium,
    streamlit_server,
    wait_for_run,
    wait_healthy,
)
from tests.conftest import PROJECT_ROOT
from tests.test_bad_inputs import SVMLIGHT_BOMB, SVMLIGHT_FAR

pytestmark = pytest.mark.browser

SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
#: the server's address space: ample for the app, far below the ~130 GB the bomb once asked for
SERVER_MEMORY_LIMIT = 8 * 2**30
UPLOAD = "Upload a file (CSV, Parquet, svmlight)"


@pytest.fixture(scope="module")
def capped_app(tmp_path_factory):
    require_chromium()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with streamlit_server(log, app_env(tmp_path_factory), memory_limit=SERVER_MEMORY_LIMIT) as (url, proc):
        try:
            wait_healthy(url, proc, log)
        except RuntimeError as exc:
            pytest.fail(str(exc))
        yield url, proc, log


def _choose_upload(page) -> None:
    page.locator(".st-key-picker_key").click()
    page.get_by_role("option", name=UPLOAD).click()
    wait_for_run(page)


def _upload(page, path) -> None:
    page.locator('.st-key-upload_file input[type="file"]').set_input_files(str(path))
    wait_for_run(page)


def _errors(page, where: str = "") -> list[str]:
    return [e.inner_text().strip() for e in page.locator(f'{where} [data-testid="stAlertContentError"]').all()]


def test_the_svmlight_bomb_is_one_error_line_and_the_server_serves_another_session(capped_app, tmp_path):
    url, proc, log = capped_app
    (tmp_path / "bomb.svm").write_bytes(SVMLIGHT_BOMB)
    (tmp_path / "far.svm").write_bytes(SVMLIGHT_FAR)
    with chromium_browser() as chromium:
        visitor = chromium.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        visitor.goto(url)
        wait_for_run(visitor)
        _choose_upload(visitor)
        _upload(visitor, tmp_path / "bomb.svm")
        sidebar = _errors(visitor, '[data-testid="stSidebar"]')
        assert sidebar == ["No usable feature in bomb.svm: every feature is constant."], sidebar
        assert visitor.locator('[data-testid="stException"]').count() == 0
        assert all("\n" not in text and "Traceback" not in text for text in _errors(visitor)), _errors(visitor)
        full_page_screenshot(visitor, SCREENSHOTS / "upload_svmlight_bomb.png")

        # the server still serves: its health check, and another visitor in a session of their own
        assert proc.poll() is None, log.read_text()[-3000:]
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as resp:
            assert resp.status == 200
        other = chromium.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        other.goto(url)
        wait_for_run(other)
        assert other.locator('[data-testid="stException"]').count() == 0 and not _errors(other)
        assert other.locator('[data-testid="stPlotlyChart"], [data-testid="stMetric"]').count() > 0

        # and the first visitor's session goes on: a file naming the same far index loads
        _upload(visitor, tmp_path / "far.svm")
        assert not _errors(visitor, '[data-testid="stSidebar"]')
        assert "20 rows, 1 features" in visitor.locator('[data-testid="stSidebar"]').inner_text()
    assert proc.poll() is None
