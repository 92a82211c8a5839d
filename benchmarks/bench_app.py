"""What a visitor of the app waits for, measured in headless Chromium against ``streamlit run app.py``:

- first visit: from the server's first health answer to the home page's title and the app's own
  navigation in a fresh browser;
- per slider move to a new value (keyboard, as a lecturer drives it): bytes the server sends over
  the websocket, server time (from the rerun request the browser sends to the last message of
  the run), and key press to idle page (script finished and every chart drawn);
- the server alone, without a browser: a full rerun of the BIA page (AppTest) per move of
  "Current Λ/Λ*" to a new value, everything else cached (the fragment's own rerun is a part of it).

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
    ("SGC vs IFS", "gain", "Stage", None),
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


#: resolves after the browser has painted twice: anything the page was drawing is on screen
_PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def _idle(page, counter: FrameCounter, n_sent: int) -> float | None:
    """The moment the run a key press started has finished and the page has painted it. The run
    counts as started once the browser has sent its rerun request and the server has answered (a
    fragment rerun can start and end between two polls of the script state), as finished when
    the page says so; a frame arriving within 0.1 s after that means it was not finished. None
    when the key press sent no request within 3 s (the slider was at the end of its range)."""
    pressed = time.monotonic()
    deadline = pressed + 120
    while time.monotonic() < deadline:
        state = script_state(page)  # a Playwright call: also delivers the frames received so far
        answered = [t for t, _ in counter.frames if len(counter.sent) > n_sent and t > counter.sent[n_sent]]
        if answered and state == "notRunning":
            page.evaluate(_PAINTED)
            idle = time.monotonic()
            time.sleep(0.1)
            script_state(page)
            if counter.frames[-1][0] <= answered[-1]:
                return idle
        elif len(counter.sent) <= n_sent and time.monotonic() - pressed > 3:
            return None
        time.sleep(0.02)
    raise TimeoutError("the page did not become idle within 120 s of the key press")


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
        idle = _idle(page, counter, n_sent)
        time.sleep(0.3)  # late frames of the run
        value = slider_value(page, label)
        if idle is None or value in seen:  # the end of the range, or an old value: turn round, do not count it
            key, turns = ("ArrowLeft" if key == "ArrowRight" else "ArrowRight"), turns + 1
            continue
        seen.add(value)
        frames = [t for t, _ in counter.frames[n_frames:]]
        request = counter.sent[n_sent] if len(counter.sent) > n_sent else pressed
        rows.append({"bytes": counter.received - before, "server_s": (max(frames) - request) if frames else 0.0,
                     "idle_s": idle - pressed, "value": value})
    browser.close()
    return rows


def apptest_moves(n_moves: int) -> list[float]:
    """Seconds per full AppTest rerun of the BIA page after a move of Λ/Λ* to a new value (the
    default notMNIST B/D path cached by the first run)."""
    from fsengine.data import load_dataset
    from fsengine.methods.bia.study import run_bia_path
    from tests.conftest import app_test

    at = app_test("pages/bia.py", timeout=600)
    ratios = run_bia_path(load_dataset("notmnist:letters=BD"), "logistic", n_steps=200,
                          exclude_constant=True).slider_ratios()
    seconds = []
    for value in ratios[-n_moves - 1:-1]:
        t0 = time.perf_counter()
        at.select_slider(key="bia_ratio").set_value(value).run()
        seconds.append(time.perf_counter() - t0)
        if at.exception or at.error:
            raise RuntimeError(f"the BIA page failed at Λ/Λ* = {value}")
    return seconds


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
            if any(s[1] == "bia" for s in sliders):
                server = apptest_moves(n_moves)
                print(f"BIA page, full AppTest rerun per move of Current Λ/Λ* ({n_moves} new values): median "
                      f"{statistics.median(server) * 1000:,.0f} ms (max {max(server) * 1000:,.0f} ms)\n", flush=True)
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
