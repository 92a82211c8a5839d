"""Classic selection criteria of Jaakkola's MIT 6.867 lecture 12: Naive Bayes mutual information
(Eq. 2), MDL subset selection (Eq. 10-15), L1-logistic paths (Eq. 18-19) and AdaBoost with
decision stumps (Eq. 21-34)."""

from fsengine.methods.classic.selector import BoostingSelector as BoostingSelector
from fsengine.methods.classic.selector import L1PathSelector as L1PathSelector
from fsengine.methods.classic.selector import MDLSelector as MDLSelector
from fsengine.methods.classic.selector import MutualInfoSelector as MutualInfoSelector
