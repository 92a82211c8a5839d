"""``fsengine datasets list | fetch NAME... | info NAME``: the data catalogue and the downloads."""

from __future__ import annotations

import argparse

from fsengine import config
from fsengine.data import dataset_specs, get_spec
from fsengine.data.fetch import (
    DEFAULT_TIMEOUT,
    SOURCES,
    existing_copy,
    fetch,
    get_source,
    is_present,
    local_copy,
    sha256_of,
)
from fsengine.progress import TerminalProgress

NAME = "datasets"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="list, download and describe datasets",
        description="The dataset catalogue (what the app's picker offers) and the public downloads "
                    f"({', '.join(SOURCES)}), stored under {config.datasets_dir()} "
                    "(FSENGINE_DATASETS) and verified by sha256.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    sub.add_parser("list", help="catalogue entries and downloads, with what is present here")
    f = sub.add_parser("fetch", help="download datasets (verifies sha256; writes atomically)")
    f.add_argument("names", nargs="+", metavar="NAME", help=f"one or more of: {', '.join(SOURCES)}, all")
    f.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"seconds to wait for the network (default {DEFAULT_TIMEOUT:g})")
    f.add_argument("--force", action="store_true", help="download again even when present")
    i = sub.add_parser("info", help="describe a download or a catalogue entry")
    i.add_argument("name", metavar="NAME")
    return p


def _list() -> None:
    print("Catalogue (spec strings such as notmnist:letters=BD,n_per_class=500):")
    for spec in dataset_specs():
        state = "available" if spec.available() else f"missing - {spec.unavailable_hint}"
        print(f"  {spec.key:18s} {spec.group:9s} {spec.label} [{state}]")
    print(f"\nDownloads (into {config.datasets_dir()}):")
    for source in SOURCES.values():
        state = "present" if is_present(source.name) else "not downloaded"
        print(f"  {source.name:18s} {source.size / 1e6:6.1f} MB  {source.description} [{state}]")


def _info(name: str) -> None:
    if name in SOURCES:
        source = get_source(name)
        print(f"{source.name}: {source.description}\nlicence: {source.licence}")
        for file in source.files:
            found = existing_copy(file)
            if found is not None:
                ok = sha256_of(found) == file.sha256
                state = f"present at {found} ({'checksum ok' if ok else 'CHECKSUM MISMATCH'})"
            else:
                state = f"not downloaded (would be stored at {local_copy(file)})"
            print(f"  {file.dest}\n    url:    {file.address()}\n    sha256: {file.sha256}\n"
                  f"    size:   {file.size:,} bytes\n    state:  {state}")
        return
    spec = get_spec(name)
    print(f"{spec.key}: {spec.label} ({spec.group})\n{spec.description}")
    print("available here" if spec.available() else f"not available here: {spec.unavailable_hint}")
    for p in spec.params:
        print(f"  {p.name}={p.default!r:8} {p.label}{' - ' + p.help if p.help else ''}")


def run(args) -> int:
    if args.action == "list":
        _list()
    elif args.action == "info":
        _info(args.name)
    else:
        names = list(SOURCES) if "all" in args.names else args.names
        for name in names:
            get_source(name)  # unknown names fail before any download starts
        for name in names:
            with TerminalProgress(f"fetch {name}") as bar:
                paths = fetch(name, timeout=args.timeout, progress=bar, force=args.force)
            for path in paths:
                print(f"{name}: {path}")
    return 0
