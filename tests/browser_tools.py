"""Shared helpers of the browser tests and the app benchmark: a Streamlit server on a free
loopback port, Debian's headless Chromium (never downloaded), waiting for a finished run, and
counting the bytes the server sends over the app's websocket.

Without ``/usr/bin/chromium`` the browser tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
RUN_TIMEOUT_S = 240
NAV_LINKS = '.st-key-app_navigation a[data-testid="stPageLink-NavLink"]'
#: Streamlit's own page list (the pages/ folder), which the app must never show
STREAMLIT_NAV = '[data-testid="stSidebarNav"]'


def require_chromium() -> None:
    import pytest

    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is missing (install Debian's chromium; no browser is downloaded)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout_s: float = 60, poll_s: float = 0.3) -> float:
    """Poll ``/_stcore/health`` until it answers; returns the monotonic time it first did."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return time.monotonic()
        except OSError:
            pass  # not listening yet: poll again until the deadline
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"streamlit did not start:\n{log.read_text()[-3000:]}")
        time.sleep(poll_s)


def _address_space_limit(limit: int):
    """``preexec_fn`` capping the child's address space at ``limit`` bytes (RLIMIT_AS)."""
    def apply() -> None:  # pragma: no cover - runs in the child
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    return apply


@contextlib.contextmanager
def streamlit_server(log: Path, env: dict | None = None, extra_args: tuple[str, ...] = (),
                     memory_limit: int | None = None):
    """``streamlit run app.py`` of the checkout on a free port: yields (url, process); stopped after.
    ``memory_limit`` caps the server's address space (a test of a memory bomb must not take the
    machine down when the code regresses)."""
    port = free_port()
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = str(PROJECT_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", *extra_args],
            cwd=PROJECT_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            preexec_fn=None if memory_limit is None else _address_space_limit(memory_limit))
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def app_env(tmp_path_factory) -> dict:
    """The environment of a test's app server: this one, with the caches in the session's temp folder
    unless FSENGINE_CACHE is set, and no server-start preparation unless FSENGINE_PREPARE is set."""
    env = dict(os.environ)
    env.setdefault("FSENGINE_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    env.setdefault("FSENGINE_PREPARE", "0")  # pages compute on demand (the first-visit tests turn it on)
    return env


@contextlib.contextmanager
def healthy_app(tmp_path_factory):
    """The app on a fresh server, once it answers its health check: yields its URL (a test fails,
    naming the server's log, when it does not start)."""
    import pytest

    require_chromium()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with streamlit_server(log, app_env(tmp_path_factory)) as (url, proc):
        try:
            wait_healthy(url, proc, log)
        except RuntimeError as exc:
            pytest.fail(str(exc))
        yield url


@contextlib.contextmanager
def chromium_browser():
    """Debian's headless Chromium under Playwright, closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch_chromium(pw)
        try:
            yield chromium
        finally:
            chromium.close()


def script_state(page) -> str | None:
    return page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state")


def wait_for_run(page, timeout_s: float = RUN_TIMEOUT_S, quiet_polls: int = 4, poll_s: float = 0.4) -> None:
    """Until the script has stopped running for a while (reruns included) and every plotly
    chart has drawn its SVG."""
    app = page.locator('[data-testid="stApp"]')
    app.wait_for(timeout=60_000)
    deadline, quiet = time.monotonic() + timeout_s, 0
    while quiet < quiet_polls:
        if time.monotonic() > deadline:
            raise AssertionError(f"{page.url}: the script run did not finish in {timeout_s:.0f} s")
        quiet = quiet + 1 if script_state(page) == "notRunning" else 0
        time.sleep(poll_s)
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


def sidebar_navigation(page) -> list[str]:
    """The labels of the app's own page links in the sidebar, in order."""
    return [a.inner_text().strip().splitlines()[-1].strip() for a in page.locator(NAV_LINKS).all()]


def problems_on(page) -> list[str]:
    """Exception elements and error boxes on the page, as text."""
    found = [f"exception: {e.inner_text()[:500]}" for e in page.locator('[data-testid="stException"]').all()]
    found += [f"error box: {e.inner_text()[:500]}" for e in page.locator('[data-testid="stAlertContentError"]').all()]
    return found


class FrameCounter:
    """Bytes of every websocket frame the server sends to the page (attach before ``goto``)."""

    def __init__(self, page):
        self.received = 0
        self.frames: list[tuple[float, int]] = []
        self.payloads: list[bytes] = []  # every frame received, in order
        self.sent: list[float] = []
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        ws.on("framereceived", self._received)
        ws.on("framesent", lambda payload: self.sent.append(time.monotonic()))

    def _received(self, payload) -> None:
        size = len(payload)
        self.received += size
        self.payloads.append(payload.encode() if isinstance(payload, str) else payload)
        self.frames.append((time.monotonic(), size))


def slider_thumb(page, label: str):
    """The keyboard-focusable thumb of the Streamlit slider labelled ``label``."""
    box = page.locator('[data-testid="stSlider"]', has_text=label).first
    return box.locator('input[type="range"]').first


def slider_value(page, label: str) -> str:
    """The value the slider shows (its label for the current option)."""
    return slider_thumb(page, label).get_attribute("aria-valuetext")


# --- explorables: figures that carry their own slider (fsengine.plots.explorable) ----------------

#: installs, once per page, a timer from the last mousedown (or key press) on an explorable to its
#: next ``plotly_afterplot``: ``window.__moveTimes`` collects the milliseconds
AFTERPLOT_TIMER_JS = """(key) => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  if (!gd || gd.__moveTimer) return;
  gd.__moveTimer = true;
  window.__moveTimes = window.__moveTimes || [];
  let start = 0;
  const begin = () => { start = performance.now(); };
  gd.addEventListener("mousedown", begin, true);
  gd.addEventListener("keydown", begin, true);
  gd.on("plotly_afterplot", () => { if (start) { window.__moveTimes.push(performance.now() - start); start = 0; } });
}"""


def explorable_state(page, key: str) -> dict:
    """The explorable ``key``'s slider (active index, its value, the number of steps) and its layout
    images' sources (what a move changes)."""
    return page.evaluate("""(key) => {
      const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
      const slider = gd.layout.sliders[0];
      return {active: slider.active, value: slider.steps[slider.active].value, steps: slider.steps.length,
              images: (gd.layout.images || []).map(i => i.source || "")};
    }""", key)


def click_step(page, key: str, fraction: float) -> None:
    """Click the explorable ``key``'s slider rail at ``fraction`` of its length."""
    rail = page.locator(f".st-key-{key} .slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    box = rail.bounding_box()
    page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)


def wait_for_explorable(page, key: str, timeout_ms: int = 60_000) -> None:
    page.wait_for_function("(key) => { const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);"
                           " return gd && gd.layout && gd.layout.sliders && gd.querySelector('.slider-rail-rect'); }",
                           arg=key, timeout=timeout_ms)


# --- first visits: when the page shows what (tests/app/test_first_visit_browser.py, benchmarks) ------

#: an init script (``page.add_init_script``, after ``window.__explorableKey = KEY``): ``window.__marks``
#: holds the milliseconds since navigation of the first main-area element, the first title, the first
#: figure, the explorable's element (``chart``) and its drawn slider, and the first exception box
MARKS_JS = """
(() => {
  const marks = (window.__marks = {});
  const note = (name, found) => { if (marks[name] === undefined && found) marks[name] = performance.now(); };
  const tick = () => {
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) {
      note("main", main.querySelector('[data-testid="stElementContainer"]'));
      note("title", main.querySelector('h1'));
      note("figure", main.querySelector('[data-testid="stPlotlyChart"] .main-svg'));
      const key = window.__explorableKey;
      if (key) {
        note("chart", document.querySelector(`.st-key-${key}`));
        note("explorable", document.querySelector(`.st-key-${key} .slider-rail-rect`));
      }
      note("exception", main.querySelector('[data-testid="stException"]'));
    }
    if (marks.explorable === undefined || marks.figure === undefined) setTimeout(tick, 20);
  };
  tick();
})();
"""
