"""``fsengine benchmark [--methods a,b] [--datasets ITEM ...] [--k 5,10,20,0.05] [--folds F] [--repeats R]
[--classifier logistic|knn] [--param METHOD.K=V] [--n-jobs N | --scheduler ADDR] [--keep-tasks DIR] [--quick]
--out DIR [--force]``: every method on many datasets, with the statistics of Demšar (2006) and Benavoli et al.
(2016) (:mod:`fsengine.benchmark`); the output folder follows :mod:`fsengine.commands.output`."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from fsengine.commands.output import check_target, output_folder
from fsengine.commands.workers import add_worker_arguments, worker_options

NAME = "benchmark"


def add_parser(subparsers) -> argparse.ArgumentParser:
    from fsengine.benchmark import protocol
    from fsengine.benchmark.suite import QUICK, SUITE

    suite = "\n".join(f"  {e.slug:18s} {e.title}" for e in SUITE)
    p = subparsers.add_parser(
        NAME, help="benchmark methods across many datasets (ranks, Friedman, CD, Holm-Wilcoxon)",
        description=textwrap.fill(
            "Fit every method inside repeated stratified outer folds of every dataset, score a classifier on each "
            "method's first k features for every k of a grid fixed before any fit, and write per dataset, method "
            "and k the held-out accuracy (balanced accuracy for unequal classes) with its corrected resampled t "
            "interval, Nogueira stability with its interval, fit time and recall of a known truth; over the "
            "datasets the average ranks, the Friedman test (Iman-Davenport), Nemenyi's critical difference and "
            "Holm-corrected Wilcoxon signed-rank tests of every pair, with report.md, report.html (offline) and "
            "results.json.", 100) + "\n\nthe suite (default):\n" + suite
        + f"\n\n--quick: {', '.join(e.slug for e in QUICK)}; 3 folds, 1 repeat.",
        epilog="examples: fsengine benchmark --quick --out results/bench --n-jobs -1\n"
               "          fsengine benchmark --methods anova,mi,l1 --datasets breast_cancer digits "
               "'notmnist:letters=CG,n_per_class=300' --k 5,10,0.1 --out results/mine\n"
               "          fsengine benchmark --out results/bench --scheduler tcp://10.0.0.5:8786 --keep-tasks tasks/",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--methods", metavar="A,B,C",
                   help="comma-separated method keys (default: every registered method that applies to one of the "
                        "datasets; a method is 'not applicable' where its needs rule it out)")
    p.add_argument("--param", action="append", default=[], metavar="METHOD.K=V",
                   help="a method parameter (repeatable), e.g. --param rfe.step=0.05 (default: the registry's)")
    p.add_argument("--datasets", nargs="+", metavar="ITEM",
                   help="suite slugs, catalogue specs (e.g. digits, 'notmnist:letters=CG') or data files "
                        "(tables as FILE::TARGET, svmlight as FILE); default: the suite")
    p.add_argument("--k", default=protocol.K_GRID, metavar="GRID",
                   help=f"the k grid, sizes and fractions of p (default {protocol.K_GRID})")
    p.add_argument("--folds", type=int, default=None, help=f"outer folds (default {protocol.FOLDS}; --quick 3)")
    p.add_argument("--repeats", type=int, default=None,
                   help=f"repeats of the outer folds (default {protocol.REPEATS}; --quick 1)")
    p.add_argument("--seed", type=int, default=protocol.SEED, help=f"seed of the folds (default {protocol.SEED})")
    p.add_argument("--classifier", default="logistic", choices=list(protocol.CLASSIFIERS),
                   help="the classifier on the first k features (default logistic)")
    p.add_argument("--quick", action="store_true", help="the quick suite, 3 folds and 1 repeat (minutes)")
    p.add_argument("--keep-tasks", type=Path, default=None, metavar="DIR",
                   help="keep every finished task's result in DIR and reuse those an earlier run of the same code, "
                        "data and settings left there (an interrupted run resumes; pickles: use a folder you trust)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="output folder: created; a folder fsengine wrote before is replaced whole")
    p.add_argument("--force", action="store_true", help="replace --out even when it holds files fsengine did not write")
    add_worker_arguments(p)
    return p


def _params(items: list[str]) -> dict:
    from fsengine.methods.registry import get_method

    out: dict = {}
    for item in items:
        head, dot, rest = item.partition(".")
        if not dot or "=" not in rest:
            raise ValueError(f"--param {item!r}: write METHOD.NAME=VALUE, e.g. rfe.step=0.05")
        spec = get_method(head.strip())
        name, _, text = rest.partition("=")
        out.setdefault(spec.key, {})[name.strip()] = spec.param(name.strip()).parse(text.strip())
    return out


def run(args) -> int:
    from fsengine.benchmark.protocol import Settings
    from fsengine.benchmark.suite import resolve
    from fsengine.methods.registry import get_method
    from fsengine.progress import TerminalProgress
    from fsengine.reproduce.benchmark import QUICK_SETTINGS, run_and_write
    from fsengine.task_store import keeping_tasks

    where = worker_options(args)
    params = _params(args.param)
    methods = None
    if args.methods is not None:
        keys = [k.strip() for k in args.methods.split(",") if k.strip()]
        if not keys:
            raise ValueError("--methods: name at least one method, e.g. --methods anova,mi")
        methods = [(get_method(k).key, {}) for k in keys]
        missing = sorted(set(params) - set(keys))
        if missing:
            raise ValueError(f"--param for {', '.join(missing)}, which is not among --methods")
    base = QUICK_SETTINGS if args.quick else Settings()
    settings = Settings(folds=args.folds or base.folds, repeats=args.repeats or base.repeats, seed=args.seed,
                        k_grid=args.k, classifier=args.classifier, params=params)
    entries = resolve(args.datasets, quick=args.quick)
    out = check_target(args.out, force=args.force)  # before any computation
    command = "fsengine benchmark " + " ".join(_argv(args))
    with keeping_tasks(args.keep_tasks), TerminalProgress("benchmark") as bar, \
            output_folder(out, force=args.force, command=NAME) as stage:
        report = run_and_write(entries, methods, settings, stage, quick=args.quick, command=command, progress=bar,
                               **where)
    text = (out / report.name).read_text(encoding="utf-8")
    over = text.split("## Over the datasets", 1)[-1].split("## The protocol", 1)[0]
    print("\n".join(line for line in over.splitlines() if line.startswith(("###", "Over ", "Of ", "No Friedman"))))
    print(f"written to {out}: report.md, report.html, results.json and the tables (folds.csv: the raw per-fold "
          "table)")
    return 0


def _argv(args) -> list[str]:
    """The options as given (for the report's command line)."""
    out = []
    for name in ("methods", "k", "folds", "repeats", "seed", "classifier"):
        value = getattr(args, name)
        if value is not None and not (name == "classifier" and value == "logistic"):
            out.append(f"--{name} {value}")
    if args.datasets:
        out.append("--datasets " + " ".join(args.datasets))
    out += [f"--param {p}" for p in args.param] + (["--quick"] if args.quick else [])
    return out
