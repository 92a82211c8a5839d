"""``BayesFactorSelector``: Daume III's approximate Bayes-factor selection as a scikit-learn selector."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval

from fsengine.base import BaseFeatureSelector
from fsengine.methods.bayes_factor.model import approx_bayes_factor_selection
from fsengine.methods.registry import method_constraints, method_defaults
from fsengine.ranking import order_from

#: the registry's defaults (what the app and ``fsengine select --method bayes`` use)
_DEFAULTS = method_defaults("bayes")

#: columns of :func:`pairs_from_trace`, from the trace's per-round tuples
_PAIR_COLUMNS = {"predicate_added": "predicate", "class_added": "class", "added": "pair",
                 "mu_added": "mu", "margin_added": "margin", "beta_added": "beta"}


def pairs_from_trace(trace: pd.DataFrame) -> pd.DataFrame:
    """One row per selected pair, in selection order, from a ``trace_`` of one row per round.

    Columns: ``round``, ``predicate`` (column index), ``class`` (label), ``pair`` (its name),
    ``mu`` (mean-field weight when selected), ``margin`` (beta_g - beta_0) and ``beta`` (beta_g).

    >>> trace = pd.DataFrame({"round": [0, 1], "predicate_added": [(4, 2), ()],
    ...                       "class_added": [("b", "a"), ()], "added": [("x4 => b", "x2 => a"), ()],
    ...                       "mu_added": [(1.5, 0.7), ()], "margin_added": [(9.0, 2.0), ()],
    ...                       "beta_added": [(-90.0, -88.0), ()]})
    >>> pairs_from_trace(trace)[["round", "predicate", "class", "margin"]]
       round  predicate class  margin
    0      0          4     b     9.0
    1      0          2     a     2.0
    """
    rows = [(rnd,) + values for rnd, *cols in zip(trace["round"], *(trace[c] for c in _PAIR_COLUMNS))
            for values in zip(*cols)]
    pairs = pd.DataFrame(rows, columns=["round", *_PAIR_COLUMNS.values()])
    return pairs.astype({"round": np.int64, "predicate": np.int64, "mu": float, "margin": float, "beta": float})


class BayesFactorSelector(BaseFeatureSelector):
    """Select conditional-maxent features by approximate Bayes factors (Daume III 2004, Fig. 1).

    Candidates are (input column, class) pairs, the features f(x, y) = x_j [y = c] of a
    conditional maxent model (multinomial logistic regression without a shared weight across
    classes) with a Gaussian prior N(0, sigma^2) and an unpenalised bias. Each round fits the MAP
    model of the active pairs, proposes the pairs of columns firing (non-zero) on misclassified
    training rows (Section 3.6), fits each candidate's weight mu_g alone (mean field, Eq. 17) and
    scores it by the Laplace-approximated log Bayes factor (Eq. 12 of
    ``/work/shared/papers/000_7aae6a84e4e588f1.txt``, with the sign Eq. 7 implies)::

        beta_g - beta_0 = log pi(M_g)/pi(M_0) + log p(D | lambda^0, mu_g) - log p(D | lambda^0)
                          - mu_g^2 / (2 sigma^2) - 1/2 log(sigma^2 a_g)

    with a_g the curvature of Eq. (11) plus 1/sigma^2. It adds up to ``features_per_round`` pairs
    per round, re-scoring after each addition (Eq. 14), and stops when no candidate beats the
    current model. The derivation and the sign slip of Eq. (12) are in
    :mod:`fsengine.methods.bayes_factor.model`.

    Parameters
    ----------
    features_per_round : int, default 10
        S of Section 3.5: most pairs added per round (one MAP fit per round).
    prior_variance : float or array-like, default 1.0
        sigma^2 of every candidate weight; an array gives one value per column (n_features,) or
        per (column, class) pair (n_features, n_classes) in ``classes_`` order.
    sign : {"laplace", "printed"}, default "laplace"
        "laplace": Occam factor -1/2 log(sigma^2 a_g), consistent with the Laplace formula Eq. (7).
        "printed": +1/2 log a_g as Eq. (12) is printed (selects far more features).
    log_prior_odds : float, array-like or "multiplicity", default 0.0
        log pi(M_g) - log pi(M_0) of adding each pair (scalar, (n_features,) or
        (n_features, n_classes)); 0 is the uniform model prior of Eq. (13); e.g. -2 demands e^2
        times more evidence per feature. ``"multiplicity"``: -log(F - G) with F - G the number of
        possible additions, the prior giving the current model half the mass (see
        :func:`fsengine.methods.bayes_factor.model.multiplicity_log_odds`).
    n_features_to_select : int or None, default None
        None: stop automatically (Fig. 1). An int: select that many pairs, continuing past the
        automatic stopping point if needed (the trace marks where it was, ``n_at_stop_``).
        ``support_`` then holds the columns of those pairs (fewer columns when a column is
        selected with several classes).
    max_pairs : int or None, default None
        A safety cap on the pairs selected in the automatic mode (None: no cap); the run then
        ends with ``stop_reason_`` "feature budget reached". Called ``max_features`` in
        fsengine 0.2 (renamed: in :class:`~fsengine.selectors.MDLSelector` ``max_features`` is
        the largest subset explored).
    validation_fraction : float or None, default None
        Hold out this stratified fraction of the rows (not used for selection) to report held-out
        accuracy per round in ``trace_``.
    random_state : int, RandomState instance or None, default 0
        Seed of the validation split.
    map_tol : float, default 1e-6
        L-BFGS gradient tolerance of each round's MAP fit.

    The defaults of ``features_per_round``, ``prior_variance``, ``sign`` and ``log_prior_odds``
    are the method registry's (:func:`fsengine.methods.registry.method_defaults`), so the app,
    ``fsengine select --method bayes`` and this class fit the same model.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Per column, beta_g - beta_0 of its best pair: at selection for selected columns,
        otherwise of adding it to the final model (-inf: the column never fires).
    order_ : ndarray of shape (n_features,)
        Columns in the order their first pair was selected, then the rest by score.
    ranking_ : ndarray of shape (n_features,)
        Rank of each column, 1 = best (follows ``order_``).
    support_ : ndarray of shape (n_features,), dtype bool
        Columns of the pairs selected up to the automatic stop (or of the
        ``n_features_to_select`` pairs).
    trace_ : pandas.DataFrame, one row per round
        ``round``, ``n_selected`` (pairs before the round), ``beta_0`` (log p(D | lambda^0)),
        ``n_proposals``, ``best_margin`` (best beta_g - beta_0 at the start of the round),
        ``n_added``; the pairs added in the round, as tuples in selection order: ``added``
        (names ``"column => class"``), ``predicate_added`` (column indices), ``class_added``
        (labels), ``mu_added`` (mean-field weights), ``margin_added`` (beta_g - beta_0, Eq. 14
        re-scored), ``beta_added`` (beta_g) — :func:`pairs_from_trace` lists them one row per
        pair; ``n_rescored`` (Eq. 14 re-scorings), ``train_accuracy``, ``heldout_accuracy``
        and ``heldout_log_loss`` (mean -log p(y | x); NaN without ``validation_fraction``),
        ``best_margin_after`` (best remaining margin after the round's additions),
        ``map_iterations``, ``seconds_optmap`` (MAP fit and accuracies), ``seconds_scoring``
        (proposals, OptSingle, Eq. 14 loop), ``seconds_newton`` (OptSingle of all proposals,
        part of the scoring), ``seconds`` (cumulative), ``bayes_stop``.
    n_at_stop_ : int
        Pairs selected when beta_0 first beat every candidate (the automatic stop; all selected
        pairs when it never did).
    stop_round_ : int or None
        The round of the automatic stop (None when it never fired).
    stop_reason_ : str
        Why the run ended: "beta_0 beats every candidate", "feature budget reached",
        "no misclassified training instance", "no candidate left to propose" or
        "stop requested".
    model_ : fsengine.maxent.MaxentModel
        The final MAP model: the selected pairs plus the bias (input columns + a bias column).
    classes_ : ndarray of shape (n_classes,)
        Class labels (class index c of a pair is ``classes_[c]``).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Only when X has string column names.

    See Also
    --------
    IFSSelector, SGCSelector : greedy likelihood-gain selection of the same pairs, no stopping rule.
    fsengine.methods.bayes_factor.model.approx_bayes_factor_selection : the loop behind ``fit``.
    fsengine.methods.bayes_factor.evidence.full_laplace_margins : Eq. (12) against the full
        Laplace evidence (Eq. 9).

    Notes
    -----
    Pairs are the unit of selection; the per-column attributes summarise them (a column may be
    selected with several classes). ``fit(X, y, progress=...)`` reports after every round
    (:mod:`fsengine.progress`; the fraction is an estimate, the number of rounds is not known in
    advance); a callback that raises :class:`~fsengine.progress.StopRequested` ends the selection
    with the pairs selected so far, fitted, and ``stop_reason_ = "stop requested"``.

    scikit-learn compatibility: passes ``check_estimator``
    (``tests/methods/bayes_factor/test_selector.py``); no check is skipped.

    Examples
    --------
    A planted maxent task: 20 sparse binary columns, 4 of them carry a true (column, class)
    feature.

    >>> import numpy as np
    >>> from fsengine.data.synthetic.maxent import make_planted_maxent
    >>> ds = make_planted_maxent(n_samples=300, n_predicates=20, n_classes=3, n_true=4, n_test=10, seed=0)
    >>> sel = BayesFactorSelector(features_per_round=2).fit(ds.X, ds.y)
    >>> sel.stop_reason_
    'beta_0 beats every candidate'
    >>> sorted(sel.order_[:4].tolist()) == np.flatnonzero(ds.truth).tolist()  # planted columns first
    True
    >>> sel.n_at_stop_, int(sel.support_.sum()), sel.transform(ds.X).shape
    (6, 6, (300, 6))
    """

    _parameter_constraints = method_constraints("bayes", {
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "max_pairs": [Interval(Integral, 1, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "random_state": ["random_state"],
        "map_tol": [Interval(Real, 0, None, closed="neither")],
    }, arrays=("prior_variance", "log_prior_odds"))

    def __init__(self, *, features_per_round=_DEFAULTS["features_per_round"],
                 prior_variance=_DEFAULTS["prior_variance"], sign=_DEFAULTS["sign"],
                 log_prior_odds=_DEFAULTS["log_prior_odds"], n_features_to_select=None, max_pairs=None,
                 validation_fraction=None, random_state=0, map_tol=1e-6):
        self.features_per_round = features_per_round
        self.prior_variance = prior_variance
        self.sign = sign
        self.log_prior_odds = log_prior_odds
        self.n_features_to_select = n_features_to_select
        self.max_pairs = max_pairs
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.map_tol = map_tol

    def fit(self, X, y, *, progress=None, predicate_names=None):
        """Select pairs on (X, y); returns self.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Predicate values (any real values; binary indicators in the paper).
        y : array-like of shape (n_samples,)
            Class labels (two or more classes).
        progress : callable or None, default None
            ``progress(fraction, message)`` after every round (:mod:`fsengine.progress`); it may
            raise :class:`~fsengine.progress.StopRequested` to end the selection early.
        predicate_names : sequence of str or None, default None
            One name per column, to label the pairs in ``trace_`` (default: the DataFrame's
            column names, else ``x0, x1, ...``).
        """
        self._predicate_names = None if predicate_names is None else list(map(str, predicate_names))
        return super().fit(X, y, progress=progress)

    def _feature_names(self, p):
        names = getattr(self, "_predicate_names", None)
        if names is not None:
            if len(names) != p:
                raise ValueError(f"{len(names)} predicate names for {p} columns of X")
            return names
        names = getattr(self, "feature_names_in_", None)
        return [str(v) for v in names] if names is not None else [f"x{j}" for j in range(p)]

    def _split(self, X, y):
        if self.validation_fraction is None:
            return X, y, None, None
        idx = np.arange(X.shape[0])
        try:
            tr, va = train_test_split(idx, test_size=self.validation_fraction,
                                      random_state=self.random_state, stratify=y)
        except ValueError as exc:
            raise ValueError(f"validation_fraction={self.validation_fraction}: cannot hold out a "
                             f"stratified split ({exc}); use a smaller fraction or more rows"
                             ) from None
        tr, va = np.sort(tr), np.sort(va)
        return X[tr], y[tr], X[va], y[va]

    def _fit(self, X, y):
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        p = X.shape[1]
        names = self._feature_names(p)
        labels = [str(c) for c in self.classes_]
        X_tr, y_tr, X_va, y_va = self._split(X, y_idx)
        if np.unique(y_tr).size < 2:
            raise ValueError("the training part holds a single class; lower validation_fraction")
        budget = self.n_features_to_select if self.n_features_to_select is not None else self.max_pairs
        run = approx_bayes_factor_selection(
            X_tr, y_tr, n_classes=self.classes_.size, per_round=self.features_per_round,
            prior_variance=self.prior_variance, sign=self.sign,
            log_prior_odds=self.log_prior_odds, max_pairs=budget,
            rounds_past_stop=None if self.n_features_to_select is not None else 0,
            X_val=X_va, y_val=y_va, map_tol=self.map_tol,
            names=lambda j, c: f"{names[j]} => {labels[c]}", progress=self._progress)
        self.model_ = run.model
        self.n_at_stop_, self.stop_round_, self.stop_reason_ = run.n_at_stop, run.stop_round, run.stop_reason
        trace = run.trace.copy()
        trace["class_added"] = [tuple(self.classes_[list(c)].tolist()) for c in trace["class_added"]]
        self.trace_ = trace
        kept = run.predicates if self.n_features_to_select is not None else run.predicates[:run.n_at_stop]
        order = list(dict.fromkeys(run.predicates.tolist()))
        scores = run.column_margin.copy()
        selected_margin = np.full(p, -np.inf)
        np.maximum.at(selected_margin, run.predicates, run.margin)
        chosen = np.zeros(p, dtype=bool)
        chosen[run.predicates] = True
        scores[chosen] = selected_margin[chosen]
        self.scores_ = scores
        self._set_order(order_from(scores, order))
        self.support_ = np.zeros(p, dtype=bool)
        self.support_[kept] = True
        return self
