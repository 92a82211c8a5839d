"""Selectors of the information-theoretic family: the greedy members of Brown et al.'s unified
criterion (mRMR, JMI, CIFE, the free (beta, gamma) criterion), its non-linear relatives (CMIM, ICAP,
DISR) and FCBF. Their mathematics is in :mod:`fsengine.methods.information.model`, the
discretisation they share in :mod:`fsengine.methods.information.discretise`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsengine.base import BaseFeatureSelector
from fsengine.methods.information.discretise import discretise
from fsengine.methods.information.model import (
    CIFE,
    CMIM_CRITERION,
    DISR_CRITERION,
    ICAP_CRITERION,
    JMI,
    MRMR,
    CountTerms,
    Criterion,
    fcbf,
    greedy,
    linear_criterion,
    step_terms,
)
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.ranking import order_from
from fsengine.validation import FEATURE_BUDGET

#: the one parameter the registry does not offer (every other range is the registry's)
_OWN = {"n_features_to_select": FEATURE_BUDGET}

_BINS_DOC = """bins : "mean_sd" or int, default "mean_sd" (from the registry)
        The family's discretisation: three states at the column's mean ± one standard deviation, or
        that many equal-frequency bins (2 to 20); why the default is what it is:
        :mod:`fsengine.methods.information.discretise`."""

_GREEDY_DOC = """
    Parameters
    ----------
    {params}n_features_to_select : int or None, default None
        Keep the first k of the greedy sequence (grown to k when k > ``max_features``). None: the
        whole sequence.
    max_features : int, default from the registry (30)
        Length of the greedy sequence.
    {bins}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        J when the feature was selected (its relevance for the first); for the others, their J
        after the last step.
    relevance_ : ndarray of shape (n_features,)
        I(X_k; Y) in nats.
    order_ : ndarray of shape (n_features,)
        The greedy sequence, then the rest by score.
    ranking_, support_ : ndarray of shape (n_features,)
    stop_reason_ : str
        The largest sequence asked for, every feature selected, or "stop requested" (a progress
        callback raised :class:`~fsengine.progress.StopRequested`; the sequence so far is kept).
    classes_ : ndarray of shape (n_classes,)
    trace_ : DataFrame, one row per greedy step
        step, feature, relevance I(X_k; Y), redundancy (mean I(X_j; X_k) over the features j
        selected before it), conditional_redundancy (mean I(X_j; X_k | Y)), criterion (J).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    {see_also}

    Notes
    -----
    Class labels (two or more classes). Mutual informations are plug-in estimates in nats from the
    counts of the discretised states; ties go to the lower feature index. Each step is one count
    pass over the candidates against the feature selected last (a sparse column costs its
    non-zeros). Progress after every step, naming the feature. No ``path_``: the sequence is the
    result. Passes ``check_estimator`` without exemptions.{notes}

    Examples
    --------
{example}
"""


def _greedy_doc(*, params: str = "", see_also: str, notes: str = "", example: str):
    """Complete a greedy selector's docstring with the sections every member shares."""
    def decorate(cls):
        cls.__doc__ = cls.__doc__.rstrip() + "\n" + _GREEDY_DOC.format(
            params=params, bins=_BINS_DOC, see_also=see_also, notes=notes, example=example)
        return cls
    return decorate


class _GreedyInformationSelector(BaseFeatureSelector):
    """Greedy forward selection by one criterion of the family (``criterion()``)."""


    def criterion(self) -> Criterion:
        return self._CRITERION

    def _fit(self, X, y):
        p = X.shape[1]
        budget = max(self.max_features, self.n_features_to_select or 0)
        terms = CountTerms(discretise(X, self.bins), y)
        path = greedy(terms, self.criterion(), budget, progress=self._progress)
        self.classes_ = np.unique(y)
        self.relevance_ = path.relevance
        self.stop_reason_ = path.stop_reason
        scores = path.last_criterion.copy()
        scores[path.order] = path.criterion
        self.scores_ = scores
        self._set_order(order_from(scores, selected_order=path.order))
        size = path.order.size if self.n_features_to_select is None else min(self.n_features_to_select,
                                                                             path.order.size)
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[self.order_[:size]] = True
        redundancy, conditional = step_terms(terms, path.order)
        self.trace_ = pd.DataFrame({"step": np.arange(1, path.order.size + 1), "feature": path.order,
                                    "relevance": path.relevance[path.order], "redundancy": redundancy,
                                    "conditional_redundancy": conditional, "criterion": path.criterion})


_MRMR = method_defaults("mrmr")
_JMI = method_defaults("jmi")
_CIFE = method_defaults("cife")
_CMIM = method_defaults("cmim")
_ICAP = method_defaults("icap")
_DISR = method_defaults("disr")
_UNIFIED = method_defaults("unified")
_FCBF = method_defaults("fcbf")


@_greedy_doc(see_also="""JMISelector : adds the class-conditional redundancy back (beta = gamma = ``1/|S|``).
    MutualInfoSelector : relevance alone, each feature judged by itself.""",
             notes="""

    The same selections, order, scores and trace as this project's mRMR before it moved onto the
    family's kernel (``tests/methods/information/test_mrmr_move.py`` holds it to the old code bit
    for bit). skfeature-chappers' ``mrmr`` differs: its ``lcsi`` drops the ``1/|S|`` and fixes beta =
    0.8 (the ``function_name`` that selected ``1/|S|`` in scikit-feature is ignored), so it computes
    MIFS with beta = 0.8 instead, and the ``mrmr`` wrapper returns the ranks of the selected
    indices, not the selection (``tests/methods/information/test_peers.py``).""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import MRMRSelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> X = rng.normal(size=(300, 5))
    >>> X[:, 1] += 2 * y
    >>> X[:, 3] = X[:, 1]                       # an exact copy of the most relevant feature
    >>> X[:, 4] += y
    >>> sel = MRMRSelector(max_features=3).fit(X, y)
    >>> sel.order_[:2].tolist()
    [1, 4]""")
class MRMRSelector(_GreedyInformationSelector):
    """Minimum-redundancy maximum-relevance selection, MID form (H. Peng, F. Long, C. Ding, IEEE
    TPAMI 27 (2005) 1226-1238, Eq. 6 and its incremental form): beta = ``1/|S|``, gamma = 0 of the
    unified criterion, ::

        J(X_k) = I(X_k; Y) - (1 / |S|) sum_{j in S} I(X_j; X_k).

    A feature that repeats a selected one gains nothing: its redundancy equals its own entropy, so
    its criterion is -H(X_k | Y) <= 0 (an exact duplicate of the first feature is never second
    unless every other candidate is worse).
    """

    _parameter_constraints = method_constraints("mrmr", _OWN)

    _CRITERION = MRMR

    def __init__(self, *, n_features_to_select=None, max_features=_MRMR["max_features"], bins=_MRMR["bins"]):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins


@_greedy_doc(see_also="""MRMRSelector : the same without the conditional term.
    CIFESelector : the same terms summed instead of averaged.""",
             notes="""

    skfeature-chappers' ``jmi`` is not JMI: its ``lcsi`` ignores ``function_name`` and uses its
    defaults beta = 0.8, gamma = 0.5 without the ``1/|S|`` (``tests/methods/information/test_peers.py``
    shows it equals the unified criterion at (0.8, 0.5, "sum") and differs from JMI), and the
    wrapper returns the ranks of the selected indices, not the selection.""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import JMISelector, MRMRSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, (400, 5))
    >>> X[:, 4] = rng.random(400) < 0.2          # a rare flip, independent of y on its own
    >>> y = X[:, 1] ^ X[:, 4]                     # y is feature 1, flipped where feature 4 is on
    >>> JMISelector(max_features=2).fit(X, y).order_[:2].tolist()
    [1, 4]
    >>> MRMRSelector(max_features=2).fit(X, y).order_[:2].tolist()   # 4 looks irrelevant alone
    [1, 3]""")
class JMISelector(_GreedyInformationSelector):
    """Joint mutual information (H. Yang and J. Moody, NIPS 1999; Brown et al. 2012, Eq. 17): the
    information the candidate and each selected feature carry together about the class, ::

        J(X_k) = sum_{j in S} I(X_k X_j; Y)
               = |S| [ I(X_k; Y) - (1/|S|) sum_j I(X_j; X_k) + (1/|S|) sum_j I(X_j; X_k | Y) ] + const,

    beta = gamma = ``1/|S|`` of the unified criterion (the bracket is what is maximised and reported).
    It finds a feature that only helps together with a selected one (an XOR partner), which mRMR
    and MIM, judging its information alone, pass over.
    """

    _parameter_constraints = method_constraints("jmi", _OWN)

    _CRITERION = JMI

    def __init__(self, *, n_features_to_select=None, max_features=_JMI["max_features"], bins=_JMI["bins"]):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins


@_greedy_doc(see_also="""JMISelector : the same terms averaged over S (more stable as S grows).""",
             notes="""

    skfeature-chappers computes the same criterion (its ``lcsi`` at beta = gamma = 1) and gives the
    same selections, but its ``cife`` wrapper returns the ranks of the selected indices, not the
    selection (``tests/methods/information/test_peers.py``).""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import CIFESelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300)
    >>> X = rng.normal(size=(300, 4))
    >>> X[:, 2] += y
    >>> int(CIFESelector(max_features=2).fit(X, y).order_[0])
    2""")
class CIFESelector(_GreedyInformationSelector):
    """Conditional infomax feature extraction (D. Lin and X. Tang, ECCV 2006): beta = gamma = 1 of
    the unified criterion,

        J(X_k) = I(X_k; Y) - sum_{j in S} I(X_j; X_k) + sum_{j in S} I(X_j; X_k | Y).

    The sums grow with ``|S|``, so after a few steps the redundancy terms outweigh the relevance
    (Brown et al. 2012, Section 4.3).
    """

    _parameter_constraints = method_constraints("cife", _OWN)

    _CRITERION = CIFE

    def __init__(self, *, n_features_to_select=None, max_features=_CIFE["max_features"], bins=_CIFE["bins"]):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins


@_greedy_doc(see_also="""ICAPSelector : sums the positive interactions instead of taking the largest.""",
             notes="""

    skfeature-chappers' ``cmim`` computes the same criterion and gives the same selections
    (``tests/methods/information/test_peers.py``).""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import CMIMSelector
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 300)
    >>> X = rng.normal(size=(300, 4))
    >>> X[:, 1] += 2 * y
    >>> X[:, 2] = X[:, 1] + 0.01 * rng.normal(size=300)   # a near copy
    >>> X[:, 3] += y
    >>> CMIMSelector(max_features=2).fit(X, y).order_[:2].tolist()   # one copy, then 3: not the other
    [2, 3]""")
class CMIMSelector(_GreedyInformationSelector):
    """Conditional mutual information maximisation (F. Fleuret, JMLR 5 (2004) 1531-1555): the
    candidate's information about the class given the selected feature that explains it best,

        J(X_k) = min_{j in S} I(X_k; Y | X_j) = I(X_k; Y) - max_{j in S} [I(X_j; X_k) - I(X_j; X_k | Y)]

    (Brown et al. 2012, Eq. 18; the second form is what the running maximum keeps).
    """

    _parameter_constraints = method_constraints("cmim", _OWN)

    _CRITERION = CMIM_CRITERION

    def __init__(self, *, n_features_to_select=None, max_features=_CMIM["max_features"], bins=_CMIM["bins"]):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins


@_greedy_doc(see_also="""CMIMSelector : the largest interaction instead of their sum.""",
             notes="""

    skfeature-chappers' ``icap`` differs: it takes the largest interaction (it computes CMIM), not
    the sum of the positive ones (``tests/methods/information/test_peers.py``).""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import ICAPSelector
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 300)
    >>> X = rng.normal(size=(300, 4))
    >>> X[:, 1] += 2 * y
    >>> X[:, 2] = X[:, 1] + 0.01 * rng.normal(size=300)   # a near copy
    >>> X[:, 3] += y
    >>> ICAPSelector(max_features=2).fit(X, y).order_[:2].tolist()   # one copy, then 3: not the other
    [2, 3]""")
class ICAPSelector(_GreedyInformationSelector):
    """Interaction capping (A. Jakulin, PhD thesis, Ljubljana 2005; Brown et al. 2012, Eq. 19): every
    selected feature's redundancy counts only where it exceeds its class-conditional part,

        J(X_k) = I(X_k; Y) - sum_{j in S} max(0, I(X_j; X_k) - I(X_j; X_k | Y)).
    """

    _parameter_constraints = method_constraints("icap", _OWN)

    _CRITERION = ICAP_CRITERION

    def __init__(self, *, n_features_to_select=None, max_features=_ICAP["max_features"], bins=_ICAP["bins"]):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins


@_greedy_doc(see_also="""JMISelector : the same joint informations, not normalised by the joint entropy.""",
             notes="""

    skfeature-chappers' ``disr`` differs: it divides the running sum by sum_j (1 + I(X_j; X_k)), a
    factor no DISR paper has (scikit-feature's original ``disr`` did not), so its selections differ
    (``tests/methods/information/test_peers.py``).""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import DISRSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, (400, 5))
    >>> X[:, 4] = rng.random(400) < 0.2          # a rare flip, independent of y on its own
    >>> y = X[:, 1] ^ X[:, 4]                     # y is feature 1, flipped where feature 4 is on
    >>> DISRSelector(max_features=2).fit(X, y).order_[:2].tolist()
    [1, 4]""")
class DISRSelector(_GreedyInformationSelector):
    """Double input symmetrical relevance (P. E. Meyer and G. Bontempi, EvoWorkshops 2006; Brown et
    al. 2012, Eq. 20): the joint information of the candidate and each selected feature about the
    class, normalised by their joint entropy,

        J(X_k) = sum_{j in S} I(X_k X_j; Y) / H(X_k X_j Y).
    """

    _parameter_constraints = method_constraints("disr", _OWN)

    _CRITERION = DISR_CRITERION

    def __init__(self, *, n_features_to_select=None, max_features=_DISR["max_features"], bins=_DISR["bins"]):
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins


@_greedy_doc(params="""beta : float >= 0, default from the registry (1.0)
        Weight of the redundancy sum_j I(X_j; X_k).
    gamma : float >= 0, default from the registry (1.0)
        Weight of the class-conditional redundancy sum_j I(X_j; X_k | Y).
    normalise : {"mean", "sum"}, default from the registry ("mean")
        "mean": beta and gamma divided by ``|S|`` (mRMR, JMI); "sum": as given (MIFS, CIFE).
    """,
             see_also="""fsengine.methods.information.model.linear_grid : the selections of a whole
        (beta, gamma) grid from pairwise terms computed once.
    JMISelector, MRMRSelector, CIFESelector : named points of the same criterion.""",
             example="""    >>> import numpy as np
    >>> from fsengine.selectors import JMISelector, UnifiedInformationSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6))
    >>> y = (X[:, 0] + X[:, 3] > 0).astype(int)
    >>> jmi = JMISelector(max_features=4).fit(X, y)
    >>> same = UnifiedInformationSelector(beta=1.0, gamma=1.0, normalise="mean", max_features=4).fit(X, y)
    >>> bool((jmi.order_ == same.order_).all())
    True""")
class UnifiedInformationSelector(_GreedyInformationSelector):
    """The unified criterion of Brown, Pocock, Zhao & Luján (JMLR 13, 2012, Eq. 14) at any (beta, gamma),

        J(X_k) = I(X_k; Y) - beta sum_{j in S} I(X_j; X_k) + gamma sum_{j in S} I(X_j; X_k | Y)

    (beta and gamma divided by ``|S|`` with ``normalise="mean"``): MIM is (0, 0), MIFS (beta, 0, "sum"),
    CIFE (1, 1, "sum"), mRMR (1, 0, "mean"), JMI (1, 1, "mean"). The defaults (from the registry)
    are MIM's, relevance alone, so that the selector at its defaults repeats no named member.
    """

    _parameter_constraints = method_constraints("unified", _OWN)

    def __init__(self, *, beta=_UNIFIED["beta"], gamma=_UNIFIED["gamma"], normalise=_UNIFIED["normalise"],
                 n_features_to_select=None, max_features=_UNIFIED["max_features"], bins=_UNIFIED["bins"]):
        self.beta = beta
        self.gamma = gamma
        self.normalise = normalise
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.bins = bins

    def criterion(self) -> Criterion:
        return linear_criterion(self.beta, self.gamma, self.normalise)


class FCBFSelector(BaseFeatureSelector):
    """Fast correlation-based filter (L. Yu and H. Liu, ICML 2003, Fig. 2): relevance and redundancy
    by symmetrical uncertainty SU(A, B) = 2 I(A; B) / (H(A) + H(B)) of the discretised features.

    The features with SU(X_k, Y) > delta are listed by decreasing SU; the first remaining one, X_p,
    is predominant and removes every later X_q with

        SU(X_p, X_q) >= SU(X_q, Y)

    (X_p predicts X_q at least as well as X_q predicts the class: an approximate Markov blanket);
    repeat with the next remaining feature. The predominant features are the selection: FCBF stops
    by itself.

    Parameters
    ----------
    delta : float in [0, 1), default from the registry (0.0)
        Features with SU(X_k, Y) <= delta are left out before the redundancy analysis.
    n_features_to_select : int or None, default None
        Keep the first k of ``order_`` (the predominant features, then the rest by SU). None: the
        predominant features.
    bins : "mean_sd" or int, default "mean_sd" (from the registry)
        The family's discretisation (:mod:`fsengine.methods.information.discretise`).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        SU(X_k, Y).
    order_ : ndarray of shape (n_features,)
        The predominant features by decreasing SU, then the rest by SU.
    ranking_, support_ : ndarray of shape (n_features,)
    removed_by_ : ndarray of shape (n_features,)
        The predominant feature that removed each feature as redundant (-1: predominant, at or
        below delta, or not reached after a stop).
    stop_reason_ : str
    classes_ : ndarray of shape (n_classes,)
    trace_ : DataFrame, one row per predominant feature
        step, feature, su (with the class), removed (how many features it removed).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)

    See Also
    --------
    MRMRSelector : redundancy by mutual information, a fixed number of greedy steps.

    Notes
    -----
    Class labels. One count pass per predominant feature over the features still listed after it.
    Progress after every predominant feature; a stop request keeps the predominant features found
    so far. skfeature-chappers' ``fcbf`` casts the (index, SU) list to int, so every SU below 1
    becomes 0 and it takes the listed features in index order instead of by SU: its selections
    equal FCBF's only where the index order is the SU order (``tests/methods/information/test_peers.py``).
    Passes ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import FCBFSelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 500)
    >>> X = rng.integers(0, 2, (500, 5))
    >>> X[:, 2] = y ^ (rng.random(500) < 0.1)          # strong
    >>> X[:, 4] = X[:, 2] ^ (rng.random(500) < 0.05)   # a noisier copy of feature 2: redundant
    >>> X[:, 0] = y ^ (rng.random(500) < 0.3)          # weaker, but its own evidence
    >>> sel = FCBFSelector().fit(X, y)
    >>> sel.get_support(indices=True).tolist(), int(sel.removed_by_[4])   # noise 1 keeps SU 0.005
    ([0, 1, 2], 2)
    >>> FCBFSelector(delta=0.01).fit(X, y).get_support(indices=True).tolist()
    [0, 2]
    """

    _parameter_constraints = method_constraints("fcbf", _OWN)

    def __init__(self, *, delta=_FCBF["delta"], n_features_to_select=None, bins=_FCBF["bins"]):
        self.delta = delta
        self.n_features_to_select = n_features_to_select
        self.bins = bins

    def _fit(self, X, y):
        p = X.shape[1]
        path = fcbf(discretise(X, self.bins), y, self.delta, progress=self._progress)
        self.classes_ = np.unique(y)
        self.scores_ = path.su
        self.removed_by_ = path.removed_by
        self.stop_reason_ = path.stop_reason
        self._set_order(order_from(path.su, selected_order=path.order))
        size = path.order.size if self.n_features_to_select is None else min(self.n_features_to_select, p)
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[self.order_[:size]] = True
        self.trace_ = pd.DataFrame({"step": np.arange(1, path.order.size + 1), "feature": path.order,
                                    "su": path.su[path.order],
                                    "removed": [int(np.sum(path.removed_by == j)) for j in path.order]})
