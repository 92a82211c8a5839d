"""The Compare page's default run before and after the intervals (issue 25), A/B in one command
(results: ``## Compare page: intervals and paired differences`` in benchmarks/RESULTS.md).

What is timed is what the page computes for its first view: ``run_comparison`` on notMNIST B/D
(1,000 rows x 784 pixels) with the page's default methods (bia, mi, l1) and ``CompareSettings()``
(5 bootstrap resamples, largest k 50, one split), then at k = 10 every table
(``result.tables(10)``, which now holds the paired differences), every figure
(``comparison_figures(result, 10)``) and the HTML report (``html_report(result, 10)``; the page
builds it for its download button).

A is the engine before this work (by default the commit where this branch left ``main``,
exported with ``git archive`` to a temporary folder, so nothing else differs), B this checkout.
Each side runs in its own process: one untimed warm-up run (numba compilation or cache loading),
then ``--repeats`` timed runs; the sides alternate for ``--rounds`` rounds so that a change in the
machine's load hits both. The ratio is median(B) / median(A) over all timed runs; the load
average is printed beside every round.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_compare.py [--base REV] [--repeats 3]
        [--rounds 2] [--n-jobs 1] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METHODS = ["bia", "mi", "l1"]  # the page's DEFAULT_METHODS
DATA = "notmnist:letters=BD"

CHILD = """
import json, sys, time
from fsengine.compare.engine import CompareSettings, run_comparison
from fsengine.compare.report import comparison_figures, html_report
from fsengine.data import load_dataset
import fsengine

repeats, n_jobs, data = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
methods = sys.argv[4].split(",")
ds = load_dataset(data)


def page_run():
    result = run_comparison(ds, methods, CompareSettings(), n_jobs=n_jobs)
    result.tables(10)
    comparison_figures(result, 10)
    html_report(result, 10)
    return result


page_run()  # untimed: numba compilation or cache loading
seconds = []
for _ in range(repeats):
    t0 = time.perf_counter()
    result = page_run()
    seconds.append(time.perf_counter() - t0)
print(json.dumps({"seconds": seconds, "fsengine": fsengine.__file__, "n_test": result.n_test,
                  "columns": list(result.accuracy.columns)}))
"""


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def export(rev: str, into: Path) -> Path:
    """The tree of ``rev`` in ``into`` (git archive; the working tree is not touched)."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def timed(tree: Path, repeats: int, n_jobs: int, data: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", CHILD, str(repeats), str(n_jobs), data, ",".join(METHODS)],
                         cwd=tree, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"the run in {tree} failed:\n{out.stderr[-3000:]}")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    if not report["fsengine"].startswith(str(tree)):
        raise RuntimeError(f"{tree} imported fsengine from {report['fsengine']}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="revision of the 'before' engine (default: git merge-base HEAD main)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per process (default 3)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds A, B (default 2)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="worker processes (default 1: serial, the least noisy on a shared machine; the "
                             "page uses every core)")
    parser.add_argument("--quick", action="store_true", help="notMNIST B/D with 150 rows per class, 1 round")
    args = parser.parse_args()
    base = args.base or _git("merge-base", "HEAD", "main")
    data = "notmnist:letters=BD,n_per_class=150" if args.quick else DATA
    rounds = 1 if args.quick else args.rounds
    head = _git("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if _git("status", "--porcelain") else "")
    print(f"Compare page default run: {data}, methods {','.join(METHODS)}, CompareSettings(), k = 10; "
          f"n_jobs={args.n_jobs}; {args.repeats} timed runs per process x {rounds} rounds; {os.cpu_count()} cores")
    print(f"  A = {base[:10]} (before), B = {head} (this checkout)")
    seconds: dict[str, list[float]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory(prefix="bench_compare_") as tmp:
        trees = {"A": export(base, Path(tmp)), "B": ROOT}
        for r in range(rounds):
            for side in ("A", "B") if r % 2 == 0 else ("B", "A"):
                before = load()
                t0 = time.perf_counter()
                report = timed(trees[side], args.repeats, args.n_jobs, data)
                seconds[side] += report["seconds"]
                print(f"  round {r + 1} {side}: " + ", ".join(f"{s:.1f}" for s in report["seconds"])
                      + f" s  (process {time.perf_counter() - t0:.0f} s; before: {before}; after: {load()}; "
                        f"accuracy.csv columns: {', '.join(report['columns'])})", flush=True)
    a, b = statistics.median(seconds["A"]), statistics.median(seconds["B"])
    print(f"median A {a:.2f} s, median B {b:.2f} s over {len(seconds['A'])} runs each: ratio B/A = {b / a:.3f} "
          f"(budget 1.5)")


if __name__ == "__main__":
    main()
