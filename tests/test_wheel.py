"""The product as a pip user gets it: build the wheel, install it into a fresh virtual
environment, start ``fsengine app`` from an empty folder and draw the BIA page in Chromium.

Checks on the way: the wheel carries the app (views, entry script), the recorded results and the
lessons (``fsengine notebooks`` copies them out of the installed package);
``fsengine --version`` reports the single-sourced version; nothing is written into
site-packages (downloads and caches go to the per-user folders under the test's HOME).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from fsengine import __version__
from tests.browser_tools import CHROMIUM, CHROMIUM_ARGS, problems_on, wait_for_run
from tests.browser_tools import free_port as _free_port
from tests.browser_tools import require_chromium as _require_chromium
from tests.conftest import PROJECT_ROOT

# the wheel's build and install into a fresh environment take a minute of CPU: make verify runs them
pytestmark = [pytest.mark.browser, pytest.mark.heavy]


def _run(cmd, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv python, environment without the checkout) after ``pip install fsengine-*.whl``."""
    _require_chromium()
    root = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(PROJECT_ROOT)])
    wheel = next((root / "dist").glob("fsengine-*.whl"))
    venv = root / "venv"
    _run([sys._base_executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(wheel)])
    home = root / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FSENGINE_", "PYTHON", "VIRTUAL_ENV", "XDG_"))}
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    if os.environ.get("FSENGINE_DATA"):
        env["FSENGINE_DATA"] = os.environ["FSENGINE_DATA"]  # real notMNIST when CI has it
    return wheel, python, env, root


def test_wheel_carries_the_app_and_the_recorded_results(installed):
    wheel = installed[0]
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("fsengine/app/main.py", "fsengine/app/shell.py", "fsengine/app/views/bia.py",
                   "fsengine/app/views/home.py", "fsengine/recorded/rtm-roc/accuracy_folds.csv"):
        assert needed in names, f"{needed} is missing from {wheel.name}"
    lessons = sorted(p.name for p in (PROJECT_ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(n.split("/")[-1] for n in names if n.startswith("fsengine/lessons/")) == lessons
    assert not [n for n in names if n.startswith(("pages/", "app.py", "tests/", "datasets/", "notebooks/"))]


def test_installed_command_line_and_user_folders(installed):
    _, python, env, root = installed
    out = _run([str(python), "-m", "fsengine", "--version"], env=env, cwd=root).stdout
    assert out.strip() == f"fsengine {__version__}"
    code = ("from fsengine import config; print(config.in_checkout()); print(config.datasets_dir()); "
            "print(config.cache_dir()); print(config.results_dir())")
    in_checkout, datasets, cache, results = _run([str(python), "-c", code], env=env, cwd=root).stdout.split()
    home = env["HOME"]
    assert in_checkout == "False"
    assert datasets.startswith(home) and cache.startswith(home), (datasets, cache)
    assert (Path(results) / "rtm-roc" / "accuracy_folds.csv").is_file()
    said = _run([str(python), "-m", "fsengine", "notebooks", "--out", "lessons"], env=env, cwd=root).stdout
    shipped = sorted((PROJECT_ROOT / "notebooks").glob("*.ipynb"))
    assert f"{len(shipped)} lessons in lessons ({len(shipped)} copied)" in said and "jupyter lab lessons" in said
    for path in shipped:
        assert (root / "lessons" / path.name).read_bytes() == path.read_bytes()


def test_fsengine_app_serves_the_bia_page_from_an_empty_folder(installed):
    _, python, env, root = installed
    empty = root / "empty"
    empty.mkdir()
    port = _free_port()
    log = root / "app.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([str(python), "-m", "fsengine", "app", "--port", str(port)],
                                  cwd=empty, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass  # not listening yet
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/bia")
            wait_for_run(page)
            assert problems_on(page) == []
            assert "BIA" in page.locator('[data-testid="stMain"] h1').first.inner_text()
            assert page.locator('[data-testid="stPlotlyChart"]').count() >= 3
            browser.close()
        assert list(empty.iterdir()) == [], "the app wrote into the folder it was started from"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    site = next((root / "venv" / "lib").glob("python3*/site-packages"))
    assert not (site / "datasets").exists(), "downloads or caches went into site-packages"
