"""Browser tests of the explorables: figures that carry their own slider (fsengine.plots.explorable),
in the real app (``streamlit run app.py``) in headless Debian Chromium.

- On the BIA page a move of the explorable's slider sends and receives no websocket byte,
  redraws the heatmap, and puts the position into the URL after the release; a fresh browser
  opened on that URL shows the same position.
- Every page with an explorable loads without an exception or error box, normal and in lecture
  mode, and a move there costs no byte either; in lecture mode on a 1280 x 800 screen the
  explorable (figure and slider) fits one view. Screenshots of both modes go to
  ``test-artifacts/screenshots/explorable_<page>[_lecture].png``.
- Lecture mode, the dark theme and a preset keep the explorable and its position.

Without ``/usr/bin/chromium`` the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser_tools import (
    FrameCounter,
    click_step,
    explorable_state,
    launch_chromium,
    problems_on,
    require_chromium,
    streamlit_server,
    wait_for_explorable,
    wait_for_run,
    wait_healthy,
)
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.browser

SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 800}
#: page URL path, the explorable's chart key, its URL parameter, a button or radio to click first (or None)
EXPLORABLES = [
    ("bia", "bia_explorable", "bia_ratio", None),
    ("gain", "sgc_stage_figure", "sgc_stage", None),
    ("bayes_factor", "bf_pairs_explorable", "bf_k", None),
    ("classic", "classic_l1_explorable", "classic_l1_C", "L1 path"),
    ("rtm", "rtm_threshold_figure", "rtm_threshold", None),
    ("compare", "compare_k_explorable", "compare_k_view", "Run comparison"),
]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_chromium()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    env = dict(os.environ)
    env.setdefault("FSENGINE_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    with streamlit_server(log, env) as (url, proc):
        try:
            wait_healthy(url, proc, log)
        except RuntimeError as exc:
            pytest.fail(str(exc))
        yield url


@pytest.fixture(scope="module")
def browser(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch_chromium(pw)
        yield chromium
        chromium.close()


def _open(browser, url: str, key: str, action: str | None = None):
    page = browser.new_context(viewport=VIEWPORT).new_page()
    counter = FrameCounter(page)
    page.goto(url)
    wait_for_run(page)
    if action:
        button = page.get_by_role("button", name=action)
        (button if button.count() else page.locator("label", has_text=action).first).click()
        wait_for_run(page)
    wait_for_explorable(page, key)
    return page, counter


def _heat(state) -> str:
    """The BIA heatmap's image (the one pixelated image of the figure)."""
    return next(src for src in state["images"] if src.startswith("data:image/svg+xml"))


def _move(page, counter: FrameCounter, key: str, fraction: float) -> tuple[dict, int, int]:
    """Click the explorable's rail at ``fraction``; its state after 1 s and the websocket bytes
    received and frames sent meanwhile (the wait lets Playwright deliver the frames)."""
    received, sent = counter.received, len(counter.sent)
    click_step(page, key, fraction)
    page.wait_for_timeout(1000)
    return explorable_state(page, key), counter.received - received, len(counter.sent) - sent


def test_bia_move_costs_no_byte_redraws_the_heatmap_and_lands_in_the_url(app_url, browser):
    page, counter = _open(browser, f"{app_url}/bia", "bia_explorable")
    try:
        before = explorable_state(page, "bia_explorable")
        assert before["value"] == "1" and before["steps"] >= 50
        assert "bia_ratio" not in parse_qs(urlparse(page.url).query)  # the default stays out of the URL
        seen = set()
        for fraction in (0.3, 0.12, 0.6):
            after, received, sent = _move(page, counter, "bia_explorable", fraction)
            assert (received, sent) == (0, 0), f"a move cost {received} bytes received, {sent} frames sent"
            assert after["active"] != before["active"] and _heat(after) != _heat(before)
            assert parse_qs(urlparse(page.url).query)["bia_ratio"] == [after["value"]]  # within 1 s of release
            assert problems_on(page) == []
            seen.add(after["value"])
            before = after
        assert len(seen) == 3
        shared = page.url
    finally:
        page.context.close()
    fresh, _ = _open(browser, shared, "bia_explorable")
    try:
        again = explorable_state(fresh, "bia_explorable")
        assert (again["active"], again["value"], _heat(again)) == (after["active"], after["value"], _heat(after))
    finally:
        fresh.context.close()


@pytest.mark.parametrize(("path", "key", "param", "action"), EXPLORABLES, ids=[e[0] for e in EXPLORABLES])
def test_every_explorable_page_loads_moves_for_free_and_fits_a_lecture_screen(app_url, browser, path, key, param,
                                                                              action):
    for lecture in (False, True):
        page, counter = _open(browser, f"{app_url}/{path}" + ("?lecture=true" if lecture else ""), key, action)
        try:
            assert problems_on(page) == [], problems_on(page)
            chart = page.locator(f".st-key-{key}")
            chart.scroll_into_view_if_needed()
            page.mouse.move(1, 1)  # no hover label in the screenshot
            page.wait_for_timeout(300)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"explorable_{path}{'_lecture' if lecture else ''}.png"))
            if lecture:  # the figure and its slider in one 1280 x 800 view
                assert chart.bounding_box()["height"] <= VIEWPORT["height"] - 60
            before = explorable_state(page, key)
            after, received, sent = _move(page, counter, key, 0.2 if before["active"] > before["steps"] / 2 else 0.8)
            assert after["active"] != before["active"] and (received, sent) == (0, 0)
            assert parse_qs(urlparse(page.url).query).get(param) == [after["value"]]
            assert problems_on(page) == []
        finally:
            page.context.close()


def test_a_preset_lecture_mode_and_the_dark_theme_keep_the_explorable_s_position(app_url, browser):
    """The position survives reruns: a button's (Streamlit sends the query string it synced last, here
    one without the move, so the page draws the figure at Λ*; the bridge moves it back to the URL's
    step), a bound widget's (lecture mode) and a reload (the dark theme)."""
    page, counter = _open(browser, f"{app_url}/bia", "bia_explorable")
    try:
        top_k = page.locator('[data-testid="stNumberInput"]', has_text="Top features in red").locator("input")
        top_k.fill("7")
        top_k.press("Enter")
        wait_for_run(page)
        moved, _, _ = _move(page, counter, "bia_explorable", 0.25)
        page.get_by_role("button", name="As in the paper: notMNIST B vs D").click()  # top 20 again: a new figure
        wait_for_run(page)
        page.wait_for_timeout(1000)
        assert explorable_state(page, "bia_explorable")["value"] == moved["value"]
        assert parse_qs(urlparse(page.url).query)["bia_ratio"] == [moved["value"]]
        page.locator('[data-testid="stSidebar"] label', has_text="Lecture mode").click()
        wait_for_run(page)
        wait_for_explorable(page, "bia_explorable")
        font = page.evaluate("() => document.querySelector('.st-key-bia_explorable .js-plotly-plot')"
                             "._fullLayout.font.size")
        assert font >= 18 and explorable_state(page, "bia_explorable")["value"] == moved["value"]
        page.locator('[data-testid="stSidebar"] label', has_text="Dark").click()  # reloads in the dark theme
        page.wait_for_timeout(1500)
        wait_for_run(page)
        wait_for_explorable(page, "bia_explorable")
        colour = page.evaluate("() => document.querySelector('.st-key-bia_explorable .js-plotly-plot')._fullLayout"
                               ".sliders[0].currentvalue.font.color")
        assert colour != "#444444"  # the current value turns light
        assert explorable_state(page, "bia_explorable")["value"] == moved["value"]
        assert problems_on(page) == []
    finally:
        page.context.close()
