"""Pure plotly figure builders: data in, ``go.Figure`` out (no Streamlit), one module per view.

Pages stay thin and figures are testable without a browser. Builders with many traces use
``go.Scattergl`` (WebGL). A view with a slider is an *explorable*, one figure that carries its own
slider (:mod:`fsengine.plots.explorable`; ``bia_explorable``, ``stage_explorable``,
``pairs_explorable``, ``l1_explorable``, ``threshold_explorable``, ``top_k_explorable``, and
``unified_explorable`` with its two weights as two sliders): the same figure answers its sliders
in the app, in a notebook's ``fig.show()`` and in a saved HTML file.

Public: the names below and the figure builders of the family modules ``fsengine.plots.bia``,
``gain``, ``bayes_factor``, ``classic``, ``rtm``, ``information``, ``compare``, ``data`` and
``benchmark`` (each module's ``__all__``). ``Position`` places an explorable's slider
(``Position.nearest(grid, value)``).
"""

from fsengine.plots.style import FEATURE_COLORS, HIGHLIGHT, METHOD_COLORS, apply_style
from fsengine.position import Position

__all__ = ["FEATURE_COLORS", "HIGHLIGHT", "METHOD_COLORS", "Position", "apply_style"]
