"""``fsengine app``, ``warmup`` and ``--version``: the commands around the dashboard."""

from __future__ import annotations

import socket
import tomllib

import pytest

from fsengine import __version__
from fsengine.app.options import OPTIONS, streamlit_flags
from fsengine.cli import main
from fsengine.methods.registry import METHODS
from tests.conftest import PROJECT_ROOT


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
