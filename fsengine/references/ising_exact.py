"""Exact magnetizations of a small Ising model by enumerating all 2^p spin states.

``P(s) = exp(h.s + sum_{i<j} J_ij s_i s_j) / Z`` (J symmetric, zero diagonal, each pair once).
The states are visited in Gray-code order, so one spin flips per state and the energy and the
local fields are updated in O(p); the sums use a running maximum so that ``exp`` never
overflows. This is the reference the mean-field approximation is measured against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: largest p the enumeration accepts (2^20 ~ one million states)
MAX_ISING_SPINS = 20


@njit(cache=True)
def _enumerate(h, J):
    p = h.size
    s = -np.ones(p)
    local = h.copy()  # h_i + sum_j J_ij s_j
    for i in range(p):
        for j in range(p):
            local[i] += J[i, j] * s[j]
    energy = 0.0
    for i in range(p):
        energy += h[i] * s[i]
        for j in range(i + 1, p):
            energy += J[i, j] * s[i] * s[j]
    e_max = energy
    z = 1.0
    sum_s = s.copy()
    for t in range(1, 2**p):
        k = 0
        while not (t >> k) & 1:
            k += 1
        energy -= 2.0 * s[k] * local[k]
        s[k] = -s[k]
        for j in range(p):
            local[j] += 2.0 * s[k] * J[j, k]
        if energy > e_max:
            rescale = np.exp(e_max - energy)
            z *= rescale
            for j in range(p):
                sum_s[j] *= rescale
            e_max = energy
        w = np.exp(energy - e_max)
        z += w
        for j in range(p):
            sum_s[j] += w * s[j]
    return sum_s / z, np.log(z) + e_max


def exact_magnetizations(h, J) -> tuple[np.ndarray, float]:
    """<s_i> and log Z of ``exp(h.s + sum_{i<j} J_ij s_i s_j)`` by full enumeration (p <= 20)."""
    h = np.ascontiguousarray(h, dtype=np.float64).ravel()
    J = np.ascontiguousarray(J, dtype=np.float64)
    p = h.size
    if p > MAX_ISING_SPINS:
        raise ValueError(f"Exact Ising enumeration is limited to p <= {MAX_ISING_SPINS} spins; got {p}.")
    if J.shape != (p, p) or not np.allclose(J, J.T) or np.any(np.diag(J) != 0):
        raise ValueError("J must be a symmetric p x p matrix with a zero diagonal")
    m, log_z = _enumerate(h, J)
    return m, float(log_z)
