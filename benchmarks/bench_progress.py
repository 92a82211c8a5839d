"""How long each registered method goes without reporting progress (issue 32, item 4).

Every method is fitted at its registry defaults on the training part (75%, stratified, seed 0) of
each dataset, as a comparison fits it, with a progress callback that notes the time of every
call. The table gives, per method and dataset, the fit's CPU seconds (``time.process_time``: on a
shared machine the wall clock also measures the other processes), the number of reports and the
longest silence: the largest CPU-time gap between two reports, counting the fit's start and end,
and the message heard just before it. The protocol asks for a report at least every second or two
of work (``fsengine.progress``, CONTRIBUTING.md "Progress"). One untimed warm-up fit per method
first (numba compilation). Results in benchmarks/RESULTS.md ("Progress: the longest silence").

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_progress.py \\
        [--data notmnist:letters=BD movie_reviews] [--methods mdl,bayes,...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np


def gaps(calls: list[tuple[float, float, str]], start: tuple[float, float], end: tuple[float, float]):
    """(largest CPU gap, largest wall gap, message before the largest CPU gap)."""
    stamps = [(start[0], start[1], "(start)"), *calls, (end[0], end[1], "(end)")]
    cpu = np.diff([s[1] for s in stamps])
    wall = np.diff([s[0] for s in stamps])
    worst = int(np.argmax(cpu))
    return float(cpu[worst]), float(wall.max()), stamps[worst][2]


def main() -> None:
    from fsengine.data import load_dataset
    from fsengine.data.transforms import split
    from fsengine.methods.registry import METHODS
    from fsengine.methods.run import fit_method, warm_up

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", default=["notmnist:letters=BD", "movie_reviews"])
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated keys (default: every one)")
    args = parser.parse_args()
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}; "
          f"{os.cpu_count()} cores; python {sys.version.split()[0]}")
    print("| data | method | fit CPU [s] | reports | longest silence CPU [s] | (wall [s]) | message before it |")
    print("|---|---|---|---|---|---|---|")
    for spec_text in args.data:
        ds = load_dataset(spec_text)
        train, _ = split(ds, test_size=0.25, seed=0)
        for key in args.methods.split(","):
            spec = METHODS[key]
            values = spec.resolve({})
            try:
                warm_up(spec, values, train)
                calls: list[tuple[float, float, str]] = []
                record = lambda f, m: calls.append((time.perf_counter(), time.process_time(), m))
                start = (time.perf_counter(), time.process_time())
                fit_method(spec, values, train, progress=record)
                end = (time.perf_counter(), time.process_time())
            except Exception as exc:  # a method that cannot run on this data: say so, go on
                print(f"| {ds.name} | {spec.label} | failed: {type(exc).__name__}: {exc} | | | | |", flush=True)
                continue
            cpu, wall, before = gaps(calls, start, end)
            print(f"| {ds.name} | {spec.label} | {end[1] - start[1]:.2f} | {len(calls)} | {cpu:.2f} | ({wall:.2f}) | "
                  f"{before[:60]} |", flush=True)
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
