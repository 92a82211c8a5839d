"""Binary inputs and class codes for the Naive Bayes criteria (Jaakkola, lecture 12, Eq. 1-15).

The lecture's Naive Bayes model works with binary features ({-1, 1} there; {0, 1} here, which is
the same model). Turning X into 0/1 features is :func:`fsengine.data.transforms.binarize_input`
(the rule shared with the app, the command line and the RTM); :func:`csc01` stores its result the
way the count kernels read it, and :func:`binary_indicator` does both for an X that must already be
binary.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsengine.data.transforms import binarize_input


def class_codes(y) -> tuple[np.ndarray, np.ndarray]:
    """Map labels to codes 0..K-1 (sorted label order); returns (codes int64, classes)."""
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    return codes.astype(np.int64).ravel(), classes


def csc01(X01) -> sp.csc_matrix:
    """A 0/1 matrix (dense or sparse) as a float64 CSC matrix without explicit zeros, sorted."""
    Xc = sp.csc_matrix(X01, dtype=np.float64, copy=True)
    Xc.eliminate_zeros()
    Xc.sort_indices()
    return Xc


def binary_indicator(X, what: str = "This method") -> sp.csc_matrix:
    """0/1 CSC matrix of the "on" state of a binary X ({0, 1}, or {-1, 1} when dense).

    Anything else is refused with a message that says how to binarise (``binarize=None`` of
    :func:`~fsengine.data.transforms.binarize_input`); ``what`` names the method in it.
    """
    return csc01(binarize_input(X, None, what=what)[0])
