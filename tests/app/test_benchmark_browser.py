"""The Benchmark page in headless Chromium with a run folder named in the URL: no exception box, the
CD diagram drawn with its k slider, a move of the slider lands in the URL and moves the tables; also at
1280 x 800 in lecture mode (screenshots under test-artifacts/screenshots/). The report.html of the run
opens from file:// with the network blocked and draws every figure."""

from urllib.parse import parse_qs, quote, urlparse

import pytest

from tests.browser_tools import (
    click_step,
    explorable_state,
    full_page_screenshot,
    problems_on,
    wait_for_explorable,
    wait_for_run,
)
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.browser

SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
KEY = "benchmark_cd"


@pytest.mark.parametrize("lecture", [False, True], ids=["normal", "lecture"])
def test_the_page_draws_the_cd_diagram_and_its_slider_moves_the_page(app_url, browser, tiny_folder, tiny_record,
                                                                      lecture):
    viewport = {"width": 1280, "height": 800} if lecture else {"width": 1400, "height": 1000}
    page = browser.new_context(viewport=viewport).new_page()
    try:
        url = f"{app_url}/benchmark?benchmark_folder={quote(str(tiny_folder))}"
        url += "&lecture=true" if lecture else ""
        page.goto(url)
        wait_for_run(page)
        wait_for_explorable(page, KEY)
        assert problems_on(page) == []
        state = explorable_state(page, KEY)
        assert state["steps"] == len(tiny_record.k_labels) and state["value"] == tiny_record.k_labels[0]
        # CD, ranks, similarity, trade-off and the drill-down's three
        assert page.locator('[data-testid="stPlotlyChart"]').count() >= 7
        click_step(page, KEY, 0.5)  # the middle step: k = 5
        page.wait_for_timeout(1000)
        wait_for_run(page)
        assert explorable_state(page, KEY)["value"] == "5"
        assert parse_qs(urlparse(page.url).query)["benchmark_k"] == ["5"]
        assert page.get_by_text("Stability of the top-5 sets over the outer folds").count() >= 1
        assert problems_on(page) == []
        width = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollWidth")
        assert width <= viewport["width"], "the page scrolls sideways"
        full_page_screenshot(page, SCREENSHOTS / f"benchmark{'_lecture' if lecture else ''}.png")
    finally:
        page.context.close()


def test_report_html_opens_offline(browser, tiny_folder):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto((tiny_folder / "report.html").as_uri())
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4",
                               timeout=60_000)
        drawn = page.evaluate("() => document.querySelectorAll('.js-plotly-plot').length")
        assert drawn == page.evaluate("() => document.querySelectorAll('.plotly-graph-div').length") >= 7
        assert page.evaluate("() => document.getElementById('benchmark-cd').layout.sliders[0].steps.length") == 3
        assert errors == []
    finally:
        context.close()
