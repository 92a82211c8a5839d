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


#: the options whose values come from the command line or the environment (:func:`streamlit_flags`)
COMMAND_LINE = ("server.port", "server.address", "server.maxUploadSize")


def _flag_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_flags(*, port: int, host: str, max_upload_mb: float) -> list[str]:
    """``--section.option value`` flags for ``streamlit run``."""
    settings = dict(OPTIONS)
    settings.update(zip(COMMAND_LINE, (port, host, max(1, int(round(max_upload_mb)))), strict=True))
    flags = []
    for name, value in settings.items():
        flags += [f"--{name}", _flag_value(value)]
    return flags


def parse_flags(flags: list[str]) -> dict[str, object]:
    """The inverse of :func:`streamlit_flags`: ``--section.option value`` pairs -> ``{"section.option":
    value}`` with the value's type restored (``true``/``false`` -> bool, an integer -> int, else str).
    An option this module does not set is refused (a KeyError naming it)."""
    if len(flags) % 2 or not all(flag.startswith("--") for flag in flags[::2]):
        raise ValueError(f"expected '--section.option value' pairs, got {flags}")
    options: dict[str, object] = {}
    for flag, text in zip(flags[::2], flags[1::2], strict=True):
        name = flag[2:]
        if name not in OPTIONS and name not in COMMAND_LINE:
            raise KeyError(f"{name!r} is not an option fsengine app sets ({', '.join([*OPTIONS, *COMMAND_LINE])})")
        options[name] = (text == "true" if text in ("true", "false") else
                         int(text) if text.lstrip("-").isdigit() else text)
    return options
