"""Approximate Bayes-factor feature selection for conditional maxent: APPROXBFFS (Daume III 2004).

Model: p(y | x) proportional to exp(sum_k w_k x_{j_k} [y = c_k]) over (predicate j, class c) features,
Gaussian prior w_k ~ N(0, sigma_k^2), and an unpenalised bias for classes 1..Y-1 (the "Bias" that
Fig. 1 starts from). The data and optimisers come from :mod:`fsengine.maxent`.

Each round (Fig. 1):

1. OptMAP: lambda^0 = MAP weights of the active features (:func:`fsengine.maxent.fit_map`),
   beta_0 = log p(D | lambda^0).
2. Proposals (Section 3.6, Eq. 15-16): the pairs (j, y_n) and (j, yhat_n) for every predicate j that
   fires on a misclassified training instance n, minus the active pairs.
3. OptSingle (Assumption 1, mean field): each candidate's weight mu_g with all others fixed, by
   bracketed Newton on the penalised log-likelihood, Eq. (17) plus the prior's -mu / sigma^2
   (:meth:`fsengine.maxent.MaxentState.gains`).
4. Score (Eq. 12 with the uniform model prior Eq. 13, or a user log prior): relative to beta_0,

       beta_g - beta_0 = log pi(M_g)/pi(M_0) + h_g(mu_g) - 1/2 log sigma_g^2 -/+ 1/2 log a_g,

   where h_g(mu) = log p(D | lambda^0, mu) - log p(D | lambda^0) - mu^2 / (2 sigma_g^2) is the
   penalised log-likelihood gain (only rows where j fires change, Eq. 15) and
   a_g = -d^2/dmu^2 [log p(D | lambda^0, mu) + log pi(mu)] at mu_g: Eq. (11) plus the prior
   precision 1 / sigma_g^2 (A of Eq. 6 is the Hessian of -log q, and q includes the prior).
   The 1/2 log(2 pi) of Eq. (12) cancels the one in log pi(mu_g) = -mu^2/(2 sigma^2) - 1/2 log(2 pi sigma^2).

   Sign: the Laplace approximation Eq. (7) gives -1/2 log det A, so the Occam factor is
   -1/2 log(sigma_g^2 a_g) <= 0 (``sign="laplace"``, the default). Eq. (12) as printed has
   +1/2 log a_g (``sign="printed"``): it rewards well-determined weights and, for sigma^2 <= 1,
   makes every candidate with a positive gain beat beta_0, so selection only stops at the budget.
5. Add up to S features per round: take the best candidate, add it with its mean-field weight to a
   working copy of the model, beta_0 <- beta_g, then re-score the remaining candidates that share
   instances with it at their fixed mu_g (Eq. 14): a near-duplicate of the added feature now
   over-counts the same evidence, loses likelihood and falls back. Stop the round when beta_0
   beats every candidate; stop the algorithm when a round adds nothing.

Fig. 1 loops ``while |Current| <= S`` (S + 1 features); here a round adds at most S.

Progress follows :mod:`fsengine.progress`: ``progress(fraction, message)`` after every round; a
callback that raises :class:`~fsengine.progress.StopRequested` ends the rounds with the pairs
selected so far (their MAP model is fitted, as at a normal end) and the stop reason
:data:`STOP_REQUESTED`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsengine.maxent import MaxentData, MaxentModel, MaxentState, fit_map
from fsengine.progress import Progress, StopRequested, report_to

SIGNS = ("laplace", "printed")
#: Stop reasons reported in ``BayesFactorRun.stop_reason``.
STOP_BAYES = "beta_0 beats every candidate"
STOP_BUDGET = "feature budget reached"
STOP_CLEAN = "no misclassified training instance"
STOP_EXHAUSTED = "no candidate left to propose"
STOP_REQUESTED = "stop requested"


# --------------------------------------------------------------------------- Eq. (12)
def occam_term(curvature, prior_variance, sign: str = "laplace") -> np.ndarray:
    """The Laplace Occam factor of Eq. (12) relative to beta_0 (after log pi(mu) is split off).

    ``laplace``: -1/2 log(sigma^2 a_g) (Eq. 7's -1/2 log det A); ``printed``: +1/2 log a_g -
    1/2 log sigma^2 (Eq. 12 as printed). ``curvature`` is a_g including the prior precision.
    """
    a = np.asarray(curvature, dtype=np.float64)
    var = np.asarray(prior_variance, dtype=np.float64)
    if sign == "laplace":
        return -0.5 * np.log(var * a)
    if sign == "printed":
        return 0.5 * np.log(a) - 0.5 * np.log(var)
    raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")


def beta_margin(gain, curvature, prior_variance, log_prior_odds=0.0, sign: str = "laplace"):
    """beta_g - beta_0 of Eq. (12): log prior odds (Eq. 13: 0) + penalised gain h_g(mu_g) +
    :func:`occam_term`. Positive means M_g beats the current model M_0."""
    return np.asarray(log_prior_odds) + np.asarray(gain) + occam_term(curvature, prior_variance, sign)


@dataclass(frozen=True)
class CandidateScores:
    """Per candidate: mean-field weight ``mu`` (OptSingle), penalised gain ``gain`` h_g(mu),
    ``curvature`` a_g (Eq. 11 + prior precision) and ``margin`` beta_g - beta_0 (Eq. 12)."""

    mu: np.ndarray
    gain: np.ndarray
    curvature: np.ndarray
    margin: np.ndarray


def score_candidates(state: MaxentState, predicates, classes, prior_variance, log_prior_odds=0.0,
                     sign: str = "laplace") -> CandidateScores:
    """OptSingle and Eq. (12) for each candidate pair on the model held by ``state``.

    mu_g maximises log p(D | lambda^0, mu) + log pi(mu) by bracketed Newton (Eq. 17 with the prior's
    -mu / sigma^2 in the gradient and 1 / sigma^2 in the curvature).
    """
    var = np.broadcast_to(np.asarray(prior_variance, dtype=np.float64), np.shape(predicates))
    res = state.gains(predicates, classes, prior_precision=1.0 / var)
    return CandidateScores(res.alpha, res.gain, res.curvature,
                           beta_margin(res.gain, res.curvature, var, log_prior_odds, sign))


def multiplicity_log_odds(n_inactive: int) -> float:
    """log pi(M_g) - log pi(M_0) = -log(F - G) for the model prior that gives the current model
    M_0 half the prior mass and splits the other half evenly over the F - G possible additions
    (pairs whose predicate fires, times classes, minus the active ones).

    Eq. (13)'s uniform prior compares each candidate with M_0 on its own; the stop rule then takes
    the best of F - G noisy scores, so among hundreds of candidates some pure-noise pair usually
    shows a positive margin (on planted data the stop lands at about twice the planted features).
    Under this prior a candidate must beat M_0 by log(F - G) nats, the dilution of the prior over
    the alternatives, which removes most of that multiplicity effect."""
    return -float(np.log(max(int(n_inactive), 1)))


# --------------------------------------------------------------------------- Section 3.6
def misclassified_proposals(data: MaxentData, predicted: np.ndarray, exclude_keys: np.ndarray,
                            n_input: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs (j, y_n) and (j, yhat_n) for predicates j < ``n_input`` firing on instances
    with yhat_n != y_n, without the pairs whose key j * Y + c is in ``exclude_keys``.

    Returned sorted by key (predicate, then class): the tie-break order "lowest index".
    """
    wrong = np.flatnonzero(predicted != data.y)
    if wrong.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    X = data.X
    starts, stops = X.indptr[wrong], X.indptr[wrong + 1]
    lengths = stops - starts
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
    preds = X.indices[offsets].astype(np.int64)
    Y = data.n_classes
    keys = np.concatenate([preds * Y + np.repeat(data.y[wrong], lengths),
                           preds * Y + np.repeat(predicted[wrong], lengths)])
    keys = np.unique(keys)
    keys = keys[(keys // Y < n_input) & ~np.isin(keys, exclude_keys)]
    return keys // Y, keys % Y


def cofiring_predicates(data: MaxentData, j: int) -> np.ndarray:
    """Boolean mask over predicates sharing at least one instance with predicate j (j included):
    the candidates whose Eq. (14) score changes when feature (j, c) is added."""
    rows = data.col_rows[data.col_ptr[j]:data.col_ptr[j + 1]]
    mask = np.zeros(data.n_predicates, dtype=bool)
    mask[data.X[rows].indices] = True
    return mask


# --------------------------------------------------------------------------- Section 3.5
@dataclass(frozen=True)
class RoundPick:
    """The features one round adds: indices into the proposals in order, their margins
    beta_g - beta_0 when added (Eq. 14 values for all but the first), the number of Eq. (14)
    re-scorings and the best margin left (NaN when nothing is left)."""

    order: list
    margin: list
    n_rescored: int
    best_left: float


def pick_round(state: MaxentState, pred, cls, mu, margin, var, odds, sign: str, limit: int,
               forcing: bool = False) -> RoundPick:
    """The inner loop of Fig. 1: repeatedly add the best candidate (ties: lowest index) with its
    mean-field weight to a working copy of ``state`` while its margin is positive (any margin when
    ``forcing``), at most ``limit`` times; after each addition re-score the remaining candidates
    sharing rows with it at their fixed mu_g on the grown model (Eq. 14)."""
    data = state.data
    margin = np.array(margin, dtype=np.float64)
    work = state.copy()
    alive = np.ones(pred.size, dtype=bool)
    order, margins, n_rescored = [], [], 0
    while len(order) < limit and alive.any():
        best = int(np.argmax(np.where(alive, margin, -np.inf)))
        if margin[best] <= 0 and not forcing:
            break
        order.append(best)
        margins.append(float(margin[best]))
        alive[best] = False
        work.add(pred[best], cls[best], mu[best])
        touched = alive & cofiring_predicates(data, pred[best])[pred]
        if touched.any():
            idx = np.flatnonzero(touched)
            again = work.evaluate_at(pred[idx], cls[idx], mu[idx], prior_precision=1.0 / var[idx])
            margin[idx] = beta_margin(again.gain, again.curvature, var[idx], odds[idx], sign)
            n_rescored += idx.size
    best_left = float(np.max(margin[alive])) if alive.any() else float("nan")
    return RoundPick(order, margins, n_rescored, best_left)


# --------------------------------------------------------------------------- per-pair settings
def pair_table(value, n_input: int, n_classes: int, what: str) -> np.ndarray:
    """Broadcast a scalar, a per-predicate (P,) or per-pair (P, Y) array to (P, Y)."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape == (n_input,):
        arr = arr[:, None]
    elif arr.ndim != 0 and arr.shape != (n_input, n_classes):
        raise ValueError(f"{what} must be a scalar, one value per feature ({n_input}) or one per "
                         f"(feature, class) pair ({n_input} x {n_classes}); got shape {arr.shape}")
    out = np.broadcast_to(arr, (n_input, n_classes)).astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{what} must be finite")
    return out


# --------------------------------------------------------------------------- result
@dataclass
class BayesFactorRun:
    """What :func:`approx_bayes_factor_selection` found.

    ``predicates``, ``classes``: selected (input column, class index) pairs in selection order;
    ``mu``: their mean-field weights when selected; ``margin``: beta_g - beta_0 when selected;
    ``beta``: beta_g on the absolute scale (beta_0 of the round + accumulated margins);
    ``round``: the round that added each. ``model``: the final MAP model over the input columns
    plus the bias column ``bias_column`` (= number of input columns). ``trace``: one row per round.
    ``n_at_stop``: number of pairs selected when beta_0 first beat every candidate (the automatic
    stopping point; equals ``predicates.size`` unless the run went on past it), ``stop_round``
    the round where that happened (None when it never did), ``stop_reason`` why the run ended.
    ``column_margin``: per input column, the best beta_g - beta_0 over its classes of adding a pair
    seen in training to the final model (-inf for a column that never fires or whose pairs are all
    active); ignores Section 3.6's restriction to misclassified instances.
    """

    predicates: np.ndarray
    classes: np.ndarray
    mu: np.ndarray
    margin: np.ndarray
    beta: np.ndarray
    round: np.ndarray
    model: MaxentModel
    bias_column: int
    trace: pd.DataFrame
    n_at_stop: int
    stop_round: int | None
    stop_reason: str
    column_margin: np.ndarray

    def predict(self, X) -> np.ndarray:
        """Class indices predicted by the final model for new rows of the input columns."""
        return self.model.predict(add_bias_column(X))


def add_bias_column(X) -> sp.csr_matrix:
    """CSR [X, 1]: the always-firing "Bias" predicate as the last column."""
    X = sp.csr_matrix(X, dtype=np.float64) if not sp.issparse(X) else X.tocsr().astype(np.float64)
    return sp.hstack([X, np.ones((X.shape[0], 1))], format="csr")


def bias_features(bias_column: int, n_classes: int):
    """The "Bias" of Fig. 1: (bias column, c) for classes 1..Y-1 (class 0 is the reference, so the
    weights are identified) with infinite prior variance (unpenalised). Returns (pred, cls, var)."""
    cls = np.arange(1, n_classes, dtype=np.int64)
    return np.full(cls.size, bias_column, dtype=np.int64), cls, np.full(cls.size, np.inf)


def _accuracy(y, pred):
    return float(np.mean(np.asarray(y) == pred)) if len(y) else float("nan")


# --------------------------------------------------------------------------- progress
class RoundProgress:
    """Reports the rounds through ``progress(fraction, message)`` and notes a stop request.

    The number of rounds is not known in advance, so the fraction is an estimate, kept
    non-decreasing: the larger of the budget used (pairs selected / ``max_pairs``) and the
    evidence used up, ``1 - log(1 + m) / log(1 + m_0)`` with ``m`` the best margin
    beta_g - beta_0 at the start of the round and ``m_0`` that of round 0 (the best margin falls
    to 0 at the automatic stop). With ``rounds_past_stop = k > 0`` the way to the stop fills
    [0, 0.9] and the k traced rounds the rest in equal steps. A :class:`StopRequested` raised by
    the callback is caught and remembered in ``stop_requested``.

    >>> seen = []
    >>> report = RoundProgress(lambda f, m: seen.append(round(f, 2)), max_pairs=None, rounds_past_stop=0)
    >>> for best in (100.0, 9.0, -1.0):
    ...     report.round(best, n_selected=0, stop_round=None, rnd=0, message="")
    >>> seen
    [0.0, 0.5, 1.0]
    """

    def __init__(self, progress: Progress | None, max_pairs: int | None, rounds_past_stop: int | None):
        self.progress = report_to(progress)
        self.max_pairs = max_pairs
        self.past = rounds_past_stop
        self.first_best = None
        self.fraction = 0.0
        self.stop_requested = False

    def _evidence(self, best: float) -> float:
        if not math.isfinite(best) or best <= 0:
            return 1.0
        if self.first_best is None:
            self.first_best = best
        return max(0.0, 1.0 - math.log1p(best) / math.log1p(self.first_best))

    def round(self, best: float, *, n_selected: int, stop_round: int | None, rnd: int, message: str) -> None:
        """Report the end of round ``rnd`` (``best``: its best margin at the start, NaN if none)."""
        share = 0.9 if self.past else 1.0
        fraction = share * (1.0 if stop_round is not None else self._evidence(best))
        if stop_round is not None and self.past:
            fraction += (1.0 - share) * min((rnd - stop_round + 1) / self.past, 1.0)
        if self.max_pairs:
            fraction = max(fraction, n_selected / self.max_pairs)
        self.fraction = max(self.fraction, min(fraction, 1.0))
        self.send(self.fraction, message)

    def send(self, fraction: float, message: str) -> None:
        try:
            self.progress(fraction, message)
        except StopRequested:
            self.stop_requested = True


# --------------------------------------------------------------------------- the algorithm
def approx_bayes_factor_selection(
    X, y, *, n_classes: int | None = None, per_round: int = 10, prior_variance=1.0,
    sign: str = "laplace", log_prior_odds=0.0, max_pairs: int | None = None,
    rounds_past_stop: int | None = 0, X_val=None, y_val=None, map_tol: float = 1e-6,
    names: Callable[[int, int], str] | None = None, progress: Progress | None = None,
    on_fit: Callable[[int, MaxentModel], None] | None = None,
) -> BayesFactorRun:
    """Run APPROXBFFS (Fig. 1) on instances X (n x P, any real values, sparse or dense) and class
    indices y in 0..Y-1.

    per_round          S, the most features added per round (Section 3.5).
    prior_variance     sigma^2 of each candidate weight: scalar, (P,) per predicate or (P, Y) per pair.
    sign               "laplace" (-1/2 log a_g, default) or "printed" (+1/2 log a_g, Eq. 12 as printed).
    log_prior_odds     log pi(M_g) - log pi(M_0) per candidate (scalar, (P,) or (P, Y)); 0 is the
                       uniform model prior of Eq. (13), negative values penalise adding features;
                       ``"multiplicity"``: see :func:`multiplicity_log_odds`.
    max_pairs          the most (predicate, class) pairs selected, a cap (None: no cap).
    rounds_past_stop   0: stop when beta_0 beats every candidate (Fig. 1). k > 0: run k more
                       rounds after that point, each adding the S best candidates whatever their
                       margin (to trace accuracy beyond the automatic stop); None: continue until
                       the ``max_pairs`` cap. The stopping point is kept in ``n_at_stop``.
    X_val, y_val       optional held-out rows for the accuracy column of the trace.
    names(j, c)        display name of pair (j, c) for the trace (default "x{j}=>{c}").
    progress           ``progress(fraction, message)`` after every round (:class:`RoundProgress`:
                       the fraction is an estimate); raising :class:`~fsengine.progress.StopRequested`
                       ends the run with the pairs selected so far (``stop_reason`` "stop requested").
    on_fit(r, model)   called after round r's MAP fit with its model (over X with a last bias
                       column, :func:`add_bias_column`): to score each round's model on other rows.
    """
    if sign not in SIGNS:
        raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")
    if per_round < 1:
        raise ValueError(f"per_round (S) must be at least 1, got {per_round}")
    if rounds_past_stop is None and max_pairs is None:
        raise ValueError("rounds_past_stop=None (continue to the cap) needs max_pairs")
    if rounds_past_stop is not None and rounds_past_stop < 0:
        raise ValueError(f"rounds_past_stop must be >= 0 or None, got {rounds_past_stop}")
    Xb = add_bias_column(X)
    n_input = Xb.shape[1] - 1
    data = MaxentData(Xb, y, n_classes)
    Y = data.n_classes
    var_table = pair_table(prior_variance, n_input, Y, "prior_variance")
    if np.any(var_table <= 0):
        raise ValueError("prior_variance must be positive (the Bayes factor of an improper prior is "
                         "undefined)")
    multiplicity = isinstance(log_prior_odds, str)
    if multiplicity and log_prior_odds != "multiplicity":
        raise ValueError(f"log_prior_odds must be a number, an array or 'multiplicity', got "
                         f"{log_prior_odds!r}")
    odds_table = pair_table(0.0 if multiplicity else log_prior_odds, n_input, Y, "log_prior_odds")
    n_space = int(np.count_nonzero(data.predicate_frequency()[:n_input])) * Y
    Xv = None
    if X_val is not None:
        Xv = add_bias_column(X_val)
        if Xv.shape[1] != Xb.shape[1]:
            raise ValueError(f"X_val has {Xv.shape[1] - 1} columns, X has {n_input}")
        y_val = np.asarray(y_val)
    names = names or (lambda j, c: f"x{j}=>{c}")
    budget = np.inf if max_pairs is None else int(max_pairs)
    report = RoundProgress(progress, max_pairs, rounds_past_stop)

    act_pred, act_cls, act_var = bias_features(n_input, Y)
    n_bias = act_pred.size
    w = np.zeros(n_bias)
    sel = dict(predicates=[], classes=[], mu=[], margin=[], beta=[], round=[])
    rows = []
    n_at_stop, stop_round, stop_reason = None, None, STOP_BUDGET
    t_start = time.perf_counter()
    rnd = 0
    while True:
        t0 = time.perf_counter()
        fit = fit_map(data, act_pred, act_cls, prior_variance=act_var, w0=w, tol=map_tol)
        w = fit.model.weights
        if on_fit is not None:
            on_fit(rnd, fit.model)
        state = MaxentState.from_weights(data, act_pred, act_cls, w)
        predicted = state.predict()
        beta0 = fit.log_likelihood
        t1 = time.perf_counter()
        row = dict(round=rnd, n_selected=len(sel["predicates"]), beta_0=beta0,
                   train_accuracy=_accuracy(data.y, predicted),
                   heldout_accuracy=(_accuracy(y_val, fit.model.predict(Xv)) if Xv is not None
                                     else float("nan")),
                   heldout_log_loss=(-fit.model.log_likelihood(Xv, y_val) / max(len(y_val), 1)
                                     if Xv is not None else float("nan")),
                   map_iterations=fit.n_iter, n_proposals=0, best_margin=float("nan"),
                   best_margin_after=float("nan"), n_rescored=0, n_added=0, added=(),
                   predicate_added=(), class_added=(), mu_added=(), beta_added=(), margin_added=(),
                   seconds_optmap=t1 - t0, seconds_scoring=0.0, seconds_newton=0.0)
        if report.stop_requested:  # asked during the previous round: keep its pairs, now fitted
            stop_reason = STOP_REQUESTED
            row.update(seconds=time.perf_counter() - t_start, bayes_stop=False)
            rows.append(row)
            break
        remaining_budget = budget - len(sel["predicates"])
        pred, cls = (misclassified_proposals(data, predicted, act_pred * Y + act_cls, n_input)
                     if remaining_budget > 0 else (np.empty(0, np.int64),) * 2)
        if remaining_budget <= 0:
            stop_reason = STOP_BUDGET
        elif not np.any(predicted != data.y):
            stop_reason = STOP_CLEAN
        elif pred.size == 0:
            stop_reason = STOP_EXHAUSTED
        added = []
        if pred.size:
            var = var_table[pred, cls]
            odds = odds_table[pred, cls]
            if multiplicity:
                odds = odds + multiplicity_log_odds(n_space - (act_pred.size - n_bias))
            t2 = time.perf_counter()
            scored = score_candidates(state, pred, cls, var, odds, sign)
            row["seconds_newton"] = time.perf_counter() - t2
            mu, margin = scored.mu, scored.margin
            row["n_proposals"] = int(pred.size)
            row["best_margin"] = float(margin.max())
            if stop_round is None and margin.max() <= 0:
                n_at_stop, stop_round = len(sel["predicates"]), rnd
            forcing = stop_round is not None and (rounds_past_stop is None
                                                  or rnd - stop_round < rounds_past_stop)
            picked = pick_round(state, pred, cls, mu, margin, var, odds, sign,
                                int(min(per_round, remaining_budget)), forcing)
            added = picked.order
            row["n_rescored"] = picked.n_rescored
            row["best_margin_after"] = picked.best_left
            if not added:
                stop_reason = STOP_BAYES
            betas = beta0 + np.cumsum(picked.margin)
            for best, beta, m in zip(added, betas, picked.margin):
                sel["predicates"].append(int(pred[best]))
                sel["classes"].append(int(cls[best]))
                sel["mu"].append(float(mu[best]))
                sel["margin"].append(float(m))
                sel["beta"].append(float(beta))
                sel["round"].append(rnd)
            row.update(n_added=len(added),
                       added=tuple(names(int(pred[b]), int(cls[b])) for b in added),
                       predicate_added=tuple(int(pred[b]) for b in added),
                       class_added=tuple(int(cls[b]) for b in added),
                       mu_added=tuple(float(mu[b]) for b in added),
                       beta_added=tuple(float(b) for b in betas),
                       margin_added=tuple(float(m) for m in picked.margin))
        row["seconds_scoring"] = time.perf_counter() - t1
        row["seconds"] = time.perf_counter() - t_start
        row["bayes_stop"] = stop_round == rnd
        rows.append(row)
        report.round(row["best_margin"], n_selected=len(sel["predicates"]), stop_round=stop_round, rnd=rnd,
                     message=f"round {rnd}: {len(sel['predicates'])} features, {row['n_proposals']} proposals")
        if not added:
            break
        new_pred = np.asarray(sel["predicates"][-len(added):], dtype=np.int64)
        new_cls = np.asarray(sel["classes"][-len(added):], dtype=np.int64)
        act_pred = np.concatenate([act_pred, new_pred])
        act_cls = np.concatenate([act_cls, new_cls])
        act_var = np.concatenate([act_var, var_table[new_pred, new_cls]])
        w = np.concatenate([w, sel["mu"][-len(added):]])  # warm start at the mean-field weights
        rnd += 1

    n_sel = len(sel["predicates"])
    model = MaxentModel(n_input + 1, Y, act_pred, act_cls, w)
    if multiplicity:
        odds_table = odds_table + multiplicity_log_odds(n_space - n_sel)
    column_margin = final_column_margins(data, state, act_pred * Y + act_cls, n_input, var_table,
                                         odds_table, sign)
    report.send(1.0, f"done: {n_sel} features, {stop_reason}")
    return BayesFactorRun(
        predicates=np.asarray(sel["predicates"], dtype=np.int64),
        classes=np.asarray(sel["classes"], dtype=np.int64),
        mu=np.asarray(sel["mu"]), margin=np.asarray(sel["margin"]), beta=np.asarray(sel["beta"]),
        round=np.asarray(sel["round"], dtype=np.int64), model=model, bias_column=n_input,
        trace=pd.DataFrame(rows), n_at_stop=n_sel if n_at_stop is None else n_at_stop,
        stop_round=stop_round, stop_reason=stop_reason,
        column_margin=column_margin)


def final_column_margins(data: MaxentData, state: MaxentState, active_keys: np.ndarray,
                         n_input: int, var_table: np.ndarray, odds_table: np.ndarray,
                         sign: str) -> np.ndarray:
    """Per input column, max over its inactive co-occurring classes of beta_g - beta_0 (Eq. 12) on
    ``state``; -inf for columns without such a pair."""
    Y = data.n_classes
    pred, cls = data.candidate_pairs(1)
    keep = (pred < n_input) & ~np.isin(pred * Y + cls, active_keys)
    pred, cls = pred[keep], cls[keep]
    out = np.full(n_input, -np.inf)
    if pred.size:
        scored = score_candidates(state, pred, cls, var_table[pred, cls], odds_table[pred, cls], sign)
        np.maximum.at(out, pred, scored.margin)
    return out
