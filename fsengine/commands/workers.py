"""``--n-jobs`` and ``--scheduler``: where the independent tasks of a command run
(:mod:`fsengine.parallel`), shared by ``compare`` and ``reproduce``."""

from __future__ import annotations

import argparse

from fsengine.parallel import backend_for


def add_worker_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n-jobs", type=int, default=1, metavar="N",
                   help="local worker processes for the independent fits (-1: every core; default 1). "
                        "Results are identical for any N")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the fits on the workers of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 "
                        "(pip install 'fsengine[dask]'; the workers need fsengine installed)")


def worker_options(args) -> dict:
    """``n_jobs`` / ``scheduler`` keywords from the parsed arguments, checked (a ValueError says
    what is wrong before any work starts)."""
    n_jobs = None if args.scheduler else args.n_jobs
    if args.scheduler and args.n_jobs != 1:
        raise ValueError("--n-jobs and --scheduler: choose local processes or a Dask cluster, not both.")
    backend_for(n_jobs, args.scheduler)
    return {"n_jobs": n_jobs, "scheduler": args.scheduler}
