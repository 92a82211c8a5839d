"""Entry script of the installed app (``fsengine app`` runs ``streamlit run`` on this file)."""

from fsengine.app.shell import run_app

run_app()
