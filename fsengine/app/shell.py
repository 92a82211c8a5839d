"""The app's frame: page config, navigation, the shared sidebar, then the chosen page.

Both entry points call :func:`run_app`: the checkout's ``app.py`` with its ``pages/`` folder
(file pages, so ``streamlit run app.py`` and AppTest's ``switch_page("pages/bia.py")`` work) and
the installed :mod:`fsengine.app.main` without one (each page is its view's ``render``, imported
when the page is first shown). Streamlit's own navigation is hidden (``position="hidden"`` and
``client.showSidebarNavigation = false``, which also hides the ``pages/`` file list Streamlit would
otherwise show before the first run): the sidebar's page links are drawn here, first thing, before
any heavy import.

A first visit never shows an empty page: while a page's view and the engine it needs are imported
for the first time in this server process (seconds), the page's title and summary stand in its
place with a bar naming what is loading. The first run also starts the server-start
preparation when the server was not started through :mod:`fsengine.app.serve`
(:mod:`fsengine.app.prepare`; it runs once per process).
"""

from __future__ import annotations

import importlib
import sys
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


#: the libraries a page's first import loads, in the order the loading bar names them
ENGINE_MODULES = ("numpy", "pandas", "scipy.stats", "numba", "sklearn.linear_model", "plotly.graph_objects")


def _imported(name: str) -> bool:
    """True when module ``name`` is imported and done (not still executing in another thread, e.g.
    the server-start preparation's: importing it here would wait for that without a word)."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


def _loading(spec: PageSpec):
    """The page's title and summary with a bar, while its view is imported for the first time in
    this process (None when it is loaded): (placeholder, bar)."""
    if _imported(spec.module):
        return None
    box = st.empty()
    with box.container():
        st.title(spec.shown_title)
        st.markdown(spec.summary)
        bar = st.progress(0.0, text="Loading the page ...")
    return box, bar


def _load_view(spec: PageSpec, loading) -> None:
    """Import the page's view, naming each engine library on the bar, then clear the stand-in."""
    box, bar = loading
    steps = [name for name in ENGINE_MODULES if not _imported(name)] + [spec.module]
    for i, name in enumerate(steps):
        what = "the page" if name == spec.module else name.split(".")[0]
        bar.progress(i / len(steps), text=f"Loading {what} ({i + 1} of {len(steps)}) ...")
        importlib.import_module(name)
    box.empty()


def run_app(page_dir: Path | None = None) -> None:
    """Draw the frame and run the chosen page. ``page_dir``: a checkout's ``pages/`` folder.
    Background preparation steps aside while it runs (:func:`fsengine.app.compute.serving`)."""
    from fsengine.app.compute import serving

    with serving():
        _run_app(page_dir)


def skip_repl_check() -> None:
    """Mark Streamlit's "are we in a REPL?" warning as given. Streamlit checks it at the first element
    a process draws, with ``inspect.stack()``, which looks up the module of every frame's file among
    every imported module: with the engine's ~2,400 modules loaded that took 0.1-0.2 s, on the first
    visitor's way to the page's title (benchmarks/RESULTS.md, issue 32 item 6). A page served by
    Streamlit is never in a REPL, so there is nothing to warn about."""
    import streamlit.delta_generator as delta_generator

    delta_generator._use_warning_has_been_displayed = True


def _run_app(page_dir: Path | None) -> None:
    from fsengine.app import prepare

    skip_repl_check()
    st.set_page_config(page_title="Feature Selection Explorer", page_icon=":mag:", layout="wide")
    prepare.start()  # once per process; a no-op when fsengine.app.serve started it or it is turned off
    pages = {spec.key: _streamlit_page(spec, page_dir) for spec in PAGES}
    _NAV.clear()
    _NAV.update(pages)
    navigation = st.navigation(list(pages.values()), position="hidden")
    shown = next((s for s in PAGES if s.url_path == navigation.url_path), None)
    loading = _loading(shown) if shown is not None else None
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
    if loading is not None:
        _load_view(shown, loading)
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
