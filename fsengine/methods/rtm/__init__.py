"""The Relevance Tagging Machine (Molchanov, Kondrashkin & Vetrov) trained by Power EP, EP and EM.

Modules: ``special`` (digamma family for numba), ``logistic_normal`` (E[sigmoid] under a
Gaussian), ``model`` (tag structure, predictive probability), ``beta_projection`` (digamma-system
Newton), ``power_ep`` and ``ep`` (tilted moments), ``sites`` (sweeps with the convergence tricks,
evidence), ``em`` (variational bound), ``ard`` (prior strengths), ``evidence`` (Bayes factor per
tag), ``fit`` (driver), ``selector`` (the scikit-learn estimators), ``study`` (the slides'
experiments: what the page and the reproduction run), ``quadrature`` and ``reference_sweep``
(independent references for tests and the benchmark).
"""

from fsengine.methods.rtm.fit import METHOD_LABELS as METHOD_LABELS
from fsengine.methods.rtm.fit import METHODS as METHODS
from fsengine.methods.rtm.fit import RTMFit as RTMFit
from fsengine.methods.rtm.fit import RTMSettings as RTMSettings
from fsengine.methods.rtm.fit import fit_rtm as fit_rtm
from fsengine.methods.rtm.fit import suggested_settings as suggested_settings
from fsengine.methods.rtm.model import TagMatrix as TagMatrix
from fsengine.methods.rtm.model import tags_from as tags_from
