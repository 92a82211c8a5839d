"""``python -m fsengine.app.serve SCRIPT [--streamlit.option value ...]``: serve SCRIPT as ``streamlit
run SCRIPT`` would, in this process, with the engine imported and the server-start preparation
(:mod:`fsengine.app.prepare`) started in the background first and Streamlit's browser bundle served from memory
(:class:`fsengine.app.static_assets.StaticBundle`, through ``st.App``'s middleware). ``fsengine app``
(and so ``make app``) serve through it."""

from __future__ import annotations

import sys
from pathlib import Path


def config_options(flags: list[str]) -> dict[str, object]:
    """``--section.option value`` flags (as :func:`fsengine.app.options.streamlit_flags` makes them)
    -> ``{"section.option": value}`` in the option's type, for ``st.App.run(config=...)``."""
    from streamlit import config

    if len(flags) % 2 or not all(flag.startswith("--") for flag in flags[::2]):
        raise ValueError(f"expected '--section.option value' pairs, got {flags}")
    options = {}
    for flag, text in zip(flags[::2], flags[1::2], strict=True):
        name = flag[2:]
        kind = config._config_options_template[name].type
        options[name] = text.lower() == "true" if kind is bool else kind(text)
    return options


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    import streamlit as st  # before the preparation thread imports the app
    from starlette.middleware import Middleware

    from fsengine.app import prepare
    from fsengine.app.static_assets import StaticBundle

    entry, options = Path(args[0]).resolve(), config_options(args[1:])
    prepare.preload()
    prepare.start()
    sys.argv = [str(entry)]  # st.App resolves the script and its config folder as `streamlit run` does
    st.App(entry, middleware=[Middleware(StaticBundle)]).run(config=options)


if __name__ == "__main__":
    main()
