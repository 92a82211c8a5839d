"""Every feature-selection method as a scikit-learn compatible transformer.

See :mod:`fsengine.base` for the contract (``scores_``, ``ranking_``, ``trace_``, ``path_``).
"""

from .base import BaseFeatureSelector, VarianceRankSelector
from .methods.rtm.estimators import RTMClassifier, RTMSelector

__all__ = [
    "BaseFeatureSelector",
    "VarianceRankSelector",
    "RTMClassifier",
    "RTMSelector",
]
