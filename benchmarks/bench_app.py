"""What a visitor of the app waits for, measured in headless Chromium against ``streamlit run app.py``:

- first visit: from the server's first health answer to the home page's title and the app's own
  navigation in a fresh browser;
- per page with an explorable (a figure that carries its own slider, :mod:`fsengine.plots.explorable`):
  the figure's size on the wire (the largest websocket message of the page's first run, which
  carries it; and the same message deflated, as ``server.enableWebsocketCompression`` would send
  it), then per click on the slider's rail at a new position: the time from the mouse press to the
  figure's next ``plotly_afterplot`` (measured in the page, ``performance.now()``), and the
  websocket bytes received and frames sent until 1 s after the click (a move answers in the
  browser: 0 expected).

    python benchmarks/bench_app.py            # every page with an explorable, 12 moves each
    python benchmarks/bench_app.py --quick    # BIA only, 6 moves
    python benchmarks/bench_app.py --pages bia,classic   # chosen pages (URL paths)

Needs ``/usr/bin/chromium`` (never downloads a browser). Timings depend on the machine's load:
the output starts with ``uptime``'s load averages.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_tools import (  # noqa: E402 - the checkout's tests package, after the path
    AFTERPLOT_TIMER_JS,
    NAV_LINKS,
    FrameCounter,
    click_step,
    explorable_state,
    launch_chromium,
    streamlit_server,
    wait_for_explorable,
    wait_for_run,
    wait_healthy,
)

#: page name, URL path, the explorable's chart key, a button or radio to click first (or None)
PAGES = [
    ("BIA: Lambda paths (notMNIST B vs D)", "bia", "bia_explorable", None),
    ("SGC vs IFS (stage)", "gain", "sgc_stage_figure", None),
    ("Bayes-factor selection (first k pairs)", "bayes_factor", "bf_pairs_explorable", None),
    ("Classic criteria (L1 path: C)", "classic", "classic_l1_explorable", "L1 path"),
    ("Relevance Tagging Machine (threshold)", "rtm", "rtm_threshold_figure", None),
    ("Compare methods (top-k; a release reruns the tables)", "compare", "compare_k_explorable", "Run comparison"),
]
#: where on the rail the moves click: alternating ends, so that each lands on a new position
FRACTIONS = [0.15, 0.85, 0.35, 0.65, 0.05, 0.95, 0.25, 0.75, 0.45, 0.55, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8]


def first_visit(url: str, proc, log: Path, pw) -> float:
    """Seconds from the first health answer to the home title with the app's navigation."""
    t0 = wait_healthy(url, proc, log, poll_s=0.05)
    browser = launch_chromium(pw)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(url)
    while not (page.locator('[data-testid="stMain"] h1').count() and page.locator(NAV_LINKS).count()):
        time.sleep(0.02)
    seconds = time.monotonic() - t0
    browser.close()
    return seconds


class LargestFrame(FrameCounter):
    """A :class:`FrameCounter` that also keeps the largest message received (the explorable's)."""

    def __init__(self, page):
        super().__init__(page)
        self.largest = b""

    def _received(self, payload) -> None:
        super()._received(payload)
        data = payload.encode() if isinstance(payload, str) else payload
        if len(data) > len(self.largest):
            self.largest = data


def measure(url: str, pw, path: str, key: str, action: str | None, n_moves: int) -> dict:
    browser = launch_chromium(pw)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    counter = LargestFrame(page)
    page.goto(f"{url}/{path}")
    wait_for_run(page)
    if action:
        target = page.get_by_role("button", name=action)
        (target if target.count() else page.locator("label", has_text=action).first).click()
        wait_for_run(page)
    wait_for_explorable(page, key)
    frame = counter.largest
    page.evaluate(AFTERPLOT_TIMER_JS, key)
    seen, moves = {explorable_state(page, key)["active"]}, []
    for fraction in FRACTIONS:
        if len(moves) == n_moves:
            break
        received, sent = counter.received, len(counter.sent)
        done = page.evaluate("() => window.__moveTimes.length")
        click_step(page, key, fraction)
        page.wait_for_timeout(1000)  # the URL write (250 ms after the release) and any late frame
        state = explorable_state(page, key)
        times = page.evaluate("() => window.__moveTimes")
        if state["active"] in seen or len(times) <= done:
            continue  # the same position again: not a move
        seen.add(state["active"])
        moves.append({"ms": times[done], "bytes": counter.received - received, "sent": len(counter.sent) - sent})
    steps = explorable_state(page, key)["steps"]
    browser.close()
    return {"frame": len(frame), "deflated": len(zlib.compress(frame, 6)), "steps": steps, "moves": moves}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="BIA only, 6 moves")
    parser.add_argument("--pages", default="", help="comma-separated URL paths (default: all)")
    parser.add_argument("--moves", type=int, default=None, help="moves per page (default 12, --quick 6)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    n_moves = args.moves or (6 if args.quick else 12)
    pages = PAGES[:1] if args.quick else PAGES
    if args.pages:
        pages = [p for p in pages if p[1] in args.pages.split(",")]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        log = Path(tmp) / "streamlit.log"
        with streamlit_server(log, dict(os.environ)) as (url, proc):
            first = first_visit(url, proc, log, pw)
            print(f"uptime load averages (1, 5, 15 min): {' '.join(f'{v:.1f}' for v in os.getloadavg())} "
                  f"on {os.cpu_count()} cores")
            print(f"\nfirst visit after a server start: home title and navigation after {first:.2f} s\n")
            print("| page | slider positions | explorable on the wire: message (deflated) | moves "
                  "| click to plotly_afterplot: median (max) [ms] | first move [ms] "
                  "| bytes received / frames sent per move |")
            print("|---|---|---|---|---|---|---|")
            for name, path, key, action in pages:
                r = measure(url, pw, path, key, action, n_moves)
                ms = [m["ms"] for m in r["moves"]]
                traffic = sorted({(m["bytes"], m["sent"]) for m in r["moves"]})
                print(f"| {name} | {r['steps']} | {r['frame'] / 1e3:,.0f} KB ({r['deflated'] / 1e3:,.0f} KB) "
                      f"| {len(ms)} | {statistics.median(ms):.0f} ({max(ms):.0f}) | {ms[0]:.0f} "
                      f"| {', '.join(f'{b} / {s}' for b, s in traffic)} |" if ms else
                      f"| {name} | {r['steps']} | - | 0 | - | - | - |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
