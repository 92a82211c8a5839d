"""Command line: ``python -m fsengine COMMAND ...`` (also installed as ``fsengine``).

User mistakes (bad arguments, missing data, invalid parameters) print one clear line on stderr
and exit with status 2; they never show a traceback. Ctrl-C (exit 130) and SIGTERM (exit 143, what
``kill``, systemd and batch schedulers send) stop a command the same way: the tasks still running
on worker processes are stopped and no half-written output is left.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

from fsengine import __version__, config
from fsengine.commands import COMMAND_MODULES
from fsengine.data.paths import DataNotFoundError
from fsengine.parallel import TaskError

#: user mistakes and environment problems (a missing or unreadable file, a full disk), and a task that
#: failed on a worker (it names itself and its error): one line, exit 2
USER_ERRORS = (ValueError, DataNotFoundError, OSError, KeyError, TaskError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fsengine", description="Feature Selection Explorer: the dashboard (fsengine app) and the engine's "
                                     "command line.")
    parser.add_argument("--version", action="version", version=f"fsengine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    handlers = {}
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.add_parser(sub)
        handlers[module.NAME] = module.run
    parser.set_defaults(_handlers=handlers)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that the clean-up of Ctrl-C runs."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    own_sigterm = (threading.current_thread() is threading.main_thread()
                   and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
    if own_sigterm:
        signal.signal(signal.SIGTERM, _terminate)
    try:
        config.check_environment()  # a bad setting is one line before any work
        return int(args._handlers[args.command](args) or 0)
    except USER_ERRORS as exc:
        message = str(exc).strip().splitlines()
        print(f"fsengine {args.command}: error: {message[0] if message else type(exc).__name__}",
              file=sys.stderr)
        for extra in message[1:]:
            print(f"  {extra}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        terminated = isinstance(stop, Terminated)
        print("terminated" if terminated else "interrupted", file=sys.stderr)
        return 128 + signal.SIGTERM if terminated else 130
    finally:
        if own_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
