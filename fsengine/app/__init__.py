"""The dashboard: a Streamlit multipage app shipped inside the package.

``fsengine app`` serves it from any folder (entry script :mod:`fsengine.app.main`); in a checkout,
``streamlit run app.py`` serves the same pages through the top-level ``app.py`` and ``pages/``.
The page bodies live in :mod:`fsengine.app.views` (one ``render()`` per page), the page list in
:mod:`fsengine.app.registry`, the navigation and shared sidebar in :mod:`fsengine.app.shell`.
The engine never imports this package.
"""
