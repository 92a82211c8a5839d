"""``fsengine compare --methods a,b,MODULE:CLASS --data SPEC|FILE [--target COL] [--reference METHOD] [--repeats N]
--out DIR [--force]``: the Compare page, headless (output folder rules: :mod:`fsengine.commands.output`)."""

from __future__ import annotations

import argparse
import sys
import textwrap

from fsengine.commands.method_args import (
    add_data_arguments,
    check_data_arguments,
    data_notes,
    load_data,
    methods_help,
    parse_classes,
)
from fsengine.commands.output import check_target, output_folder
from fsengine.commands.workers import add_worker_arguments, worker_options
from fsengine.compare.settings import CompareSettings
from fsengine.methods.registry import method_keys
from fsengine.progress import TerminalProgress

NAME = "compare"


def add_parser(subparsers) -> argparse.ArgumentParser:
    defaults = CompareSettings()
    p = subparsers.add_parser(
        NAME, help="compare several methods on one dataset",
        description=textwrap.fill("Fit every method on a training split, then write held-out accuracy against k "
                    "(logistic regression on each method's first k features) with 95% intervals, the "
                    "paired difference of every method from a reference method at every k with its "
                    "interval and verdict (better / worse / not resolved; Bonferroni over the methods), "
                    "the pairwise Jaccard overlap and the stability of the top-k sets over bootstrap resamples "
                    "(Kuncheva's index with a jackknife interval; Nogueira et al.'s estimator with its asymptotic "
                    "interval and its paired test of equal stability against the reference, Holm-adjusted over the "
                    "methods), the runtime table (median and IQR of the "
                    "bootstrap fits), ROC/AUC against the truth on synthetic data, as CSV files and a "
                    "self-contained report.html.", 100),
        epilog=methods_help() + "\n\nexamples: fsengine compare --methods bia,mi,l1 --data synthetic_glm "
                                "--param l1.n_Cs=30 --k 5 --out results/compare --n-jobs -1\n"
                                "          fsengine compare --methods bia,anova,sklearn.feature_selection:SelectKBest "
                                "--param SelectKBest.k=20 --data digits --out results/mine",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--methods", required=True, metavar="A,B,C",
                   help="comma-separated: " + ", ".join(method_keys()) + ", or MODULE:CLASS of your own "
                        "scikit-learn-style selector or model")
    p.add_argument("--param", action="append", default=[], metavar="METHOD.K=V",
                   help="a method parameter (repeatable), e.g. --param bia.n_steps=100; for MODULE:CLASS "
                        "methods METHOD is the path or the class name, e.g. --param SelectKBest.k=20")
    p.add_argument("--classes", metavar="A,B", help="keep two classes (display names), e.g. B,D")
    p.add_argument("--k", type=int, default=10, help="size of the top-k sets for overlap and stability (default 10)")
    p.add_argument("--bootstrap", type=int, default=defaults.n_bootstrap,
                   help=f"bootstrap resamples for stability, 0 = off (default {defaults.n_bootstrap})")
    p.add_argument("--max-k", type=int, default=defaults.max_k,
                   help=f"largest k of the accuracy curve (default {defaults.max_k})")
    p.add_argument("--test-size", type=float, default=defaults.test_size,
                   help=f"held-out share (default {defaults.test_size})")
    p.add_argument("--seed", type=int, default=defaults.seed, help="split and resampling seed (default 0)")
    p.add_argument("--reference", metavar="METHOD",
                   help="the method every other is compared with (a --methods key; default: the first)")
    p.add_argument("--repeats", type=int, default=defaults.n_repeats, metavar="N",
                   help=f"train/test splits for the accuracy intervals (default {defaults.n_repeats}: one split, "
                        "bootstrap over the held-out rows; N >= 2: every method also fitted on N - 1 more "
                        "splits, corrected resampled t intervals over the splits)")
    add_data_arguments(p)
    add_worker_arguments(p)
    return p


def method_params(keys: list[str], items: list[str]) -> list[tuple]:
    """``--param method.name=value`` items distributed to the chosen methods, parsed and checked:
    (spec, parameters) per method. A MODULE:CLASS method is named by its path or its class name."""
    from fsengine.methods.custom import method_from_argument

    specs = [method_from_argument(key) for key in keys]
    names = sorted(((name, i) for i, spec in enumerate(specs)
                    for name in dict.fromkeys([spec.key] + ([spec.label] if ":" in spec.key else []))),
                   key=lambda pair: -len(pair[0]))  # longest first: a path holds dots
    per_method: list[list[str]] = [[] for _ in specs]
    for item in items:
        match = next(((name, i) for name, i in names if item.startswith(name + ".")), None)
        if match is None:
            head, dot, rest = item.partition(".")
            if not dot or "=" not in rest:
                raise ValueError(f"--param {item!r}: write METHOD.NAME=VALUE, e.g. bia.n_steps=100")
            raise ValueError(f"--param {item!r}: method {head!r} is not among --methods ({', '.join(keys)})")
        rest = item[len(match[0]) + 1:]
        if "=" not in rest:
            raise ValueError(f"--param {item!r}: write METHOD.NAME=VALUE, e.g. bia.n_steps=100")
        per_method[match[1]].append(rest)
    from fsengine.methods.run import check_values

    choices = [(spec, spec.parse(values)) for spec, values in zip(specs, per_method)]
    for spec, values in choices:  # every value before any data are read or any method is fitted
        check_values(spec, spec.resolve(values))
    return choices


def _reference_failed(result, choices, reference: str | None) -> str:
    """When the intended reference (``--reference``, else the first method) failed, the sentence
    saying so and which method the differences are against instead; "" when it ran. The reference
    never changes silently."""
    intended = next(spec for spec, _ in choices if reference in (None, spec.key, spec.label))
    if intended.label not in result.failures:
        return ""
    return (f"the reference {intended.label} failed ({result.failures[intended.label]}); the differences are "
            f"against {result.labels[0]}, the first method that ran")


def run(args) -> int:
    from fsengine.compare.report import html_report, write_tables
    from fsengine.compare.runner import run_comparison

    keys = [k.strip() for k in args.methods.split(",") if k.strip()]
    if not keys:
        raise ValueError("--methods: name at least one method, e.g. --methods bia,mi")
    choices = method_params(keys, args.param)
    where = worker_options(args)
    if args.reference is not None and args.reference not in keys:
        raise ValueError(f"--reference {args.reference}: name one of --methods ({', '.join(keys)})")
    settings = CompareSettings(test_size=args.test_size, n_bootstrap=args.bootstrap, max_k=args.max_k,
                               seed=args.seed, classes=parse_classes(args.classes), n_repeats=args.repeats)
    check_data_arguments(args)
    out = check_target(args.out, force=args.force)  # before any computation
    ds = load_data(args)
    hi = max(1, min(args.max_k, ds.n_features - 1))
    if not 1 <= args.k <= hi:
        raise ValueError(f"--k {args.k}: choose k between 1 and {hi} (at most --max-k and below the "
                         f"{ds.n_features} features)")
    with TerminalProgress(f"compare {','.join(spec.label if ':' in spec.key else spec.key for spec, _ in choices)}") \
            as bar:
        result = run_comparison(ds, choices, settings, progress=bar, **where)
    reference = args.reference if args.reference in result.labels + [r.key for r in result.runs] else None
    switched = _reference_failed(result, choices, args.reference)
    if switched:
        result.notes = (*result.notes, switched)  # in report.html too
        print(f"warning: {switched}", file=sys.stderr)
    with output_folder(out, force=args.force, command=NAME) as stage:
        paths = write_tables(result, args.k, stage, reference)
        (stage / "report.html").write_text(html_report(result, args.k, reference), encoding="utf-8")
    for note in data_notes(ds) + list(result.notes) + [n for r in result.runs for n in r.notes]:
        print(f"note: {note}")
    for label, message in result.failures.items():
        print(f"failed: {label}: {message}")
    print(result.summary(args.k, reference).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(result.interval_note())
    print(result.resolved_sentence(args.k, reference))
    print(f"written to {out}: " + ", ".join(p.name for p in paths) + ", report.html")
    return 0
