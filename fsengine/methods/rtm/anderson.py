"""Anderson acceleration of the training sweeps (Walker & Ni, "Anderson acceleration for fixed-point
iterations", SIAM J. Numer. Anal. 49, 2011; type II, mixing parameter 1).

A damped sweep is a map x -> F(x) of the sites (Power EP, EP) or of the posterior (A, B) (EM) whose
fixed point is the fit. Its slowest modes are a slowly turning complex pair (the largest change
per sweep rises and falls with a period of ~75 sweeps on notMNIST B vs D while it shrinks by
~0.994 a sweep), which damping schedules and SQUAREM's one-dimensional steps do not remove
(benchmarks/RESULTS.md). Anderson's step uses the last ``memory`` residuals g = F(x) - x:

    gamma = argmin || g_k - sum_i gamma_i (g_{i+1} - g_i) ||_2,
    x_{k+1} = F(x_k) - sum_i gamma_i (F(x_{i+1}) - F(x_i)),

which reaches the same fixed points (a fixed point of F has g = 0 and is kept: gamma = 0) in
fewer sweeps. Safeguards: the least-squares system is regularised (``reg`` times the trace of its
Gram matrix); the history is dropped and the plain sweep's output taken when the residual grows
past ``restart`` times the smallest since the last restart, and when the caller finds the
proposal unusable (an improper marginal) and calls :meth:`AndersonMixer.reset`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: residuals kept (the least-squares problem's columns); to a change of 1e-4 per sweep 5 took 49
#: sweeps where the plain damped sweeps took 261 (Power EP, notMNIST B vs D), 3 took 71, 10 took 43;
#: on the movie reviews (4,752 tags, to a fifth of tol) 5 took 106 and 90 (full fit, warm bootstrap
#: fit), 7 took 76 and 68, 10 took 71 and 50, each as close to the fixed point; with the float32
#: history and its one-pass kernels a stored residual costs ~1 ms a sweep there (benchmarks/RESULTS.md)
MEMORY = 10
#: the most residuals a fit may keep: each costs a history array the size of the sites (a larger
#: request is refused before any memory follows it)
MAX_MEMORY = 100
#: a residual this many times the smallest since the last restart drops the history
RESTART_GROWTH = 2.0
REGULARISATION = 1e-10
#: the stored differences' type (AndersonMixer)
HISTORY_DTYPE = np.float32


#: the kernels work through the state in blocks of this many floats (a block's slices of the history
#: stay in L1 across its rows, so each kernel reads the history from memory once)
_BLOCK = 2048


@njit(cache=True, fastmath={"reassoc", "contract"})
def _record(start, output, last_residual, last_output, d_residual, d_output, k, used, differences, column, rhs):
    """The residual g = output - start in one pass: with ``differences`` its change from
    ``last_residual`` into ``d_residual[k]``, the output's change into ``d_output[k]``, and the
    dot products ``column[i] = d_residual[i] . d_residual[k]`` and ``rhs[i] = d_residual[i] . g``
    for i < used; then ``last_residual`` = g and ``last_output`` = output. Returns ||g||_2.
    (Loops over a block run over block-sized views from 0: indices LLVM knows are not negative,
    so it vectorises them.)"""
    n = output.size
    total = 0.0
    column[:] = 0.0
    rhs[:] = 0.0
    for lo in range(0, n, _BLOCK):
        hi = min(lo + _BLOCK, n)
        x, f, g_old, f_old = start[lo:hi], output[lo:hi], last_residual[lo:hi], last_output[lo:hi]
        if differences:
            d_new, o_new = d_residual[k, lo:hi], d_output[k, lo:hi]
            for q in range(f.size):
                g = f[q] - x[q]
                total += g * g
                d_new[q] = g - g_old[q]
                o_new[q] = f[q] - f_old[q]
                g_old[q] = g
                f_old[q] = f[q]
            for i in range(used):
                row = d_residual[i, lo:hi]
                sc = 0.0
                sr = 0.0
                for q in range(row.size):
                    r = np.float64(row[q])  # float64 products of the stored (rounded) differences
                    sc += r * d_new[q]
                    sr += r * g_old[q]
                column[i] += sc
                rhs[i] += sr
        else:
            for q in range(f.size):
                g = f[q] - x[q]
                total += g * g
                g_old[q] = g
                f_old[q] = f[q]
    return np.sqrt(total)


@njit(cache=True, fastmath={"contract"})
def _combine(output, coefficients, rows, out, copy):
    """out = copy = output - sum_i coefficients[i] rows[i], block by block (SIMD loops over each
    block; ``out`` may be ``output``)."""
    n = output.size
    for lo in range(0, n, _BLOCK):
        hi = min(lo + _BLOCK, n)
        f, o, c_ = output[lo:hi], out[lo:hi], copy[lo:hi]
        for q in range(o.size):
            o[q] = f[q]
        for i in range(coefficients.size):
            c = coefficients[i]
            row = rows[i, lo:hi]
            for q in range(o.size):
                o[q] -= c * row[q]
        for q in range(o.size):
            c_[q] = o[q]


class AndersonMixer:
    """The step of the module docstring for states of ``size`` floats: :meth:`propose` takes the
    state a sweep started from and the sweep's output and returns where the next sweep starts.

    The stored differences are ``HISTORY_DTYPE`` (float32: half the memory traffic of the
    bookkeeping, which is memory-bound on wide data); the residual, the output and the proposal
    stay float64, so a rounded difference only perturbs the step's correction (relatively, by
    float32's 6e-8), never the fixed point."""

    def __init__(self, size: int, memory: int = MEMORY, restart: float = RESTART_GROWTH,
                 reg: float = REGULARISATION, history_dtype=None):
        if memory < 1:
            raise ValueError(f"memory={memory}: keep at least one residual")
        self.memory, self.restart, self.reg = int(memory), float(restart), float(reg)
        dtype = HISTORY_DTYPE if history_dtype is None else history_dtype
        self.d_residual = np.empty((self.memory, size), dtype)  # g_{i+1} - g_i, one row per slot
        self.d_output = np.empty((self.memory, size), dtype)    # F(x_{i+1}) - F(x_i)
        self.gram = np.zeros((self.memory, self.memory))
        self.column, self.rhs = np.zeros(self.memory), np.zeros(self.memory)
        self.last_residual = np.empty(size)
        self.last_output = np.empty(size)  # the last output (a caller that overwrote it restores it from here)
        self.proposal = np.empty(size)
        self.restarts = 0
        self.extrapolated = False  # whether the last propose returned an Anderson step
        self.reset()

    def reset(self) -> None:
        """Forget the history (the next :meth:`propose` returns the plain sweep's output)."""
        self.filled = 0
        self.slot = 0
        self.has_last = False
        self.smallest = np.inf

    def propose(self, start: np.ndarray, output: np.ndarray, into: np.ndarray | None = None) -> np.ndarray:
        """Where the next sweep starts, from the state ``start`` a sweep began at and its
        ``output``; ``output`` itself (a plain sweep) at the start of a history (``extrapolated``
        says which). The Anderson step is written into :attr:`proposal` (overwritten by the next
        call) and, if given, into ``into`` (which may be ``output``: its old values stay in
        :attr:`last_output`), and that array is returned."""
        k = self.slot
        used = min(self.filled + 1, self.memory)
        size = _record(start, output, self.last_residual, self.last_output, self.d_residual, self.d_output, k,
                       used, self.has_last, self.column, self.rhs)
        self.extrapolated = False
        if size > self.restart * self.smallest:  # worse than before: the plain sweep, a new history
            self.restarts += 1
            self.reset()  # the residual and the output are recorded already: the history starts here
            self.has_last = True
            self.smallest = size
            return output
        self.smallest = min(self.smallest, size)
        if not self.has_last:
            self.has_last = True
            return output
        self.filled = used
        self.slot = (k + 1) % self.memory
        self.gram[k, :used] = self.column[:used]
        self.gram[:used, k] = self.column[:used]
        gram = self.gram[:used, :used]
        gamma = np.linalg.solve(gram + self.reg * max(np.trace(gram), 1e-300) * np.eye(used), self.rhs[:used])
        if not np.all(np.isfinite(gamma)):
            self.reset()
            return output
        out = self.proposal if into is None else into
        _combine(output, gamma, self.d_output[:used], out, self.proposal)
        self.extrapolated = True
        return out
