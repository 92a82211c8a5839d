"""Argument helpers shared by ``fsengine select`` and ``fsengine compare``: the method catalogue
for ``--help``, ``--data``/``--target`` (a catalogue spec or the user's own table), ``--out``/``--force``,
``--classes`` parsing, and writing figures next to one copy of plotly.js."""

from __future__ import annotations

import argparse
from pathlib import Path

from fsengine.data.registry import data_kind
from fsengine.methods.registry import METHODS
from fsengine.params import Param
from fsengine.plots.style import disarm_links


def methods_help() -> str:
    """Every registered method with its needs and parameters (for ``--help`` epilogs)."""
    lines = ["methods (NAME: label - what the score is; needs; parameters):"]
    for spec in METHODS.values():
        lines.append(f"  {spec.key}: {spec.label} - {spec.summary}")
        lines.append(f"      needs: {spec.needs.describe()}")
        for p in spec.params:
            bounds = "" if p.kind == "choice" else (
                f" [{p.min if p.min is not None else ''}..{p.max if p.max is not None else ''}]"
                if p.min is not None or p.max is not None else "")
            choices = f" one of {', '.join(map(str, p.choices))}" if p.kind == "choice" else ""
            also = "".join(f" or {Param.spell(v)}" for v in p.special)
            lines.append(f"      {p.name}={Param.spell(p.default)} ({p.kind}{choices}{bounds}{also}) {p.label}")
    return "\n".join(lines)


def parse_classes(text: str | None) -> tuple[str, str] | None:
    """``"B,D"`` -> ("B", "D"); letters without a comma (``"BD"``) are split one per class."""
    if text is None:
        return None
    parts = [t.strip() for t in text.split(",")] if "," in text else list(text.strip())
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"--classes {text!r}: give exactly two class names, e.g. --classes B,D")
    return parts[0], parts[1]


def write_figure(fig, path: Path) -> Path:
    """Write ``fig`` as HTML that loads ``plotly.min.js`` from its own folder (written once), so
    the folder opens offline and each file stays small. Names written as links stay text
    (:func:`fsengine.plots.style.disarm_links`)."""
    disarm_links(fig).write_html(path, include_plotlyjs="directory", full_html=True)
    return path


def add_data_arguments(p: argparse.ArgumentParser) -> None:
    """``--data SPEC|FILE``, ``--target COLUMN``, ``--out DIR`` and ``--force``."""
    p.add_argument("--data", required=True, metavar="SPEC|FILE",
                   help="a dataset spec, e.g. digits or notmnist:letters=BD,n_per_class=500 (see 'fsengine "
                        "datasets list'), or your own file: a table .csv/.tsv/.txt (also compressed .gz, .bz2, .xz, "
                        ".zip, e.g. data.csv.gz) or .parquet with --target, or an svmlight/libsvm file "
                        ".svm/.libsvm (labels in the file, no --target). A path that exists is always read as a "
                        "file")
    p.add_argument("--target", metavar="COLUMN",
                   help="with a table file: the column to predict (every other column is a candidate feature; "
                        "checked like an upload in the app)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="output folder: created; a folder fsengine wrote before is replaced whole")
    p.add_argument("--force", action="store_true",
                   help="replace --out even when it holds files fsengine did not write")


def check_data_arguments(args) -> None:
    """``--target`` goes with a table file and only with it (checked before any data are read)."""
    kind = data_kind(args.data)
    if kind == "table" and not args.target:
        raise ValueError(f"--data {args.data}: name the column to predict with --target COLUMN")
    if kind == "svmlight" and args.target:
        raise ValueError(f"--target goes with a table file; {args.data} is an svmlight/libsvm file with its own "
                         "labels (leave out --target)")
    if kind == "catalogue" and args.target:
        raise ValueError(f"--target goes with a table file (--data FILE.csv|.tsv|.parquet, also compressed); "
                         f"{args.data!r} is a catalogue dataset with its own target")


def load_data(args):
    """The Dataset of ``--data`` (and ``--target``): the catalogue's, or the user's file validated as
    an upload in the app is (:func:`fsengine.data.upload.load_file`)."""
    if data_kind(args.data) != "catalogue":
        from fsengine.data.upload import load_file

        return load_file(Path(args.data), args.target)
    from fsengine.data import load_dataset

    return load_dataset(args.data)


#: excluded columns named in a printed note (all of them go into summary.json)
NAMED_EXCLUSIONS = 5


def data_notes(ds) -> list[str]:
    """How the user's table was read and which columns were left out, one printed line each
    (empty for catalogue datasets)."""
    excluded = ds.extras.get("excluded_columns") or {}
    own_file = "target_column" in ds.extras or ds.extras.get("format") == "svmlight"
    notes = [f"{ds.name}: {note}" for note in ds.provenance.notes
             if not note.startswith(("excluded ", "target column "))] if own_file else []
    if excluded:
        named = "; ".join(f"{name!r} {why}" for name, why in list(excluded.items())[:NAMED_EXCLUSIONS])
        more = len(excluded) - NAMED_EXCLUSIONS
        notes.append(f"{ds.name}: {len(excluded):,} column(s) left out: {named}"
                     + (f"; and {more:,} more" if more > 0 else ""))
    return notes


def data_label(args) -> str:
    return f"{args.data} (target {args.target})" if args.target else args.data
