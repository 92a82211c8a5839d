"""Browser tests of links that carry a view (``bind="query-params"`` widgets, fsengine.app.links), in
the real app (``streamlit run app.py``) in headless Debian Chromium.

Streamlit 1.67 writes a bound selectbox's or radio's *label* into the URL (``theme=Dark``,
``picker_key=Digits+8x8+%28scikit-learn%29``, ``classic_view=L1+path``), and reads only that form.
A link copied from the address bar reproduces the view; a link written by hand with the stable
names (``theme=dark``, the catalogue key ``picker_key=digits``, ``classic_view=l1``) opens the same
view too, and its URL is rewritten to the form the app writes.

Without ``/usr/bin/chromium`` the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser_tools import (
    problems_on,
    wait_for_run,
)

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 800}

#: what the widgets bound to the URL show: the theme, the dataset, lecture mode, the Classic page's criterion
WIDGETS_JS = """() => {
  const sidebar = document.querySelector('[data-testid=stSidebar]');
  const checked = (root, label) => {
    const group = [...root.querySelectorAll('[data-testid=stRadio]')].find(g => g.innerText.startsWith(label));
    const input = group && group.querySelector('input:checked');
    return input ? input.closest('label').innerText.trim() : null;
  };
  const lecture = [...sidebar.querySelectorAll('label')].find(l => l.innerText.includes('Lecture mode'));
  return {theme: checked(sidebar, 'Theme'),
          dataset: sidebar.querySelector('[data-testid=stSelectbox] input').value,
          lecture: lecture.querySelector('input').checked,
          criterion: checked(document.querySelector('[data-testid=stMain]'), 'Criterion')};
}"""


def _open(browser, url: str):
    """A fresh browser context on ``url``, after its runs (and the dark theme's one reload)."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(url)
    wait_for_run(page)
    page.wait_for_timeout(1500)
    wait_for_run(page)
    return page


def _query(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_a_hand_written_link_opens_its_view_and_gets_the_app_s_own_form(app_url, browser):
    page = _open(browser, f"{app_url}/classic?theme=dark&picker_key=wine&classic_view=l1&lecture=true")
    try:
        assert page.evaluate(WIDGETS_JS) == {"theme": "Dark", "dataset": "Wine (scikit-learn)", "lecture": True,
                                             "criterion": "L1 path"}
        query = _query(page)
        assert (query["theme"], query["picker_key"], query["classic_view"], query["lecture"]) == (
            "Dark", "Wine (scikit-learn)", "L1 path", "true")
        assert problems_on(page) == []
    finally:
        page.context.close()


@pytest.mark.heavy  # 39 s of page journeys: make verify; the hand-written link's test stays in make test
def test_a_link_copied_from_the_app_reproduces_the_view(app_url, browser):
    page = _open(browser, f"{app_url}/")
    try:
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.locator("label", has_text="Lecture mode").click()
        wait_for_run(page)
        picker = sidebar.locator('[data-testid="stSelectbox"] input').first
        picker.scroll_into_view_if_needed()  # below the page list at 1280 x 800: its options need room
        sidebar.evaluate("node => node.querySelector('[data-testid=\"stSidebarContent\"]')?.scrollBy(0, 400)")
        picker.click()
        page.get_by_role("option", name="Digits 8x8 (scikit-learn)").click()
        wait_for_run(page)
        sidebar.locator("label", has_text="Dark").click()  # reloads once in the dark theme
        page.wait_for_timeout(1500)
        wait_for_run(page)
        page.locator('a[data-testid="stPageLink-NavLink"]', has_text="Classic").first.click()
        wait_for_run(page)
        page.locator('[data-testid="stMain"] label', has_text="MDL").first.click()
        wait_for_run(page)
        chosen = page.evaluate(WIDGETS_JS)
        assert chosen == {"theme": "Dark", "dataset": "Digits 8x8 (scikit-learn)", "lecture": True,
                          "criterion": "MDL"}
        shared = page.url
    finally:
        page.context.close()
    fresh = _open(browser, shared)
    try:
        assert fresh.evaluate(WIDGETS_JS) == chosen
        assert urlparse(fresh.url).path == "/classic" and problems_on(fresh) == []
    finally:
        fresh.context.close()
