"""``fsengine select --method NAME|MODULE:CLASS --data SPEC|FILE [--target COL] [--param k=v ...] --out DIR
[--force]``: run one selector (output folder rules: :mod:`fsengine.commands.output`)."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from fsengine.commands.method_args import (
    add_data_arguments,
    check_data_arguments,
    data_label,
    data_notes,
    load_data,
    methods_help,
    parse_classes,
    write_figure,
)
from fsengine.commands.output import check_target, output_folder
from fsengine.jsonio import finite_or_none, json_text
from fsengine.methods.registry import method_keys
from fsengine.progress import TerminalProgress, scaled

NAME = "select"
TOP_SHOWN = 20


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="run one feature-selection method on a dataset",
        description=textwrap.fill("Fit one method on a dataset and write scores.csv, order.csv, trace.csv, path.csv "
                    "(path methods), summary.json and its figures as HTML into --out. The data are "
                    "adapted to what the method needs (two classes, binary features, ...) and every "
                    "adaptation is printed and recorded in summary.json.", 100),
        epilog=methods_help() + "\n\nexamples: fsengine select --method bia --data notmnist:letters=BD "
                                "--param lambda_ratio=2 --out results/bia\n"
                                "          fsengine select --method sklearn.feature_selection:SelectKBest "
                                "--param k=20 --data digits --out results/kbest",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--method", required=True, metavar="NAME|MODULE:CLASS",
                   help="one of: " + ", ".join(method_keys()) + "; or your own scikit-learn-style selector or model "
                        "class, e.g. sklearn.feature_selection:SelectKBest (see 'your own methods' below)")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="a method parameter (repeatable), e.g. --param n_steps=100")
    p.add_argument("--classes", metavar="A,B", help="keep two classes (display names), e.g. B,D")
    add_data_arguments(p)
    return p


def write_selection(fit, ds, out: Path) -> dict[str, Path]:
    """The CSV files of one fit: scores (by feature, with its rank, 1 = best), order (features
    best first), trace, path."""
    import numpy as np
    import pandas as pd

    from fsengine.csv_export import to_csv
    from fsengine.ranking import ranks_from_order

    p = ds.n_features
    scores = pd.DataFrame({"feature": np.arange(p), "name": list(ds.feature_names), "score": fit.scores,
                           "rank": ranks_from_order(fit.order), "selected": fit.support})
    if ds.truth is not None:
        scores["relevant"] = np.asarray(ds.truth, dtype=bool)
    files = {"scores": out / "scores.csv", "order": out / "order.csv", "trace": out / "trace.csv"}
    to_csv(scores, files["scores"], index=False)
    to_csv(scores.iloc[fit.order][["rank", "feature", "name", "score", "selected"]], files["order"], index=False)
    to_csv(fit.trace, files["trace"], index=False)
    if fit.path is not None:
        path = fit.path.copy()
        path.columns = list(fit.data.ds.feature_names)
        files["path"] = out / "path.csv"
        to_csv(path, files["path"])
    return files


def write_figures(fit, ds, out: Path) -> dict[str, Path]:
    """Generic score figures, a score image for image data, and the method's own figures."""
    from fsengine.plots.select import score_by_rank, score_image, top_ranked

    label = fit.spec.label
    figures = {"top_ranked": top_ranked(fit.scores, fit.order, fit.support, ds.feature_names, method=label),
               "score_by_rank": score_by_rank(fit.scores, fit.order, fit.support, method=label)}
    if ds.image_shape is not None:
        figures["score_image"] = score_image(fit.scores, ds.image_shape, method=label)
    figures.update(fit.spec.method_figures(fit.selector, fit.data.ds.feature_names, fit.data.ds.image_shape))
    return {name: write_figure(fig, out / f"{name}.html") for name, fig in figures.items()}


def run(args) -> int:
    from fsengine.methods.custom import method_from_argument
    from fsengine.methods.run import check_values

    spec = method_from_argument(args.method)  # argument mistakes fail before any data are read
    params = spec.parse(args.param)
    check_values(spec, spec.resolve(params))
    classes = parse_classes(args.classes)
    check_data_arguments(args)
    out = check_target(args.out, force=args.force)  # before any computation
    from fsengine.methods.adapt import restrict_classes
    from fsengine.methods.run import fit_method

    ds = load_data(args)
    read_notes = data_notes(ds)
    excluded = dict(ds.extras.get("excluded_columns") or {})
    ds, notes = restrict_classes(ds, [spec], classes)
    notes = tuple(read_notes) + tuple(notes)
    with TerminalProgress(f"select {spec.key}") as bar:
        named = scaled(bar, 0.0, 1.0, f"{spec.label}: ")  # a selector never names itself (fsengine.progress)
        fit = fit_method(spec, params, ds, progress=named)
        bar(1.0, "writing files")
    notes = notes + fit.notes
    top = [{"rank": i + 1, "feature": int(j), "name": ds.feature_names[j], "score": finite_or_none(fit.scores[j])}
           for i, j in enumerate(fit.order[:TOP_SHOWN])]
    with output_folder(out, force=args.force, command=NAME) as stage:
        files = write_selection(fit, ds, stage)
        files.update(write_figures(fit, ds, stage))
        summary = {
            "method": spec.key, "label": spec.label, "parameters": params, "data": data_label(args),
            "dataset": ds.name, "n_samples": ds.n_samples, "n_features": ds.n_features,
            "selected_by_method": int(fit.support.sum()), "fit_seconds": fit.seconds, "notes": list(notes),
            "top": top, "files": {name: path.name for name, path in files.items()},
            **({"excluded_columns": excluded} if excluded else {}),
        }
        (stage / "summary.json").write_text(json_text(summary, indent=2, default=str))
    for note in notes:
        print(f"note: {note}")
    print(f"{spec.label} on {ds.name}: {int(fit.support.sum()):,} of {ds.n_features:,} features selected "
          f"by the method in {fit.seconds:.2f} s; best: "
          + ", ".join(ds.feature_names[j] for j in fit.order[:5]))
    print(f"written to {out}: " + ", ".join(sorted(p.name for p in files.values())) + ", summary.json")
    return 0
