"""Every feature-selection method as a scikit-learn compatible transformer.

See :mod:`fsengine.base` for the contract (``scores_``, ``ranking_``, ``trace_``, ``path_``).
"""

from .base import BaseFeatureSelector, VarianceRankSelector
from .methods.bia_selector import BIASelector
from .methods.classic import BoostingSelector, L1PathSelector, MDLSelector, MutualInfoSelector
from .methods.bayes_factor_selector import BayesFactorSelector
from .methods.gain_selectors import CountCutoffSelector, IFSSelector, SGCSelector

__all__ = [
    "BIASelector",
    "BaseFeatureSelector",
    "BayesFactorSelector",
    "CountCutoffSelector",
    "IFSSelector",
    "SGCSelector",
    "VarianceRankSelector",
    "MutualInfoSelector", "MDLSelector", "L1PathSelector", "BoostingSelector",
]
