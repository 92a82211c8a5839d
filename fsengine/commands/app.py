"""``fsengine app [--port N] [--host H]``: serve the dashboard from any folder."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

NAME = "app"
DEFAULT_PORT = 8501


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="serve the dashboard in the browser (Streamlit)",
        description="Start the Feature Selection Explorer (a Streamlit app) and print its address. "
                    "The numba kernels are compiled in the background the first time (see "
                    "`fsengine warmup`). Ctrl-C stops the server.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 serves every "
                        "network interface, e.g. for a lecture hall)")
    p.add_argument("--entry", type=Path, default=None, metavar="SCRIPT",
                   help="serve another entry script instead of the packaged app (`make app` serves a "
                        "checkout's app.py with its pages/ folder)")
    p.add_argument("--no-warmup", action="store_true", help="do not compile the numba kernels in the background")
    return p


def check_port(host: str, port: int) -> None:
    """A ValueError with what to do when ``host:port`` cannot be served."""
    if not 1 <= port <= 65535:
        raise ValueError(f"--port {port}: choose a port between 1 and 65535 (e.g. 8501)")
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        try:
            sock.bind((host, port))
        except OSError as exc:
            busy = exc.errno in (98, 48, 10048)  # EADDRINUSE on Linux, macOS, Windows
            reason = ("is already in use (another app or server runs there)" if busy
                      else f"cannot be used: {exc.strerror}")
            raise ValueError(f"port {port} on {host} {reason}; choose another with --port N "
                             f"(make app PORT=N)") from None


def run(args) -> int:
    from fsengine import config
    from fsengine.app.options import streamlit_flags

    entry = args.entry or Path(__file__).resolve().parents[1] / "app" / "main.py"
    if not entry.is_file():
        raise ValueError(f"--entry {entry}: no such file")
    check_port(args.host, args.port)
    flags = streamlit_flags(port=args.port, host=args.host, max_upload_mb=config.max_upload_bytes() / 2**20)
    warm = None
    if not args.no_warmup:
        from fsengine.commands.kernel_cache import is_warm

        if not is_warm():
            warm = subprocess.Popen([sys.executable, "-m", "fsengine", "warmup", "--quiet"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    preexec_fn=(lambda: os.nice(10)) if hasattr(os, "nice") else None)
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    print(f"Feature Selection Explorer: http://{shown}:{args.port}  (Ctrl-C stops it)", flush=True)
    try:
        # streamlit run, with the pages' first visits prepared in the background (fsengine.app.prepare)
        return serve([sys.executable, "-m", "fsengine.app.serve", str(entry), *flags])
    finally:
        if warm is not None and warm.poll() is None:
            warm.terminate()


#: the signals a supervisor (systemd, Docker, a terminal, a test teardown) stops a program with
FORWARDED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the server gets SIGTERM when this process dies, even by SIGKILL (prctl
    PR_SET_PDEATHSIG); elsewhere nothing."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
        except OSError:
            pass


def serve(command: list[str]) -> int:
    """Run the server ``command`` as a child and stand for it: SIGTERM, SIGINT and SIGHUP sent to
    this process are forwarded to the child (once: the child runs in its own session, so a
    terminal's Ctrl-C reaches it only through here), this process waits for the child to stop
    and exits with its status (128 + N when signal N ended it). The child never outlives this
    process: no server is left holding the port."""
    server = subprocess.Popen(command, start_new_session=True, preexec_fn=_die_with_parent)

    def forward(signum, frame) -> None:
        if server.poll() is None:
            server.send_signal(signum)

    # a signal ignored at start stays ignored (``nohup fsengine app`` survives a hang-up)
    previous = {s: signal.signal(s, forward) for s in FORWARDED if signal.getsignal(s) != signal.SIG_IGN}
    try:
        code = server.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if server.poll() is None:  # an error here: do not leave the server running
            server.terminate()
            server.wait()
    return 128 - code if code < 0 else code
