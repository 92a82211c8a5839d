"""``python -m fsengine.app.serve SCRIPT [--streamlit.option value ...]``: serve SCRIPT as ``streamlit
run SCRIPT`` would, in this process, with the engine imported and the server-start preparation
(:mod:`fsengine.app.prepare`, in a worker process) started in the background first, and Streamlit's
browser bundle served from memory (:class:`fsengine.app.static_assets.StaticBundle`, through ``st.App``'s
middleware). The flags are :func:`fsengine.app.options.streamlit_flags`'s, typed again by
:func:`~fsengine.app.options.parse_flags`. ``fsengine app`` (and so ``make app``) serve through it."""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    import streamlit as st  # before the preparation thread imports the app
    from starlette.middleware import Middleware
    from streamlit.runtime.pages_manager import PagesManager

    from fsengine.app import prepare
    from fsengine.app.options import parse_flags
    from fsengine.app.static_assets import StaticBundle

    entry, options = Path(args[0]).resolve(), parse_flags(args[1:])
    # The app always navigates with st.navigation: without this, a checkout's pages/ folder beside the entry
    # makes Streamlit run a first request for /bia as a legacy page script, which reruns through the entry
    # (fsengine.app.guard.require_shell): a second script run before the title (0.3 s on this machine)
    PagesManager.uses_pages_directory = False
    prepare.preload()
    prepare.start(process=True)  # forks its worker: before the server starts a thread
    sys.argv = [str(entry)]  # st.App resolves the script and its config folder as `streamlit run` does
    st.App(entry, middleware=[Middleware(StaticBundle)]).run(config=options)


if __name__ == "__main__":
    main()
