"""Training driver: sweeps of Power EP, EP or EM, optional ARD, the per-iteration trace and the
convergence verdict.

Progress: after every sweep ``progress(sweep / max_iter, message)`` (:mod:`fsengine.progress`),
then ``progress(1.0, verdict)`` when training ends. The messages name the variant, not the method
(``"Power EP sweep 12 of at most 300, ..."``): whoever runs the fit puts ``"RTM: "`` in front. A
callback that raises
:class:`~fsengine.progress.StopRequested` stops training and the exception propagates (a partial
posterior is not a result: nothing is returned).

Convergence needs all of: the largest change of a posterior mean E[theta_j] below ``tol``; at
most ``max_skipped_frac`` of the factors skipped in the last sweep (an eta = -1 tilted
distribution that does not exist cannot be matched, and a run that skips most factors has not
learnt anything); no improper marginal (A_j or B_j <= 0, possible with parallel updates); and,
with ARD, the largest change of 1/alpha_j below ``tol``. Otherwise a ``ConvergenceWarning`` says
what failed; the trace has every iteration.

Without ARD the sweeps are Anderson-accelerated (:mod:`.anderson`, ``anderson_memory``): a sweep
may start from a combination of the last sweeps' outputs instead of the last output. The test is
the same: every row of the trace is one sweep and its change is measured from the state that
sweep started at (``extrapolated`` says whether that was an Anderson step), so the verdict is the
plain iteration's. An accelerated fit runs on until the change falls below ``ACCELERATED_STOP``
times ``tol``: its remaining error is not one slow mode's, so a change of ``tol`` understates its
distance to the fixed point more than the plain sweeps' (on the movie reviews, Power EP, 6.8e-3
at a change of 1e-4 against the plain sweeps' 1.9e-3 after 300 sweeps; benchmarks/RESULTS.md),
and the fit must end no farther from it than the plain sweeps did. ``anderson_memory=0`` gives the
plain damped sweeps (the ARD fits always run them: the ARD step halving is path-dependent).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from fsengine.methods.registry import method_defaults
from fsengine.methods.rtm import anderson, ard, em, ep, sites
from fsengine.methods.rtm.evidence import log_bayes_factor
from fsengine.methods.rtm.model import TagMatrix, class_counts
from fsengine.progress import Progress, report_to

METHODS = ("power_ep", "ep", "em")
#: an Anderson-accelerated fit stops at this share of ``tol`` (module docstring; the verdict is ``tol``'s)
ACCELERATED_STOP = 0.2
#: the registry's defaults (method, ard, max_iter; alpha0 "auto" is resolved by suggested_settings)
_REGISTRY = method_defaults("rtm")
#: the slides' prior Beta(5, 5) and the inner damping objects with up to SHORT_OBJECT_TAGS tags
#: converge with; longer objects need LONG_INNER_DAMPING (see suggested_settings)
SHORT_ALPHA0, SHORT_INNER_DAMPING, LONG_INNER_DAMPING = 5.0, 0.5, 0.8
METHOD_LABELS = {"power_ep": "Power EP", "ep": "EP", "em": "EM"}
TRACE_COLUMNS = ("iteration", "max_change", "alpha_change", "log_evidence", "n_active",
                 "n_skipped", "n_improper", "extrapolated", "seconds")


@dataclass(frozen=True)
class RTMSettings:
    """Everything that shapes a fit (see :class:`~fsengine.selectors.RTMClassifier`). The one
    place of the defaults: the method registry's for ``method``, ``ard`` and ``max_iter``, the
    others here; the estimators' parameters take theirs from these fields (their "auto" prior
    strength and inner damping resolve to :func:`suggested_settings`)."""

    method: str = _REGISTRY["method"]
    alpha0: float = SHORT_ALPHA0
    ard: bool = _REGISTRY["ard"]
    alpha_floor: float = 2.0
    alpha_max: float = 1e5
    damping: float = 0.5
    inner_damping: float = SHORT_INNER_DAMPING
    sequential: bool = True
    site_init: float = 0.5
    max_iter: int = _REGISTRY["max_iter"]
    tol: float = 1e-4
    max_skipped_frac: float = 0.01
    anderson_memory: int = anderson.MEMORY

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method={self.method!r}: choose one of {', '.join(METHODS)}")
        if not 0.0 <= self.damping < 1.0 or not 0.0 <= self.inner_damping < 1.0:
            raise ValueError("damping and inner_damping must lie in [0, 1) (1 would freeze the sites)")
        if not 0 <= self.anderson_memory <= anderson.MAX_MEMORY:
            raise ValueError(f"anderson_memory={self.anderson_memory}: 0 (plain sweeps) up to {anderson.MAX_MEMORY} "
                             "residuals")
        if self.alpha0 <= 0.0 or self.alpha_floor <= 0.0 or self.alpha_max < max(self.alpha0, self.alpha_floor):
            raise ValueError("need alpha0 > 0, alpha_floor > 0 and alpha_max >= alpha0, alpha_floor")


#: objects with at most this many tags on average count as short (sentences, ~16 tags)
SHORT_OBJECT_TAGS = 50


def suggested_settings(tags_per_object: float) -> RTMSettings:
    """Prior strength and inner damping by how many tags an object carries, from the runs recorded
    here: short objects (sentences, ~16 tags) converge with the slides' Beta(5, 5) and inner
    damping 0.5 (without it Power EP 2-cycled on 4 of 5 subjectivity folds); long ones (movie
    reviews ~300 words, binarised notMNIST glyphs ~375 pixels) need alpha0 ~ tags/6 and inner
    damping 0.8: with Beta(5, 5) Power EP skipped 714 of 1,000 notMNIST B/D factors (undefined
    eta = -1 cavities) and left 2 marginals improper."""
    if tags_per_object <= SHORT_OBJECT_TAGS:
        return RTMSettings(alpha0=SHORT_ALPHA0, inner_damping=SHORT_INNER_DAMPING)
    return RTMSettings(alpha0=float(round(tags_per_object / 6.0)), inner_damping=LONG_INNER_DAMPING)


@dataclass(frozen=True)
class RTMState:
    """Where a later fit can start (``start`` of :func:`fit_rtm`, a warm start): the fitted objects'
    tags (CSR ``indptr``, ``indices``), the site of every (object, tag) pair (Power EP and EP;
    None for EM, whose q has no sites), the posterior totals A, B and the prior strengths alpha."""

    indptr: np.ndarray
    indices: np.ndarray
    site_a: np.ndarray | None
    site_b: np.ndarray | None
    A: np.ndarray
    B: np.ndarray
    alpha: np.ndarray

    @property
    def n_objects(self) -> int:
        return self.indptr.size - 1

    @property
    def n_tags(self) -> int:
        return self.A.size


@dataclass
class RTMFit:
    """Posterior q(theta_j) = Beta(A_j, B_j), prior strengths alpha, how training went and where a
    later fit can start from this one (``state``; None for the snapshot of a capped fit)."""

    A: np.ndarray
    B: np.ndarray
    alpha: np.ndarray
    trace: pd.DataFrame
    converged: bool
    message: str
    settings: RTMSettings = field(default_factory=RTMSettings)
    state: RTMState | None = None

    @property
    def n_iter(self) -> int:
        return len(self.trace)

    @property
    def theta_mean(self) -> np.ndarray:
        return self.A / (self.A + self.B)

    def relevance(self) -> np.ndarray:
        """log Bayes factor of each tag against theta_j = 0.5 (see :mod:`.evidence`)."""
        return log_bayes_factor(self.A, self.B, self.alpha)

    def active(self) -> np.ndarray:
        """Tags deemed relevant: not pinned by the ARD, or (fixed prior) log BF > 0."""
        if self.settings.ard:
            return ard.relevant_by_ard(self.alpha, self.settings.alpha_floor, self.settings.alpha_max)
        return self.relevance() > 0.0


def variant_label(settings: RTMSettings) -> str:
    """How the fit's own progress messages name it: ``Power EP`` or ``EM + ARD`` (the caller names
    the method, :mod:`fsengine.progress`)."""
    return METHOD_LABELS[settings.method] + (" + ARD" if settings.ard else "")


def run_label(settings: RTMSettings) -> str:
    """How warnings and figures name a fit: ``RTM Power EP`` or ``RTM EM + ARD``."""
    return f"RTM {variant_label(settings)}"


def fit_rtm(tags: TagMatrix, y01: np.ndarray, settings: RTMSettings = RTMSettings(), *,
            progress: Progress | None = None, start: RTMState | None = None,
            rows: np.ndarray | None = None) -> RTMFit:
    """Train the RTM on binary tags and labels y01 in {0, 1}.

    Parameters
    ----------
    tags : TagMatrix
        The objects' tags (:func:`~fsengine.methods.rtm.model.tags_from`).
    y01 : ndarray of shape (n_objects,)
        Class labels, 0 or 1.
    settings : RTMSettings
        Method (Power EP, EP or EM), prior, ARD, damping and stopping rule.
    progress : callable ``progress(fraction, message)`` or None, keyword-only
        Called before the first sweep (fraction 0), after every sweep (``sweep / max_iter``, the
        sweep and its largest change of a posterior mean) and at the end (1.0, the verdict).
        Raising :class:`~fsengine.progress.StopRequested` in it stops training; the exception
        propagates (no partial fit is returned).
    start : RTMState or None, keyword-only
        A warm start: the ``state`` of an earlier fit on related objects (a bootstrap resample, the
        same objects with other settings). Power EP and EP start from its sites (a tag the
        earlier object did not carry gets the cold start's site), EM from its posterior's
        effective sites (A - alpha, B - alpha). The sweeps and the stopping rule are the cold
        fit's: run to a tight ``tol`` both end at the same fixed point (tested to 1e-7); at the
        default ``tol`` (on the change per sweep) each stops short of it, from its own side, by
        about a thousandth of a posterior mean with the Anderson step and a few thousandths with
        the plain sweeps (benchmarks/RESULTS.md). Not with ARD (a ValueError):
        the ARD's step halving stops where the path reverses, so a warm start changes where it
        ends (by up to 0.03 in posterior means in the tests).
    rows : ndarray of shape (n_objects,) or None, keyword-only
        With ``start``: object k here is object ``rows[k]`` of the earlier fit (bootstrap row
        indices), or -1 for an object the earlier fit did not see (the training part of another
        train/test split: its sites start cold); None: the same objects in the same order.

    Returns
    -------
    RTMFit
        The posterior Beta(A_j, B_j), the prior strengths alpha_j, the trace and the verdict; a
        ``ConvergenceWarning`` says what failed when it did not converge.
    """
    fit, _ = _fit(tags, y01, settings, progress, None, _checked_start(tags, settings, start, rows))
    if not fit.converged:
        warnings.warn(fit.message, ConvergenceWarning, stacklevel=3)
    return fit


def fit_rtm_and_continue(tags: TagMatrix, y01: np.ndarray, settings: RTMSettings, *, continue_to: int,
                         progress: Progress | None = None) -> tuple[RTMFit, RTMFit | None]:
    """:func:`fit_rtm` with ``settings``, and, when that fit stops at its cap ``settings.max_iter``
    without converging, the same fit continued up to ``continue_to`` sweeps: the fit that
    :func:`fit_rtm` gives with ``max_iter=continue_to`` (the sweeps are deterministic, so the first
    ``settings.max_iter`` of them are the capped fit's), without running those sweeps twice.
    The continuation is None when the capped fit converged or stopped before its cap. No
    ConvergenceWarning (the caller reads ``converged``)."""
    if continue_to < settings.max_iter:
        raise ValueError(f"continue_to={continue_to} is below max_iter={settings.max_iter}")
    longer, capped = _fit(tags, y01, replace(settings, max_iter=int(continue_to)), progress, settings)
    if capped is None:  # stopped before the cap: the longer fit is the capped one
        converged, message = _verdict(longer.trace, tags, settings)
        return replace(longer, converged=converged, message=message, settings=settings), None
    return capped, (None if capped.converged or capped.n_iter < settings.max_iter else longer)


def _checked_start(tags: TagMatrix, settings: RTMSettings, start: RTMState | None,
                   rows) -> tuple[RTMState, np.ndarray] | None:
    """(start, rows as int64 object indices into the start's objects), checked; None for a cold fit."""
    if start is None:
        if rows is not None:
            raise ValueError("rows maps the objects onto those of a warm start; give start as well")
        return None
    if settings.ard:
        raise ValueError("an ARD fit cannot start from an earlier fit: the ARD's step halving stops where "
                         "its path reverses, so a warm start would change the answer. Fit it cold.")
    if not isinstance(start, RTMState):
        raise TypeError(f"start must be the RTMState of an earlier fit (RTMFit.state), not {type(start).__name__}")
    if start.n_tags != tags.n_tags:
        raise ValueError(f"the warm start was fitted on {start.n_tags} tags; these data have {tags.n_tags}")
    if settings.method != "em" and start.site_a is None:
        raise ValueError(f"{METHOD_LABELS[settings.method]} starts from sites, and this warm start (an EM fit) has "
                         "none: start it from a Power EP or EP fit, or cold")
    if rows is None:
        if start.n_objects != tags.n_objects:
            raise ValueError(f"the warm start was fitted on {start.n_objects} objects, these data have "
                             f"{tags.n_objects}: give rows (which earlier object each one is)")
        rows = np.arange(tags.n_objects)
    rows = np.asarray(rows)
    if rows.shape != (tags.n_objects,) or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"rows must hold one integer object index per object ({tags.n_objects})")
    if rows.size and (rows.min() < -1 or rows.max() >= start.n_objects):
        raise ValueError(f"rows must index the warm start's {start.n_objects} objects (-1: an object it did not see)")
    return start, rows.astype(np.int64)


def _fit(tags: TagMatrix, y01, settings: RTMSettings, progress, cap: RTMSettings | None,
         warm: tuple[RTMState, np.ndarray] | None = None) -> tuple[RTMFit, RTMFit | None]:
    """The fit with ``settings`` (from ``warm``, a checked (start, rows), when given) and, with
    ``cap``, its state after ``cap.max_iter`` sweeps as the fit with ``cap`` (None when it stopped
    before)."""
    y01 = np.asarray(y01, dtype=np.float64)
    if y01.shape != (tags.n_objects,):
        raise ValueError(f"y has {y01.size} labels for {tags.n_objects} objects")
    progress = report_to(progress)
    report = _sweep_reporter(progress, settings, warm is not None)
    report(0)
    snapshot_at = None if cap is None else cap.max_iter
    run = (_run_em if settings.method == "em" else _run_ep)(tags, y01, settings, report, snapshot_at, warm)
    A, B, alpha, rows, snapshot, sites_end = run

    def as_fit(A, B, alpha, rows, s, state=None):
        trace = pd.DataFrame(rows, columns=list(TRACE_COLUMNS))
        converged, message = _verdict(trace, tags, s)
        if warm is not None:
            message += " (warm start from an earlier fit)"
        return RTMFit(A=A, B=B, alpha=alpha, trace=trace, converged=converged, message=message, settings=s,
                      state=state)

    state = RTMState(indptr=tags.indptr, indices=tags.indices, site_a=sites_end[0], site_b=sites_end[1],
                     A=A, B=B, alpha=alpha)
    fit = as_fit(A, B, alpha, rows, settings, state)
    progress(1.0, fit.message.removeprefix("RTM "))  # the verdict in the fit's own words
    capped = None if snapshot is None else as_fit(*snapshot, rows[:snapshot_at], cap)
    return fit, capped


def _sweep_reporter(progress: Progress, s: RTMSettings, warm: bool = False):
    """``report(sweep, max_change, alpha_change)``: the progress protocol's call for one finished
    sweep (sweep 0: before the first, saying whether it starts from an earlier fit); with ARD the
    message also gives the sweep's largest change of 1/alpha_j."""
    label = variant_label(s)

    def report(sweep: int, change: float = np.nan, alpha_change: float = np.nan) -> None:
        if sweep == 0:
            start = " from an earlier fit" if warm else ""
            progress(0.0, f"starting {label}{start} (at most {s.max_iter} sweeps)")
            return
        ard_part = f", 1/alpha change {alpha_change:.1e}" if s.ard else ""
        progress(sweep / s.max_iter, f"{label} sweep {sweep} of at most {s.max_iter}, "
                                     f"max change {change:.1e}{ard_part} (tol {s.tol:g})")

    return report


def _verdict(trace: pd.DataFrame, tags: TagMatrix, s: RTMSettings) -> tuple[bool, str]:
    name = METHOD_LABELS[s.method]
    if trace.empty:
        return False, f"RTM {name}: no iteration was run"
    last = trace.iloc[-1]
    n_factors = int(np.count_nonzero(tags.row_lengths()))
    problems = []
    if not np.isfinite(last.max_change) or last.max_change >= s.tol:
        problems.append(f"max change of a posterior mean {last.max_change:.2e} (tol {s.tol:g})")
    if s.ard and not last.alpha_change < s.tol:
        problems.append(f"max change of 1/alpha {last.alpha_change:.2e} (tol {s.tol:g})")
    if last.n_skipped > s.max_skipped_frac * n_factors:
        problems.append(f"{int(last.n_skipped)} of {n_factors} factors skipped because their tilted "
                        "distribution is undefined (raise alpha0 or the damping)")
    if last.n_improper > 0:
        problems.append(f"{int(last.n_improper)} improper marginals (use sequential updates or more damping)")
    if not problems:
        return True, f"RTM {name} converged in {len(trace)} sweeps"
    return False, (f"RTM {name} did not converge in {len(trace)} sweeps (max_iter={s.max_iter}): "
                   + "; ".join(problems) + ". See trace_ for every sweep.")


def _should_stop(change, alpha_change, skipped, improper, n_factors, s: RTMSettings, accelerated=False) -> bool:
    if not np.isfinite(change) or (change == 0.0 and skipped == n_factors > 0):
        return True  # diverged, or stalled with every factor undefined: nothing can move
    return (change < s.tol * (ACCELERATED_STOP if accelerated else 1.0) and (not s.ard or alpha_change < s.tol)
            and skipped <= s.max_skipped_frac * n_factors and improper == 0)


def _row(it, change, alpha_change, log_z, A, B, alpha, s, skipped, improper, extrapolated, t0):
    if s.ard:
        active = int(np.count_nonzero(ard.relevant_by_ard(alpha, s.alpha_floor, s.alpha_max)))
    else:
        proper = (A > 0) & (B > 0)
        active = int(np.count_nonzero(log_bayes_factor(np.where(proper, A, 1.0), np.where(proper, B, 1.0),
                                                       alpha)[proper] > 0.0))
    return (it, change, alpha_change if s.ard else np.nan, log_z, active, skipped, improper, extrapolated,
            time.perf_counter() - t0)


def _mixer(s: RTMSettings, size: int, history_dtype=None) -> anderson.AndersonMixer | None:
    """The Anderson step of a fit without ARD (None: plain damped sweeps)."""
    if s.ard or s.anderson_memory == 0:
        return None
    return anderson.AndersonMixer(size, s.anderson_memory, history_dtype=history_dtype)


def _run_ep(tags: TagMatrix, y01, s: RTMSettings, report, snapshot_at: int | None = None, warm=None):
    """Power EP (eta = -1) or EP sweeps with the four tricks and the optional ARD step, from the
    cold start or ``warm`` = (start, rows); ``report`` is called after every sweep (see
    :func:`_sweep_reporter`). Returns A, B, alpha, the trace rows, (A, B, alpha) copied after
    sweep ``snapshot_at`` (None if not reached) and the final sites."""
    eta = sites.POWER_EP if s.method == "power_ep" else sites.EP
    y = y01.astype(np.int64)
    d = tags.n_tags
    n_factors = int(np.count_nonzero(tags.row_lengths()))
    alpha = np.full(d, float(s.alpha0))
    nnz = tags.indices.size
    state = np.empty(2 * nnz)  # the sites, one vector for the Anderson step
    site_a, site_b = state[:nnz], state[nnz:]
    site_a[:], site_b[:] = sites.initial_sites(tags.indptr, y01, s.site_init)
    if warm is not None:
        start, objects = warm
        sites.carried_sites(tags.indptr, tags.indices, y01, float(s.site_init), start.indptr, start.indices,
                            start.site_a, start.site_b, objects, site_a, site_b)
    A, B = np.empty(d), np.empty(d)
    sites.totals_from_sites(tags.indices, site_a, site_b, alpha, A, B)
    new_a, new_b = np.empty_like(site_a), np.empty_like(site_b)
    stepper = ard.ArdStepper(d)
    mixer = _mixer(s, state.size)
    copied = np.empty_like(state) if mixer is not None else None
    start = None  # the state the sweep starts from (the mixer's copy of an Anderson step, or a copy of ours)
    extrapolated = False
    mean = A / (A + B)
    A_next, B_next = np.empty(d), np.empty(d)
    rows, snapshot = [], None
    for it in range(1, s.max_iter + 1):
        t0 = time.perf_counter()
        if mixer is not None and not extrapolated:
            copied[:] = state
            start = copied
        skipped = sites.sweep(tags.indptr, tags.indices, y, A, B, site_a, site_b, new_a, new_b,
                              float(s.inner_damping), bool(s.sequential), eta, ep.QUADRATURE)
        sites.damp_sites(tags.indices, site_a, site_b, new_a, new_b, float(s.damping), alpha, A, B)
        alpha_change = 0.0
        if s.ard:
            alpha, alpha_change = stepper.update(A, B, alpha, s.alpha_floor, s.alpha_max)
            sites.totals_from_sites(tags.indices, site_a, site_b, alpha, A, B)
        improper = int(np.count_nonzero((A <= 0) | (B <= 0)))
        new_mean = A / (A + B)
        change = float(np.max(np.abs(new_mean - mean))) if d else 0.0
        mean = new_mean
        log_z = np.nan
        if improper == 0:
            log_z = sites.log_evidence(tags.indptr, tags.indices, y, alpha, A, B, site_a, site_b,
                                       eta, ep.QUADRATURE)
        rows.append(_row(it, change, alpha_change, log_z, A, B, alpha, s, skipped, improper, extrapolated, t0))
        report(it, change, alpha_change)
        if it == snapshot_at:
            snapshot = (A.copy(), B.copy(), alpha.copy())
        if _should_stop(change, alpha_change, skipped, improper, n_factors, s, mixer is not None) or it == s.max_iter:
            break
        extrapolated = False
        if mixer is not None and improper:
            mixer.reset()  # a start with an improper marginal is not one the history can build on
        elif mixer is not None:
            mixer.propose(start, state, into=state)  # the Anderson step overwrites the sweep's output
            if mixer.extrapolated:
                sites.totals_from_sites(tags.indices, site_a, site_b, alpha, A_next, B_next)
                if np.all(A_next > 0.0) and np.all(B_next > 0.0):  # a usable start: every marginal proper
                    A[:], B[:] = A_next, B_next
                    mean = A / (A + B)
                    extrapolated = True
                    start = mixer.proposal  # the mixer's copy of where the next sweep starts
                else:
                    state[:] = mixer.last_output  # back to the sweep's output
                    mixer.reset()
    return A, B, alpha, rows, snapshot, (site_a, site_b)


def _run_em(tags: TagMatrix, y01, s: RTMSettings, report, snapshot_at: int | None = None, warm=None):
    """EM coordinate-ascent sweeps with the optional ARD step, from the cold start or from the
    effective sites (A - alpha, B - alpha) of ``warm``'s posterior (tags where they would leave q
    improper start cold); ``report`` after every sweep. Returns as :func:`_run_ep` (no sites)."""
    d = tags.n_tags
    pos, neg = class_counts(tags, y01)
    alpha = np.full(d, float(s.alpha0))
    A = alpha + s.site_init * pos
    B = alpha + s.site_init * neg
    if warm is not None:
        start = warm[0]
        A_warm, B_warm = alpha + (start.A - start.alpha), alpha + (start.B - start.alpha)
        usable = (A_warm > 0) & (B_warm > 0)
        A = np.where(usable, A_warm, alpha + s.site_init * pos)
        B = np.where(usable, B_warm, alpha + s.site_init * neg)
    state = np.concatenate([A, B])  # q's parameters, one vector for the Anderson step
    A, B = state[:d], state[d:]
    log_u, log_w = np.empty(tags.n_objects), np.empty(tags.n_objects)
    stepper = ard.ArdStepper(d)
    mixer = _mixer(s, state.size, np.float64)  # 2 x the tags: a float32 history would save nothing
    start = np.empty_like(state) if mixer is not None else None
    extrapolated = False
    mean = A / (A + B)
    rows, snapshot = [], None
    for it in range(1, s.max_iter + 1):
        t0 = time.perf_counter()
        if mixer is not None:
            start[:] = state
        em.object_log_products(tags.indptr, tags.indices, A, B, log_u, log_w)
        em.em_sweep(tags.col_ptr, tags.col_rows, pos, neg, alpha, A, B, log_u, log_w)
        alpha_change = 0.0
        if s.ard:
            new_alpha, alpha_change = stepper.update(A, B, alpha, s.alpha_floor, s.alpha_max)
            A += new_alpha - alpha  # q_j keeps its effective sites under the new prior (in place: views)
            B += new_alpha - alpha
            alpha = new_alpha
        new_mean = A / (A + B)
        change = float(np.max(np.abs(new_mean - mean))) if d else 0.0
        mean = new_mean
        em.object_log_products(tags.indptr, tags.indices, A, B, log_u, log_w)
        log_z = em.elbo(pos, neg, alpha, A, B, log_u, log_w)
        rows.append(_row(it, change, alpha_change, log_z, A, B, alpha, s, 0, 0, extrapolated, t0))
        report(it, change, alpha_change)
        if it == snapshot_at:
            snapshot = (A.copy(), B.copy(), alpha.copy())
        if _should_stop(change, alpha_change, 0, 0, 1, s, mixer is not None) or it == s.max_iter:
            break
        extrapolated = False
        if mixer is not None:
            proposal = mixer.propose(start, state)
            if proposal is not state:
                if np.all(proposal > 0.0):  # a usable start: every marginal proper
                    state[:] = proposal
                    mean = A / (A + B)
                    extrapolated = True
                else:
                    mixer.reset()
    return A.copy(), B.copy(), alpha, rows, snapshot, (None, None)
