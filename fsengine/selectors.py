"""Every feature-selection method as a scikit-learn compatible transformer.

See :mod:`fsengine.base` for the contract (``scores_``, ``ranking_``, ``trace_``, ``path_``).
"""

from .base import BaseFeatureSelector, VarianceRankSelector
from .methods.bayes_factor_selector import BayesFactorSelector
from .methods.gain_selectors import CountCutoffSelector, IFSSelector, SGCSelector

__all__ = [
    "BaseFeatureSelector",
    "BayesFactorSelector",
    "CountCutoffSelector",
    "IFSSelector",
    "SGCSelector",
    "VarianceRankSelector",
]
