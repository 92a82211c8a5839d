"""numba helpers over compressed sparse index arrays, shared by the maxent and RTM kernels."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def longest_segment(ptr):
    """max_k (ptr[k + 1] - ptr[k]): the longest column of a CSC (or row of a CSR) pointer array,
    the size a kernel's per-column (per-row) scratch buffer needs; 0 when there is none."""
    longest = 0
    for k in range(ptr.size - 1):
        longest = max(longest, ptr[k + 1] - ptr[k])
    return longest
