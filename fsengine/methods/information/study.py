"""What the unified-criterion page, lesson 7 and the lecture pack's page compute: the greedy
selections of Brown, Pocock, Zhao & Luján's linear criterion (JMLR 13, 2012, Eq. 14),

    J(X_k) = I(X_k; Y) - beta sum_{j in S} I(X_j; X_k) + gamma sum_{j in S} I(X_j; X_k | Y),

over a grid of (beta, gamma) under both normalisations (beta and gamma divided by |S|, or not),
the three terms of J for every selection, where the named members sit on the grid, and how the
named members behave over fresh draws of the planted XOR task
(:func:`fsengine.data.synthetic.xor.make_xor_redundant`).

The task is where the choice matters. Its roles (``Dataset.extras["role"]``): an XOR pair that
determines the label but tells nothing about it one at a time (I(x_a; Y) = I(x_b; Y) = 0), noisy
copies of the label (each informative, and redundant with the others), and noise. Two facts of the
mathematics that the figures show:

* a copy's redundancy with another copy never exceeds its relevance (the copies are conditionally
  independent given Y, so by the data-processing inequality I(c_i; c_j) <= I(c_i; Y)); with beta
  and gamma divided by |S| (mRMR, JMI) a copy therefore never scores below a feature that carries
  no information, and every copy is taken before the first noise feature, whatever beta <= 1. Only
  the sums (MIFS, CIFE) let the penalty grow with every copy taken, until it outweighs relevance;
* once one XOR member is selected, its partner's conditional term I(x_a; x_b | Y) = H(Y) is the
  largest term there is: any gamma > 0 takes the partner next. No member of the linear family
  finds the first XOR member on purpose: alone it scores what a noise feature scores.

Everything here is computed from :func:`fsengine.methods.information.model.pairwise_terms` once per
draw (:func:`~fsengine.methods.information.model.linear_grid` selects from those tables), the same
floats and the same greedy loop as the selectors (``tests/methods/information/test_study.py``
holds the grid to a brute-force greedy written from the definition, and the named positions to
``JMISelector``, ``MRMRSelector`` and ``CIFESelector``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsengine.methods.information.discretise import DEFAULT_BINS, discretise
from fsengine.methods.information.model import (
    CIFE,
    JMI,
    MIM,
    MRMR,
    NORMALISATIONS,
    Criterion,
    PairwiseTerms,
    linear_criterion,
    linear_grid,
    linear_selection,
    pairwise_terms,
)
from fsengine.progress import Progress, report_to, scaled
from fsengine.stats import Estimate, bootstrap_means, wilson_interval

#: the lesson's planted task (keyword arguments of ``make_xor_redundant``; the catalogue's
#: ``xor_redundant`` with two settings of its own, :data:`LESSON_TASK_WHY`)
LESSON_TASK = {"n": 600, "n_redundant": 5, "n_noise": 10, "copy_noise": 0.1, "label_noise": 0.0, "seed": 0}
LESSON_TASK_WHY = (
    "Copies flipped with probability 0.1 (the catalogue's default is 0.2) are informative "
    "(I(c; Y) = ln 2 - H(0.1)) and redundant with each other (I(c_i; c_j) = ln 2 - H(0.18)), so "
    "a penalty that sums over the selected copies outweighs the relevance of the next one after a "
    "few and beta visibly decides how many; 10 noise features (the default is 20) keep the full "
    "greedy order, shown step by step, short enough to read.")
#: Brown et al.'s Eq. 14 in LaTeX (the page, lesson 7 and the lecture pack show it)
EQUATION = (r"J(X_k) = I(X_k;Y) - \beta \sum_{j\in S} I(X_j;X_k) + \gamma \sum_{j\in S} I(X_j;X_k\mid Y)")
#: beta and gamma from 0 to 1 in steps of 0.05 (every named member sits on the grid)
GRID = np.round(np.linspace(0.0, 1.0, 21), 10)
#: the roles of the planted task, in the order the figures draw them, and their names
ROLES = ("xor", "copy", "noise")
ROLE_NAMES = {"xor": "XOR pair", "copy": "label copies", "noise": "noise"}
#: the named members of Brown et al.'s Table 1 on the grid (MIM sits at (0, 0) of both normalisations)
NAMED: tuple[Criterion, ...] = (MIM, MRMR, JMI, CIFE, dataclasses.replace(linear_criterion(1.0, 0.0, "sum"),
                                                                          name="MIFS"))
#: draws of the task in :func:`member_replicates` (fresh seeds after the task's own)
REPLICATE_DRAWS = 40
#: who proposed each named member (Brown et al. 2012, Table 1)
SOURCES = {"MIM": "Lewis 1992", "mRMR": "Peng, Long & Ding 2005", "JMI": "Yang & Moody 1999",
           "CIFE": "Lin & Tang 2006", "MIFS": "Battiti 1994 (β = 1 here)"}


def normalisation_name(member: Criterion) -> str:
    """How the tables name a member's normalisation: beta and gamma divided by |S|, or sums."""
    if member.beta == member.gamma == 0:
        return "either (β = γ = 0)"
    return "÷ |S|" if member.normalise == "mean" else "sums"


def members_table() -> pd.DataFrame:
    """The named members: their (beta, gamma), normalisation and source."""
    return pd.DataFrame([{"member": m.name, "β": m.beta, "γ": m.gamma, "normalisation": normalisation_name(m),
                          "proposed by": SOURCES[m.name]} for m in NAMED])


def task_changes(task: dict | None = None) -> list[tuple[str, object, object]]:
    """(label, value, catalogue default) of every setting in which ``task`` (default
    :data:`LESSON_TASK`) differs from the catalogue's ``xor_redundant``."""
    from fsengine.data import get_spec

    spec = get_spec("xor_redundant")
    task = LESSON_TASK if task is None else task
    return [(spec.param(name).label, value, spec.param(name).default) for name, value in task.items()
            if value != spec.param(name).default]


def selector_agreement(ds, grid: UnifiedGrid, *, bins=DEFAULT_BINS) -> dict[str, bool]:
    """Whether each named member's position on ``grid`` selects the full greedy order its
    scikit-learn selector selects on ``ds`` (MIM and MIFS through ``UnifiedInformationSelector``):
    the grid and the selectors are one criterion."""
    from fsengine.selectors import CIFESelector, JMISelector, MRMRSelector, UnifiedInformationSelector

    p = grid.n_features
    selectors = {"MIM": UnifiedInformationSelector(beta=0.0, gamma=0.0, max_features=p, bins=bins),
                 "mRMR": MRMRSelector(max_features=p, bins=bins), "JMI": JMISelector(max_features=p, bins=bins),
                 "CIFE": CIFESelector(max_features=p, bins=bins),
                 "MIFS": UnifiedInformationSelector(beta=1.0, gamma=0.0, normalise="sum", max_features=p, bins=bins)}
    agree = {}
    for name, n, a, b in grid.members():
        order = selectors[name].fit(ds.X, ds.y).order_[:p]
        agree[name] = agree.get(name, True) and bool(np.array_equal(order, grid.orders[n, a, b]))
    return agree


@dataclass(frozen=True)
class UnifiedGrid:
    """The greedy selections of the unified criterion at every grid position.

    betas (B,), gammas (G,)   the grid; normalisations (N,) "mean" and/or "sum"
    orders      (N, B, G, p)  the greedy order of every feature
    relevance   (N, B, G, p)  I(X_k; Y) of the feature selected at each step (nats)
    redundancy  (N, B, G, p)  sum of I(X_j; X_k) over the features j selected before it
    conditional (N, B, G, p)  sum of I(X_j; X_k | Y) over the same j
    criterion   (N, B, G, p)  J when it was selected (Eq. 14; for "mean", beta and gamma / |S|)
    feature_names (p,), roles (p,) or None (the task's role of every feature)
    """

    betas: np.ndarray
    gammas: np.ndarray
    normalisations: tuple[str, ...]
    orders: np.ndarray
    relevance: np.ndarray
    redundancy: np.ndarray
    conditional: np.ndarray
    criterion: np.ndarray
    feature_names: tuple[str, ...]
    roles: tuple[str, ...] | None = None

    @property
    def n_features(self) -> int:
        return self.orders.shape[-1]

    @property
    def kinds(self) -> tuple[str, ...] | None:
        """Every feature's kind as the figures name it (:data:`ROLE_NAMES`), or None without roles."""
        return None if self.roles is None else tuple(ROLE_NAMES.get(r, r) for r in self.roles)

    @property
    def kind_order(self) -> tuple[str, ...]:
        """The kinds present, in the order the figures draw them (:data:`ROLES`, then any other)."""
        if self.roles is None:
            return ()
        present = list(dict.fromkeys(self.roles))
        return tuple(ROLE_NAMES.get(r, r) for r in sorted(present, key=lambda r: (ROLES + (r,)).index(r)))

    def divisors(self, normalise: str) -> np.ndarray:
        """(p,) what beta and gamma are divided by at each step: |S| (1 at the first) for "mean", 1 for "sum"."""
        steps = np.arange(self.n_features, dtype=np.float64)
        return np.maximum(steps, 1.0) if normalise == "mean" else np.ones_like(steps)

    def terms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three terms of J for every selection, each (N, B, G, p): I(X_k; Y),
        -beta sum I(X_j; X_k) / d and +gamma sum I(X_j; X_k | Y) / d (d from :meth:`divisors`).
        They add up to :attr:`criterion` exactly (the greedy loop's own floats)."""
        d = np.stack([self.divisors(n) for n in self.normalisations])[:, None, None, :]
        beta = self.betas[None, :, None, None]
        gamma = self.gammas[None, None, :, None]
        return self.relevance, -(beta * self.redundancy) / d, (gamma * self.conditional) / d

    def index(self, beta: float, gamma: float, normalise: str) -> tuple[int, int, int]:
        """(normalisation, beta, gamma) indices of the grid position nearest (beta, gamma)."""
        if normalise not in self.normalisations:
            raise ValueError(f"normalise={normalise!r}: this grid has {', '.join(self.normalisations)}")
        return (self.normalisations.index(normalise), int(np.argmin(np.abs(self.betas - beta))),
                int(np.argmin(np.abs(self.gammas - gamma))))

    def order(self, beta: float, gamma: float, normalise: str) -> np.ndarray:
        """The greedy order at the grid position nearest (beta, gamma)."""
        return self.orders[self.index(beta, gamma, normalise)]

    def members(self) -> list[tuple[str, int, int, int]]:
        """(name, normalisation, beta, gamma) indices of every named member on this grid (MIM on
        every normalisation: beta = gamma = 0 is the same criterion under both)."""
        found = []
        for member in NAMED:
            on = self.normalisations if member.beta == member.gamma == 0 else (member.normalise,)
            for normalise in on:
                if normalise not in self.normalisations:
                    continue
                n, a, b = self.index(member.beta, member.gamma, normalise)
                if np.isclose(self.betas[a], member.beta) and np.isclose(self.gammas[b], member.gamma):
                    found.append((member.name, n, a, b))
        return found


def step_sums(terms: PairwiseTerms, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every greedy order in ``orders`` (..., m), the sums over the features selected before
    each step of I(X_j; X_k) and I(X_j; X_k | Y), added in selection order as the greedy loop adds
    them (the same floats)."""
    orders = np.asarray(orders)
    pairs_mi = terms.redundancy[orders[..., :, None], orders[..., None, :]]  # [..., i, k] = I(X_{o_i}; X_{o_k})
    pairs_cmi = terms.conditional[orders[..., :, None], orders[..., None, :]]
    redundancy = np.zeros(orders.shape)
    conditional = np.zeros(orders.shape)
    for i in range(orders.shape[-1] - 1):
        redundancy[..., i + 1:] += pairs_mi[..., i, i + 1:]
        conditional[..., i + 1:] += pairs_cmi[..., i, i + 1:]
    return redundancy, conditional


def unified_grid(ds, *, betas: Sequence[float] = GRID, gammas: Sequence[float] = GRID,
                 normalisations: Sequence[str] = NORMALISATIONS, bins=DEFAULT_BINS,
                 progress: Progress | None = None) -> UnifiedGrid:
    """Every feature's greedy order at every (beta, gamma, normalisation) of the grid, with J's
    terms: the pairwise terms once (:func:`pairwise_terms`), then one greedy selection per position
    from those tables. ``ds`` is a :class:`~fsengine.data.Dataset` with class labels; its
    ``extras["role"]`` (the planted task's) are kept as :attr:`UnifiedGrid.roles`.

    >>> from fsengine.data.synthetic.xor import make_xor_redundant
    >>> grid = unified_grid(make_xor_redundant(n=200, n_redundant=2, n_noise=2), betas=[0, 1], gammas=[0, 1])
    >>> grid.orders.shape, [name for name, *_ in grid.members()]
    ((2, 2, 2, 6), ['MIM', 'MIM', 'mRMR', 'JMI', 'CIFE', 'MIFS'])
    """
    progress = report_to(progress)
    betas, gammas = np.asarray(betas, dtype=np.float64), np.asarray(gammas, dtype=np.float64)
    for name, values in (("betas", betas), ("gammas", gammas)):
        if values.ndim != 1 or not values.size or not np.all(np.isfinite(values)) or np.any(values < 0):
            raise ValueError(f"{name}: a non-empty list of finite weights >= 0")
    for normalise in normalisations:
        if normalise not in NORMALISATIONS:
            raise ValueError(f"normalise={normalise!r}: use 'mean' (divide by |S|) or 'sum'")
    terms = pairwise_terms(discretise(ds.X, bins), ds.y, progress=scaled(progress, 0.0, 0.3, "pairwise terms: "))
    p = terms.n_features
    orders = np.empty((len(normalisations), betas.size, gammas.size, p), dtype=np.intp)
    criterion = np.empty(orders.shape)
    for n, normalise in enumerate(normalisations):
        for a, beta in enumerate(betas):
            row_orders, row_values = linear_grid(terms, [beta], gammas, p, normalise)
            orders[n, a], criterion[n, a] = row_orders[0], row_values[0]
            done = (n * betas.size + a + 1) / (len(normalisations) * betas.size)
            progress(0.3 + 0.7 * done, f"greedy selections: beta {beta:g} ({normalise})")
    redundancy, conditional = step_sums(terms, orders)
    roles = ds.extras.get("role") if getattr(ds, "extras", None) else None
    return UnifiedGrid(betas, gammas, tuple(normalisations), orders, terms.relevance[orders], redundancy, conditional,
                       criterion, tuple(str(f) for f in ds.feature_names),
                       None if roles is None else tuple(str(r) for r in roles))


def agreement_sentence(agreement: dict[str, bool]) -> str:
    """What :func:`selector_agreement` found, as a sentence."""
    same = [name for name, ok in agreement.items() if ok]
    differ = [name for name, ok in agreement.items() if not ok]
    if not same:
        return f"On this draw no named member's grid position selects its selector's order ({', '.join(differ)})."
    text = f"On this draw the grid's {', '.join(same)} positions select the same full order as their selectors"
    return text + (f"; {', '.join(differ)} do not." if differ else ".")


def members_sentence(grid: UnifiedGrid, summary: XorSummary) -> str:
    """Where each named member completes the XOR pair on ``grid``'s draw and how many label copies
    it takes first (one clause per member and normalisation, MIM once)."""
    clauses, seen = [], set()
    for name, n, a, b in grid.members():
        if name in seen:
            continue
        seen.add(name)
        wait = int(summary.partner_wait[n, a, b])
        clauses.append(f"{name} completes the pair at step {int(summary.pair_complete[n, a, b])} after "
                       f"{int(summary.copies_before[n, a, b])} copies"
                       + (" (the partner at once)" if wait == 1 else f" (the partner {wait} steps after the first)"))
    return "On this draw " + "; ".join(clauses) + "."


# --- the planted task: where the XOR pair and the copies land ------------------------------------

@dataclass(frozen=True)
class XorSummary:
    """Per grid position (the leading axes of the orders): the step (1 = first) at which the
    second XOR member is selected (``pair_complete``), the steps from the first XOR member to the
    second (``partner_wait``, 1 = at once) and the copies of the label selected before the pair is
    complete (``copies_before``)."""

    pair_complete: np.ndarray
    partner_wait: np.ndarray
    copies_before: np.ndarray


def xor_summary(orders: np.ndarray, roles: Sequence[str]) -> XorSummary:
    """:class:`XorSummary` of full greedy orders (..., p) of the planted task with ``roles`` (p,)."""
    roles = np.asarray(roles)
    orders = np.asarray(orders)
    if (roles == "xor").sum() != 2:
        raise ValueError("the XOR summary needs the planted task's roles: exactly two 'xor' features")
    if orders.shape[-1] != roles.size:
        raise ValueError(f"full greedy orders of all {roles.size} features are needed, got {orders.shape[-1]} steps")
    kinds = roles[orders]
    step_of = np.argsort(orders, axis=-1)  # the step at which each feature was selected (orders are permutations)
    xor_steps = np.sort(step_of[..., roles == "xor"], axis=-1)
    first, second = xor_steps[..., 0], xor_steps[..., 1]
    before = np.arange(orders.shape[-1]) < second[..., None]
    return XorSummary(second + 1, second - first, ((kinds == "copy") & before).sum(axis=-1))


def grid_summary(grid: UnifiedGrid) -> XorSummary:
    """:func:`xor_summary` of every grid position (shape (N, B, G) each)."""
    if grid.roles is None:
        raise ValueError("the grid was not computed on the planted XOR task (no roles)")
    return xor_summary(grid.orders, grid.roles)


def summary_maps(summary: XorSummary) -> list[tuple[str, str, np.ndarray]]:
    """What the explorable maps over the (beta, gamma) plane: (title, colour-bar title, values)."""
    return [("XOR pair complete", "at step", summary.pair_complete),
            ("copies before the pair", "copies", summary.copies_before)]


@dataclass(frozen=True)
class MemberReplicates:
    """The named members over fresh draws of the task: ``draws`` (one row per draw and member:
    seed, member, pair_complete, partner_wait, copies_before) and, per member, the share of draws
    in which the partner followed at once (Wilson interval), the mean number of copies before the
    pair was complete and the mean step at which it was (percentile bootstrap over the draws)."""

    draws: pd.DataFrame
    at_once: dict[str, Estimate]
    copies_before: dict[str, Estimate]
    pair_complete: dict[str, Estimate]
    task: dict

    @property
    def n_draws(self) -> int:
        return int(self.draws["seed"].nunique())

    def sentence(self, digits: int = 2) -> str:
        """Every member's share of draws in which the partner followed at once and the mean step at
        which the pair was complete, each with its 95% interval, as a sentence."""
        method = next(iter(self.at_once.values())).method
        parts = [f"{name} {self.at_once[name].format(digits)} (pair complete at step "
                 f"{self.pair_complete[name].format(digits)})" for name in self.at_once]
        return (f"Over {self.n_draws} fresh draws of the task, the share of draws in which the second XOR member "
                f"came right after the first ({method}): " + "; ".join(parts)
                + ". Mean steps with percentile bootstrap intervals over the draws.")

    def table(self, digits: int = 2) -> pd.DataFrame:
        """One row per member, each estimate with its 95% interval, formatted."""
        rows = []
        for member in NAMED:
            name = member.name
            rows.append({"member": name, "β, γ": f"{member.beta:g}, {member.gamma:g}",
                         "normalisation": normalisation_name(member),
                         "partner at once (share of draws)": self.at_once[name].format(digits),
                         "copies before the pair": self.copies_before[name].format(digits),
                         "pair complete at step": self.pair_complete[name].format(digits)})
        return pd.DataFrame(rows)


def member_replicates(task: dict | None = None, draws: int = REPLICATE_DRAWS, *, bins=DEFAULT_BINS,
                      progress: Progress | None = None) -> MemberReplicates:
    """Every named member's full greedy order on ``draws`` fresh draws of the planted task
    (``task``: keyword arguments of ``make_xor_redundant``, default :data:`LESSON_TASK`; the draws
    use the seeds after the task's own), summarised as :class:`MemberReplicates`."""
    from fsengine.data.synthetic.xor import make_xor_redundant

    task = dict(LESSON_TASK if task is None else task)
    if draws < 2:
        raise ValueError(f"draws={draws}: an interval needs at least 2 draws")
    progress = report_to(progress)
    rows = []
    first_seed = int(task.get("seed", 0)) + 1
    for i, seed in enumerate(range(first_seed, first_seed + draws)):
        ds = make_xor_redundant(**{**task, "seed": seed})
        terms = pairwise_terms(discretise(ds.X, bins), ds.y)
        for member in NAMED:
            order = linear_selection(terms, member.beta, member.gamma, terms.n_features, member.normalise).order
            summary = xor_summary(order, ds.extras["role"])
            rows.append({"seed": seed, "member": member.name, "pair_complete": int(summary.pair_complete),
                         "partner_wait": int(summary.partner_wait), "copies_before": int(summary.copies_before)})
        progress((i + 1) / draws, f"draw {i + 1} of {draws}")
    table = pd.DataFrame(rows)
    method = f"Wilson score interval ({draws} draws of the task)"
    at_once, copies, complete = {}, {}, {}
    for member in NAMED:
        mine = table[table["member"] == member.name]
        share = wilson_interval(int((mine["partner_wait"] == 1).sum()), len(mine))
        at_once[member.name] = dataclasses.replace(share, method=method)
        copies[member.name], complete[member.name] = bootstrap_means(
            mine[["copies_before", "pair_complete"]].to_numpy(dtype=np.float64), unit="draws of the task")
    return MemberReplicates(table, at_once, copies, complete, task)
