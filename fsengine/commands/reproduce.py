"""``fsengine reproduce TARGET [--quick] [--out DIR]``: re-run a paper's figure or table."""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path

from ..reproduce import TARGETS, get_target, target_names
from .progress import ProgressBar
from .workers import add_worker_arguments, worker_options

NAME = "reproduce"


def add_parser(subparsers) -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:16s} {TARGETS[name][2]}" for name in target_names())
    p = subparsers.add_parser(
        NAME, help="reproduce a figure or table of a source paper",
        description="Reproduce a source paper's figure or table; writes HTML figures and a "
                    "markdown report next to the paper's numbers.\n\ntargets:\n" + lines,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", help="one of: " + ", ".join(target_names()))
    p.add_argument("--quick", action="store_true", help="CI-sized run (minutes, not hours)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default docs/results/TARGET)")
    add_worker_arguments(p)
    return p


def _parallel(func) -> bool:
    """Whether a target runs its independent parts as tasks (takes ``n_jobs``)."""
    return "n_jobs" in inspect.signature(func).parameters


def run(args) -> int:
    func = get_target(args.target)
    where = worker_options(args)
    if not _parallel(func):
        if where != {"n_jobs": 1, "scheduler": None}:
            raise ValueError(f"{args.target} runs in one process; --n-jobs and --scheduler apply to: "
                             + ", ".join(n for n in target_names() if _parallel(get_target(n))))
        where = {}
    out = args.out or Path("docs/results") / args.target
    out.mkdir(parents=True, exist_ok=True)
    with ProgressBar(f"reproduce {args.target}") as bar:
        report = func(out, args.quick, bar.update, **where)
    print(f"report: {report}")
    return 0
