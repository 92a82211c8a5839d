"""Guard that keeps every page inside the ``app.py`` shell (navigation + shared sidebar picker).

Streamlit still treats a ``pages/`` folder next to the entry point as a legacy (v1) multipage
app until the first ``st.navigation`` call of the server process. If the very first request after
a server start goes straight to a page URL (``/bia``), that page file would run on its own,
without the sidebar picker. ``require_shell()``, called first thing on every page, switches the
process to ``st.navigation`` mode and reruns, so ``app.py`` runs and shows the requested page.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def require_shell() -> None:
    """Rerun through ``app.py`` when Streamlit is still in legacy pages-folder mode."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
