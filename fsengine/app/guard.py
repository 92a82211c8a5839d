"""Guard that keeps every page of a checkout inside the shell (navigation + shared sidebar).

Streamlit treats a ``pages/`` folder next to the entry script as a legacy (v1) multipage app until
the first ``st.navigation`` call of the server process. If the very first request after a server
start goes straight to a page URL (``/bia``), the checkout's ``pages/bia.py`` runs on its own,
without the shell. ``require_shell()``, called first by every checkout page script, switches the
process to ``st.navigation`` mode and reruns, so ``app.py`` runs and shows the requested page.
(The installed app's entry script has no ``pages/`` folder beside it, so there it does nothing.)
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def require_shell() -> None:
    """Rerun through the entry script when Streamlit is still in legacy pages-folder mode."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
