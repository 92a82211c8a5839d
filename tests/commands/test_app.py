"""``fsengine app``, ``warmup`` and ``--version``: the commands around the dashboard."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from fsengine import __version__
from fsengine.app.options import OPTIONS, streamlit_flags
from fsengine.cli import main
from fsengine.methods.registry import METHODS
from tests.conftest import PROJECT_ROOT, restore_sigint


def test_version_is_single_sourced(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"fsengine {__version__}"
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "fsengine.__version__"}


def test_checkout_config_file_holds_the_same_options_as_fsengine_app():
    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())
    for name, value in OPTIONS.items():
        section, option = name.split(".")
        assert config[section][option] == value, name
    flags = streamlit_flags(port=8600, host="0.0.0.0", max_upload_mb=50)
    pairs = dict(zip(flags[::2], flags[1::2]))
    assert pairs["--server.port"] == "8600" and pairs["--server.address"] == "0.0.0.0"
    assert pairs["--server.maxUploadSize"] == "50" and pairs["--client.showSidebarNavigation"] == "false"


def test_busy_port_is_a_one_line_error_with_what_to_do(capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert main(["app", "--port", str(port), "--no-warmup"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fsengine app: error: port {port} on 127.0.0.1 is already in use (another app or server "
                   "runs there); choose another with --port N (make app PORT=N)"]


@pytest.mark.parametrize("port", ["0", "70000"])
def test_port_out_of_range(port, capsys):
    assert main(["app", "--port", port, "--no-warmup"]) == 2
    assert "choose a port between 1 and 65535" in capsys.readouterr().err


def test_missing_entry_script(tmp_path, capsys):
    assert main(["app", "--port", "8599", "--entry", str(tmp_path / "nope.py"),
                 "--no-warmup"]) == 2
    assert "nope.py: no such file" in capsys.readouterr().err


def test_warmup_fits_every_method_and_records_a_warm_cache(capsys):
    from fsengine.commands.kernel_cache import is_warm

    assert main(["warmup", "--force"]) == 0
    out = capsys.readouterr().out
    assert all(f"{key} " in out for key in METHODS), out
    assert is_warm()
    assert main(["warmup"]) == 0
    assert "already compiled" in capsys.readouterr().out


def test_make_app_takes_the_port_and_host_from_the_command_line():
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = subprocess.run(["make", "-n", "app", "PORT=8600", "HOST=0.0.0.0"], cwd=PROJECT_ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "fsengine app --entry app.py --port 8600 --host 0.0.0.0" in out


def _children(pid: int) -> list[int]:
    """PIDs whose parent is ``pid`` (Linux /proc)."""
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid):
            out.append(int(status.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()


@pytest.mark.slow
@pytest.mark.serial
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the server process")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_stops_the_server_frees_the_port_and_leaves_no_child(signum):
    """systemd, Docker and test teardowns stop a program with SIGTERM: `fsengine app` forwards it
    to its Streamlit child, waits for it and exits with its status; the port is free again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = subprocess.Popen([sys.executable, "-m", "fsengine", "app", "--port", str(port), "--no-warmup"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=restore_sigint)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline and app.poll() is None, "the server did not come up"
            time.sleep(0.3)
        children = _children(app.pid)
        assert children, "the Streamlit server runs as a child of fsengine app"
        app.send_signal(signum)
        code = app.wait(timeout=30)
        assert code in (0, 128 + signum, -signum), code
        deadline = time.monotonic() + 10
        while any(_alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(c) for c in children), "the Streamlit child outlived fsengine app"
        with socket.socket() as again:
            # SO_REUSEADDR: the health checks' closed connections may linger in TIME_WAIT on this
            # port; on Linux the bind still fails while anything listens on it
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", port))  # free: nothing is left serving it
    finally:
        if app.poll() is None:
            app.kill()
