"""``fsengine lecture --data SPEC|FILE [--classes A,B] [--pages ...] --out DIR [--force]``: the
offline lecture pack of one dataset (:mod:`fsengine.lecture`), written under the output-folder
rules (:mod:`fsengine.commands.output`: checked before computing, written whole or not at all)."""

from __future__ import annotations

import argparse
import textwrap

from fsengine.commands.method_args import add_data_arguments, check_data_arguments, data_notes, load_data, parse_classes
from fsengine.commands.output import check_target, output_folder
from fsengine.progress import TerminalProgress

NAME = "lecture"


def add_parser(subparsers) -> argparse.ArgumentParser:
    from fsengine.lecture import METHOD_PAGES

    p = subparsers.add_parser(
        NAME, help="write an offline lecture pack: every method's explorable figures for one dataset as HTML",
        description=textwrap.fill(
            "Fit every method that applies to the dataset and write one folder: index.html, one HTML page per "
            "method with its equations and its explorable figures (each figure carries its own slider), and "
            "plotly.js once beside them. The pages open from file:// with no Python, no server and no network "
            "(copy the folder to a USB stick or a lecture-hall PC). Classification data are reduced to two "
            "classes (--classes, else the first two).", 100),
        epilog="examples: fsengine lecture --data notmnist:letters=BD,n_per_class=500 --out lecture-bd\n"
               "          fsengine lecture --data digits --classes 3,8 --pages bia,l1 --out lecture-digits",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--classes", metavar="A,B", help="the two classes to keep (display names), e.g. B,D")
    p.add_argument("--pages", metavar="P,Q", default=",".join(METHOD_PAGES),
                   help=f"the method pages to write, comma-separated (default: all of {', '.join(METHOD_PAGES)})")
    add_data_arguments(p)
    return p


def run(args) -> int:
    from fsengine.lecture import METHOD_PAGES, lecture_pages, pack_size, write_pack

    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    unknown = [p for p in pages if p not in METHOD_PAGES]
    if unknown or not pages:
        raise ValueError(f"--pages {args.pages!r}: choose from {', '.join(METHOD_PAGES)}")
    classes = parse_classes(args.classes)
    check_data_arguments(args)
    out = check_target(args.out, force=args.force)  # before any computation
    ds = load_data(args)
    for note in data_notes(ds):
        print(f"note: {note}")
    with TerminalProgress("lecture") as bar:
        pack = lecture_pages(ds, classes=classes, methods=pages, progress=bar)
    with output_folder(out, force=args.force, command=NAME) as stage:
        files = write_pack(pack, stage)  # the folder gets the umask's permissions (output_folder)
    for note in pack.notes:
        print(f"note: {note}")
    for key, why in pack.skipped.items():
        print(f"skipped {key}: {why}")
    print(f"lecture pack of {pack.dataset}: {len(pack.pages)} pages, {pack_size(out) / 1e6:.1f} MB in {out} "
          f"({', '.join(sorted(p.name for p in files))})")
    print(f"open {out / 'index.html'} in a browser (no server or network needed)")
    return 0
