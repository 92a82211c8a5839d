"""``fsengine notebooks [--out DIR] [--force] [--list]``: copy the teaching notebooks to a folder.

The seven lessons ship with the package (:func:`fsengine.config.lessons_dir`), so ``pip install
fsengine`` brings them too. They are copied into DIR beside whatever else it holds; nothing else in
DIR is touched. A lesson already in DIR is left alone when it is the shipped one and refused when it
differs (the user's edits), before anything is written; ``--force`` replaces those lessons with the
shipped ones. Each file is written whole (a temporary file renamed into place).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

from fsengine import config
from fsengine.files import write_whole

NAME = "notebooks"
DEFAULT_OUT = Path("fsengine-notebooks")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="copy the teaching notebooks (Jupyter lessons) to a folder",
        description="Copy the seven Jupyter lessons that ship with fsengine (one per source paper, a tour and "
                    "the unified information criterion) into a folder of yours, then open them with `jupyter lab "
                    "DIR`. Other files in the folder are never touched; a lesson you edited is never overwritten "
                    "without --force.")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"folder for the lessons (default ./{DEFAULT_OUT})")
    p.add_argument("--force", action="store_true", help="overwrite lessons in --out that differ from the shipped ones")
    p.add_argument("--list", action="store_true", help="list the lessons and copy nothing")
    return p


def lessons() -> list[Path]:
    """The shipped lesson notebooks, in order."""
    folder = config.lessons_dir()
    found = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if not found:
        raise FileNotFoundError(f"no lesson notebooks in {folder}: this installation is incomplete; reinstall "
                                "fsengine (pip install --force-reinstall fsengine)")
    return found


def title(path: Path) -> str:
    """The first markdown heading of a notebook (its lesson title), without the ``#``."""
    for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", [])).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return path.stem


def copy_lessons(out: Path, *, force: bool = False) -> dict[str, list[str]]:
    """Copy the lessons into ``out``: ``{"copied": [...], "unchanged": [...], "replaced": [...]}``
    (file names). Edited copies already in ``out`` are refused (nothing written) unless ``force``."""
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is an existing file; name a folder for the lessons (it is created).")
    shipped = {p.name: p.read_bytes() for p in lessons()}
    present = {name: (out / name).read_bytes() for name in shipped if (out / name).is_file()}
    edited = sorted(name for name, data in present.items() if data != shipped[name])
    if edited and not force:
        raise ValueError(f"--out {out} already holds edited copies of {', '.join(edited)}; your edits are kept. "
                         "Choose another --out, or add --force to replace these lessons with the shipped ones.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"--out {out}: cannot create the folder ({exc.strerror}); choose a folder you can write "
                      "to.") from exc
    done: dict[str, list[str]] = {"copied": [], "unchanged": [], "replaced": []}
    for name, data in shipped.items():
        if present.get(name) == data:
            done["unchanged"].append(name)
            continue
        write_whole(out / name, data, suffix=".tmp")
        done["replaced" if name in present else "copied"].append(name)
    return done


def run(args) -> int:
    if args.list:
        for path in lessons():
            print(f"{path.name:28s} {title(path)}")
        return 0
    done = copy_lessons(args.out, force=args.force)
    counts = ", ".join(f"{len(v)} {k}" for k, v in done.items() if v)
    print(f"{sum(map(len, done.values()))} lessons in {args.out} ({counts})")
    if importlib.util.find_spec("jupyterlab") is None:
        print('JupyterLab is not installed here: pip install "fsengine[jupyter]" (or "fsengine[notebooks]" '
              "for an existing Jupyter)")
    print(f"open them with: jupyter lab {args.out}")
    return 0
