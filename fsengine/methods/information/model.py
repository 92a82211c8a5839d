"""The information-theoretic family as one criterion (G. Brown, A. Pocock, M.-J. Zhao and M. Luján,
"Conditional likelihood maximisation: a unifying framework for information theoretic feature
selection", JMLR 13 (2012) 27-66).

Greedy forward selection: the first feature maximises the relevance I(X_k; Y); each next one, with
S the features selected so far, maximises a criterion J(X_k). Brown et al. (Eq. 14 and Table 1)
show that MIM, MIFS, mRMR, JMI and CIFE are one linear criterion,

    J(X_k) = I(X_k; Y) - beta * sum_{j in S} I(X_j; X_k) + gamma * sum_{j in S} I(X_j; X_k | Y),

=========  ===================  ==============================================================
member     (beta, gamma)        source
=========  ===================  ==============================================================
MIM        (0, 0)               Lewis 1992: relevance alone
MIFS       (beta, 0)            Battiti 1994
mRMR       (1/|S|, 0)           Peng, Long & Ding 2005 (the MID form)
JMI        (1/|S|, 1/|S|)       Yang & Moody 1999: (1/|S|) sum_j I(X_k X_j; Y), the same argmax
CIFE       (1, 1)               Lin & Tang 2006
=========  ===================  ==============================================================

(``normalise="mean"`` is the 1/|S| of mRMR and JMI: beta and gamma are divided by |S|), and that
CMIM, ICAP and DISR are its non-linear relatives:

    CMIM  J = I(X_k; Y) - max_{j in S} [I(X_j; X_k) - I(X_j; X_k | Y)]  = min_j I(X_k; Y | X_j)  (Fleuret 2004)
    ICAP  J = I(X_k; Y) - sum_{j in S} max(0, I(X_j; X_k) - I(X_j; X_k | Y))                   (Jakulin 2005)
    DISR  J = sum_{j in S} I(X_k X_j; Y) / H(X_k X_j Y)                                        (Meyer & Bontempi 2006)

Every term is a sum, a maximum or a running total over the selected j, so each step adds the terms
of the feature selected last to running sums (one :func:`~fsengine.methods.information.kernels.pair_terms`
pass over the candidates): O(exceptions + p) per step, never revisiting earlier selections.

FCBF (L. Yu and H. Liu, "Feature selection for high-dimensional data: a fast correlation-based
filter solution", ICML 2003, Fig. 2) uses symmetrical uncertainty SU(A, B) = 2 I(A; B) / (H(A) + H(B)):
the features with SU(X_k, Y) > delta, by decreasing SU, are taken in turn as predominant and remove
every later feature X_q with SU(X_p, X_q) >= SU(X_q, Y).

For a lesson or a study that runs many (beta, gamma): :func:`pairwise_terms` computes every pair's
I(X_j; X_k) and I(X_j; X_k | Y) once (p kernel passes), and :func:`linear_selection` /
:func:`linear_grid` then select from those tables without touching the data again (milliseconds
per grid point for tens of features). The greedy loop is the same (:func:`greedy`), so the result
equals the count-kernel selection of the same criterion exactly.

Ties go to the lower feature index (``np.argmax`` of J in float64).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fsengine.methods.information.discretise import States
from fsengine.methods.information.kernels import NEED_CONDITIONAL, NEED_JOINT, label_terms, pair_terms
from fsengine.progress import StopRequested

Progress = Callable[[float, str], None]
LINEAR, CMIM, ICAP, DISR = "linear", "cmim", "icap", "disr"
NORMALISATIONS = ("mean", "sum")


@dataclass(frozen=True)
class Criterion:
    """One member of the family: ``kind`` "linear" with (beta, gamma, normalise), or "cmim",
    "icap", "disr"; ``name`` is how progress messages and traces call it."""

    name: str
    kind: str = LINEAR
    beta: float = 0.0
    gamma: float = 0.0
    normalise: str = "sum"

    def __post_init__(self):
        if self.kind not in (LINEAR, CMIM, ICAP, DISR):
            raise ValueError(f"criterion kind {self.kind!r}: use one of linear, cmim, icap, disr")
        if self.normalise not in NORMALISATIONS:
            raise ValueError(f"normalise={self.normalise!r}: use 'mean' (divide by |S|) or 'sum'")

    @property
    def need(self) -> int:
        """The :func:`pair_terms` flags this criterion's sums need."""
        if self.kind == DISR:
            return NEED_JOINT
        if self.kind in (CMIM, ICAP) or self.gamma != 0.0:
            return NEED_CONDITIONAL
        return 0

    def scores(self, relevance: np.ndarray, sums: Sums, size: int) -> np.ndarray:
        """J of every feature given the running sums over a selected set of ``size`` features."""
        if size == 0:
            return relevance.copy()
        if self.kind == CMIM:
            return relevance - sums.worst
        if self.kind == ICAP:
            return relevance - sums.icap
        if self.kind == DISR:
            return sums.disr.copy()
        norm = size if self.normalise == "mean" else 1
        J = relevance - (self.beta * sums.redundancy) / norm if self.beta != 0.0 else relevance.copy()
        if self.gamma != 0.0:
            J = J + (self.gamma * sums.conditional) / norm
        return J


#: the named members (Brown et al. 2012, Table 1); MIFS and any other (beta, gamma) through
#: :func:`linear_criterion`
MIM = Criterion("MIM")
MRMR = Criterion("mRMR", beta=1.0, normalise="mean")
JMI = Criterion("JMI", beta=1.0, gamma=1.0, normalise="mean")
CIFE = Criterion("CIFE", beta=1.0, gamma=1.0)
CMIM_CRITERION = Criterion("CMIM", CMIM)
ICAP_CRITERION = Criterion("ICAP", ICAP)
DISR_CRITERION = Criterion("DISR", DISR)
MEMBERS = {"mim": MIM, "mrmr": MRMR, "jmi": JMI, "cife": CIFE, "cmim": CMIM_CRITERION, "icap": ICAP_CRITERION,
           "disr": DISR_CRITERION}


def linear_criterion(beta: float, gamma: float, normalise: str = "mean") -> Criterion:
    """The unified criterion at (beta, gamma): MIFS is (beta, 0, "sum"), CIFE (1, 1, "sum"), mRMR
    (1, 0, "mean"), JMI (1, 1, "mean"), MIM (0, 0)."""
    return Criterion(f"J(beta={beta:g}, gamma={gamma:g}, {normalise})", beta=float(beta), gamma=float(gamma),
                     normalise=normalise)


@dataclass
class Sums:
    """Running sums over the selected features j, per candidate k: sum I(X_j; X_k) (redundancy),
    sum I(X_j; X_k | Y) (conditional), max_j [I(X_j; X_k) - I(X_j; X_k | Y)] (worst, CMIM),
    sum max(0, ...) (icap) and sum I(X_k X_j; Y) / H(X_k X_j Y) (disr)."""

    redundancy: np.ndarray
    conditional: np.ndarray
    worst: np.ndarray
    icap: np.ndarray
    disr: np.ndarray

    @classmethod
    def zeros(cls, p: int) -> Sums:
        return cls(np.zeros(p), np.zeros(p), np.full(p, -np.inf), np.zeros(p), np.zeros(p))

    def add(self, candidates: np.ndarray, terms: PairTerms) -> None:
        """Add the terms of one more selected feature for ``candidates``."""
        self.redundancy[candidates] += terms.mi
        if terms.cmi is not None:
            self.conditional[candidates] += terms.cmi
            interaction = terms.mi - terms.cmi
            self.worst[candidates] = np.maximum(self.worst[candidates], interaction)
            self.icap[candidates] += np.maximum(interaction, 0.0)
        if terms.joint_mi is not None:
            self.disr[candidates] += terms.joint_mi / terms.joint_h


@dataclass(frozen=True)
class PairTerms:
    """For candidates k against one feature s: I(X_k; X_s), I(X_k; X_s | Y), I(X_k X_s; Y),
    H(X_k X_s Y) (None where not computed)."""

    mi: np.ndarray
    cmi: np.ndarray | None = None
    joint_mi: np.ndarray | None = None
    joint_h: np.ndarray | None = None


def class_codes(y) -> tuple[np.ndarray, int]:
    """Labels coded 0..C-1 and C."""
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    return codes.astype(np.int64).ravel(), int(codes.max()) + 1


class CountTerms:
    """The terms from the counts of ``states`` and the labels (the numba kernels)."""

    def __init__(self, states: States, y):
        self.states = states
        self.codes, self.n_classes = class_codes(y)
        s = states
        self.relevance = label_terms(s.default, s.indptr, s.rows, s.values, s.n_states, self.codes, self.n_classes)

    @property
    def n_features(self) -> int:
        return self.states.n_features

    def pair(self, s: int, candidates: np.ndarray, need: int) -> PairTerms:
        st = self.states
        m = candidates.size
        mi = np.empty(m)
        cmi = np.empty(m) if need & NEED_CONDITIONAL else None
        joint_mi = np.empty(m) if need & NEED_JOINT else None
        joint_h = np.empty(m) if need & NEED_JOINT else None
        empty = np.empty(0)
        pair_terms(st.default, st.indptr, st.rows, st.values, st.n_states, self.codes, self.n_classes,
                   st.column(s), np.asarray(candidates, dtype=np.int64), need, mi,
                   empty if cmi is None else cmi, empty if joint_mi is None else joint_mi,
                   empty if joint_h is None else joint_h)
        return PairTerms(mi, cmi, joint_mi, joint_h)


@dataclass(frozen=True)
class PairwiseTerms:
    """Every pair's terms, computed once (:func:`pairwise_terms`): ``relevance`` (p,) I(X_k; Y);
    ``redundancy[s, k]`` I(X_k; X_s), ``conditional[s, k]`` I(X_k; X_s | Y), ``joint_mi[s, k]``
    I(X_k X_s; Y) and ``joint_h[s, k]`` H(X_k X_s Y), (p, p) each (diagonal: a feature with itself).
    A greedy selection reads its rows instead of counting (same floats, same answer)."""

    relevance: np.ndarray
    redundancy: np.ndarray
    conditional: np.ndarray
    joint_mi: np.ndarray
    joint_h: np.ndarray

    @property
    def n_features(self) -> int:
        return self.relevance.size

    def pair(self, s: int, candidates: np.ndarray, need: int) -> PairTerms:
        return PairTerms(self.redundancy[s, candidates],
                         self.conditional[s, candidates] if need & NEED_CONDITIONAL else None,
                         self.joint_mi[s, candidates] if need & NEED_JOINT else None,
                         self.joint_h[s, candidates] if need & NEED_JOINT else None)


def pairwise_terms(states: States, y, *, progress: Progress | None = None) -> PairwiseTerms:
    """Every pair's terms of the (p, n) ``states`` and labels ``y``: p kernel passes, O(p^2) memory
    (meant for the tens to hundreds of features of a lesson or a grid study).

    >>> from fsengine.methods.information.discretise import discretise
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> terms = pairwise_terms(discretise(X, bins=2), X[:, 0])
    >>> np.round(terms.relevance, 4).tolist(), float(terms.redundancy[0, 1])
    ([0.6931, 0.0], 0.0)
    """
    counts = CountTerms(states, y)
    p = states.n_features
    everyone = np.arange(p)
    tables = np.empty((4, p, p))
    for s in range(p):
        terms = counts.pair(s, everyone, NEED_CONDITIONAL | NEED_JOINT)
        tables[:, s] = terms.mi, terms.cmi, terms.joint_mi, terms.joint_h
        if progress is not None:
            progress((s + 1) / p, f"pairwise terms: {s + 1} of {p} features")
    return PairwiseTerms(counts.relevance, *tables)


@dataclass(frozen=True)
class GreedyPath:
    """A greedy selection.

    order           (m,) features in the order they were selected
    criterion       (m,) J of each when it was selected (its relevance for the first)
    relevance       (p,) I(X_k; Y) of every feature
    last_criterion  (p,) J of every feature after the last step (-inf for the selected)
    stop_reason     why the selection ended
    """

    order: np.ndarray
    criterion: np.ndarray
    relevance: np.ndarray
    last_criterion: np.ndarray
    stop_reason: str


def greedy(terms, criterion: Criterion, max_features: int, *, progress: Progress | None = None) -> GreedyPath:
    """Greedy selection of up to ``max_features`` features by ``criterion`` from ``terms``
    (:class:`CountTerms`, or :class:`PairwiseTerms` computed once).

    After each step ``progress(fraction, message)``; a :class:`~fsengine.progress.StopRequested`
    it raises ends the selection with the features selected so far (a valid, shorter sequence).
    """
    p = terms.n_features
    relevance = terms.relevance
    m = min(int(max_features), p)
    sums = Sums.zeros(p)
    available = np.ones(p, dtype=bool)
    order, values = [], []
    stop_reason = (f"selected the largest number asked for, {m} features" if m < p
                   else f"every feature selected ({p})")
    for step in range(m):
        J = criterion.scores(relevance, sums, step)
        J[~available] = -np.inf
        j = int(np.argmax(J))
        order.append(j)
        values.append(float(J[j]))
        available[j] = False
        candidates = np.flatnonzero(available)
        if candidates.size:
            sums.add(candidates, terms.pair(j, candidates, criterion.need))
        try:
            if progress is not None:
                progress((step + 1) / m, f"feature {j} selected, {step + 1} of {m}")
        except StopRequested:
            stop_reason = "stop requested"
            break
    last = criterion.scores(relevance, sums, len(order))
    last[~available] = -np.inf
    return GreedyPath(order=np.asarray(order, dtype=np.intp), criterion=np.asarray(values), relevance=relevance,
                      last_criterion=last, stop_reason=stop_reason)


def step_terms(terms, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per selected feature (in ``order``), the mean I(X_j; X_k) and mean I(X_j; X_k | Y) over the
    features j selected before it (0 for the first): the redundancy and conditional redundancy
    columns of a trace. Sums run in selection order, as in :func:`greedy`."""
    m = order.size
    redundancy, conditional = np.zeros(m), np.zeros(m)
    for i in range(m - 1):
        later = order[i + 1:]
        pair = terms.pair(int(order[i]), later, NEED_CONDITIONAL)
        redundancy[i + 1:] += pair.mi
        conditional[i + 1:] += pair.cmi
    size = np.maximum(np.arange(m), 1)
    return redundancy / size, conditional / size


def linear_selection(terms: PairwiseTerms, beta: float, gamma: float, max_features: int,
                     normalise: str = "mean") -> GreedyPath:
    """The greedy selection of the unified criterion at (beta, gamma) from precomputed ``terms``.

    >>> from fsengine.methods.information.discretise import discretise
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> X = np.c_[y ^ (rng.random(400) < 0.1), y ^ (rng.random(400) < 0.1), rng.random((400, 3))]
    >>> X[:, 2] = X[:, 0]                                     # a copy of the first feature
    >>> terms = pairwise_terms(discretise(X), y)
    >>> linear_selection(terms, 0.0, 0.0, 3).order.tolist()   # MIM: relevance alone, both copies
    [0, 2, 1]
    >>> linear_selection(terms, 1.0, 0.0, 3).order.tolist()   # mRMR: the copy is redundant
    [0, 1, 3]
    """
    return greedy(terms, linear_criterion(beta, gamma, normalise), max_features)


def linear_grid(terms: PairwiseTerms, betas, gammas, max_features: int, normalise: str = "mean"):
    """Selections over a (beta, gamma) grid: (len(betas), len(gammas), m) int array of orders and
    the same shape of J values when selected (m = min(max_features, p)); what an explorable embeds."""
    betas, gammas = np.asarray(betas, dtype=float), np.asarray(gammas, dtype=float)
    m = min(int(max_features), terms.n_features)
    orders = np.empty((betas.size, gammas.size, m), dtype=np.intp)
    values = np.empty((betas.size, gammas.size, m))
    for a, beta in enumerate(betas):
        for b, gamma in enumerate(gammas):
            path = linear_selection(terms, beta, gamma, m, normalise)
            orders[a, b], values[a, b] = path.order, path.criterion
    return orders, values


# --------------------------------------------------------------------------------------------- FCBF

def symmetrical_uncertainty(mi, h_a, h_b):
    """SU = 2 I(A; B) / (H(A) + H(B)), 0 where both entropies are 0 (Yu & Liu 2003, Eq. 2)."""
    total = np.asarray(h_a + h_b, dtype=float)
    return np.where(total > 0, 2.0 * np.asarray(mi) / np.where(total > 0, total, 1.0), 0.0)


@dataclass(frozen=True)
class FCBFPath:
    """FCBF's result.

    order         (m,) the predominant features, by decreasing SU with the class
    su            (p,) SU(X_k, Y) of every feature
    removed_by    (p,) the predominant feature that removed each feature (-1: predominant, below
                  delta, or not reached after a stop)
    stop_reason   why it ended
    """

    order: np.ndarray
    su: np.ndarray
    removed_by: np.ndarray
    stop_reason: str


def fcbf(states: States, y, delta: float = 0.0, *, progress: Progress | None = None,
         sequence: np.ndarray | None = None) -> FCBFPath:
    """FCBF (Yu & Liu 2003, Fig. 2) on discretised features.

    The list S' holds the features with SU(X_k, Y) > ``delta`` by decreasing SU (ties by lower
    index); its first remaining feature X_p is predominant and removes every later X_q with
    SU(X_p, X_q) >= SU(X_q, Y); repeat. ``sequence`` replaces that SU order by another order of the
    same features (only for showing what a peer that ignores the SU order computes).
    """
    terms = CountTerms(states, y)
    entropy = states.entropy()
    class_share = np.bincount(terms.codes) / terms.codes.size
    h_y = float(-np.sum(class_share * np.log(class_share)))
    su = symmetrical_uncertainty(terms.relevance, entropy, h_y)
    p = su.size
    listed = np.flatnonzero(su > delta)
    listed = listed[np.lexsort((listed, -su[listed]))] if sequence is None else \
        np.asarray([j for j in sequence if su[j] > delta], dtype=np.intp)
    alive = np.zeros(p, dtype=bool)
    alive[listed] = True
    removed_by = np.full(p, -1, dtype=np.intp)
    order = []
    stop_reason = f"every feature with SU above delta = {delta:g} is predominant or removed"
    for position, fp in enumerate(listed):
        if not alive[fp]:
            continue
        order.append(int(fp))
        later = listed[position + 1:]
        later = later[alive[later]]
        if later.size:
            mi = terms.pair(int(fp), later, 0).mi
            redundant = later[symmetrical_uncertainty(mi, entropy[fp], entropy[later]) >= su[later]]
            alive[redundant] = False
            removed_by[redundant] = fp
        try:
            if progress is not None:
                done = (position + 1) / listed.size
                progress(done, f"feature {fp} predominant, {len(order)} so far "
                               f"({position + 1} of {listed.size} listed features examined)")
        except StopRequested:
            stop_reason = "stop requested"
            break
    else:
        try:
            if progress is not None:
                progress(1.0, f"{len(order)} predominant features")
        except StopRequested:
            pass  # the selection is complete: nothing left to stop
    return FCBFPath(order=np.asarray(order, dtype=np.intp), su=su, removed_by=removed_by, stop_reason=stop_reason)
