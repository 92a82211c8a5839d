"""Pure plotly figure builders: data in, ``go.Figure`` out (no Streamlit), one module per view.

Pages stay thin and figures are testable without a browser. Builders with many traces use
``go.Scattergl`` (WebGL).
"""

from fsengine.plots.style import FEATURE_COLORS, HIGHLIGHT, apply_style

__all__ = ["FEATURE_COLORS", "HIGHLIGHT", "apply_style"]
