"""Every feature-selection method as a scikit-learn compatible transformer.

See :mod:`fsengine.base` for the contract (``scores_``, ``order_``, ``ranking_``, ``trace_``, ``path_``).
``fit(X, y, progress=...)`` takes a callback ``progress(fraction, message)``; raising
:class:`StopRequested` in it stops the fit, and :class:`TqdmProgress` is a notebook progress bar.
"""

from fsengine.base import BaseFeatureSelector
from fsengine.methods.bayes_factor.selector import BayesFactorSelector
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.classic import BoostingSelector, L1PathSelector, MDLSelector, MutualInfoSelector
from fsengine.methods.gain.selector import CountCutoffSelector, IFSSelector, SGCSelector
from fsengine.methods.information.selector import (
    CIFESelector,
    CMIMSelector,
    DISRSelector,
    FCBFSelector,
    ICAPSelector,
    JMISelector,
    MRMRSelector,
    UnifiedInformationSelector,
)
from fsengine.methods.relief.selector import MultiSURFSelector, ReliefFSelector
from fsengine.methods.rtm.selector import RTMClassifier, RTMSelector
from fsengine.methods.toolbox.selector import (
    ANOVASelector,
    Chi2Selector,
    ForestSelector,
    PermutationSelector,
    RFESelector,
    StabilitySelector,
    VarianceRankSelector,
)
from fsengine.methods.wrappers.selector import BorutaSelector, SequentialForwardSelector
from fsengine.progress import StopRequested, TqdmProgress

__all__ = [
    "BaseFeatureSelector", "VarianceRankSelector",
    "BIASelector",
    "BayesFactorSelector",
    "CountCutoffSelector", "IFSSelector", "SGCSelector",
    "MutualInfoSelector", "MDLSelector", "L1PathSelector", "BoostingSelector",
    "RTMClassifier", "RTMSelector",
    "ANOVASelector", "Chi2Selector", "ForestSelector", "PermutationSelector", "RFESelector", "StabilitySelector",
    "MRMRSelector", "JMISelector", "CMIMSelector", "DISRSelector", "CIFESelector", "ICAPSelector", "FCBFSelector",
    "UnifiedInformationSelector",
    "StopRequested", "TqdmProgress",
    "BorutaSelector", "SequentialForwardSelector",
    "ReliefFSelector", "MultiSURFSelector",
]
