"""The lecture pack opened from ``file://`` in headless Chromium with the network blocked (every
request that is not a file aborted): every page draws every figure and its equations, every
figure's slider moves the figure and stays in agreement with it, and no page asks for anything
beyond the folder. Screenshots go to ``$FSENGINE_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from fsengine.cli import main
from fsengine.lecture import METHOD_PAGES
from tests.browser_tools import launch_chromium, require_chromium
from tests.lecture_browser import ALL_DRAWN, FIGURES_STATE, click_rail, console_errors, offline_context

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lecture") / "pack"
    assert main(["lecture", "--data", "letters:letters=BD,n_per_class=40", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch_chromium(p)
        yield chromium
        chromium.close()


def test_the_pack_works_from_files_with_the_network_blocked(pack, browser):
    shots = os.environ.get("FSENGINE_SCREENSHOTS")
    blocked: list[str] = []
    context = offline_context(browser, blocked)
    page = context.new_page()
    errors = console_errors(page)
    try:
        page.goto((pack / "index.html").as_uri())
        links = page.eval_on_selector_all("table.pages a", "links => links.map(a => a.getAttribute('href'))")
        assert sorted(links) == sorted(p.name for p in pack.glob("*.html") if p.name != "index.html")
        assert len(links) == len(METHOD_PAGES), links
        for link in links:
            started = time.monotonic()
            page.goto((pack / link).as_uri())
            page.wait_for_function(ALL_DRAWN, timeout=30_000)
            print(f"lecture {link}: {(pack / link).stat().st_size / 1e3:.0f} kB, "
                  f"opened to every figure drawn in {time.monotonic() - started:.1f} s")
            heights = page.eval_on_selector_all("math[display=block]", "ms => ms.map(m => m.getBoundingClientRect()"
                                                                       ".height)")
            assert heights and min(heights) > 15, f"{link}: equations not drawn ({heights})"
            figures = page.evaluate(FIGURES_STATE)
            explorables = [f for f in figures if f["slider"]]
            assert explorables, f"{link}: no figure with a slider"
            if shots:
                page.screenshot(path=str(Path(shots) / f"lecture_{link.replace('.html', '')}.png"), full_page=True)
            for before in explorables:
                assert before["disagree"] == [], f"{link}: {before}"
                seen = {before["active"]}
                for fraction in (0.15, 0.85):
                    click_rail(page, before["index"], fraction)
                    page.wait_for_timeout(400)
                    after = next(f for f in page.evaluate(FIGURES_STATE) if f["index"] == before["index"])
                    assert after["disagree"] == [], f"{link}: the figure disagrees with its slider: {after}"
                    seen.add(after["active"])
                    if after["active"] != before["active"]:
                        assert after["shown"] != before["shown"], f"{link}: a move changed nothing shown"
                    before = after
                assert len(seen) >= 2, f"{link}: the slider did not move ({seen})"
        assert blocked == [], f"the pack asked the network for {blocked}"
        assert errors == [], errors
    finally:
        context.close()
