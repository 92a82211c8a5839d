"""Browser smoke test: the real app (``streamlit run``) in headless Debian Chromium.

Every page listed in ``app.py``'s ``PAGES`` is opened (URL path = page file stem, home = "/"),
the test waits until the script run has finished and the charts are drawn, fails on any
exception element or error box, checks that the page sits inside the shell (sidebar navigation
with exactly the listed pages, the shared dataset picker) and saves a full-page screenshot under
``test-artifacts/screenshots/``. Non-home pages are opened first, as deep links, because that is
where Streamlit's legacy ``pages/`` mode would show up. The server is the one the browser modules
share (``tests/app/conftest.py``); the first visit to a server of its own is tested below.

The first visit after a server start shows the app's own navigation, polled from the moment the
server answers. The explorables (figures that carry their own slider) are tested in
``test_explorables.py``.

Without ``/usr/bin/chromium`` the tests skip, except under CI (``CI=true``), where they fail.
A browser is never downloaded.
"""

from __future__ import annotations

import time

import pytest

from fsengine.app.registry import PAGES as APP_PAGES
from tests import browser_tools
from tests.browser_tools import (
    NAV_LINKS,
    STREAMLIT_NAV,
    app_env,
    full_page_screenshot,
    problems_on,
    require_chromium,
    sidebar_navigation,
    streamlit_server,
    wait_for_run,
    wait_healthy,
)
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.browser

SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
PAGES = sorted(APP_PAGES, key=lambda p: p.default)      # deep links first, home last


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


@pytest.mark.heavy  # 34 s, every page by its link: make verify; every page opened by URL stays in make test
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
    monkeypatch.setattr(browser_tools, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but .*no-chromium is missing"):
        require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no-chromium is missing"):
        require_chromium()


def test_first_visit_after_a_server_start_shows_the_apps_navigation(tmp_path_factory, browser):
    """Polled from the first moment the server answers: never Streamlit's pages/ list, and the
    home page's title with the app's own links as soon as anything is drawn."""
    log = tmp_path_factory.mktemp("first_visit") / "streamlit.log"
    with streamlit_server(log, app_env(tmp_path_factory)) as (url, proc):
        wait_healthy(url, proc, log, poll_s=0.05)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(url)
            streamlit_list, deadline = 0, time.monotonic() + 120
            while time.monotonic() < deadline:
                streamlit_list += page.locator(STREAMLIT_NAV).count()
                if page.locator('[data-testid="stMain"] h1').count() and page.locator(NAV_LINKS).count():
                    break
                time.sleep(0.05)
            assert streamlit_list == 0, "Streamlit's pages/ list was shown"
            assert sidebar_navigation(page) == [p.title for p in APP_PAGES]
            assert page.locator('[data-testid="stMain"] h1').first.inner_text() == "Feature Selection Explorer"
            assert page.locator(STREAMLIT_NAV).count() == 0
        finally:
            page.close()


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
    page.get_by_role("option", name="Upload a file (CSV, Parquet, svmlight)").click()
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
