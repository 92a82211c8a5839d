"""The app's frame: page config, navigation, the shared sidebar, then the chosen page.

Both entry points call :func:`run_app`: the checkout's ``app.py`` with its ``pages/`` folder
(file pages, so ``streamlit run app.py`` and AppTest's ``switch_page("pages/bia.py")`` work) and
the installed :mod:`fsengine.app.main` without one (each page is its view's ``render``, imported
when the page is first shown). Streamlit's own navigation is hidden (``position="hidden"`` and
``client.showSidebarNavigation = false``, which also hides the ``pages/`` file list Streamlit would
otherwise show before the first run): the sidebar's page links are drawn here, first thing, before
any heavy import.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import streamlit as st

from fsengine.app.display import display_controls
from fsengine.app.guard import require_shell
from fsengine.app.registry import PAGES, PageSpec, get_page

#: the StreamlitPage objects of the current navigation, by key (for links between pages)
_NAV: dict[str, st.Page] = {}


def _view_callable(spec: PageSpec):
    """A callable page that imports its view module on first use (keeps the first visit light)."""

    def page() -> None:
        importlib.import_module(spec.module).render()

    page.__name__ = spec.key
    page.__qualname__ = spec.key
    return page


def _streamlit_page(spec: PageSpec, page_dir: Path | None) -> st.Page:
    target = str(page_dir / f"{spec.key}.py") if page_dir is not None else _view_callable(spec)
    kwargs = {"title": spec.title, "icon": spec.icon, "default": spec.default}
    if not spec.default:
        kwargs["url_path"] = spec.url_path
    return st.Page(target, **kwargs)


def page_link(key: str, label: str | None = None, icon: str | None = None, container=None) -> None:
    """``st.page_link`` to the page ``key`` of the current navigation."""
    spec = get_page(key)
    (container or st).page_link(_NAV[key], label=label or spec.title, icon=icon or spec.icon)


def run_app(page_dir: Path | None = None) -> None:
    """Draw the frame and run the chosen page. ``page_dir``: a checkout's ``pages/`` folder."""
    st.set_page_config(page_title="Feature Selection Explorer", page_icon=":mag:", layout="wide")
    pages = {spec.key: _streamlit_page(spec, page_dir) for spec in PAGES}
    _NAV.clear()
    _NAV.update(pages)
    navigation = st.navigation(list(pages.values()), position="hidden")
    with st.sidebar:
        nav_box = st.container(key="app_navigation")
        for spec in PAGES:
            page_link(spec.key, container=nav_box)
        st.divider()
        display_controls(st.sidebar)
        st.divider()
        _environment_errors()
        st.subheader("Dataset")
        from fsengine.app.picker import dataset_picker  # after the links: the picker imports the engine

        dataset_picker(st.sidebar)
    navigation.run()


def _environment_errors() -> None:
    """One sidebar error per environment variable set to something unusable (the upload limit's
    own error is the upload picker's)."""
    from fsengine import config
    from fsengine.app.safe_text import md_escape

    for problem in config.environment_problems():
        if not problem.startswith("FSENGINE_MAX_UPLOAD_MB="):
            st.error(md_escape(problem))


def show_page(key: str) -> None:
    """Body of a checkout's ``pages/KEY.py``: keep it inside the shell, then render the view."""
    require_shell()
    importlib.import_module(get_page(key).module).render()
