"""Input validation shared by every selector and loader.

Habits copied from scikit-learn: validate once at the boundary, return clean arrays, and say in
the error what is wrong and what to do about it.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from fsengine.params import Param, is_number


def _nonfinite_message(X, what: str = "X") -> str | None:
    """Describe NaN/inf entries of a dense or sparse matrix, or None when all are finite."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind not in "fc":
        return None
    bad = ~np.isfinite(values)
    count = int(bad.sum())
    if count == 0:
        return None
    n_nan = int(np.isnan(values[bad]).sum())
    n_inf = count - n_nan
    where = ""
    if not sp.issparse(X):
        flat = int(np.flatnonzero(bad.ravel())[0])
        row, col = divmod(flat, X.shape[1]) if X.ndim == 2 else (flat, 0)
        where = f" (first at row {row}, column {col})"
    return (
        f"Input {what} contains {n_nan} NaN and {n_inf} inf entries{where}; "
        "impute or drop them before fitting, e.g. with sklearn.impute.SimpleImputer."
    )


#: finite values beyond this magnitude are refused: sums of their squares overflow float64 to inf
MAX_ABS_VALUE = 1e100


def check_magnitude(X, what: str = "X") -> None:
    """Raise ValueError when a finite entry of X exceeds :data:`MAX_ABS_VALUE` in magnitude (variances,
    Gram matrices and log-likelihoods would become inf or NaN), naming the first one."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind not in "fc" or not values.size:
        return
    big = np.abs(values) > MAX_ABS_VALUE
    if not big.any():
        return
    where = ""
    if not sp.issparse(X) and values.ndim == 2:
        row, col = np.argwhere(big)[0]
        where = f" (first at row {row}, column {col})"
    raise ValueError(
        f"Input {what} has values as large as {float(np.max(np.abs(values[big]))):.3g}{where}; beyond "
        f"{MAX_ABS_VALUE:.0e} in magnitude sums of squares overflow. Rescale the features first, e.g. with "
        "sklearn.preprocessing.StandardScaler or MaxAbsScaler."
    )


def check_finite(X, what: str = "X") -> None:
    """Raise ValueError naming how many NaN/inf entries X holds and where the first one is."""
    msg = _nonfinite_message(X, what)
    if msg:
        raise ValueError(msg)


def validate_X_y(
    estimator,
    X,
    y,
    *,
    accept_sparse=("csr", "csc"),
    dtype=np.float64,
    classification: bool = True,
    min_samples: int = 2,
    min_classes: int = 2,
    reset: bool = True,
):
    """Validate (X, y) for ``fit``: finite numbers, matching lengths, enough rows and classes.

    Returns ``(X, y)`` with X as float64 ndarray or CSR/CSC matrix and y as 1-D ndarray. Sets
    ``n_features_in_`` (and ``feature_names_in_`` for DataFrames) on the estimator.
    """
    if X is not None and not isinstance(X, str) and not hasattr(X, "shape") and not sp.issparse(X):
        X = np.asarray(X)
    if hasattr(X, "dtype") and not sp.issparse(X):
        msg = _nonfinite_message(np.asarray(X) if getattr(X, "ndim", 0) == 2 else X)
        if msg:
            raise ValueError(msg)
    X, y = validate_data(
        estimator,
        X,
        y,
        accept_sparse=list(accept_sparse) if accept_sparse else False,
        dtype=dtype,
        ensure_min_samples=min_samples,
        y_numeric=not classification,
        reset=reset,
    )
    if sp.issparse(X):
        check_finite(X)
    check_magnitude(X)
    if classification:
        classes = np.unique(y)
        if classes.size < min_classes:
            raise ValueError(
                f"y has {classes.size} class(es) ({classes.tolist()[:5]}); this method needs at "
                f"least {min_classes} classes. Pick a dataset or target column with more classes."
            )
    return X, y


def validate_X(estimator, X, *, accept_sparse=("csr", "csc"), dtype=np.float64, reset=True,
               min_samples: int = 1):
    """Validate X alone (unsupervised fit, or transform/predict when ``reset=False``)."""
    if hasattr(X, "dtype") and not sp.issparse(X) and getattr(X, "ndim", 0) == 2:
        msg = _nonfinite_message(np.asarray(X))
        if msg:
            raise ValueError(msg)
    X = validate_data(
        estimator, X, accept_sparse=list(accept_sparse) if accept_sparse else False,
        dtype=dtype, ensure_min_samples=min_samples, reset=reset,
    )
    if sp.issparse(X):
        check_finite(X)
    check_magnitude(X)
    return X


def as_binary_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """Map a two-class label vector to {0, 1}; returns (y01, classes).

    Raises a ValueError saying how many classes were found when y is not binary.
    """
    classes, y01 = np.unique(np.asarray(y), return_inverse=True)
    if classes.size != 2:
        raise ValueError(
            f"This method needs exactly two classes, got {classes.size} "
            f"({', '.join(map(str, classes[:6]))}{', ...' if classes.size > 6 else ''}). "
            "Choose two classes (e.g. a letter pair) or a binary target."
        )
    return y01.astype(np.float64), classes


def constant_columns(X) -> np.ndarray:
    """Indices of columns with zero variance (dense or sparse X)."""
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        n = Xc.shape[0]
        mean = np.asarray(Xc.mean(axis=0)).ravel()
        sq = np.asarray(Xc.multiply(Xc).mean(axis=0)).ravel()
        var = sq - mean**2
        scale = np.maximum(sq, 1e-300)
        return np.flatnonzero(var <= 1e-12 * scale + (n == 1))
    X = np.asarray(X, dtype=np.float64)
    return np.flatnonzero(np.ptp(X, axis=0) == 0)


class ParamRange(Interval):
    """scikit-learn's ``Interval`` for a :class:`~fsengine.params.Param` of kind int or float,
    accepting what :meth:`Param.check <fsengine.params.Param.check>` accepts: besides the
    inclusive range, no bool (scikit-learn's ``Interval(Integral, ...)`` takes ``True``) and no
    NaN or inf (an unbounded ``Interval(Real, ...)`` takes inf)."""

    def is_satisfied_by(self, val):
        return is_number(val, integral=self.type is Integral) and super().is_satisfied_by(val)

    def __str__(self):
        return super().__str__().replace("a float", "a finite number")


#: the constraint of every selector's ``n_features_to_select`` that the registry does not offer:
#: keep the k best (an int >= 1), or None for the method's own selection
FEATURE_BUDGET = [Interval(Integral, 1, None, closed="left"), None]


def param_constraints(p: Param) -> list:
    """scikit-learn's ``_parameter_constraints`` entry of one registry parameter: its range
    (:class:`ParamRange`), choices (``StrOptions``) or ``"boolean"``, then its special values
    (``None``, strings such as ``"auto"``). Together with :meth:`Param.check
    <fsengine.params.Param.check>` (the app) and :meth:`Param.parse <fsengine.params.Param.parse>`
    (the command line) it accepts and refuses the same values
    (``tests/methods/test_parameter_routes.py`` walks every parameter).

    >>> from fsengine.params import Param
    >>> [str(c) for c in param_constraints(Param("cv", "Folds", None, min=2, max=10, special=(None,)))]
    ['an int in the range [2, 10]', 'None']
    """
    if p.kind in ("int", "float"):
        low = None if p.min is None else (int(p.min) if p.kind == "int" else float(p.min))
        high = None if p.max is None else (int(p.max) if p.kind == "int" else float(p.max))
        closed = {(True, True): "both", (True, False): "left", (False, True): "right"}.get(
            (low is not None, high is not None), "neither")
        constraints = [ParamRange(Integral if p.kind == "int" else Real, low, high, closed=closed)]
    elif p.kind == "choice":
        if not all(isinstance(c, str) for c in p.choices):
            raise ValueError(f"{p.name}: the choices of a method parameter are strings, not {p.choices!r}")
        constraints = [StrOptions(set(p.choices))]
    elif p.kind == "bool":
        constraints = ["boolean"]
    elif p.kind in ("str", "letters"):
        constraints = [str]
    else:
        raise ValueError(f"{p.name}: unknown parameter kind {p.kind!r}")
    if None in p.special:
        constraints.append(None)
    words = {v for v in p.special if v is not None}
    if not all(isinstance(v, str) for v in words):
        raise ValueError(f"{p.name}: special values are None or strings, not {p.special!r}")
    if words:
        constraints.append(StrOptions(words))
    return constraints
