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
Each side runs in one long-lived process (one untimed warm-up run first: numba compilation or
cache loading); the parent then asks them for timed runs in turn, A B A B ..., ``--repeats`` each,
so that a change in the machine's load hits both sides alike. The ratio is median(B) / median(A);
the load average is printed beside every run.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_compare.py [--base REV] [--repeats 5]
        [--n-jobs 1] [--quick]

``--all-methods`` (issue 32): ``fsengine compare`` as a user runs it, every registered method at its
defaults, ``--n-jobs 2`` (``--n-jobs``), on notMNIST B vs D (1,000 x 784) and the movie reviews
(2,000 x 4,752 sparse), one command-line run per dataset. It prints the wall time of each run (the
targets: 90 s and 180 s on the 2-core machine), each method's total fit time (its fit on the
training part and its 5 bootstrap fits, ``runtime.csv``'s ``total_cpu_seconds`` and
``total_seconds``) and its share of the sum over the methods (the target: no method over a
quarter), and ``uptime`` before and after every run (the machine's load is part of the number).
The progress log of each run (stderr) is kept beside the tables (``--keep DIR``).

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_compare.py --all-methods
        [--data notmnist movies] [--n-jobs 2] [--keep DIR]
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
from fsengine.compare.runner import CompareSettings, run_comparison
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


result = page_run()  # untimed: numba compilation or cache loading
print(json.dumps({"fsengine": fsengine.__file__, "columns": list(result.accuracy.columns)}), flush=True)
for line in sys.stdin:  # one timed run per line the parent sends
    t0 = time.perf_counter()
    page_run()
    print(json.dumps({"seconds": time.perf_counter() - t0}), flush=True)
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


class Side:
    """One long-lived process running the page's default run on request."""

    def __init__(self, name: str, tree: Path, n_jobs: int, data: str):
        self.name, self.tree, self.seconds = name, tree, []
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, "0", str(n_jobs), data, ",".join(METHODS)],
                                     cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = self._answer()
        if not self.ready["fsengine"].startswith(str(tree)):
            raise RuntimeError(f"{tree} imported fsengine from {self.ready['fsengine']}")

    def _answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the run in {self.tree} failed (exit code {self.proc.wait()})")
        return json.loads(line)

    def run(self) -> float:
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        self.seconds.append(self._answer()["seconds"])
        return self.seconds[-1]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


#: the datasets of ``--all-methods``, with the wall-time target of each run (issue 32) in seconds
ALL_METHODS_DATA = {"notmnist": ("notmnist:letters=BD", 90.0), "movies": ("movie_reviews", 180.0)}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def all_methods(names: list[str], n_jobs: int, keep: Path | None) -> None:
    """``fsengine compare`` with every registered method at its defaults on each dataset of
    ``names`` (see the module docstring)."""
    import pandas as pd

    from fsengine.methods.registry import method_keys

    keys = method_keys()
    print(f"fsengine compare, every registered method at its defaults ({len(keys)}: {','.join(keys)}), "
          f"--n-jobs {n_jobs}; {os.cpu_count()} cores; HEAD {_git('rev-parse', '--short', 'HEAD')}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_compare_all_") as tmp:
        for name in names:
            spec, target = ALL_METHODS_DATA[name]
            out = (keep or Path(tmp)) / name
            command = [sys.executable, "-m", "fsengine", "compare", "--methods", ",".join(keys), "--data", spec,
                       "--n-jobs", str(n_jobs), "--out", str(out), "--force"]
            before = uptime()
            started = time.perf_counter()
            run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            wall = time.perf_counter() - started
            after = uptime()
            if keep is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / "progress.log").write_text(run.stderr)
            print(f"\n{spec}: {wall:.1f} s wall (target {target:.0f} s: {'met' if wall <= target else 'missed'}); "
                  f"exit code {run.returncode}\n  before: {before}\n  after:  {after}", flush=True)
            if run.returncode != 0:
                print(run.stderr[-2000:])
                continue
            runtime = pd.read_csv(out / "runtime.csv")
            cpu, wall_fits = runtime["total_cpu_seconds"], runtime["total_seconds"]
            print(f"  fits: {cpu.sum():.1f} CPU s, {wall_fits.sum():.1f} s of wall time summed over the fits "
                  f"(each method: its fit on the training part and {int(runtime['bootstrap_fits'].max())} "
                  "bootstrap fits)")
            print("\n| method | CPU [s] | share of CPU | time [s] | share of time | warm-up [s] |")
            print("|---|---|---|---|---|---|")
            for row in runtime.sort_values("total_cpu_seconds", ascending=False).itertuples():
                flag = " **over a quarter**" if row.total_cpu_seconds > 0.25 * cpu.sum() else ""
                print(f"| {row.method} | {row.total_cpu_seconds:.2f} | {row.total_cpu_seconds / cpu.sum():.1%}{flag} "
                      f"| {row.total_seconds:.2f} | {row.total_seconds / wall_fits.sum():.1%} "
                      f"| {row.warmup_seconds:.2f} |", flush=True)
            failures = out / "failures.csv"
            if failures.exists():
                print(f"  failures:\n{failures.read_text()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="revision of the 'before' engine (default: git merge-base HEAD main)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per side, alternating (default 5)")
    parser.add_argument("--n-jobs", type=int,
                        help="worker processes (default 1: serial, the least noisy on a shared machine; the "
                             "page uses every core; --all-methods: default 2, as issue 32 measures)")
    parser.add_argument("--quick", action="store_true", help="notMNIST B/D with 150 rows per class")
    parser.add_argument("--all-methods", action="store_true",
                        help="fsengine compare with every registered method at its defaults (issue 32)")
    parser.add_argument("--data", nargs="+", choices=list(ALL_METHODS_DATA), default=list(ALL_METHODS_DATA),
                        help="--all-methods: the datasets (default: both)")
    parser.add_argument("--keep", type=Path, help="--all-methods: write the tables and progress logs here")
    args = parser.parse_args()
    if args.all_methods:
        all_methods(args.data, args.n_jobs or 2, args.keep)
        return
    args.n_jobs = args.n_jobs or 1
    base = args.base or _git("merge-base", "HEAD", "main")
    data = "notmnist:letters=BD,n_per_class=150" if args.quick else DATA
    head = _git("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if _git("status", "--porcelain") else "")
    print(f"Compare page default run: {data}, methods {','.join(METHODS)}, CompareSettings(), k = 10; "
          f"n_jobs={args.n_jobs}; {args.repeats} timed runs per side, alternating; {os.cpu_count()} cores")
    print(f"  A = {base[:10]} (before), B = {head} (this checkout)")
    with tempfile.TemporaryDirectory(prefix="bench_compare_") as tmp:
        sides = [Side("A", export(base, Path(tmp)), args.n_jobs, data), Side("B", ROOT, args.n_jobs, data)]
        for side in sides:
            print(f"  {side.name}: warmed up; accuracy.csv columns: {', '.join(side.ready['columns'])}", flush=True)
        try:
            for i in range(args.repeats):
                for side in sides if i % 2 == 0 else sides[::-1]:
                    before = load()
                    print(f"  run {i + 1} {side.name}: {side.run():.1f} s  (before: {before}; after: {load()})",
                          flush=True)
        finally:
            for side in sides:
                side.close()
    a, b = (statistics.median(side.seconds) for side in sides)
    print(f"median A {a:.2f} s, median B {b:.2f} s over {args.repeats} runs each: ratio B/A = {b / a:.3f} "
          f"(budget 1.5)")


if __name__ == "__main__":
    main()
