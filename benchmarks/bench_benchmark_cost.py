"""What the full benchmark run (``fsengine reproduce benchmark``) costs, from one outer fold of each
dataset (results: ``## Benchmark across datasets`` in benchmarks/RESULTS.md).

For every dataset of the suite, in a fresh process of its own: the full protocol's outer folds
(:class:`fsengine.benchmark.protocol.Settings` defaults), and for the first of them every registered
method's task exactly as the run makes it (:func:`fsengine.benchmark.runner.benchmark_task`: the
untimed warm-up on a few rows once per method and process, the timed fit, the protocol's
classifier on the first k features at every k), then the all-features task. Each task's CPU
seconds (``time.process_time``, one BLAS thread as in the run) and the fit's own CPU seconds are
appended as JSON lines to ``--out``; a dataset measured to its end there is skipped (the measurement
resumes).

The full run has ``repeats x folds`` such folds per dataset. ``--summary`` prints, per dataset,
three extrapolations to the full run: ``10 x fits`` (the fits alone: a lower bound), ``10 x tasks``
(the warm-ups and first-use loading counted on every fold: an upper bound, since the run pays them
once per method and process) and a central one, ``10 x fits + c x (tasks - fits)``, where ``c`` is
calibrated on a dataset whose full protocol was run with ``fsengine benchmark`` (``--calibrate
DATASET CPU_SECONDS``: the run's ``cpu_main_process`` from its ``run.json``)::

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_benchmark_cost.py --out cost.jsonl
    PYTHONPATH=. FSENGINE_DATA=../shared/data python -m fsengine benchmark --datasets digits_3_8 --out d38
    PYTHONPATH=. python benchmarks/bench_benchmark_cost.py --out cost.jsonl --summary --calibrate digits_3_8 CPU

(``CPU``: ``seconds.cpu_main_process`` of ``d38/run.json``.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def measure(slug: str, out: Path) -> None:
    """One dataset's first outer fold, every registered method, appended to ``out``."""
    from fsengine.benchmark import runner
    from fsengine.benchmark.protocol import Settings
    from fsengine.benchmark.suite import SUITE
    from fsengine.methods.registry import METHODS

    entry = next(e for e in SUITE if e.slug == slug)
    settings = Settings()
    ds = entry.load()
    ks = tuple(sorted({k.resolve(ds.n_features) for k in settings.ks} - {None}))
    specs = list(METHODS.values())
    job = runner.Job(datasets=(ds,), folds=(runner.outer_folds(ds.y, settings),),
                     methods=tuple((s, s.resolve({})) for s in specs), ks=(ks,), classifier=settings.classifier)
    with out.open("a", encoding="utf-8") as f:
        for m in [runner.ALL_FEATURES, *range(len(specs))]:
            row = {"dataset": slug, "method": "all features" if m < 0 else specs[m].key, "n": ds.n_samples,
                   "p": ds.n_features, "folds": settings.folds * settings.repeats}
            if m >= 0 and runner.applicability(specs[m], ds) is not None:
                f.write(json.dumps({**row, "not_applicable": True}) + "\n")
                continue
            cpu, wall = time.process_time(), time.perf_counter()
            result = runner.benchmark_task(job, (0, 0, m))
            row.update(cpu=time.process_time() - cpu, wall=time.perf_counter() - wall,
                       fit_cpu=0.0 if isinstance(result, str) else result.cpu_seconds)
            if isinstance(result, str):
                row["failed"] = result
            f.write(json.dumps(row) + "\n")
            f.flush()
        f.write(json.dumps({"dataset": slug, "complete": True}) + "\n")


def summary(out: Path, calibrate: tuple[str, float] | None) -> None:
    import pandas as pd

    rows = pd.read_json(out, lines=True).drop_duplicates(["dataset", "method"], keep="last")
    rows = rows[rows["cpu"].notna()].astype({"folds": int})
    per = rows.groupby("dataset", sort=False).agg(tasks=("cpu", "size"), folds=("folds", "first"),
                                                  task_cpu=("cpu", "sum"), fit_cpu=("fit_cpu", "sum"))
    other = per["task_cpu"] - per["fit_cpu"]
    c = 0.0
    if calibrate:
        slug, measured = calibrate
        c = (float(measured) - per.loc[slug, "folds"] * per.loc[slug, "fit_cpu"]) / other[slug]
        print(f"calibrated on {slug}: full run {float(measured):.1f} CPU s -> c = {c:.2f}")
    per["low"] = per["folds"] * per["fit_cpu"]
    per["central"] = per["low"] + c * other
    per["high"] = per["folds"] * per["task_cpu"]
    print(per.round(1).to_string())
    print("total CPU s:", per[["low", "central", "high"]].sum().round(0).to_dict())
    longest = rows.sort_values("fit_cpu", ascending=False).head(10)[["dataset", "method", "fit_cpu", "cpu"]]
    print("longest fits (one fold):\n" + longest.round(2).to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, appended to (resumes)")
    parser.add_argument("--datasets", nargs="+", help="suite slugs (default: the whole suite)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one dataset
    parser.add_argument("--summary", action="store_true", help="print the extrapolation of --out and stop")
    parser.add_argument("--calibrate", nargs=2, metavar=("DATASET", "CPU_SECONDS"))
    args = parser.parse_args()
    if args.one:
        return measure(args.one, args.out)
    if args.summary:
        return summary(args.out, args.calibrate)
    from fsengine.benchmark.suite import SUITE

    done = set()
    if args.out.is_file():
        done = {row["dataset"] for row in map(json.loads, args.out.read_text(encoding="utf-8").splitlines())
                if row.get("complete")}
    for slug in args.datasets or [e.slug for e in SUITE]:
        if slug in done:
            continue
        print(f"{slug} ...", flush=True)
        subprocess.run([sys.executable, __file__, "--out", str(args.out), "--one", slug], check=True)


if __name__ == "__main__":
    main()
