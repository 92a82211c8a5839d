"""``fsengine warmup``: compile the numba kernels once (see :mod:`fsengine.commands.kernel_cache`)."""

from __future__ import annotations

import argparse

from fsengine.progress import TerminalProgress

NAME = "warmup"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="compile the numba kernels once, so the first real run does not wait for them",
        description="Fit every method once on tiny data so that numba compiles and caches all kernels "
                    "(a minute or two the first time, a few seconds after). `make app` runs it; "
                    "`fsengine app` runs it in the background.")
    p.add_argument("--force", action="store_true", help="run even when the cache is already warm")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    return p


def run(args) -> int:
    from fsengine.commands.kernel_cache import compile_kernels, is_warm

    if not args.force and is_warm():
        if not args.quiet:
            print("numba kernels already compiled for this installation (use --force to recompile)")
        return 0
    if args.quiet:
        compile_kernels()
        return 0
    with TerminalProgress("warmup") as bar:
        seconds = compile_kernels(progress=bar)
    print("seconds per method: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    return 0
