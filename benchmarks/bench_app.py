"""What a visitor of the app waits for, measured in headless Chromium against ``streamlit run app.py``:

- first visit: from the server's first health answer to the home page's title and the app's own
  navigation in a fresh browser;
- per slider move to a new value (keyboard, as a lecturer drives it): bytes the server sends over
  the websocket, server time (from the rerun request the browser sends to the last message of
  the run), and key press to idle page (script finished and every chart drawn).

    python benchmarks/bench_app.py            # BIA, SGC vs IFS, RTM, Classic (L1), Compare; 8 moves each
    python benchmarks/bench_app.py --quick    # BIA only, 4 moves
    python benchmarks/bench_app.py --pages bia,classic   # chosen pages (URL paths), 8 moves each

Needs ``/usr/bin/chromium`` (never downloads a browser). Timings depend on the machine's load:
the table header records the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_tools import (  # noqa: E402 - the checkout's tests package, after the path
    NAV_LINKS,
    FrameCounter,
    launch_chromium,
    script_state,
    slider_thumb,
    slider_value,
    streamlit_server,
    wait_for_run,
    wait_healthy,
)

#: page, URL query, slider label, how to get there after loading (None or a button to press)
SLIDERS = [
    ("BIA: Lambda paths", "bia", "Current Λ/Λ*", None),
    ("SGC vs IFS", "sgc_ifs", "Stage", None),
    ("Relevance Tagging Machine", "rtm", "Relevance threshold", None),
    ("Classic criteria (L1 path)", "classic?classic_view=L1+path", "C for the coefficient image", None),
    ("Compare methods", "compare?picker_key=synthetic_glm", "Top-k size", "Run comparison"),
]


def first_visit(url: str, proc, log: Path, pw) -> float:
    """Seconds from the first health answer to the home title with the app's navigation."""
    t0 = wait_healthy(url, proc, log, poll_s=0.05)
    browser = launch_chromium(pw)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    while not (page.locator('[data-testid="stMain"] h1').count() and page.locator(NAV_LINKS).count()):
        time.sleep(0.02)
    seconds = time.monotonic() - t0
    browser.close()
    return seconds


def _idle(page, since_running: bool) -> None:
    """Until the run started by a key press has finished and every chart is drawn (fine polling)."""
    deadline = time.monotonic() + 120
    seen_running = not since_running
    while time.monotonic() < deadline:
        state = script_state(page)
        seen_running = seen_running or state == "running"
        if seen_running and state == "notRunning":
            break
        time.sleep(0.02)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
        ".every(e => e.querySelector('.main-svg'))", timeout=60_000)


def moves(url: str, pw, path: str, label: str, button: str | None, n_moves: int) -> list[dict]:
    browser = launch_chromium(pw)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    counter = FrameCounter(page)
    page.goto(f"{url}/{path}")
    wait_for_run(page)
    if button:
        page.get_by_role("button", name=button).click()
        wait_for_run(page)
    thumb = slider_thumb(page, label)
    seen, rows = {slider_value(page, label)}, []
    key, turns = "ArrowRight", 0
    while len(rows) < n_moves and turns < 3:
        n_frames, n_sent, before = len(counter.frames), len(counter.sent), counter.received
        thumb.focus()
        pressed = time.monotonic()
        page.keyboard.press(key)
        _idle(page, since_running=True)
        idle = time.monotonic()
        time.sleep(0.3)  # late frames of the run
        value = slider_value(page, label)
        if value in seen:  # the end of the range, or an old value: turn round, do not count it
            key, turns = ("ArrowLeft" if key == "ArrowRight" else "ArrowRight"), turns + 1
            continue
        seen.add(value)
        frames = [t for t, _ in counter.frames[n_frames:]]
        request = counter.sent[n_sent] if len(counter.sent) > n_sent else pressed
        rows.append({"bytes": counter.received - before, "server_s": (max(frames) - request) if frames else 0.0,
                     "idle_s": idle - pressed, "value": value})
    browser.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="BIA only, 4 moves")
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: all)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    n_moves = 4 if args.quick else 8
    sliders = SLIDERS[:1] if args.quick else SLIDERS
    if args.pages:
        sliders = [s for s in sliders if s[1].split("?")[0] in args.pages.split(",")]
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        log = Path(tmp) / "streamlit.log"
        with streamlit_server(log, env) as (url, proc):
            first = first_visit(url, proc, log, pw)
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
            print(f"\nfirst visit after a server start: home title and navigation after {first:.2f} s\n")
            print("| page | slider | moves | bytes per move: median (max) | server time per move: median [ms] "
                  "| key to idle: median (max) [s] |")
            print("|---|---|---|---|---|---|")
            for page_name, path, label, button in sliders:
                rows = moves(url, pw, path, label, button, n_moves)
                if not rows:
                    print(f"| {page_name} | {label} | 0 | - | - | - |")
                    continue
                b = [r["bytes"] for r in rows]
                s = [r["server_s"] * 1000 for r in rows]
                i = [r["idle_s"] for r in rows]
                print(f"| {page_name} | {label} | {len(rows)} | {statistics.median(b) / 1000:,.0f} KB "
                      f"({max(b) / 1000:,.0f} KB) | {statistics.median(s):,.0f} | {statistics.median(i):.2f} "
                      f"({max(i):.2f}) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
