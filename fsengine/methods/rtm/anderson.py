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
#: sweeps where the plain damped sweeps took 261 (Power EP, notMNIST B vs D), 3 took 71, 10 took 43
#: at twice the bookkeeping
MEMORY = 5
#: a residual this many times the smallest since the last restart drops the history
RESTART_GROWTH = 2.0
REGULARISATION = 1e-10


@njit(cache=True, fastmath={"reassoc", "contract"})
def _two_dots(rows, used, a, b, out_a, out_b):
    """out_a[i] = rows[i] . a and out_b[i] = rows[i] . b for i < used, in one pass over the rows
    (reassociated: SIMD sums; single-threaded: a BLAS call's worker threads would spin beside the numba sweeps)."""
    for i in range(used):
        sa = 0.0
        sb = 0.0
        row = rows[i]
        for p in range(row.size):
            sa += row[p] * a[p]
            sb += row[p] * b[p]
        out_a[i] = sa
        out_b[i] = sb


@njit(cache=True, fastmath={"reassoc", "contract"})
def _record(start, output, last_residual, last_output, d_residual, d_output, differences):
    """The residual g = output - start: with ``differences`` its change from ``last_residual`` into
    ``d_residual`` and the output's change into ``d_output``; then ``last_residual`` = g and
    ``last_output`` = output. One pass; returns ||g||_2."""
    total = 0.0
    for p in range(output.size):
        g = output[p] - start[p]
        total += g * g
        if differences:
            d_residual[p] = g - last_residual[p]
            d_output[p] = output[p] - last_output[p]
        last_residual[p] = g
        last_output[p] = output[p]
    return np.sqrt(total)


#: _combine works through the state in blocks of this many floats (they stay in L1 across the rows)
_BLOCK = 512


@njit(cache=True)
def _combine(output, coefficients, rows, out):
    """out = output - sum_i coefficients[i] rows[i], block by block (SIMD loops over each block)."""
    n = output.size
    for lo in range(0, n, _BLOCK):
        hi = min(lo + _BLOCK, n)
        for p in range(lo, hi):
            out[p] = output[p]
        for i in range(coefficients.size):
            c = coefficients[i]
            row = rows[i]
            for p in range(lo, hi):
                out[p] -= c * row[p]


class AndersonMixer:
    """The step of the module docstring for states of ``size`` floats: :meth:`propose` takes the
    state a sweep started from and the sweep's output and returns where the next sweep starts."""

    def __init__(self, size: int, memory: int = MEMORY, restart: float = RESTART_GROWTH,
                 reg: float = REGULARISATION):
        if memory < 1:
            raise ValueError(f"memory={memory}: keep at least one residual")
        self.memory, self.restart, self.reg = int(memory), float(restart), float(reg)
        self.d_residual = np.empty((self.memory, size))  # g_{i+1} - g_i, one row per slot
        self.d_output = np.empty((self.memory, size))    # F(x_{i+1}) - F(x_i)
        self.gram = np.zeros((self.memory, self.memory))
        self.last_residual = np.empty(size)
        self.last_output = np.empty(size)
        self.proposal = np.empty(size)
        self.restarts = 0
        self.reset()

    def reset(self) -> None:
        """Forget the history (the next :meth:`propose` returns the plain sweep's output)."""
        self.filled = 0
        self.slot = 0
        self.has_last = False
        self.smallest = np.inf

    def propose(self, start: np.ndarray, output: np.ndarray) -> np.ndarray:
        """Where the next sweep starts, from the state ``start`` a sweep began at and its
        ``output``; ``output`` itself (a plain sweep) at the start of a history. The proposal is
        a buffer of the mixer's, overwritten by the next call."""
        k = self.slot
        size = _record(start, output, self.last_residual, self.last_output, self.d_residual[k], self.d_output[k],
                       self.has_last)
        if size > self.restart * self.smallest:  # worse than before: the plain sweep, a new history
            self.restarts += 1
            self.reset()
            size = _record(start, output, self.last_residual, self.last_output, self.d_residual[k],
                           self.d_output[k], False)
        self.smallest = min(self.smallest, size)
        if not self.has_last:
            self.has_last = True
            return output
        self.filled = min(self.filled + 1, self.memory)
        self.slot = (k + 1) % self.memory
        used = self.filled
        column, rhs = np.empty(used), np.empty(used)
        _two_dots(self.d_residual, used, self.d_residual[k], self.last_residual, column, rhs)
        self.gram[k, :used] = column
        self.gram[:used, k] = column
        gram = self.gram[:used, :used]
        gamma = np.linalg.solve(gram + self.reg * max(np.trace(gram), 1e-300) * np.eye(used), rhs)
        if not np.all(np.isfinite(gamma)):
            self.reset()
            return output
        _combine(output, gamma, self.d_output[:used], self.proposal)
        return self.proposal
