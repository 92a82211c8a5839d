"""Running rtm-roc: the synthetic study and the corpora's cross-validation as tasks of
:mod:`fsengine.parallel`, and the raw files every reported number is computed from (the record is
rendered from those files alone after every corpus: :mod:`fsengine.reproduce.rtm.render`)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from fsengine.data.paths import DataNotFoundError
from fsengine.methods.rtm import study as rtm_study
from fsengine.methods.rtm.fit import RTMSettings
from fsengine.progress import Progress, scaled
from fsengine.reproduce.rtm.data import write_synthetic
from fsengine.reproduce.rtm.figures import write_synthetic_figures
from fsengine.reproduce.rtm.plan import (
    CORPORA_FULL,
    CORPORA_QUICK,
    GRID_FULL,
    GRID_QUICK,
    SENSITIVITY_CORPUS,
    SYNTHETIC_FULL,
    SYNTHETIC_QUICK,
)
from fsengine.reproduce.rtm.render import render

#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
KEEPS_TASKS = True


#: the recorded runs' sweeps: the plain damped iteration (the Anderson step, the fits' default since
#: issue 32, ends elsewhere within the stopping rule; the recorded numbers stay those of the protocol
#: they were run with until a new full run is recorded)
RECORDED_SWEEPS = dict(anderson_memory=0)


def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None,
        scheduler=None) -> Path:
    """Seeds and (fold, fit) pairs are tasks: ``n_jobs`` local processes or a Dask ``scheduler``
    (:mod:`fsengine.parallel`); the tables do not depend on where they ran. ``progress(fraction,
    message)`` hears every finished task and, when the tasks run here, every sweep of every fit."""
    t0 = time.perf_counter()
    where = dict(n_jobs=n_jobs, scheduler=scheduler)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    synth = SYNTHETIC_QUICK if quick else SYNTHETIC_FULL
    roc = rtm_study.synthetic_roc(synth["seeds"], n_samples=synth["n_samples"], n_tags=synth["n_tags"],
                                  n_relevant=synth["n_relevant"], settings=RTMSettings(alpha0=5.0, **RECORDED_SWEEPS),
                                  methods=rtm_study.VARIANTS, progress=scaled(progress, 0.0, 0.15), **where)
    write_synthetic(out_dir, roc)
    write_synthetic_figures(out_dir, roc)

    corpora = CORPORA_QUICK if quick else CORPORA_FULL
    grid = GRID_QUICK if quick else GRID_FULL
    results, missing = {}, []
    span = 0.85 / len(corpora)
    for k, (key, kw) in enumerate(corpora.items()):
        try:
            results[key] = rtm_study.cv_study(key, methods=rtm_study.VARIANTS,
                                              settings=replace(rtm_study.CORPORA[key].settings, **RECORDED_SWEEPS),
                                              grid=grid if key == SENSITIVITY_CORPUS else None,
                                              progress=scaled(progress, 0.15 + k * span, 0.15 + (k + 1) * span),
                                              **kw, **where)
        except DataNotFoundError as exc:
            missing.append(f"{key}: {str(exc).splitlines()[0]}")
        # after every corpus (the CLI stages out_dir); the last one states the run's duration
        seconds = time.perf_counter() - t0 if k == len(corpora) - 1 else None
        render(out_dir, quick, synth, roc, results, missing, seconds=seconds,
               processes=_processes(n_jobs, scheduler))
    progress(1.0, "report")
    return out_dir / "report.md"


def _processes(n_jobs, scheduler) -> str:
    """Where the tasks ran, and how many were read from kept results (``--keep-tasks``)."""
    from fsengine.parallel import describe
    from fsengine.task_store import reuse_note

    return describe(n_jobs, scheduler) + reuse_note()
