"""scikit-learn selectors for maxent gain selection: IFS, SGC (with look-ahead) and count cutoff.

They select (predicate, class) *pairs* (maxent features f(x, y) = [x_j != 0 and y = c]); the
contract's per-column attributes are about *predicates* (the input columns):

``scores_[j]``     the best score of predicate j's candidate pairs: the gain (training
                   log-likelihood, nats) at which a pair was selected, else its last computed gain
                   (IFS: on the final model; SGC: the stored, possibly stale, gain); count cutoff:
                   the largest co-occurrence count. 0 for predicates with no candidate pair.
``order_``         predicates in the order their first pair was selected, then by score (``ranking_`` their ranks).
``support_``       predicates with at least one selected pair (so ``transform`` keeps them).
``selected_pairs_`` DataFrame of the selected pairs in selection order (stage, predicate,
                   predicate_name, class label, gain, alpha).
``trace_``         one row per stage: feature (predicate name, class), gain (Zhou et al.'s
                   per-instance G), gain_total (nats), alpha, gain computations, cumulative seconds.
``candidates_``    every candidate pair with its count, last gain and alpha.
``model_``         (IFS/SGC) the MaxentModel with the incremental weights alpha.
``n_features_to_select`` counts *pairs*; a predicate may be selected with several classes.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from fsengine.base import BaseFeatureSelector
from fsengine.maxent import MaxentData
from fsengine.maxent.kernels import ALPHA_CAP
from fsengine.methods.gain.model import select_features
from fsengine.ranking import order_from


class _GainSelector(BaseFeatureSelector):
    _method = "sgc"
    _parameter_constraints = {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "min_gain": [Interval(Real, 0, None, closed="left")],
        "cutoff": [Interval(Integral, 1, None, closed="left")],
    }

    def fit(self, X, y, predicate_names=None):
        """Select pairs on (X, y); ``predicate_names`` (one per column) label the trace."""
        self._predicate_names = None if predicate_names is None else list(map(str, predicate_names))
        return super().fit(X, y)

    def _run(self, data, names):
        raise NotImplementedError

    def _fit(self, X, y):
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        data = MaxentData(X, y_idx, n_classes=self.classes_.size)
        p = data.n_predicates
        names = self._predicate_names
        if names is not None and len(names) != p:
            raise ValueError(f"{len(names)} predicate names for {p} columns of X")
        if names is None:
            names = [str(n) for n in getattr(self, "feature_names_in_", [f"x{j}" for j in range(p)])]
        result = self._run(data, names)
        cand = result.candidates.copy()
        cand["class"] = self.classes_[cand["class"].to_numpy()]
        trace = result.trace.copy()
        trace["class"] = self.classes_[trace["class"].to_numpy().astype(np.int64)] if len(trace) else []
        trace.insert(4, "feature", [f"{n} -> {c}" for n, c in zip(trace["predicate_name"], trace["class"])])
        self.candidates_ = cand
        self.trace_ = trace
        self.stopped_ = result.stopped
        self.selected_pairs_ = trace[["stage", "predicate", "predicate_name", "class", "gain_total",
                                      "alpha"]].rename(columns={"gain_total": "gain"}).reset_index(drop=True)
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


class IFSSelector(_GainSelector):
    """Incremental feature selection (Berger et al. 1996; Zhou et al. 2003 Fig. 1).

    Every stage computes the approximate gain of every remaining candidate pair by bracketed 1-D
    Newton on its weight alpha (others fixed), adds the best (ties: lowest candidate index), and
    adjusts the model. Stage-0 gains are closed-form (Section 3) for binary predicates.
    ``refit_every=k`` re-fits all selected weights by MAP every k stages. See the module docstring
    for how pair selection maps onto the per-column contract.

    sklearn-check exemptions: none (real-valued X is handled by the general Newton path).
    """

    _method = "ifs"
    _parameter_constraints = {
        **_GainSelector._parameter_constraints,
        "refit_every": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, n_features_to_select=100, *, min_gain=0.0, cutoff=1, refit_every=None):
        self.n_features_to_select = n_features_to_select
        self.min_gain = min_gain
        self.cutoff = cutoff
        self.refit_every = refit_every

    def _run(self, data, names):
        return select_features(data, "ifs", cutoff=self.cutoff, n_features=self.n_features_to_select,
                               min_gain=self.min_gain, refit_every=self.refit_every,
                               cap=ALPHA_CAP, predicate_names=names)


class SGCSelector(_GainSelector):
    """Selective gain computation (Zhou et al. 2003 Fig. 2), optionally with look-ahead.

    Keeps each candidate's last gain in a max-heap; per stage recomputes only the top until a
    fresh gain stays on top; ``lookahead=L`` also recomputes the next L candidates. Stored gains
    are not true upper bounds, so SGC can legitimately differ from IFS (documented in
    :mod:`fsengine.methods.gain.model`).

    sklearn-check exemptions: none.
    """

    _method = "sgc"
    _parameter_constraints = {
        **_GainSelector._parameter_constraints,
        "lookahead": [Interval(Integral, 0, None, closed="left")],
        "refit_every": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, n_features_to_select=100, *, min_gain=0.0, cutoff=1, lookahead=0,
                 refit_every=None):
        self.n_features_to_select = n_features_to_select
        self.min_gain = min_gain
        self.cutoff = cutoff
        self.lookahead = lookahead
        self.refit_every = refit_every

    def _run(self, data, names):
        return select_features(data, "sgc", cutoff=self.cutoff, n_features=self.n_features_to_select,
                               min_gain=self.min_gain, lookahead=self.lookahead,
                               refit_every=self.refit_every, predicate_names=names)


class CountCutoffSelector(_GainSelector):
    """Count cutoff baseline (Ratnaparkhi 1998; Zhou et al. Fig. 5): the ``n_features_to_select``
    most frequent (predicate, class) pairs among those seen at least ``cutoff`` times
    (``n_features_to_select=None``: all of them, the all-features model). ``min_gain`` is not used
    (kept for a uniform interface); pair scores are co-occurrence counts.

    sklearn-check exemptions: none.
    """

    _method = "count"

    def __init__(self, n_features_to_select=100, *, min_gain=0.0, cutoff=1):
        self.n_features_to_select = n_features_to_select
        self.min_gain = min_gain
        self.cutoff = cutoff

    def _run(self, data, names):
        return select_features(data, "count", cutoff=self.cutoff,
                               n_features=self.n_features_to_select, predicate_names=names)
