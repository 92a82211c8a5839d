"""``fsengine reproduce TARGET [--quick] [--out DIR] [--force] [--keep-tasks DIR]``: re-run a paper's
figure or table.

The output folder follows the rules of :mod:`fsengine.commands.output`: checked before anything is computed,
written whole or not at all (an interrupted run leaves the previous record complete, never half old
and half new).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

from fsengine.commands.output import check_target, output_folder
from fsengine.commands.workers import add_worker_arguments, worker_options
from fsengine.progress import TerminalProgress
from fsengine.reproduce import TARGETS, get_target, target_names
from fsengine.task_store import keeping_tasks

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
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default docs/results/TARGET); replaced whole when the run completes")
    p.add_argument("--force", action="store_true",
                   help="replace --out even if it holds files fsengine did not write")
    p.add_argument("--keep-tasks", type=Path, default=None, metavar="DIR",
                   help="keep every finished task's result in DIR and reuse the ones an earlier run of the same "
                        "code, data and settings left there, so an interrupted long run resumes where it "
                        "stopped (targets that run tasks). Results are pickles, and loading a pickle runs code "
                        "from it: DIR must be a folder only you can write (others' folders and folders every user "
                        "may write are refused). Each result carries a SHA-256 checksum; one that fails it is "
                        "computed again and named in a warning")
    add_worker_arguments(p)
    return p


def _accepts(name: str) -> dict[str, bool]:
    """Which of --n-jobs, --scheduler and --keep-tasks target ``name`` takes: ``n_jobs`` and
    ``scheduler`` keywords of its function; kept tasks when its module says that its work is tasks of
    :func:`fsengine.parallel.map_tasks` (``KEEPS_TASKS = True``)."""
    func = get_target(name)
    keywords = inspect.signature(func).parameters
    return {"--n-jobs": "n_jobs" in keywords, "--scheduler": "scheduler" in keywords,
            "--keep-tasks": bool(getattr(inspect.getmodule(func), "KEEPS_TASKS", False))}


def run(args) -> int:
    func = get_target(args.target)
    where = worker_options(args)
    given = {"--n-jobs": where["n_jobs"] not in (None, 1), "--scheduler": where["scheduler"] is not None,
             "--keep-tasks": args.keep_tasks is not None}
    accepted = _accepts(args.target)
    for option in (o for o, used in given.items() if used and not accepted[o]):
        takers = [n for n in target_names() if _accepts(n)[option]]
        raise ValueError(f"{args.target} does not take {option}; it applies to: {', '.join(takers)}")
    where = {k: v for k, v in where.items() if accepted["--n-jobs" if k == "n_jobs" else "--scheduler"]}
    out = check_target(args.out or Path("docs/results") / args.target, force=args.force)  # before computing
    command = f"reproduce {args.target}{' --quick' if args.quick else ''}"
    with keeping_tasks(args.keep_tasks) as store:
        try:
            with TerminalProgress(f"reproduce {args.target}") as bar, \
                    output_folder(out, force=args.force, command=command) as stage:
                report = func(stage, args.quick, bar, **where)
        finally:
            if store is not None and store.rejected:
                print(f"warning: {store.rejection_note()}", file=sys.stderr)
    print(f"report: {out / Path(report).relative_to(stage)}")
    return 0
