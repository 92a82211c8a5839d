"""Selectors of the Relief family: ``ReliefFSelector`` (Kononenko 1994) and ``MultiSURFSelector``
(Urbanowicz et al. 2018). The mathematics, the tie rule and the memory bound are in
:mod:`fsengine.methods.relief.model`; the numba kernels in :mod:`fsengine.methods.relief.kernels`.
"""

from __future__ import annotations

import numpy as np

from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.methods.relief.model import relief_scores
from fsengine.methods.toolbox.selector import _TaskSelector
from fsengine.validation import FEATURE_BUDGET

_RELIEFF = method_defaults("relieff")
_MULTISURF = method_defaults("multisurf")
#: the one parameter the registry does not offer (every other range is the registry's)
_OWN = {"n_features_to_select": FEATURE_BUDGET}


class _ReliefSelector(_TaskSelector):
    """The fit both Relief selectors share: instances to score, the weights, the fitted contract."""

    _method: str

    def _instances(self, n: int) -> np.ndarray:
        """Every row, or a seeded sample of ``n_instances`` rows (sorted) when that is fewer."""
        if self.n_instances is None or self.n_instances >= n:
            return np.arange(n)
        return np.sort(np.random.default_rng(self.random_state).choice(n, size=self.n_instances, replace=False))

    def _neighbours(self) -> dict:
        """The method's own neighbour parameters (ReliefF's k)."""
        return {}

    def _fit(self, X, y):
        self.task_ = self._resolve_task(y)
        result = relief_scores(X, y, method=self._method, task=self.task_, discrete_threshold=self.discrete_threshold,
                               instances=self._instances(X.shape[0]), progress=self._progress, **self._neighbours())
        self.scores_ = result.scores
        self.discrete_ = result.discrete
        self.instances_ = result.instances
        self._rank_and_support(self.scores_ > 0)
        self.trace_ = result.trace


_SHARED_PARAMETERS = """    n_features_to_select : int or None, default None
        Keep the k largest weights. None: every feature with a positive weight (its nearest misses
        differ from the instance more than its nearest hits do).
    discrete_threshold : int in [0, 1000], default from the registry (10)
        A feature with at most this many distinct values is discrete (diff: equal / different);
        the others are continuous (diff: ``|a - b| / range``). 0: every feature continuous. skrebate's
        and fast-select's rule and default.
    n_instances : int in [1, 10,000,000] or None, default from the registry (None)
        None: every instance is scored (Kononenko's m = n, skrebate's only choice). An int m < n:
        a random sample of m instances, each still compared with all n (time m n p instead of
        n^2 p; the weights are the same estimate with more noise).
    random_state : int in [0, 2**32 - 1], default from the registry (0)
        Seeds the sample of instances (unused when every instance is scored).
    task : {"auto", "classification", "regression"}, default "auto"
        Class labels, or a real target (a neighbour within one standard deviation of the target is
        a hit, as in skrebate). "auto": a real target when scikit-learn's ``type_of_target(y)`` is
        "continuous"."""

_SHARED_ATTRIBUTES = """    scores_ : ndarray of shape (n_features,)
        The feature weights W[A], in [-1, 1].
    order_, ranking_ : ndarray of shape (n_features,)
        Features by decreasing weight (ties by lower index) and their ranks, 1 = best.
    support_ : ndarray of shape (n_features,), dtype bool
    discrete_ : ndarray of shape (n_features,), dtype bool
        The features compared as discrete.
    instances_ : ndarray of shape (n_instances,)
        The rows scored.
    task_ : str
        "classification" or "regression"."""


class ReliefFSelector(_ReliefSelector):
    """Rank features by their ReliefF weight (I. Kononenko, ECML 1994; Robnik-Sikonja & Kononenko,
    Machine Learning 53 (2003) 23-69, Fig. 3): for every instance R_i its k nearest hits H_j and,
    for every other class C, its k nearest misses M_j(C), with the Manhattan distance of
    Kononenko's diffs,

        W[A] = (1/m) sum_i [ -sum_j diff(A, R_i, H_j) / k
                             + sum_{C != class(R_i)} P(C) / (1 - P(class(R_i))) sum_j diff(A, R_i, M_j(C)) / k ].

    Computed in blocks of instances by numba kernels (:mod:`fsengine.methods.relief.model`):
    memory O(b (n + p)) for a block of b instances, never an n x n matrix; sparse X is not
    densified.

    Parameters
    ----------
    n_neighbors : int in [1, 1000], default from the registry (10)
        k, the hits and the misses of every other class taken per instance (Kononenko's
        recommended 10; skrebate's default is 100, fast-select's 3). A class with k or fewer other
        instances gives all of them.
{shared}

    Attributes
    ----------
{attributes}
    trace_ : DataFrame, one row per block of instances
        block, first and last (positions of the block among the scored instances), tied_instances
        (instances whose k-th hit or miss place was shared by equidistant candidates),
        top_agreement (share of the final top 10 features already in the top 10 after this block:
        how soon the ranking settles).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X has string column names.

    See Also
    --------
    MultiSURFSelector : neighbours within a per-instance distance threshold instead of k.

    Notes
    -----
    **Agreement with skrebate** (``skrebate.ReliefF`` 0.8.4, tested in
    ``tests/methods/relief/test_skrebate.py``): the same weights to round-off on continuous,
    discrete, two-class, balanced multi-class data and real targets. It differs, by design, in
    three cases:

    - *Equidistant neighbours.* skrebate takes them in the order of ``numpy.argsort``, whose order
      among ties is unspecified (it changes with the row order and the machine's SIMD sort).
      Here the candidates at the k-th distance share the places left equally: the average over
      every row order of taking the lower index first, so the weights do not depend on the order
      of the rows.
    - *Unequal class sizes.* skrebate weights the misses of every other class equally (it stores
      the class frequencies but does not use them; scikit-rebate issue #78); here they are weighted
      by P(C) / (1 - P(class(R_i))), as Kononenko defines ReliefF. With equal class sizes the two
      agree.
    - *Mixed discrete and continuous features.* skrebate counts a discrete mismatch p / d times in
      the distance (its Hamming distance over the d discrete features, a fraction, is multiplied
      by all p features), where its own missing-value path and Kononenko count it once; and its
      continuous diff becomes 1 beyond one standard deviation (its "ramp"). Here the diff is
      Kononenko's everywhere.
    - *Fewer than k hits* (a class of k or fewer instances, or a real target's extremes): skrebate
      walks on to the instance itself (whose distance it set to ``sys.maxsize`` so that it "is
      never selected") and counts it as a hit with diff 0, shrinking that instance's hit term.
      Here, as in Kononenko's definition, the hits are the other instances of the class.

    Equidistant neighbours are common on quantised data such as notMNIST's pixels (values k / 255):
    there the weights differ from skrebate's by the tie rule alone, and agree to round-off once a
    tiny jitter breaks the ties (``benchmarks/bench_relief.py --agreement``, recorded in
    ``benchmarks/RESULTS.md``).

    Missing values are refused (as by every fsengine selector). Passes ``check_estimator`` without
    exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import ReliefFSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(200, 5))
    >>> y = ((X[:, 1] > 0.5) ^ (X[:, 3] > 0.5)).astype(int)   # an XOR pair: no feature alone tells
    >>> sel = ReliefFSelector().fit(X, y)
    >>> sorted(sel.order_[:2].tolist())
    [1, 3]
    """

    _method = "relieff"
    _parameter_constraints = method_constraints("relieff", _OWN)

    def __init__(self, *, n_features_to_select=None, n_neighbors=_RELIEFF["n_neighbors"],
                 discrete_threshold=_RELIEFF["discrete_threshold"], n_instances=_RELIEFF["n_instances"],
                 random_state=_RELIEFF["random_state"], task=_RELIEFF["task"]):
        self.n_features_to_select = n_features_to_select
        self.n_neighbors = n_neighbors
        self.discrete_threshold = discrete_threshold
        self.n_instances = n_instances
        self.random_state = random_state
        self.task = task

    def _neighbours(self) -> dict:
        return {"n_neighbors": self.n_neighbors}


class MultiSURFSelector(_ReliefSelector):
    """Rank features by their MultiSURF weight (R. J. Urbanowicz, R. S. Olson, P. Schmitt,
    M. Meeker, J. H. Moore, J. Biomed. Inform. 85 (2018) 168-188): ReliefF with no k. The
    neighbours of instance R_i are the instances closer than

        T_i = mean_i - sd_i / 2,

    the mean and population standard deviation of R_i's distances to the n - 1 other instances
    (Manhattan, of Kononenko's diffs); hits and misses inside T_i are averaged separately:

        W[A] = (1/m) sum_i [ -sum_{H inside T_i} diff(A, R_i, H) / h_i
                             + sum_C w_i(C) sum_{M of class C inside T_i} diff(A, R_i, M) / m_i(C) ].

    With two classes (or a real target) w_i = 1 and the miss term is the mean over the misses
    inside T_i. With more classes the class means are weighted by the class priors renormalised
    over the classes that have a miss inside T_i, w_i(C) = P(C) / sum_{C'} P(C') (Kononenko's
    ReliefF weighting, where every class contributes k misses and the renormalisation is void).

    Parameters
    ----------
{shared}

    Attributes
    ----------
{attributes}
    trace_ : DataFrame, one row per block of instances
        block, first, last, mean_threshold (mean T_i), mean_hits and mean_misses (mean numbers
        inside T_i), top_agreement (as for :class:`ReliefFSelector`).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X has string column names.

    See Also
    --------
    ReliefFSelector : a fixed number k of hits and misses.

    Notes
    -----
    **Agreement with skrebate** (``skrebate.MultiSURF`` 0.8.4, tested in
    ``tests/methods/relief/test_skrebate.py``): the same weights to round-off on continuous,
    discrete (ties included: the neighbourhood is strict, d < T_i), two-class data and real
    targets. It differs in two cases:

    - *More than two classes.* skrebate's miss term is L sum_C q_C^2 mbar_C, with q_C the share of
      class C among the misses inside T_i, mbar_C their mean diff and L the number of other
      classes. Its class weights L q_C^2 sum to 1 only when the classes are equally represented
      inside T_i (q = (0.9, 0.1) gives 1.62 and 0.02: the miss term is inflated by 64%), so the
      miss term is no average of the misses' diffs. Here it is the prior-weighted average above.
    - *Mixed discrete and continuous features:* skrebate's distance and ramp, as for
      :class:`ReliefFSelector`.

    Missing values are refused. Passes ``check_estimator`` without exemptions.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import MultiSURFSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(200, 5))
    >>> y = ((X[:, 1] > 0.5) ^ (X[:, 3] > 0.5)).astype(int)
    >>> sel = MultiSURFSelector().fit(X, y)
    >>> sorted(sel.order_[:2].tolist()), sel.trace_.columns.tolist()[3:6]
    ([1, 3], ['mean_threshold', 'mean_hits', 'mean_misses'])
    """

    _method = "multisurf"
    _parameter_constraints = method_constraints("multisurf", _OWN)

    def __init__(self, *, n_features_to_select=None, discrete_threshold=_MULTISURF["discrete_threshold"],
                 n_instances=_MULTISURF["n_instances"], random_state=_MULTISURF["random_state"],
                 task=_MULTISURF["task"]):
        self.n_features_to_select = n_features_to_select
        self.discrete_threshold = discrete_threshold
        self.n_instances = n_instances
        self.random_state = random_state
        self.task = task


for _cls in (ReliefFSelector, MultiSURFSelector):
    _cls.__doc__ = _cls.__doc__.replace("{shared}", _SHARED_PARAMETERS).replace("{attributes}", _SHARED_ATTRIBUTES)
