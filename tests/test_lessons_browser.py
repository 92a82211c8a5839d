"""A lesson's explorable in a browser keeps its slider and its figure in agreement: after a move,
after a reload and in a second tab (headless Chromium, every request that is not a file blocked).

- Exported HTML: lesson 1 is executed with plotly's renderer ``plotly_mimetype+notebook`` (the
  outputs then carry HTML with plotly.js once, which ``jupyter nbconvert --to html`` keeps; the
  user guide says so) and exported by nbconvert; the page is opened from ``file://``.
- JupyterLab (when it is installed: ``pip install "fsengine[jupyter]"``): the lesson runs in a
  JupyterLab server on a loopback port, the explorable is moved, the page reloaded and the lesson
  opened in a second tab; the figure must be drawn at its slider's position each time (the old
  FigureWidgets came back at their first state with the slider elsewhere).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser_tools import PROJECT_ROOT, free_port, launch_chromium, require_chromium
from tests.lecture_browser import ALL_DRAWN, FIGURES_STATE, click_rail, console_errors, offline_context

pytestmark = pytest.mark.browser

LESSON = PROJECT_ROOT / "notebooks" / "01_bia.ipynb"
KERNEL = "fsengine-test"


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch_chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def kernel_path(tmp_path_factory) -> Path:
    """A JUPYTER_PATH with a kernelspec that runs this interpreter on this checkout."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    env = {"PYTHONPATH": str(PROJECT_ROOT)} | {k: os.environ[k] for k in ("FSENGINE_DATA",) if k in os.environ}
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fsengine (test)", "language": "python", "env": env}))
    return root


def explorable_state(page) -> dict:
    states = [s for s in page.evaluate(FIGURES_STATE) if s["slider"]]
    assert len(states) == 1, states
    return states[0]


def moved_and_agreeing(page) -> dict:
    """Move the explorable twice; each time the figure follows and agrees with its slider."""
    before = explorable_state(page)
    assert before["disagree"] == [], before
    for fraction in (0.2, 0.7):
        click_rail(page, before["index"], fraction)
        page.wait_for_timeout(500)
        after = explorable_state(page)
        if after["active"] == before["active"] and os.environ.get("FSENGINE_SCREENSHOTS"):
            page.screenshot(path=str(Path(os.environ["FSENGINE_SCREENSHOTS"]) / "lesson_not_moved.png"))
        assert after["active"] != before["active"] and after["shown"] != before["shown"], (before, after)
        assert after["disagree"] == [], after
        before = after
    return before


def test_exported_lesson_keeps_slider_and_figure_in_agreement(browser, kernel_path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nbconvert = pytest.importorskip("nbconvert")
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_path))
    monkeypatch.setenv("PLOTLY_RENDERER", "plotly_mimetype+notebook")  # the kernel inherits it
    nb = nbformat.read(LESSON, as_version=4)
    nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=300,
                            resources={"metadata": {"path": str(LESSON.parent)}}).execute()
    body, _ = nbconvert.HTMLExporter(template_name="lab").from_notebook_node(nb)
    exported = tmp_path / "01_bia.html"
    exported.write_text(body, encoding="utf-8")

    blocked: list[str] = []
    context = offline_context(browser, blocked)
    try:
        page = context.new_page()
        errors = console_errors(page)
        started = time.monotonic()
        page.goto(exported.as_uri())
        page.wait_for_function(ALL_DRAWN, timeout=30_000)
        print(f"exported lesson 1: {exported.stat().st_size / 1e6:.2f} MB of HTML (plotly.js included once); "
              f"opened to every figure drawn in {time.monotonic() - started:.1f} s")
        first = explorable_state(page)
        moved_and_agreeing(page)
        page.reload()
        page.wait_for_function(ALL_DRAWN, timeout=30_000)
        again = explorable_state(page)  # a reload starts both from the stored position
        assert (again["active"], again["disagree"], again["shown"]) == (first["active"], [], first["shown"])
        second = context.new_page()
        second.goto(exported.as_uri())
        second.wait_for_function(ALL_DRAWN, timeout=30_000)
        assert explorable_state(second)["disagree"] == []
        # nbconvert's template asks a CDN for require.js and MathJax; nothing of the figure does
        assert all("cdnjs.cloudflare.com" in url for url in blocked), blocked
        assert [e for e in errors if "net::ERR_FAILED" not in e] == [], errors
    finally:
        context.close()


@contextlib.contextmanager
def jupyterlab_server(root: Path, kernel_path: Path, log: Path):
    """``jupyter lab`` on a free loopback port serving ``root``: yields its URL (token in it)."""
    port, token = free_port(), "fsengine-test-token"
    env = dict(os.environ, JUPYTER_PATH=str(kernel_path), JUPYTER_CONFIG_DIR=str(root / ".config"),
               JUPYTER_RUNTIME_DIR=str(root / ".runtime"))
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", f"--ServerApp.port={port}",
             "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             "--ServerApp.open_browser=False", "--LabApp.news_url=", "--LabApp.expose_app_in_browser=True",
             "--allow-root"],
            cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter lab did not start:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.5)
        yield url, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


#: the notebook in front has a kernel connected
KERNEL_READY = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
}"""


def lab_page(context, url: str):
    """A JupyterLab page on the lesson (the app exposed as ``window.jupyterapp``), its kernel ready."""
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.wait_for_function(KERNEL_READY, timeout=120_000)
    return page


#: scroll the notebook in front to the first cell whose outputs hold a plotly figure (false: none yet)
SCROLL_TO_FIGURE = """async () => {
  const widget = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const notebook = widget && widget.content;
  if (!notebook || !notebook.widgets) return false;  // the app or the notebook not there yet
  const holds = cell => cell.model.type === 'code' && Array.from({length: cell.model.outputs.length},
    (_, j) => cell.model.outputs.get(j)).some(o => 'application/vnd.plotly.v1+json' in o.data);
  const index = notebook.widgets.findIndex(holds);
  if (index < 0) return false;
  notebook.activeCellIndex = index;
  await notebook.scrollToItem(index, 'center');
  return true;
}"""


def wait_for_explorable(page, timeout_ms: int = 60_000) -> None:
    """The lesson's explorable drawn with its slider, reached as a reader reaches it. JupyterLab 4
    draws only the cells near the view (windowing) and a fresh tab or a reload opens at the top, so
    the cell with the figure is scrolled to. A figure already drawn once is stored with a picture of
    it, which plotly's JupyterLab extension shows in a reopened notebook until the pointer moves over
    it; then it draws the figure from its JSON, slider included."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(SCROLL_TO_FIGURE):
        assert time.monotonic() < deadline, "no cell holds a plotly figure"
        page.wait_for_timeout(500)
    picture = page.locator(".jp-Notebook .jp-RenderedPlotly img.plot-img").first
    while page.query_selector(".jp-Notebook .js-plotly-plot") is None:
        assert time.monotonic() < deadline, "the figure was not drawn"
        if picture.count() and picture.is_visible():
            picture.hover(force=True, timeout=5_000)  # the figure it starts may already cover it
        page.wait_for_timeout(500)
    page.locator(".jp-Notebook .js-plotly-plot").first.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('.jp-Notebook .js-plotly-plot .slider-rail-rect')",
                           timeout=timeout_ms)
    page.wait_for_timeout(500)


def test_lesson_in_jupyterlab_survives_a_reload_and_a_second_tab(browser, kernel_path, tmp_path):
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.skip('JupyterLab is not installed (pip install "fsengine[jupyter]")')
    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(LESSON, root / LESSON.name)
    nb = json.loads((root / LESSON.name).read_text())
    nb["metadata"]["kernelspec"] = {"name": KERNEL, "display_name": "fsengine (test)", "language": "python"}
    (root / LESSON.name).write_text(json.dumps(nb))
    with jupyterlab_server(root, kernel_path, tmp_path / "lab.log") as (url, token):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            notebook_url = f"{url}/lab/tree/{LESSON.name}?token={token}"
            page = lab_page(context, notebook_url)
            started = time.monotonic()
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            wait_for_explorable(page, 240_000)
            print(f"JupyterLab: run all to the explorable drawn: {time.monotonic() - started:.1f} s")
            page.wait_for_function(KERNEL_READY, timeout=120_000)  # every cell has run
            page.evaluate("() => { window.jupyterapp.commands.execute('docmanager:save'); }")
            page.wait_for_timeout(1500)
            moved = moved_and_agreeing(page)
            second = lab_page(context, notebook_url)  # a second tab on the same notebook
            wait_for_explorable(second)
            assert explorable_state(second)["disagree"] == []
            second.close()
            page.reload()
            page.wait_for_function(KERNEL_READY, timeout=120_000)
            wait_for_explorable(page)
            again = explorable_state(page)
            assert again["disagree"] == [], again  # drawn where its slider stands, whatever the position
            assert again["steps"] == moved["steps"]
        finally:
            context.close()
