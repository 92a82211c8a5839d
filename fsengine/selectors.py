"""Every feature-selection method as a scikit-learn compatible transformer.

See :mod:`fsengine.base` for the contract (``scores_``, ``order_``, ``ranking_``, ``trace_``, ``path_``).
"""

from .base import BaseFeatureSelector, VarianceRankSelector
from .methods.bayes_factor_selector import BayesFactorSelector
from .methods.bia_selector import BIASelector
from .methods.classic import BoostingSelector, L1PathSelector, MDLSelector, MutualInfoSelector
from .methods.gain_selectors import CountCutoffSelector, IFSSelector, SGCSelector
from .methods.rtm.estimators import RTMClassifier, RTMSelector

__all__ = [
    "BaseFeatureSelector", "VarianceRankSelector",
    "BIASelector",
    "BayesFactorSelector",
    "CountCutoffSelector", "IFSSelector", "SGCSelector",
    "MutualInfoSelector", "MDLSelector", "L1PathSelector", "BoostingSelector",
    "RTMClassifier", "RTMSelector",
]
