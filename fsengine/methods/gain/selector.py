"""scikit-learn selectors for maxent gain selection: IFS, SGC (with look-ahead) and count cutoff.

They select (predicate, class) *pairs*, the features f(x, y) = [x_j != 0 and y = c] of a
conditional maxent model (Zhou, Wu, Weng & Schmidt 2003, Section 2); the fitted per-column
attributes of the selector contract (:mod:`fsengine.base`) are about *predicates*, the input
columns. Pair-level detail (which class, gain, alpha, work per stage) is in ``trace_``; the
engine is :func:`fsengine.methods.gain.model.select_features`.

Defaults come from the method registry (:func:`fsengine.methods.registry.method_defaults`), the
one source the app, the command line and these classes read: ``n_features_to_select=50`` pairs
(the classes said 100 before the registry became the single source; the registry's 50 is what
app and command-line users got, so it won) and ``cutoff=1``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from fsengine.base import BaseFeatureSelector
from fsengine.maxent import MaxentData
from fsengine.maxent.kernels import ALPHA_CAP
from fsengine.methods.gain.model import select_features
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.ranking import order_from

_IFS = method_defaults("ifs")
_SGC = method_defaults("sgc")
_COUNT = method_defaults("count")


class _GainSelector(BaseFeatureSelector):
    """Shared fit of the three pair selectors (see the module docstring)."""

    _method = "sgc"

    def fit(self, X, y, *, progress=None, predicate_names=None):
        """Select (predicate, class) pairs on ``(X, y)``; returns self.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Predicate values (binary predicates: 0/1; real values are allowed for IFS/SGC).
        y : array-like of shape (n_samples,)
            Class labels.
        progress : callable ``progress(fraction, message)``, default=None
            Called after every selection stage (:mod:`fsengine.progress`); raising
            :class:`~fsengine.progress.StopRequested` ends the selection with the pairs selected
            so far (``stop_reason_ == "stop requested"``).
        predicate_names : sequence of str of length n_features, default=None
            Names of the columns in ``trace_`` and ``candidates_`` (default: the column names of
            a DataFrame X, else ``x0, x1, ...``).
        """
        self._predicate_names = None if predicate_names is None else list(map(str, predicate_names))
        try:
            return super().fit(X, y, progress=progress)
        finally:
            del self._predicate_names

    def _select_kwargs(self) -> dict:
        """The keyword arguments of :func:`select_features` particular to the subclass."""
        return {}

    def _fit(self, X, y):
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        data = MaxentData(X, y_idx, n_classes=self.classes_.size)
        p = data.n_predicates
        names = self._predicate_names
        if names is not None and len(names) != p:
            raise ValueError(f"{len(names)} predicate names for {p} columns of X")
        if names is None:
            names = [str(n) for n in getattr(self, "feature_names_in_", [f"x{j}" for j in range(p)])]
        result = select_features(data, self._method, cutoff=self.cutoff, n_features=self.n_features_to_select,
                                 predicate_names=names, progress=self._progress,
                                 **self._select_kwargs())
        cand = result.candidates.copy()
        cand["class"] = self.classes_[cand["class"].to_numpy()]
        trace = result.trace.copy()
        trace["class"] = self.classes_[trace["class"].to_numpy().astype(np.int64)] if len(trace) else []
        trace.insert(4, "feature", [f"{n} -> {c}" for n, c in zip(trace["predicate_name"], trace["class"])])
        self.candidates_ = cand
        self.trace_ = trace
        self.stop_reason_ = result.stop_reason
        # a selected pair keeps the gain it was selected with (selection removes it from later
        # stages); an unselected one has its last computed / stored gain (count: co-occurrences)
        scores = np.zeros(p)
        np.maximum.at(scores, cand["predicate"].to_numpy(), np.maximum(cand["gain"].to_numpy(), 0.0))
        self.scores_ = scores
        first = list(dict.fromkeys(trace["predicate"].astype(int).tolist()))
        self._set_order(order_from(scores, first))
        support = np.zeros(p, dtype=bool)
        support[first] = True
        self.support_ = support
        if result.state is not None:
            self.model_ = result.state.model()
        return self


_ATTRIBUTES = """
    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Per predicate, the best score of its candidate pairs: the gain (total training
        log-likelihood, nats) at which a pair was selected, else its last computed gain (IFS: on
        the final model; SGC: the stored, possibly stale, gain); the count cutoff: the largest
        co-occurrence count. 0 for predicates without a candidate pair.
    order_ : ndarray of shape (n_features,)
        Predicates in the order their first pair was selected, then by decreasing score.
    ranking_ : ndarray of shape (n_features,)
        Rank of each predicate in ``order_`` (1 = selected first).
    support_ : ndarray of shape (n_features,), dtype=bool
        Predicates with at least one selected pair (the columns ``transform`` keeps).
    trace_ : pandas.DataFrame, one row per stage (selected pair)
        ``stage``, ``candidate``, ``predicate``, ``predicate_name``, ``feature``
        (``"name -> class"``), ``class`` (label), ``gain`` (Zhou et al.'s per-instance G =
        gain_total / n_samples), ``gain_total`` (nats), ``alpha``, ``gain_computations`` (this
        stage), ``seconds`` (cumulative, from the stage-0 gains on), ``count`` (co-occurrences).
    candidates_ : pandas.DataFrame, one row per candidate pair
        ``predicate``, ``predicate_name``, ``class``, ``count``, ``empirical_sum``, ``gain``,
        ``alpha``, ``selected_at`` (stage, or -1).
    stop_reason_ : str
        Why the selection ended, in words: the budget, ``min_gain``, no candidate left, or
        ``"stop requested"`` (a progress callback raised StopRequested).
    model_ : fsengine.maxent.MaxentModel
        (IFS/SGC) The maxent model of the selected pairs with their incremental weights alpha
        (re-fitted MAP weights with ``refit_every``).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined when X has string column names.
"""


class IFSSelector(_GainSelector):
    """Incremental feature selection (Berger et al. 1996; Zhou et al. 2003, Fig. 1).

    Every stage computes, for every remaining candidate pair f, the approximate gain of adding it
    with its own weight alpha while all other weights stay fixed (Zhou et al., Section 2)::

        G_{S u f}(alpha) = alpha E~[f] - sum_x p~(x) log(Z_{S u f, alpha}(x) / Z_S(x)),
        Delta L(S, f) = max_alpha G_{S u f}(alpha)

    by bracketed 1-D Newton (``|alpha| <= 20``), adds the best pair (ties: lowest candidate index),
    and adjusts the model (Fig. 1, step 4). Stage-0 gains are the closed form of Section 3 for
    binary predicates.

    Parameters
    ----------
    n_features_to_select : int or None, default=50
        Pairs to select (a predicate may be selected with several classes); None: until
        ``min_gain`` stops it or no candidate is left. The default is the registry's.
    min_gain : float, default=0.0
        Stop when the best gain (total nats) is at most this.
    cutoff : int, default=1
        Candidate pairs must co-occur at least this often in the training data.
    refit_every : int or None, default=None
        Re-fit all selected weights by MAP every k stages (Berger et al.'s full re-estimation).
    {attributes}
    See Also
    --------
    SGCSelector : the same gains, recomputed selectively (Zhou et al. Fig. 2).
    CountCutoffSelector : the most frequent pairs, no gains.
    fsengine.methods.gain.model.select_features : the engine, on a ``MaxentData``.

    Notes
    -----
    scikit-learn ``check_estimator``: no exemptions (real-valued X takes the general Newton path).

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.selectors import IFSSelector
    >>> ds = make_planted_maxent(n_samples=2000, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> sel = IFSSelector(n_features_to_select=4).fit(ds.X, ds.y)
    >>> sel.order_[:4].tolist()
    [22, 20, 19, 11]
    >>> planted = set(zip(ds.extras["true_pairs"]["predicate"], ds.extras["true_pairs"]["class"]))
    >>> set(zip(sel.trace_["predicate"], sel.trace_["class"])) == planted
    True
    >>> sel.stop_reason_
    'the budget of 4 pairs is reached'
    """

    _method = "ifs"
    _parameter_constraints = method_constraints("ifs", {
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "refit_every": [Interval(Integral, 1, None, closed="left"), None],
    })

    def __init__(self, *, n_features_to_select=_IFS["n_features_to_select"], min_gain=0.0,
                 cutoff=_IFS["cutoff"], refit_every=None):
        self.n_features_to_select = n_features_to_select
        self.min_gain = min_gain
        self.cutoff = cutoff
        self.refit_every = refit_every

    def _select_kwargs(self) -> dict:
        return {"min_gain": self.min_gain, "refit_every": self.refit_every, "cap": ALPHA_CAP}


class SGCSelector(_GainSelector):
    """Selective gain computation (Zhou et al. 2003, Fig. 2), optionally with look-ahead.

    The gains are IFS's, ``Delta L(S, f) = max_alpha G_{S u f}(alpha)`` (Section 2), but each
    candidate's last computed gain g(j, k) is kept in a max-heap as an approximate upper bound of
    its later gains g(j, k + Delta) (Section 3): a stage recomputes only the top of the heap until
    a freshly computed gain stays on top. ``lookahead=L`` also recomputes the next L candidates
    in heap order and takes the best fresh gain (the look-ahead version, Section 3). Stage-0 gains
    are the closed form g(j, 0) of Section 3. Stored gains are not true upper bounds, so SGC can
    legitimately select differently from IFS (:mod:`fsengine.methods.gain.model`).

    Parameters
    ----------
    n_features_to_select : int or None, default=50
        Pairs to select; None: until ``min_gain`` stops it or no candidate is left. The default
        is the registry's.
    min_gain : float, default=0.0
        Stop when the best gain (total nats) is at most this.
    cutoff : int, default=1
        Candidate pairs must co-occur at least this often in the training data.
    lookahead : int, default=0
        Candidates recomputed after the one SGC found (the paper uses 500).
    refit_every : int or None, default=None
        Re-fit all selected weights by MAP every k stages.
    {attributes}
    See Also
    --------
    IFSSelector : every gain recomputed at every stage (Fig. 1).
    CountCutoffSelector : the most frequent pairs, no gains.
    fsengine.methods.gain.model.select_features : the engine, on a ``MaxentData``.

    Notes
    -----
    scikit-learn ``check_estimator``: no exemptions.

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.selectors import SGCSelector
    >>> ds = make_planted_maxent(n_samples=2000, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> sel = SGCSelector(n_features_to_select=4, lookahead=2).fit(ds.X, ds.y)
    >>> sel.order_[:4].tolist(), int(sel.support_.sum())
    ([22, 20, 19, 11], 4)
    >>> int(sel.trace_["gain_computations"].iloc[0]) == len(sel.candidates_)  # stage 0: every candidate
    True
    """

    _method = "sgc"
    _parameter_constraints = method_constraints("sgc", {
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "refit_every": [Interval(Integral, 1, None, closed="left"), None],
    })

    def __init__(self, *, n_features_to_select=_SGC["n_features_to_select"], min_gain=0.0,
                 cutoff=_SGC["cutoff"], lookahead=_SGC["lookahead"], refit_every=None):
        self.n_features_to_select = n_features_to_select
        self.min_gain = min_gain
        self.cutoff = cutoff
        self.lookahead = lookahead
        self.refit_every = refit_every

    def _select_kwargs(self) -> dict:
        return {"min_gain": self.min_gain, "lookahead": self.lookahead, "refit_every": self.refit_every}


class CountCutoffSelector(_GainSelector):
    """Count cutoff baseline (Ratnaparkhi 1998; Zhou et al. 2003, Fig. 5).

    The ``n_features_to_select`` most frequent (predicate, class) pairs among those seen together
    at least ``cutoff`` times, by co-occurrence count ``sum_i [x_ij != 0 and y_i = c]`` (ties:
    lower candidate index, i.e. predicate, then class). No gains and no weights are computed, so
    there is no ``min_gain`` and no ``model_``.

    Parameters
    ----------
    n_features_to_select : int or None, default=50
        Pairs to select; None: every candidate pair (the all-features model). The default is the
        registry's.
    cutoff : int, default=1
        Candidate pairs must co-occur at least this often in the training data.
    {attributes}
    See Also
    --------
    IFSSelector, SGCSelector : pairs chosen by log-likelihood gain.

    Notes
    -----
    scikit-learn ``check_estimator``: no exemptions. ``progress`` is called about every 1% of the
    stages (they cost next to nothing).

    Examples
    --------
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> from fsengine.selectors import CountCutoffSelector
    >>> ds = make_planted_maxent(n_samples=2000, n_predicates=30, n_classes=3, n_true=4, seed=0)
    >>> sel = CountCutoffSelector(n_features_to_select=5, cutoff=2).fit(ds.X, ds.y)
    >>> counts = sel.trace_["count"].tolist()
    >>> counts == sorted(counts, reverse=True), len(counts)
    (True, 5)
    """

    _method = "count"
    _parameter_constraints = method_constraints("count")

    def __init__(self, *, n_features_to_select=_COUNT["n_features_to_select"], cutoff=_COUNT["cutoff"]):
        self.n_features_to_select = n_features_to_select
        self.cutoff = cutoff


for _cls in (IFSSelector, SGCSelector, CountCutoffSelector):  # one Attributes section for the three
    _cls.__doc__ = _cls.__doc__.replace("    {attributes}\n", _ATTRIBUTES + "\n")
del _cls
