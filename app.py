"""Feature Selection Explorer: the checkout's Streamlit entry point (``make app``).

The app itself lives in :mod:`fsengine.app`; this file serves it with the ``pages/`` folder beside
it (``streamlit run app.py``). ``fsengine app`` serves the same app from an installed package.
"""

from pathlib import Path

from fsengine.app.shell import run_app

run_app(Path(__file__).resolve().parent / "pages")
