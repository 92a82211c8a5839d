"""Browser smoke test: the real app (``streamlit run``) in headless Debian Chromium.

Every page listed in ``app.py``'s ``PAGES`` is opened (URL path = page file stem, home = "/"),
the test waits until the script run has finished and the charts are drawn, fails on any
exception element or error box, checks that the page sits inside the shell (sidebar navigation
with exactly the listed pages, the shared dataset picker) and saves a full-page screenshot under
``test-artifacts/screenshots/``. Non-home pages are opened first, as deep links into a fresh
server, because that is where Streamlit's legacy ``pages/`` mode would show up.

Without ``/usr/bin/chromium`` the tests skip, except under CI (``CI=true``), where they fail.
A browser is never downloaded.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from fsengine.app.registry import PAGES as APP_PAGES
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
PAGES = sorted(APP_PAGES, key=lambda p: p.default)      # deep links first, home last
RUN_TIMEOUT_S = 240


def _require_chromium():
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is missing (install Debian's chromium; no browser is downloaded)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """A fresh ``streamlit run app.py`` on a free loopback port; stopped after the module."""
    _require_chromium()
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("FSENGINE_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=PROJECT_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass  # not listening yet: poll again until the deadline
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def wait_for_run(page, timeout_s: float = RUN_TIMEOUT_S) -> None:
    """Until the script has stopped running for a while (reruns included) and every plotly
    chart has drawn its SVG."""
    app = page.locator('[data-testid="stApp"]')
    app.wait_for(timeout=60_000)
    deadline, quiet = time.monotonic() + timeout_s, 0
    while quiet < 4:
        if time.monotonic() > deadline:
            raise AssertionError(f"{page.url}: the script run did not finish in {timeout_s:.0f} s")
        state = app.get_attribute("data-test-script-state")
        quiet = quiet + 1 if state == "notRunning" else 0
        time.sleep(0.4)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
        ".every(e => e.querySelector('.main-svg'))", timeout=60_000)


def full_page_screenshot(page, path: Path) -> None:
    """Streamlit scrolls inside its main container: grow the viewport to the content first."""
    height = page.evaluate(
        "() => Math.max(...['stMain', 'stMainBlockContainer', 'stSidebarContent'].map("
        "id => document.querySelector(`[data-testid=${id}]`)?.scrollHeight || 0))")
    width = page.viewport_size["width"]
    page.set_viewport_size({"width": width, "height": min(int(height) + 80, 16_000)})
    time.sleep(1.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)


NAV_LINKS = '.st-key-app_navigation a[data-testid="stPageLink-NavLink"]'


def sidebar_navigation(page) -> list[str]:
    """The labels of the app's own page links in the sidebar, in order."""
    return [a.inner_text().strip().splitlines()[-1].strip() for a in page.locator(NAV_LINKS).all()]


def problems_on(page) -> list[str]:
    """Exception elements and error boxes on the page, as text."""
    found = [f"exception: {e.inner_text()[:500]}" for e in page.locator('[data-testid="stException"]').all()]
    found += [f"error box: {e.inner_text()[:500]}" for e in page.locator('[data-testid="stAlertContentError"]').all()]
    return found


@pytest.mark.parametrize("entry", PAGES, ids=[p.url_path or "home" for p in PAGES])
def test_page_opens_without_errors_inside_the_shell(entry, app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/{entry.url_path}")
        wait_for_run(page)
        full_page_screenshot(page, SCREENSHOTS / f"{entry.url_path or 'home'}.png")
        assert problems_on(page) == [], f"{entry.key}: {problems_on(page)}"
        assert sidebar_navigation(page) == [p.title for p in APP_PAGES], \
            f"sidebar navigation is {sidebar_navigation(page)}"
        assert page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').count() >= 1, \
            "the shared dataset picker is missing from the sidebar"
        assert page.locator('[data-testid="stMain"] h1').count() >= 1
    finally:
        context.close()


def test_sidebar_links_reach_every_page(app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(app_url)
        wait_for_run(page)
        for entry in APP_PAGES:
            page.locator(NAV_LINKS, has_text=entry.title).first.click()
            wait_for_run(page)
            assert page.url.rstrip("/") == f"{app_url}/{entry.url_path}".rstrip("/")
            assert problems_on(page) == [], f"{entry.key}: {problems_on(page)}"
            assert page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').count() >= 1
    finally:
        context.close()


def test_missing_chromium_skips_here_and_fails_under_ci(monkeypatch, tmp_path):
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but .*no-chromium is missing"):
        _require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no-chromium is missing"):
        _require_chromium()


def test_uploaded_names_show_as_text_never_as_links_or_images(app_url, browser, tmp_path):
    """Column names written as markdown (a link, an image on a local address) are shown literally in
    the sidebar's excluded-columns box; the browser never fetches the image."""
    import pandas as pd

    hostile = ["x` [click me](https://example.invalid) `y", "![px](http://127.0.0.1:8765/p.png)"]
    table = tmp_path / "hostile.csv"
    pd.DataFrame({hostile[0]: ["t"] * 12, hostile[1]: [1.0] * 12, "f": range(12), "y": ["a", "b"] * 6}).to_csv(
        table, index=False)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(app_url)
    wait_for_run(page)
    page.locator(".st-key-picker_key").click()
    page.get_by_role("option", name="Your data: upload a CSV or Parquet file").click()
    wait_for_run(page)
    page.locator('.st-key-upload_file input[type="file"]').set_input_files(str(table))
    wait_for_run(page)
    box = page.locator('[data-testid="stSidebar"] [data-testid="stAlertContentWarning"]')
    text = box.inner_text().replace("\u200b", "")  # zero-width spaces break autolinks
    assert hostile[0] in text and hostile[1] in text, text
    assert page.locator('a[href*="example.invalid"]').count() == 0
    assert page.locator('img[src*="8765"]').count() == 0
    assert not [url for url in requested if ":8765" in url]
    full_page_screenshot(page, SCREENSHOTS / "upload_hostile_names.png")
    page.close()
