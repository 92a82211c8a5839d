"""``reproduce benchmark``: the committed benchmark across datasets (``docs/results/benchmark/``).

Every registered method that applies (none listed by hand: a method registered later joins the
next run), the suite of :mod:`fsengine.benchmark.suite` and the protocol of
:mod:`fsengine.benchmark.protocol` at its frozen settings; ``--quick`` runs the quick suite with 3
folds and 1 repeat. The tasks (dataset x fold x method) run through :mod:`fsengine.parallel`
(``--n-jobs``, ``--scheduler``) and are kept with ``--keep-tasks``. Writes the run folder of
:mod:`fsengine.benchmark.record` with ``report.md``, ``report.html`` and ``results.json``
(:mod:`fsengine.benchmark.report`).
"""

from __future__ import annotations

from pathlib import Path

from fsengine.benchmark.protocol import Settings
from fsengine.progress import Progress

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


def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None, scheduler=None) -> Path:
    """The full benchmark (or the quick one) into ``out_dir``."""
    from fsengine.benchmark.suite import QUICK, SUITE

    command = "python -m fsengine reproduce benchmark" + (" --quick" if quick else "")
    return run_and_write(QUICK if quick else SUITE, None, QUICK_SETTINGS if quick else Settings(), out_dir,
                         quick=quick, command=command, progress=progress, n_jobs=n_jobs, scheduler=scheduler)
