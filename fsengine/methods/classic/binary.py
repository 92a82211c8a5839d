"""Binary inputs and class codes for the Naive Bayes criteria (Jaakkola, lecture 12, Eq. 1-15).

The lecture's Naive Bayes model works with binary features ({-1, 1} there; {0, 1} here, which is
the same model). :func:`binary_indicator` accepts either encoding and turns it into a 0/1 CSC
matrix; anything else is refused with a message that says how to binarise. Binarisation itself is
never silent: :func:`binarize_matrix` applies :func:`fsengine.data.transforms.binarize_features`
(the rule shared with the app) and returns the note that describes what was done.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.transforms import binarize_features

BINARIZE_HINT = (
    "Binarise first: fsengine.data.transforms.binarize_features(dataset) for a Dataset, "
    "sklearn.preprocessing.Binarizer in a Pipeline, or pass binarize='auto' (0.5 for data in "
    "[0, 1], else each column's median) or binarize=<threshold> to the selector."
)


def class_codes(y) -> tuple[np.ndarray, np.ndarray]:
    """Map labels to codes 0..K-1 (sorted label order); returns (codes int64, classes)."""
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    return codes.astype(np.int64).ravel(), classes


def _describe_values(values: np.ndarray) -> str:
    distinct = np.unique(values[: 100_000])
    shown = ", ".join(f"{v:g}" for v in distinct[:5])
    more = "+" if values.size > 100_000 else ""
    return f"{distinct.size}{more} distinct values ({shown}{', ...' if distinct.size > 5 else ''})"


def binary_indicator(X, what: str = "This method") -> sp.csc_matrix:
    """0/1 CSC matrix of the "on" state of a binary X ({0, 1} or {-1, 1} encoding).

    Dense or sparse input. A sparse matrix with explicit -1 entries would hold three values
    (-1, 0 and 1) and is refused like any other non-binary input.
    """
    if sp.issparse(X):
        Xc = sp.csc_matrix(X, dtype=np.float64, copy=True)
        Xc.eliminate_zeros()
        if not np.all(Xc.data == 1.0):
            raise ValueError(
                f"{what} needs binary features (0/1, or -1/1 when dense); the sparse input holds "
                f"{_describe_values(np.concatenate([[0.0], Xc.data]))}. {BINARIZE_HINT}"
            )
        Xc.sort_indices()
        return Xc
    X = np.asarray(X, dtype=np.float64)
    distinct = np.unique(X)
    if np.all(np.isin(distinct, (0.0, 1.0))) or np.all(np.isin(distinct, (-1.0, 1.0))):
        return sp.csc_matrix((X == 1.0).astype(np.float64))
    raise ValueError(f"{what} needs binary features (0/1 or -1/1); X holds "
                     f"{_describe_values(X.ravel())}. {BINARIZE_HINT}")


def is_binary(X) -> bool:
    """True when X is 0/1 (any storage) or -1/1 (dense)."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if np.all(np.isin(values, (0.0, 1.0))):
        return True
    return not sp.issparse(X) and bool(np.all(np.isin(values, (-1.0, 1.0))))


def binarize_matrix(X, threshold: float | str = "auto") -> tuple[sp.csc_matrix, str | None]:
    """(0/1 CSC matrix, note) for any X; binary X is kept as is (note None).

    Non-binary X goes through :func:`fsengine.data.transforms.binarize_features` with
    ``threshold`` ("auto": 0.5 for data in [0, 1], else each column's median; sparse data:
    x > 0), and the returned note says which rule was applied.
    """
    if is_binary(X):
        return binary_indicator(X), None
    p = X.shape[1]
    wrapped = Dataset(X=X, y=np.zeros(X.shape[0]), feature_names=tuple(map(str, range(p))),
                      provenance=Provenance("array"), name="X")
    binary = binarize_features(wrapped, threshold=threshold)
    return binary_indicator(binary.X), binary.provenance.notes[-1]
