"""``python -m fsengine.app.serve SCRIPT [--streamlit.flags ...]``: ``streamlit run SCRIPT`` in this
process, with the server-start preparation (:mod:`fsengine.app.prepare`) started in the background
first. ``fsengine app`` (and so ``make app``) serve through it."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    from streamlit.web.cli import main as streamlit_main  # before the preparation thread imports the app

    from fsengine.app import prepare

    prepare.start()
    sys.argv = ["streamlit", "run", *args]
    streamlit_main()


if __name__ == "__main__":
    main()
