"""A first visit on a freshly started server, in headless Chromium (issue 32, item 6).

The server is started as ``make app`` starts it (``python -m fsengine app --entry app.py``, with the
server-start preparation on), and two visitors arrive the moment it answers its health check: one on
the BIA page in lecture mode at 1280 x 800, one on the Data page. On each page the title comes
before the figures (times are recorded in the page, ``tests.browser_tools.MARKS_JS``; their order is
tested, never their size), and no exception or error box shows. Screenshots of both, and of the BIA
page in lecture mode as a projector shows it, go to ``test-artifacts/screenshots/first_visit_*.png``.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from urllib.parse import urlsplit

import pytest

from tests.browser_tools import (
    MARKS_JS,
    app_env,
    chromium_browser,
    free_port,
    full_page_screenshot,
    problems_on,
    require_chromium,
    wait_for_run,
    wait_healthy,
)
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.browser

SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
FIGURES_TIMEOUT_S = 240


@contextlib.contextmanager
def fsengine_app(tmp_path_factory):
    """``python -m fsengine app --entry app.py`` of the checkout with the preparation on: its URL."""
    require_chromium()
    log = tmp_path_factory.mktemp("first_visit") / "server.log"
    env = app_env(tmp_path_factory)
    env["FSENGINE_PREPARE"] = "1"
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "fsengine", "app", "--entry", "app.py", "--port", str(port),
                                 "--no-warmup"], cwd=PROJECT_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log, timeout_s=120, poll_s=0.05)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _visit(browser, url: str, path: str, key: str | None, viewport=(1280, 800)):
    """(context, page, the paths the page requested so far and from now on)."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    requested = []
    page.on("request", lambda request: requested.append(urlsplit(request.url).path))
    page.add_init_script(f"window.__explorableKey = {key!r};".replace("None", "null") + MARKS_JS)
    page.goto(f"{url}/{path}", wait_until="commit")
    return context, page, requested


def _marks(page, wanted: str) -> dict:
    deadline = time.monotonic() + FIGURES_TIMEOUT_S
    while time.monotonic() < deadline:
        marks = page.evaluate("() => window.__marks || {}")
        if wanted in marks or "exception" in marks:
            return marks
        time.sleep(0.1)
    raise AssertionError(f"{page.url}: no {wanted} after {FIGURES_TIMEOUT_S} s; marks {marks}")


def test_on_a_fresh_server_titles_come_before_figures_and_nothing_fails(tmp_path_factory):
    with fsengine_app(tmp_path_factory) as url, chromium_browser() as browser:
        bia = _visit(browser, url, "bia?lecture=true", "bia_explorable")
        data = _visit(browser, url, "data", None)
        for (context, page, requested), wanted, name in ((bia, "explorable", "bia_lecture"), (data, "figure", "data")):
            marks = _marks(page, wanted)
            # the page's HTML told the browser where the server is: no health check under the page's URL first
            assert "/_stcore/health" in requested and not [p for p in requested if p.endswith("/_stcore/health")
                                                             and p != "/_stcore/health"], requested
            assert "exception" not in marks, problems_on(page)
            assert "title" in marks and marks["title"] <= marks[wanted], marks
            wait_for_run(page)
            assert problems_on(page) == [], problems_on(page)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"first_visit_{name}_1280x800.png"))
            full_page_screenshot(page, SCREENSHOTS / f"first_visit_{name}.png")
            context.close()


@pytest.mark.parametrize(("pathname", "base"), [("/bia", "/"), ("/user/x/proxy/8501/bia", "/user/x/proxy/8501/")])
def test_the_base_url_a_page_tells_keeps_a_proxys_prefix(pathname, base):
    """The page's line (``static_assets.BASE_URL_SCRIPT``) drops only the page's own segment."""
    import re

    from fsengine.app.static_assets import BASE_URL_SCRIPT

    expression = re.search(r"location\.pathname(\.replace\(.*\))\}", BASE_URL_SCRIPT).group(1)
    require_chromium()
    with chromium_browser() as browser:
        page = browser.new_page()
        assert page.evaluate(f"p => p{expression}", pathname) == base
        page.close()
