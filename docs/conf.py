"""Sphinx configuration of fsengine's documentation site (``make docs``: offline, warnings are
errors). The pages under ``lessons/``, ``records/`` and ``api/generated`` are written at build time
by ``_ext/fsengine_docs.py`` from the notebooks, the committed records and the public modules'
``__all__``; nothing generated is committed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS / "_ext"))

import fsengine  # noqa: E402

project = "fsengine"
author = "the fsengine developers"
copyright = "2026, the fsengine developers"
release = version = fsengine.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "fsengine_docs",
]

# the committed records' own files (report.md, CSVs, figures) are not pages: the records/ pages
# are generated from their results.json and link to the files, which the build copies beside them
exclude_patterns = ["_build", "results", "README.md", "**.ipynb_checkpoints", "check_links.py", "api/modules.rst"]
templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# --- API reference: numpydoc renders the docstrings; autosummary writes one page per public name
autosummary_generate = True
autosummary_ignore_module_all = False
# scikit-learn writes set_*_request methods onto every estimator class (metadata routing); they
# are scikit-learn's API, documented there, not ours
autodoc_default_options = {"members": True, "inherited-members": False,
                           "exclude-members": ",".join(f"set_{what}_request" for what in (
                               "fit", "transform", "predict", "predict_proba", "score", "partial_fit",
                               "decision_function", "inverse_transform", "split"))}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- the lessons: executed at build time, cached between builds (myst-nb + jupyter-cache)
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_merge_streams = True
# plotly's "sphinx_gallery" renderer writes each figure as a <div> and a Plotly.newPlot call; its
# CDN <script> tags are taken out after the build (_ext/fsengine_docs.py, offline) and the site
# loads its one local copy of plotly.js (html_js_files below), so the lessons' explorables,
# sliders included, work from file:// with no network
os.environ["PLOTLY_RENDERER"] = "sphinx_gallery"
# the lessons' progress bars (tqdm widgets) belong to a live kernel, not to a page: no widget script
# (require.js, the widget manager) is loaded, from a CDN or at all, and the bars stay invisible
nb_ipywidgets_js = {}
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- HTML: the PyData theme, offline (no fonts, analytics or CDN), math as MathML
html_theme = "pydata_sphinx_theme"
html_title = f"fsengine {version}"
html_static_path = ["_static"]
html_js_files = ["plotly.min.js"]
html_css_files = ["fsengine.css"]
html_math_renderer = "mathml"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"**": ["sidebar-nav-bs"], "index": []}
html_copy_source = False
html_show_sourcelink = False
