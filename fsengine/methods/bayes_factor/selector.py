"""``BayesFactorSelector``: Daume III's approximate Bayes-factor selection as a scikit-learn selector."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, StrOptions

from fsengine.base import BaseFeatureSelector
from fsengine.methods.bayes_factor.model import SIGNS, approx_bayes_factor_selection
from fsengine.ranking import order_from


class BayesFactorSelector(BaseFeatureSelector):
    """Select conditional-maxent features by approximate Bayes factors (Daume III 2004, Fig. 1).

    Candidates are (input column, class) pairs, the features f(x, y) = x_j [y = c] of a
    conditional maxent model (multinomial logistic regression without a shared weight across
    classes) with a Gaussian prior and an unpenalised bias. Each round fits the MAP model of the
    active pairs, proposes the pairs of columns firing (non-zero) on misclassified training rows,
    fits each candidate's weight alone (mean field) and scores it by the Laplace-approximated log
    Bayes factor beta_g - beta_0 (Eq. 12); it adds up to ``features_per_round`` pairs, re-scoring
    after each addition (Eq. 14), and stops when no candidate beats the current model.
    The derivation and the sign slip of Eq. (12) are in :mod:`fsengine.methods.bayes_factor.model`.

    Parameters
    ----------
    features_per_round : int, default 10
        S of Section 3.5: most pairs added per round (one MAP fit per round).
    prior_variance : float or array, default 1.0
        sigma^2 of every candidate weight; an array gives one value per column (p,) or per
        (column, class) pair (p, n_classes) in ``classes_`` order.
    sign : {"laplace", "printed"}, default "laplace"
        "laplace": Occam factor -1/2 log(sigma^2 a_g), consistent with the Laplace formula Eq. (7).
        "printed": +1/2 log a_g as Eq. (12) is printed (selects far more features).
    log_prior_odds : float or array, default 0.0
        log pi(M_g) - log pi(M_0) of adding each pair (scalar, (p,) or (p, n_classes)); 0 is the
        uniform model prior of Eq. (13); e.g. -2 demands e^2 times more evidence per feature.
        ``"multiplicity"``: -log(F - G) with F - G the number of possible additions, the prior
        giving the current model half the mass (see
        :func:`fsengine.methods.bayes_factor.model.multiplicity_log_odds`).
    n_features_to_select : int or None, default None
        None: stop automatically (Fig. 1). An int: select that many pairs, continuing past the
        automatic stopping point if needed (the trace marks where it was, ``n_at_stop_``).
        ``support_`` then holds the columns of those pairs (fewer columns when a column is
        selected with several classes).
    max_features : int or None, default None
        Safety cap on selected pairs for the automatic mode.
    validation_fraction : float or None, default None
        Hold out this stratified fraction of the rows (not used for selection) to report held-out
        accuracy per round in ``trace_``.
    random_state : int, default 0
        Seed of the validation split.
    map_tol : float, default 1e-6
        L-BFGS gradient tolerance of each round's MAP fit.

    Attributes
    ----------
    scores_ : per column, beta_g - beta_0 of its best pair: at selection for selected columns,
        otherwise of adding it to the final model (-inf: the column never fires).
    order_ : selected columns in selection order, then the rest by score
        (``ranking_``: the rank of each column, 1 = best).
    support_ : columns of the pairs selected up to the stopping point (or the budget).
    selected_pairs_ : DataFrame of the selected pairs in order: ``round``, ``predicate`` (column
        index), ``predicate_name``, ``class`` (label), ``mu`` (mean-field weight when selected),
        ``margin`` (beta_g - beta_0), ``beta`` (beta_g), ``weight`` (final MAP weight).
        Pairs are the unit of selection, as for ``IFSSelector`` / ``SGCSelector``.
    trace_ : DataFrame, one row per round: ``round``, ``n_selected`` (pairs before the round),
        ``beta_0`` (log p(D | lambda^0)), ``n_proposals``, ``best_margin`` (best beta_g - beta_0 at
        the start of the round), ``n_added``, ``added`` (pair names), ``beta_added``,
        ``margin_added``, ``n_rescored`` (Eq. 14 re-scorings), ``train_accuracy``,
        ``heldout_accuracy`` and ``heldout_log_loss`` (mean -log p(y | x); NaN without
        ``validation_fraction``), ``best_margin_after`` (best remaining margin after the round's
        additions), ``map_iterations``,
        ``seconds_optmap`` (MAP fit and accuracies), ``seconds_scoring`` (proposals, OptSingle,
        Eq. 14 loop), ``seconds_newton`` (OptSingle of all proposals, part of the scoring),
        ``seconds`` (cumulative), ``bayes_stop``.
    n_at_stop_, stop_round_, stop_reason_ : the automatic stopping point (pairs selected, round,
        None when it never fired) and why the run ended.
    model_ : the final :class:`fsengine.maxent.MaxentModel` (input columns + bias column).
    classes_ : class labels (class index c of a pair is ``classes_[c]``).

    scikit-learn compatibility: passes ``check_estimator`` (``tests/methods/bayes_factor/test_selector.py``);
    no check is skipped.
    """

    _parameter_constraints = {
        "features_per_round": [Interval(Integral, 1, None, closed="left")],
        "prior_variance": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "sign": [StrOptions(set(SIGNS))],
        "log_prior_odds": [Real, "array-like", StrOptions({"multiplicity"})],
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "max_features": [Interval(Integral, 1, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "random_state": ["random_state"],
        "map_tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, features_per_round=10, prior_variance=1.0, sign="laplace",
                 log_prior_odds=0.0, n_features_to_select=None, max_features=None,
                 validation_fraction=None, random_state=0, map_tol=1e-6):
        self.features_per_round = features_per_round
        self.prior_variance = prior_variance
        self.sign = sign
        self.log_prior_odds = log_prior_odds
        self.n_features_to_select = n_features_to_select
        self.max_features = max_features
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.map_tol = map_tol

    def fit(self, X, y, predicate_names=None):
        """Select pairs on (X, y); ``predicate_names`` (one per column) label the pairs and trace
        (default: DataFrame column names, else ``x0, x1, ...``)."""
        self._predicate_names = None if predicate_names is None else list(map(str, predicate_names))
        return super().fit(X, y)

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
        budget = self.n_features_to_select if self.n_features_to_select is not None else self.max_features
        run = approx_bayes_factor_selection(
            X_tr, y_tr, n_classes=self.classes_.size, per_round=self.features_per_round,
            prior_variance=self.prior_variance, sign=self.sign,
            log_prior_odds=self.log_prior_odds, max_features=budget,
            rounds_past_stop=None if self.n_features_to_select is not None else 0,
            X_val=X_va, y_val=y_va,
            map_tol=self.map_tol, names=lambda j, c: f"{names[j]} => {labels[c]}")
        self.run_ = run
        self.model_ = run.model
        self.n_at_stop_, self.stop_round_, self.stop_reason_ = run.n_at_stop, run.stop_round, run.stop_reason
        final = dict(zip(zip(run.model.predicates.tolist(), run.model.classes.tolist()),
                         run.model.weights.tolist()))
        self.selected_pairs_ = pd.DataFrame({
            "round": run.round, "predicate": run.predicates,
            "predicate_name": [names[j] for j in run.predicates],
            "class": self.classes_[run.classes] if run.classes.size else self.classes_[:0],
            "mu": run.mu, "margin": run.margin, "beta": run.beta,
            "weight": [final[(int(j), int(c))] for j, c in zip(run.predicates, run.classes)],
        })
        self.trace_ = run.trace
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
