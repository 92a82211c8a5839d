"""Greedy likelihood-gain feature selection for conditional maxent (Zhou, Wu, Weng & Schmidt 2003).

Candidates are (predicate, class) pairs seen together at least ``cutoff`` times. Every stage adds
the candidate with the largest approximate gain G(alpha) (Eq. (1) of
:mod:`fsengine.maxent.kernels`, all other weights fixed), then adjusts the model (Fig. 1 step 4).

IFS (Berger et al. 1996; Zhou et al. Fig. 1)  recomputes the gain of every remaining candidate at
    every stage; stage 0 uses the closed form of Section 3.
SGC (Fig. 2)  keeps each candidate's last computed gain in a max-heap as an (approximate) upper
    bound and recomputes only the top until a freshly computed gain stays on top.
SGC look-ahead  additionally recomputes the next L candidates in heap order after the one SGC
    found, and takes the best fresh gain.
Count cutoff  takes the most frequent pairs (no gains).

Progress and stopping (:mod:`fsengine.progress`): :func:`select_features` reports
``progress(fraction, message)`` after every stage (the count cutoff: about every 1% of its
stages); a callback that raises :class:`~fsengine.progress.StopRequested` ends the selection
there, with the pairs selected so far (a valid, shorter selection: the first k stages of the full
run) and ``stop_reason == "stop requested"``.

Pitfalls handled (each seen on CoNLL-2000):
* alpha is +/- infinity when a predicate always (never) co-occurs with the class: |alpha| is capped
  at 20 and Newton is bracketed (:func:`fsengine.maxent.kernels._newton`).
* Fig. 1's ``z[i] = sum[i, y]`` means ``z[i] -= sum[i, y]``; rows are renormalised after each
  update (:func:`fsengine.maxent.kernels.apply_feature`).
* Stored SGC gains are *not* true upper bounds (a fresh gain can exceed its stored value after
  other features were added, in about 1% of recomputations on CoNLL-2000), so SGC may pick a
  different feature than IFS: both are correct implementations of their figures.
* Many predicates fire on identical instances and have bit-identical gains: both algorithms break
  ties by the lowest candidate index (candidates are ordered by predicate, then class).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit, prange

from fsengine.maxent import MaxentData, MaxentState, fit_map, stage0_gains
from fsengine.maxent.kernels import ALPHA_CAP, optimise_candidate
from fsengine.methods.registry import method_defaults
from fsengine.progress import Progress, StopRequested, report_to
from fsengine.sparse_kernels import longest_segment

METHODS = ("ifs", "sgc", "count")
#: pairs selected when ``n_features`` is not given: the registry's default, as for the selectors
DEFAULT_PAIRS = method_defaults("sgc")["n_features_to_select"]
#: ``stop_reason`` of a selection ended by :class:`~fsengine.progress.StopRequested`
STOP_REQUESTED = "stop requested"
#: the count cutoff reports progress at most this many times (its stages cost next to nothing)
COUNT_REPORTS = 100
NEWTON_TOL = 1e-6  # relative step; Newton converges quadratically, so alpha is then exact to ~1e-12
NEWTON_MAX_ITER = 60


# --------------------------------------------------------------------------- indexed max-heap
#: gains closer than this (relative) are ties. Predicates firing on identical instances have
#: identical gains up to the last bits, which depend on where Newton started (SGC warm-starts
#: each candidate from its own last alpha), so exact equality would break ties by rounding noise.
TIE_RTOL = 1e-12


@njit(cache=True)
def _better(g_a, i_a, g_b, i_b):
    """(gain, index) order: larger gain first; gains equal within TIE_RTOL: lower index first."""
    if abs(g_a - g_b) <= TIE_RTOL * max(abs(g_a), abs(g_b)):
        return i_a < i_b
    return g_a > g_b


@njit(cache=True)
def _swap(heap, pos, a, b):
    heap[a], heap[b] = heap[b], heap[a]
    pos[heap[a]] = a
    pos[heap[b]] = b


@njit(cache=True)
def _sift_up(heap, pos, gain, k):
    while k > 0:
        parent = (k - 1) // 2
        if _better(gain[heap[k]], heap[k], gain[heap[parent]], heap[parent]):
            _swap(heap, pos, k, parent)
            k = parent
        else:
            break


@njit(cache=True)
def _sift_down(heap, pos, gain, k, size):
    while True:
        left = 2 * k + 1
        if left >= size:
            break
        best = left
        right = left + 1
        if right < size and _better(gain[heap[right]], heap[right], gain[heap[left]], heap[left]):
            best = right
        if _better(gain[heap[best]], heap[best], gain[heap[k]], heap[k]):
            _swap(heap, pos, k, best)
            k = best
        else:
            break


@njit(cache=True)
def heap_build(gain, heap, pos):
    """Max-heap of all candidates by (gain, -index); returns its size."""
    size = heap.size
    for k in range(size):
        heap[k] = k
        pos[k] = k
    for k in range(size // 2 - 1, -1, -1):
        _sift_down(heap, pos, gain, k, size)
    return size


@njit(cache=True)
def _heap_update(heap, pos, gain, cand, size):
    k = pos[cand]
    _sift_up(heap, pos, gain, k)
    _sift_down(heap, pos, gain, pos[cand], size)


@njit(cache=True)
def _heap_remove(heap, pos, gain, cand, size):
    k = pos[cand]
    last = size - 1
    if k != last:
        _swap(heap, pos, k, last)
    pos[cand] = -1
    size = last
    if k < size:
        _sift_up(heap, pos, gain, k)
        _sift_down(heap, pos, gain, pos[heap[k]], size)
    return size


@njit(cache=True)
def _heap_pop(heap, pos, gain, size):
    top = heap[0]
    return top, _heap_remove(heap, pos, gain, top, size)


@njit(cache=True)
def _heap_push(heap, pos, gain, cand, size):
    heap[size] = cand
    pos[cand] = size
    _sift_up(heap, pos, gain, size)
    return size + 1


# --------------------------------------------------------------------------- stages
@njit(cache=True)
def sgc_stage(stage, lookahead, heap, pos, size, gain, alpha, stamp, cand_pred, cand_cls,
              cand_count, col_ptr, col_rows, col_vals, s, z, binary, cap, bp, brest, bx, scratch):
    """One stage of SGC (Fig. 2, step 1) plus the optional look-ahead; returns
    (selected candidate or -1, number of gain computations). ``stamp[k] == stage`` marks gains
    computed on the current model. The selected candidate stays in the heap (caller removes it)."""
    best = -1
    best_gain = 0.0  # MaxGain = 0: a candidate must have a positive gain
    computed = 0
    while size > 0:
        top = heap[0]
        if stamp[top] == stage or not _better(gain[top], top, best_gain, best):
            break
        a, g, _c, _p = optimise_candidate(cand_pred[top], cand_cls[top], cand_count[top], 0.0,
                                        alpha[top], col_ptr, col_rows, col_vals, s, z, binary,
                                        cap, NEWTON_TOL, NEWTON_MAX_ITER, bp, brest, bx)
        computed += 1
        gain[top] = g
        alpha[top] = a
        stamp[top] = stage
        _heap_update(heap, pos, gain, top, size)
        if _better(g, top, best_gain, best):
            best, best_gain = top, g
    if lookahead > 0 and best >= 0:
        # the next `lookahead` candidates in ranked order after the selected one
        n_out = 0
        while size > 0 and n_out < scratch.size:
            cand, size = _heap_pop(heap, pos, gain, size)
            scratch[n_out] = cand
            n_out += 1
            if n_out > lookahead:
                break
        for t in range(n_out):
            cand = scratch[t]
            if stamp[cand] != stage:
                a, g, _c, _p = optimise_candidate(cand_pred[cand], cand_cls[cand], cand_count[cand],
                                                0.0, alpha[cand], col_ptr, col_rows, col_vals, s,
                                                z, binary, cap, NEWTON_TOL, NEWTON_MAX_ITER,
                                                bp, brest, bx)
                computed += 1
                gain[cand] = g
                alpha[cand] = a
                stamp[cand] = stage
                if _better(g, cand, best_gain, best):
                    best, best_gain = cand, g
        for t in range(n_out):
            size = _heap_push(heap, pos, gain, scratch[t], size)
    return best, computed


@njit(cache=True, parallel=True)
def ifs_stage(remaining, gain, alpha, cand_pred, cand_cls, cand_count, col_ptr, col_rows,
              col_vals, s, z, binary, cap, longest):
    """One stage of IFS (Fig. 1, step 1): the gain of every remaining candidate on the current
    model (Newton warm-started at its previous alpha); returns (best candidate or -1, count).

    Candidates are split into chunks processed in parallel (each with its own buffers); every
    gain is computed independently, so results do not depend on the number of threads, and the
    best is reduced with the same (gain, lowest index) order as the serial scan.
    """
    n = remaining.size
    n_chunks = min(n, 64)
    chunk_best = np.full(max(n_chunks, 1), -1, dtype=np.int64)
    for ch in prange(n_chunks):
        bp = np.empty(longest)
        brest = np.empty(longest)
        bx = np.empty(longest)
        best = -1
        best_gain = 0.0
        for t in range(ch * n // n_chunks, (ch + 1) * n // n_chunks):
            k = remaining[t]
            a, g, _c, _p = optimise_candidate(cand_pred[k], cand_cls[k], cand_count[k], 0.0,
                                              alpha[k], col_ptr, col_rows, col_vals, s, z, binary,
                                              cap, NEWTON_TOL, NEWTON_MAX_ITER, bp, brest, bx)
            gain[k] = g
            alpha[k] = a
            if _better(g, k, best_gain, best):
                best, best_gain = k, g
        chunk_best[ch] = best
    best = -1
    best_gain = 0.0
    for ch in range(n_chunks):
        k = chunk_best[ch]
        if k >= 0 and _better(gain[k], k, best_gain, best):
            best, best_gain = k, gain[k]
    return best, n


# --------------------------------------------------------------------------- driver
@dataclass
class SelectionResult:
    """What a selection run produced.

    ``candidates``: DataFrame (predicate, class, count = co-occurrences, empirical_sum, gain =
    last computed (IFS) or stored (SGC) total gain, alpha, selected_at = stage or -1).
    ``trace``: one row per stage (see :func:`select_features`). ``state``: the final
    :class:`~fsengine.maxent.MaxentState` (weights = IFS/SGC alphas, or re-fit weights; None for
    count cutoff, which fits no weights). ``stop_reason``: why the selection ended, in words
    (the budget, ``min_gain``, no candidate left, or ``"stop requested"``).
    """

    method: str
    candidates: pd.DataFrame
    trace: pd.DataFrame
    state: MaxentState | None
    stop_reason: str

    @property
    def selected(self) -> np.ndarray:
        """Candidate indices in selection order."""
        return self.trace["candidate"].to_numpy()

    def selected_pairs(self, k: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(predicates, classes) of the first k selected pairs (all when None)."""
        rows = self.trace if k is None else self.trace.iloc[:k]
        return rows["predicate"].to_numpy(), rows["class"].to_numpy()

    def propagate_stop(self) -> SelectionResult:
        """Raise :class:`~fsengine.progress.StopRequested` again when a stop request ended this
        selection, else return it: for callers (a study, a comparison) whose own result would be
        incomplete with a shortened selection, so the request reaches their caller."""
        if self.stop_reason == STOP_REQUESTED:
            raise StopRequested(f"{self.method}: stop requested after {len(self.trace)} stages")
        return self


def select_features(data: MaxentData, method: str = "sgc", *, cutoff: int = 1,
                    n_features: int | None = DEFAULT_PAIRS, min_gain: float = 0.0, lookahead: int = 0,
                    refit_every: int | None = None, refit_prior_variance: float = 10.0,
                    cap: float = ALPHA_CAP, predicate_names=None,
                    progress: Progress | None = None) -> SelectionResult:
    """Run IFS, SGC (optionally with ``lookahead``) or count-cutoff selection.

    Stops after ``n_features`` pairs (default: the registry's, as the selectors), when the best
    gain falls to ``min_gain`` nats of training log-likelihood or below (IFS/SGC only), when no
    candidate is left, or when ``progress`` raises :class:`~fsengine.progress.StopRequested`
    (the pairs selected so far are kept). ``refit_every`` (IFS/SGC only): every k stages re-fit
    all selected weights by MAP (Gaussian prior of variance ``refit_prior_variance``) and rebuild
    sum/z from them (Berger et al.'s full re-estimation).

    ``trace`` columns: stage, candidate, predicate, predicate_name, class, gain (Zhou et al.'s
    per-instance G = total / N), gain_total (nats), alpha, gain_computations (this stage), seconds
    (cumulative wall time from the stage-0 gains on; candidate generation excluded), count
    (co-occurrences), cpu_seconds (the same span in CPU time of this process,
    ``time.process_time``: what timing comparisons use, as it moves far less with machine load).
    ``progress(fraction, message)`` is called before the stage-0 gains (fraction 0) and after
    every stage (fraction = stages done / stages planned; the count cutoff: about every 1%), with
    messages such as ``"stage 3 of 50 (w=the)"``.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if lookahead < 0:
        raise ValueError(f"lookahead must be >= 0, got {lookahead}")
    if lookahead and method != "sgc":
        raise ValueError("lookahead applies to SGC only")
    if refit_every is not None and refit_every < 1:
        raise ValueError(f"refit_every must be >= 1 or None, got {refit_every}")
    if n_features is not None and n_features < 1:
        raise ValueError(f"n_features must be >= 1 or None, got {n_features}")
    if method == "count" and (min_gain != 0.0 or refit_every is not None):
        raise ValueError("min_gain and refit_every apply to IFS and SGC (the count cutoff computes no gains)")
    names = predicate_names if predicate_names is not None else [f"x{j}" for j in range(data.n_predicates)]
    if len(names) != data.n_predicates:
        raise ValueError(f"{len(names)} predicate names for {data.n_predicates} predicates")

    _load_kernels()
    report = report_to(progress)
    cand_pred, cand_cls = data.candidate_pairs(cutoff)
    n_cand = cand_pred.size
    cooc = data.cooccurrences()[cand_pred, cand_cls]
    cand_count = data.feature_sums()[cand_pred, cand_cls]
    stopped_early = method != "count" and _stop_requested(
        report, 0.0, f"gains of {n_cand:,} candidate pairs on the uniform model")
    # the clock starts after the part common to every method (candidates and their counts), as
    # Zhou et al. exclude it in Fig. 4; stage 0 (closed-form gains) is included
    start, cpu_start = time.perf_counter(), time.process_time()
    state = MaxentState.uniform(data)
    budget = n_cand if n_features is None else min(n_features, n_cand)
    selected_at = np.full(n_cand, -1, dtype=np.int64)
    rows: list[dict] = []
    stop_reason = f"the budget of {budget:,} pairs is reached"
    if n_features is None or n_cand < n_features:
        stop_reason = "every candidate pair is selected"

    if method == "count":
        gain = cooc.astype(np.float64)
        alpha = np.zeros(n_cand)
        order = np.lexsort((np.arange(n_cand), -cooc))[:budget]
        elapsed, cpu_elapsed = time.perf_counter() - start, time.process_time() - cpu_start
        every = max(1, -(-budget // COUNT_REPORTS))  # stages per report: at most COUNT_REPORTS reports
        for stage, k in enumerate(order):
            selected_at[k] = stage
            rows.append(_row(stage, k, cand_pred, cand_cls, names, np.nan, np.nan, 0, elapsed,
                             cooc[k], data.n, cpu_elapsed))
            if ((stage + 1) % every == 0 or stage + 1 == budget) and _stop_requested(
                    report, (stage + 1) / budget, _message(stage, budget, rows[-1])):
                stop_reason = STOP_REQUESTED
                break
        state = None
    elif stopped_early:
        gain, alpha = np.zeros(n_cand), np.zeros(n_cand)
        stop_reason = STOP_REQUESTED
    else:
        if data.binary:
            first = stage0_gains(data, cand_pred, cand_cls, cap=cap)
        else:
            first = state.gains(cand_pred, cand_cls, cap=cap)
        gain, alpha = first.gain.copy(), first.alpha.copy()
        longest = longest_segment(data.col_ptr)
        bp, brest, bx = np.empty(longest), np.empty(longest), np.empty(longest)
        stamp = np.full(n_cand, 0, dtype=np.int64)  # stage-0 gains are fresh at stage 0
        heap = np.empty(n_cand, dtype=np.int64)
        pos = np.empty(n_cand, dtype=np.int64)
        size = heap_build(gain, heap, pos) if method == "sgc" else 0
        remaining = np.ones(n_cand, dtype=bool)
        scratch = np.empty(lookahead + 1, dtype=np.int64)
        for stage in range(budget):
            if stage == 0:
                best = _argbest(gain, np.arange(n_cand)) if n_cand else -1
                computed = n_cand
            elif method == "sgc":
                best, computed = sgc_stage(stage, lookahead, heap, pos, size, gain, alpha, stamp,
                                           cand_pred, cand_cls, cand_count, data.col_ptr,
                                           data.col_rows, data.col_vals, state.sum, state.z,
                                           data.binary, cap, bp, brest, bx, scratch)
            else:
                best, computed = ifs_stage(np.flatnonzero(remaining), gain, alpha, cand_pred,
                                           cand_cls, cand_count, data.col_ptr, data.col_rows,
                                           data.col_vals, state.sum, state.z, data.binary, cap,
                                           longest)
            if best < 0 or gain[best] <= min_gain:
                stop_reason = ("every candidate pair is selected" if best < 0 and not remaining.any() else
                               f"no candidate gains more than min_gain = {min_gain:g} nats")
                break
            if method == "sgc":
                size = _heap_remove(heap, pos, gain, best, size)
            remaining[best] = False
            selected_at[best] = stage
            state.add(cand_pred[best], cand_cls[best], alpha[best])
            if refit_every and (stage + 1) % refit_every == 0:
                state = _refit(data, state, refit_prior_variance)
            row = _row(stage, best, cand_pred, cand_cls, names, gain[best], alpha[best], computed,
                       time.perf_counter() - start, cooc[best], data.n, time.process_time() - cpu_start)
            rows.append(row)
            if _stop_requested(report, (stage + 1) / budget, _message(stage, budget, row)):
                stop_reason = STOP_REQUESTED
                break
    candidates = pd.DataFrame({
        "predicate": cand_pred, "predicate_name": [names[j] for j in cand_pred], "class": cand_cls,
        "count": cooc, "empirical_sum": cand_count, "gain": gain, "alpha": alpha,
        "selected_at": selected_at,
    })
    trace = pd.DataFrame(rows, columns=TRACE_COLUMNS)
    return SelectionResult(method, candidates, trace, state, stop_reason)


def _stop_requested(report: Progress, fraction: float, message: str) -> bool:
    """Report; True when the callback asks to stop (raises StopRequested)."""
    try:
        report(fraction, message)
    except StopRequested:
        return True
    return False


def _message(stage: int, budget: int, row: dict) -> str:
    return f"stage {stage + 1} of {budget:,} ({row['predicate_name']})"


_KERNELS_LOADED = False


def _load_kernels() -> None:
    """Load (or compile) the numba kernels once per process, on a tiny problem, so that the
    first selection's clock does not include seconds of loading machine code."""
    global _KERNELS_LOADED
    if _KERNELS_LOADED:
        return
    _KERNELS_LOADED = True
    tiny = MaxentData(np.eye(4), np.array([0, 1, 0, 1]))
    select_features(tiny, "ifs", n_features=2)
    select_features(tiny, "sgc", n_features=2, lookahead=1)


def _argbest(gain, idx):
    """Index with the largest gain, lowest index on ties (:func:`_better`)."""
    best = -1
    top = gain[idx].max() if idx.size else 0.0
    for k in idx[gain[idx] >= top - TIE_RTOL * abs(top)]:
        if best < 0 or _better(gain[k], k, gain[best], best):
            best = int(k)
    return best


TRACE_COLUMNS = ["stage", "candidate", "predicate", "predicate_name", "class", "gain", "gain_total",
                 "alpha", "gain_computations", "seconds", "count", "cpu_seconds"]


def _row(stage, k, cand_pred, cand_cls, names, gain, alpha, computed, seconds, count, n, cpu_seconds):
    return {"stage": stage, "candidate": int(k), "predicate": int(cand_pred[k]),
            "predicate_name": names[cand_pred[k]], "class": int(cand_cls[k]),
            "gain": gain / n, "gain_total": gain, "alpha": alpha,
            "gain_computations": int(computed), "seconds": seconds, "count": int(count),
            "cpu_seconds": cpu_seconds}


def _refit(data: MaxentData, state: MaxentState, prior_variance: float) -> MaxentState:
    model = state.model()
    fit = fit_map(data, model.predicates, model.classes, prior_variance=prior_variance,
                  w0=model.weights)
    return MaxentState.from_weights(data, model.predicates, model.classes, fit.model.weights)
