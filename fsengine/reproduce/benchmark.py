"""``reproduce benchmark``: the committed benchmark across datasets (``docs/results/benchmark/``).

Every registered method that applies (none listed by hand: a method registered later joins the
next run), the suite of :mod:`fsengine.benchmark.suite` and the protocol of
:mod:`fsengine.benchmark.protocol` (its folds, k grid and the two Holm families, all pairs and
against the control) at its frozen settings; ``--quick`` runs the quick suite with 3 folds and 1
repeat. The tasks (dataset x fold x method) run through :mod:`fsengine.parallel`
(``--n-jobs``, ``--scheduler``) and are kept with ``--keep-tasks``. Writes the run folder of
:mod:`fsengine.benchmark.record` with ``report.md``, ``report.html`` and ``results.json``
(:mod:`fsengine.benchmark.report`); :func:`rerender` writes them again from the run's raw files.
"""

from __future__ import annotations

from pathlib import Path

from fsengine.benchmark.protocol import Settings
from fsengine.progress import Progress
from fsengine.reproduce import results as results_file

#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
KEEPS_TASKS = True
#: the quick run's settings (the full run's are the protocol's defaults)
QUICK_SETTINGS = Settings(folds=3, repeats=1)


def run_and_write(entries, methods, settings: Settings, out_dir: Path, *, quick: bool, command: str,
                  progress: Progress | None = None, n_jobs: int | None = None, scheduler=None) -> Path:
    """Run the benchmark (:func:`fsengine.benchmark.runner.run_benchmark`) and write its run folder
    into ``out_dir``; returns the report's path. Shared by ``fsengine benchmark`` and this target."""
    from fsengine.benchmark import record, report
    from fsengine.benchmark.runner import run_benchmark

    run = run_benchmark(entries, methods, settings, progress=progress, n_jobs=n_jobs, scheduler=scheduler)
    if progress is not None:
        progress(1.0, "writing the report")
    return report.write(record.from_run(run, quick=quick, command=command), Path(out_dir))


def rerender(out_dir: Path) -> Path:
    """The record's summary, aggregate tables, ``report.md``, ``report.html`` and ``results.json``
    written again from the raw files the run kept (:data:`fsengine.benchmark.record.RAW_FILES`: the
    per-fold table, the tops, the statuses, the datasets and methods and ``run.json``), with the
    current code's statistics and words and without fitting anything; a run's own outputs come back
    byte for byte (tested). Returns the report's path."""
    from fsengine.benchmark import record, report

    return report.write(record.from_files(Path(out_dir)), Path(out_dir))


def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None, scheduler=None) -> Path:
    """The full benchmark (or the quick one) into ``out_dir``."""
    from fsengine.benchmark.suite import QUICK, SUITE

    command = "python -m fsengine reproduce benchmark" + (" --quick" if quick else "")
    return run_and_write(QUICK if quick else SUITE, None, QUICK_SETTINGS if quick else Settings(), out_dir,
                         quick=quick, command=command, progress=progress, n_jobs=n_jobs, scheduler=scheduler)


def headline(out_dir: Path) -> str:
    """The record's headline on the results page, formatted from its ``results.json``: per k, the
    Friedman test, the critical difference, the three best average ranks and how many comparisons
    each Holm family resolved."""
    data = results_file.read(Path(out_dir) / results_file.FILENAME)
    rows = {r["quantity"]: r for r in data["rows"]}
    settings = data["inputs"]["settings"]
    control = next(r["quantity"].split(" − ")[1].split(", ")[0] for r in data["rows"]
                   if r["quantity"].endswith("(against the control)"))
    parts = []
    for k in settings["k_grid"].split(","):
        label = f"{float(k):.0%}" if "." in k else k
        at = f"k={label}: "
        ranks = sorted((r["ours"], q[len(at) + len("average rank of "):]) for q, r in rows.items()
                       if q.startswith(at + "average rank of "))
        pairs = sum(q.startswith(at) and " median difference " in q and not q.endswith("(against the control)")
                    for q in rows)
        against = sum(q.startswith(at) and q.endswith("(against the control)") for q in rows)
        parts.append(f"k = {label}: Iman-Davenport F = {rows[at + 'Friedman test, Iman-Davenport F']['ours']:.2f} "
                     f"(p = {rows[at + 'Friedman test, p-value']['ours']:.2g}), critical difference "
                     f"{rows[at + 'Nemenyi critical difference']['ours']:.2f}; best average ranks "
                     + ", ".join(f"{name} {rank:.2f}" for rank, name in ranks[:3])
                     + f"; resolved after Holm: {rows[at + 'all pairs: comparisons resolved']['ours']:.0f} of {pairs} "
                     f"pairs, {rows[at + 'against the control: comparisons resolved']['ours']:.0f} of {against} "
                     f"against the control {control}")
    n_datasets = len(data["inputs"]["datasets"])
    return (f"Committed full run: {n_datasets} datasets, {settings['repeats']} x {settings['folds']} stratified outer "
            f"folds, every selector fitted inside each training fold; ranks over the datasets complete at each k "
            f"(Friedman test in the Iman-Davenport form, Nemenyi's critical difference at 0.05, exact Wilcoxon "
            f"signed-rank tests under Holm in two families). " + "; ".join(parts) + ".")
