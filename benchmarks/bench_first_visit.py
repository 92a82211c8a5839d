"""What a first visitor and a lecture hall cost, before and after, in one run (issue 32, item 6).

Each side (A = the engine before, by default ``main`` exported with ``git archive`` to a temporary
folder; B = this checkout) is served the way ``make app`` serves it (``python -m fsengine app
--entry app.py --no-warmup``, after a ``fsengine warmup`` of that tree so that no side compiles
numba kernels while measured), and measured in headless Chromium at 1280 x 800:

- per page, on a freshly started server (the browser navigates the moment the server answers its
  health check): seconds from navigation to the first element of the main area, to the page's
  title (``h1``), to its explorable (its slider drawn) or, for a page without one, to its first
  figure, and to the end of the script run with every figure drawn;
- with the BIA page's fit cached (after that first visit, on the same server): the server's CPU
  seconds per view for 1 and for N sessions opened at once (user + system time of the server
  process, from the first navigation until every session's run has ended), and the seconds from
  navigation to the drawn explorable in the browser, with the part after its data arrived (the
  chart element appeared) as "draw".

The floor: before each page, a bare Streamlit page (``st.title`` and one line of text, nothing of the
app) is served by ``streamlit run`` with the app's options on a freshly started server and visited the
same way: its title time is what Streamlit's own start in the browser (its scripts, the session, the
first message) costs on this machine at that moment, which no app code can shorten.

The order of the sides alternates per page (A B, B A, ...), so that a load change falls on both.
Times on a shared machine are inflated: every line carries ``uptime``'s load; compare the ratios.

    python benchmarks/bench_first_visit.py                       # BIA, A = main vs B = this checkout
    python benchmarks/bench_first_visit.py --pages all           # every page
    python benchmarks/bench_first_visit.py --base HEAD~3 --sessions 1,10,30
    python benchmarks/bench_first_visit.py --only B              # this checkout alone
    python benchmarks/bench_first_visit.py --only B --pages bia --sessions ""   # BIA's first visit and the floor
    python benchmarks/bench_first_visit.py --pages bia --sessions "" --draw 6 --base 3730084
                                                                 # the browser's drawing, A/B alternating
    python benchmarks/bench_first_visit.py --pages bia --sessions "" --repeats 6
                                                                 # 6 fresh starts per side, with intervals
    python benchmarks/bench_first_visit.py --pages "" --no-floor --sessions "" --draw 8 --with-path /tmp/site
                                                                 # the cached page with /tmp/site's packages

With ``--repeats N`` every page's first visit (and the floor's) is measured N times, the sides'
order alternating from round to round, and a summary gives each side's mean time to the title and
to the explorable with a bootstrap 95% interval (percentile, 10,000 resamples of the visits), and
the difference B - A of the means with its interval.

Needs ``/usr/bin/chromium`` (never downloads a browser) and the real data (``FSENGINE_DATA``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_tools import MARKS_JS, free_port, launch_chromium, wait_healthy  # noqa: E402

#: URL path -> the explorable's chart key (None: the page's first figure marks it ready)
EXPLORABLES = {"": None, "data": None, "bia": "bia_explorable", "gain": "sgc_stage_figure",
               "bayes_factor": "bf_pairs_explorable", "classic": None, "rtm": "rtm_threshold_figure",
               "compare": None, "benchmark": None}
VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_S = 300

def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def export(rev: str, into: Path) -> Path:
    """The tree of ``rev`` in ``into`` (git archive; the working tree is not touched)."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def tree_env(tree: Path, extra_path: str | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + extra_path if extra_path else "")
    return env


def warm(tree: Path) -> None:
    """Compile that tree's numba kernels (its cache lives beside its sources)."""
    subprocess.run([sys.executable, "-m", "fsengine", "warmup", "--quiet"], cwd=tree, env=tree_env(tree), check=True)


#: the floor's whole app
FLOOR_SCRIPT = """import streamlit as st

st.set_page_config(page_title="Floor", layout="wide")
st.title("Floor")
st.markdown("A bare Streamlit page: a title and one line of text.")
"""


def app_command(port: int) -> list[str]:
    return [sys.executable, "-m", "fsengine", "app", "--entry", "app.py", "--port", str(port), "--no-warmup"]


def floor_command(port: int) -> list[str]:
    from fsengine.app.options import streamlit_flags

    return [sys.executable, "-m", "streamlit", "run", "floor.py",
            *streamlit_flags(port=port, host="127.0.0.1", max_upload_mb=200)]


@contextlib.contextmanager
def server(tree: Path, log: Path, command=app_command, extra_path: str | None = None):
    """``command(port)`` (default: ``python -m fsengine app --entry app.py``) in ``tree`` on a free
    port: yields (url, psutil processes of the server); stopped after."""
    import psutil

    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(command(port), cwd=tree, env=tree_env(tree, extra_path), stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log, timeout_s=120, poll_s=0.05)
        yield url, psutil.Process(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def cpu_seconds(launcher) -> float:
    """User + system CPU seconds of the server (the launcher and its children)."""
    total = 0.0
    for p in [launcher, *launcher.children(recursive=True)]:
        with contextlib.suppress(Exception):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def wait_idle(proc, quiet_cpu_s: float = 0.05, limit_s: float = 300) -> None:
    """Until the server uses less than ``quiet_cpu_s`` of CPU in a second (at most ``limit_s``)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        before = cpu_seconds(proc)
        time.sleep(1.0)
        if cpu_seconds(proc) - before < quiet_cpu_s:
            return


def open_page(browser, url: str, path: str):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.add_init_script(f"window.__explorableKey = {EXPLORABLES.get(path)!r};".replace("None", "null") + MARKS_JS)
    page.goto(f"{url}/{path}", wait_until="commit")
    return context, page


#: every plotly chart of the page drawn (true when there is none)
DRAWN_JS = ("() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
            ".every(e => e.querySelector('.main-svg'))")


def finished(page, path: str) -> bool:
    marks = page.evaluate("() => window.__marks || {}")
    key = EXPLORABLES.get(path)
    state = page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state")
    ready = marks.get("explorable" if key else "title") is not None or marks.get("exception") is not None
    return ready and state == "notRunning" and page.evaluate(DRAWN_JS)


def wait_all(pages, path: str, timeout_s: float = TIMEOUT_S, strict: bool = True) -> list[dict]:
    """Until every page's run has ended with its explorable drawn; returns each page's marks [s]
    and the end of its run [s since navigation]. After ``timeout_s`` an error, or with
    ``strict=False`` the marks so far (no "done")."""
    out = [None] * len(pages)
    deadline = time.monotonic() + timeout_s
    while any(o is None for o in out):
        if time.monotonic() > deadline:
            if strict:
                raise RuntimeError(f"/{path}: not finished after {timeout_s} s")
            return [o or {k: v / 1000 for k, v in p.evaluate("() => window.__marks").items()}
                    for o, (_, p) in zip(out, pages, strict=True)]
        for i, (_, page) in enumerate(pages):
            if out[i] is None and finished(page, path):
                marks = {k: v / 1000 for k, v in page.evaluate("() => window.__marks").items()}
                marks["done"] = page.evaluate("() => performance.now()") / 1000
                out[i] = marks
        time.sleep(0.05)
    return out


def first_visit(browser, tree: Path, path: str, log: Path, timeout_s: float, command=app_command) -> dict:
    """A fresh server, one visitor navigating to ``path`` the moment it answers (marks so far
    after ``timeout_s``), and the server's start: seconds from its launch until it answered."""
    launched = time.monotonic()
    with server(tree, log, command) as (url, proc):
        started = time.monotonic() - launched
        context, page = open_page(browser, url, path)
        marks = wait_all([(context, page)], path, timeout_s, strict=False)[0]
        context.close()
        return {**marks, "start": started}


def lecture_hall(browser, tree: Path, n_sessions: list[int], log: Path, path: str = "bia") -> dict:
    """A page with its results cached (after one visit): server CPU per view and browser times
    for ``n`` sessions opened at once, each in a fresh browser context (as students' browsers,
    which also fetch Streamlit's scripts), and for ``n`` reloads of one browser (scripts cached)."""
    out = {}
    with server(tree, log) as (url, proc):
        context, page = open_page(browser, url, path)  # computes and caches the page's results
        wait_all([(context, page)], path)
        wait_idle(proc)  # the server-start preparation of the other pages, where there is one, has ended
        for n in n_sessions:
            before = cpu_seconds(proc)
            pages = [open_page(browser, url, path) for _ in range(n)]
            marks = wait_all(pages, path)
            out[n] = {"cpu": (cpu_seconds(proc) - before) / n, "marks": marks, "load": load()}
            for other, _ in pages:
                other.close()
        before = cpu_seconds(proc)
        for _ in range(max(n_sessions)):
            page.reload(wait_until="commit")
            wait_all([(context, page)], path)
        out["reload"] = {"cpu": (cpu_seconds(proc) - before) / max(n_sessions), "load": load()}
        context.close()
    return out


def draw_alternating(browser, sides: dict, n: int, tmp: Path, extra: dict | None = None) -> dict:
    """Both sides served at once, the BIA page cached on each: ``n`` fresh-browser visits per side,
    alternating A B / B A; seconds to the drawn explorable, the part after its element appeared, and
    the server's CPU seconds for the visit. ``extra``: side -> a folder put on that side's path."""
    out = {side: [] for side in sides}
    with contextlib.ExitStack() as stack:
        servers = {}
        for side, tree in sides.items():
            url, proc = stack.enter_context(server(tree, tmp / f"{side}-draw.log",
                                                   extra_path=(extra or {}).get(side)))
            context, page = open_page(browser, url, "bia")
            wait_all([(context, page)], "bia")
            context.close()
            wait_idle(proc)
            servers[side] = (url, proc)
        for i in range(n):
            for side in (list(sides) if i % 2 == 0 else list(sides)[::-1]):
                url, proc = servers[side]
                before = cpu_seconds(proc)
                context, page = open_page(browser, url, "bia")
                m = wait_all([(context, page)], "bia")[0]
                context.close()
                time.sleep(0.3)  # the session's closing
                out[side].append((m["explorable"], m["explorable"] - m["chart"], cpu_seconds(proc) - before))
    return out


def mean_interval(values: list[float], seed: int = 0, n_boot: int = 10_000) -> tuple[float, float, float]:
    """(mean, 2.5 %, 97.5 %) of ``values``: a percentile bootstrap interval of the mean."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    means = np.random.default_rng(seed).choice(x, size=(n_boot, x.size)).mean(axis=1)
    return float(x.mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def difference_interval(b: list[float], a: list[float], seed: int = 0, n_boot: int = 10_000):
    """(mean(b) - mean(a), 2.5 %, 97.5 %): both sides' visits resampled independently."""
    import numpy as np

    rng = np.random.default_rng(seed)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diff = rng.choice(xb, size=(n_boot, xb.size)).mean(axis=1) - rng.choice(xa, size=(n_boot, xa.size)).mean(axis=1)
    return float(xb.mean() - xa.mean()), float(np.quantile(diff, 0.025)), float(np.quantile(diff, 0.975))


def summarise(visits: dict) -> None:
    """Per page and side (and the floor): the mean server start, time to the title, to the chart's
    element (the server has sent the explorable) and to the drawn explorable / first figure over the
    repeated visits, with intervals; and B - A where both sides ran."""
    print("\nMeans over the repeated first visits, bootstrap 95% intervals (percentile, 10,000 resamples)\n")
    print("| page | side | visits | server start [s] | title [s] | chart [s] | explorable / figure [s] | loads |")
    print("|---|---|---|---|---|---|---|---|")
    for (path, side), runs in visits.items():
        cells = []
        for name in ("start", "title", "chart", "explorable" if EXPLORABLES.get(path) else "figure"):
            values = [m[name] for m in runs if m.get(name) is not None]
            cells.append("-" if not values else "{:.2f} ({:.2f}-{:.2f})".format(*mean_interval(values)))
        loads = [m["load"] for m in runs]
        page = "floor" if side == "-" else f"/{path}"
        print(f"| {page} | {side} | {len(runs)} | {' | '.join(cells)} | {min(loads):.1f}-{max(loads):.1f} |")
    for path in dict.fromkeys(p for p, side in visits if side != "-"):
        a, b = visits.get((path, "A")), visits.get((path, "B"))
        if not a or not b:
            continue
        for name in ("start", "title", "chart", "explorable" if EXPLORABLES.get(path) else "figure"):
            va = [m[name] for m in a if m.get(name) is not None]
            vb = [m[name] for m in b if m.get(name) is not None]
            if va and vb:
                print("/{} {}: B - A = {:+.2f} s ({:+.2f} to {:+.2f})".format(path, name, *difference_interval(vb, va)))


def fmt(marks: dict, name: str) -> str:
    value = marks.get(name)
    return "-" if value is None else f"{value:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="revision of the 'before' side A (default: main)")
    parser.add_argument("--pages", default="bia", help="comma-separated URL paths ('' = home), or 'all'")
    parser.add_argument("--sessions", default="1,10", help="sessions opened at once on the cached BIA page")
    parser.add_argument("--only", choices=("A", "B"), help="measure one side only")
    parser.add_argument("--no-warm", action="store_true", help="skip the numba warm-up of each tree")
    parser.add_argument("--draw", type=int, default=0, metavar="N",
                        help="also N alternating visits per side to the cached BIA page, both servers up at once")
    parser.add_argument("--with-path", metavar="DIR",
                        help="with --draw: A = this checkout as installed, B = this checkout with DIR on its path "
                             "(e.g. pip install --target DIR httptools)")
    parser.add_argument("--no-floor", action="store_true", help="skip the bare Streamlit page before each page")
    parser.add_argument("--repeats", type=int, default=1, metavar="N",
                        help="first visits per page and side (fresh servers, sides alternating), with intervals")
    parser.add_argument("--page-timeout", type=float, default=120,
                        help="seconds a first visit is followed at most (a longer run shows '-' as its end)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    paths = list(EXPLORABLES) if args.pages == "all" else args.pages.split(",")
    sessions = [int(n) for n in args.sessions.split(",") if n]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        tmp = Path(tmp)
        sides = {}
        if args.with_path:
            sides = {"A": ROOT, "B": ROOT}
            print(f"A = this checkout, B = this checkout with {args.with_path} on its path")
        elif args.only != "B":
            base = _git("rev-parse", args.base)
            (tmp / "A").mkdir()
            sides["A"] = export(base, tmp / "A")
            print(f"A = {args.base} ({base[:10]}), exported; B = this checkout ({_git('rev-parse', 'HEAD')[:10]}"
                  f"{', with changes' if _git('status', '--porcelain') else ''})")
        if args.only != "A" and not args.with_path:
            sides["B"] = ROOT
        if not args.no_warm:
            for tree in sides.values():
                warm(tree)
        (tmp / "floor").mkdir()
        (tmp / "floor" / "floor.py").write_text(FLOOR_SCRIPT)
        browser = launch_chromium(pw)
        print(f"\n{os.cpu_count()} cores; seconds from navigation on a freshly started server, 1280 x 800\n")
        print("| page | side | server start | main area | title | chart | explorable / figure | run ended | exception "
              "| load |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        visits: dict[tuple[str, str], list[dict]] = {}

        def row(page: str, side: str, m: dict, ready: str) -> None:
            m["load"] = os.getloadavg()[0]
            cells = " | ".join(fmt(m, name) for name in ("start", "main", "title", "chart", ready, "done"))
            print(f"| {page} | {side} | {cells} | {'yes' if 'exception' in m else 'no'} | {load()} |", flush=True)

        for r in range(args.repeats):
            for i, path in enumerate(paths):
                if not args.no_floor:
                    m = first_visit(browser, tmp / "floor", "", tmp / "floor.log", args.page_timeout, floor_command)
                    row("floor", "-", m, "figure")
                    visits.setdefault((path, "-"), []).append(m)
                order = list(sides) if (i + r) % 2 == 0 else list(sides)[::-1]
                for side in order:
                    m = first_visit(browser, sides[side], path, tmp / f"{side}-{path or 'home'}.log", args.page_timeout)
                    row(f"/{path}", side, m, "explorable" if EXPLORABLES.get(path) else "figure")
                    visits.setdefault((path, side), []).append(m)
        if args.repeats > 1:
            summarise(visits)
        if sessions:
            print("\nWith the results cached: server CPU per view (fresh browsers fetch Streamlit's scripts too; "
                  "'reload': one browser reloading); BIA browser times: navigation to the drawn explorable "
                  "(median over the sessions), of which after the chart's element appeared ('draw'). "
                  "Home: the app's floor (a page without figures)\n")
            print("| page | side | sessions at once | server CPU per view [s] | explorable drawn [s] | draw [s] "
                  "| load |")
            print("|---|---|---|---|---|---|---|")
            for path in ("bia", ""):
                for side, tree in sides.items():
                    hall = lecture_hall(browser, tree, sessions, tmp / f"{side}-hall-{path}.log", path)
                    for n, r in hall.items():
                        times = "| - | - "
                        if path and n != "reload":
                            drawn = sorted(m["explorable"] for m in r["marks"])
                            draw = sorted(m["explorable"] - m["chart"] for m in r["marks"])
                            times = f"| {drawn[len(drawn) // 2]:.1f} | {draw[len(draw) // 2]:.1f} "
                        print(f"| /{path} | {side} | {n} | {r['cpu']:.2f} {times}| {r['load']} |", flush=True)
        if args.draw:
            print("\nThe cached BIA page, both sides served at once, visits alternating: seconds to the drawn "
                  "explorable, of which after its element appeared ('draw')\n")
            print("| side | visits | drawn: median (min-max) [s] | draw: median [s] | drawn: mean [s] "
                  "| server CPU per view: mean [s] | load |")
            print("|---|---|---|---|---|---|---|")
            extra = {"B": args.with_path} if args.with_path else None
            results = draw_alternating(browser, sides, args.draw, tmp, extra)
            for side, visits in results.items():
                drawn = sorted(v[0] for v in visits)
                draw = sorted(v[1] for v in visits)
                means = ["{:.2f} ({:.2f}-{:.2f})".format(*mean_interval([v[k] for v in visits])) for k in (0, 2)]
                print(f"| {side} | {len(visits)} | {statistics.median(drawn):.1f} ({drawn[0]:.1f}-{drawn[-1]:.1f}) | "
                      f"{statistics.median(draw):.1f} | {means[0]} | {means[1]} | {load()} |", flush=True)
            if len(results) == 2:
                for k, name in ((0, "drawn"), (2, "server CPU per view")):
                    a, b = ([v[k] for v in results[side]] for side in ("A", "B"))
                    print("{}: B - A = {:+.3f} ({:+.3f} to {:+.3f})".format(name, *difference_interval(b, a)))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
