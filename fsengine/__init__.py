"""fsengine: the engine behind the Feature Selection Explorer.

Sub-packages
------------
data        loaders, generators, feature extraction, download (``fsengine.data``)
methods     the mathematics of each source paper, one module per method
references  exact references (enumeration, closed forms, quadrature) for tests and pages
plots       pure plotly figure builders
selectors   every method as a scikit-learn compatible transformer
"""

__version__ = "0.2.0"
