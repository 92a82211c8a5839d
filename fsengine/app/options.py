"""The Streamlit settings the app runs with, in one place.

``fsengine app`` passes them as command-line flags (so the installed app needs no config file);
a checkout's ``.streamlit/config.toml`` holds the same values for ``streamlit run app.py`` (a test
keeps the two equal).
"""

from __future__ import annotations

#: option -> value; server.port/address and the upload limit come from the command line / env
OPTIONS: dict[str, object] = {
    "server.headless": True,
    "server.fileWatcherType": "none",
    "browser.gatherUsageStats": False,
    "client.toolbarMode": "minimal",
    "client.showSidebarNavigation": False,
    # a full garbage collection after every run costs ~0.1-0.3 s per slider move with the engine loaded
    "runner.postScriptGC": False,
}


def _flag_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_flags(*, port: int, host: str, max_upload_mb: float) -> list[str]:
    """``--section.option value`` flags for ``streamlit run``."""
    settings = dict(OPTIONS)
    settings.update({"server.port": port, "server.address": host,
                     "server.maxUploadSize": max(1, int(round(max_upload_mb)))})
    flags = []
    for name, value in settings.items():
        flags += [f"--{name}", _flag_value(value)]
    return flags
