"""Shared adaptations of a Dataset to what a method needs (two classes, binary features, splits).

Every transformation records itself in the provenance notes, so nothing changes silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split

from fsengine.data.dataset import Dataset, Provenance


def _with(ds: Dataset, *, note: str, **changes) -> Dataset:
    fields = dict(
        X=ds.X, y=ds.y, feature_names=ds.feature_names, target_names=ds.target_names,
        image_shape=ds.image_shape, name=ds.name, task=ds.task, truth=ds.truth, texts=ds.texts,
        extras=ds.extras,
    )
    fields.update(changes)
    prov = Provenance(ds.provenance.source, ds.provenance.licence,
                      {**ds.provenance.counts, "rows": int(fields["X"].shape[0])},
                      ds.provenance.notes + (note,))
    return Dataset(provenance=prov, **fields)


def class_names(ds: Dataset) -> list[str]:
    """Display names of the classes present, in label order."""
    labels = ds.classes
    if ds.target_names and np.issubdtype(labels.dtype, np.integer):
        return [ds.target_names[int(v)] if 0 <= int(v) < len(ds.target_names) else str(v) for v in labels]
    return [str(v) for v in labels]


def two_classes(ds: Dataset, first: str, second: str) -> Dataset:
    """Keep the rows of two classes (given by display name), relabelled 0 = first, 1 = second."""
    names = class_names(ds)
    for name in (first, second):
        if name not in names:
            raise ValueError(f"Class {name!r} is not in {ds.name}; classes are: {', '.join(names)}")
    if first == second:
        raise ValueError(f"Choose two different classes (both are {first!r}).")
    labels = ds.classes
    return ds.subset_classes([labels[names.index(first)], labels[names.index(second)]])


#: how to get binary features, appended to every refusal of non-binary input
BINARIZE_HINT = (
    "Binarise first: fsengine.data.transforms.binarize_features(dataset) for a Dataset, "
    "sklearn.preprocessing.Binarizer in a Pipeline, or pass binarize='auto' (0.5 for data in "
    "[0, 1], else each column's median; sparse data: x > 0) or binarize=<threshold> to the selector."
)
#: the note of -1/1 input read as 0/1
PLUS_MINUS_NOTE = "features in {-1, 1} read as 0/1 (x = 1 is on)"


def binary_kind(X) -> str | None:
    """``"01"`` when every entry of X is 0 or 1 (any storage), ``"pm1"`` when a dense X holds only
    -1 and 1, else None (a sparse -1/1 matrix holds three values: -1, 0 and 1)."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if np.isin(values, (0.0, 1.0)).all():
        return "01"
    if not sp.issparse(X) and np.isin(values, (-1.0, 1.0)).all():
        return "pm1"
    return None


def is_binary_matrix(X) -> bool:
    """True when every entry of X is 0 or 1 (dense or sparse)."""
    return binary_kind(X) == "01"


def _describe_values(values: np.ndarray) -> str:
    distinct = np.unique(values[:100_000])
    shown = ", ".join(f"{v:g}" for v in distinct[:5])
    more = "+" if values.size > 100_000 else ""
    return f"{distinct.size}{more} distinct values: {shown}{', ...' if distinct.size > 5 else ''}"


def _refuse(X, what: str) -> None:
    values = np.concatenate([[0.0], X.data]) if sp.issparse(X) else np.asarray(X, dtype=np.float64).ravel()
    other = int(np.count_nonzero(~np.isin(values, (0.0, 1.0))))
    total = X.shape[0] * X.shape[1]
    raise ValueError(f"{what} needs binary features (0/1, or -1/1 when dense); X has entries other than 0 and 1 "
                     f"({other:,} of {total:,}; {_describe_values(values)}). {BINARIZE_HINT}")


def _above(X, threshold):
    """0/1 matrix of ``x > threshold`` (a number, or one per column), in X's storage."""
    t = np.asarray(threshold, dtype=np.float64)
    if not sp.issparse(X):
        return (np.asarray(X, dtype=np.float64) > t).astype(np.float64)
    if np.any(t < 0.0):
        raise ValueError("A negative threshold would switch on every implicit zero of a sparse X; "
                         "pass X dense or choose a threshold >= 0.")
    X01 = (sp.csc_matrix if X.format == "csc" else sp.csr_matrix)(X, dtype=np.float64, copy=True)
    if t.ndim:  # one threshold per column: the column of every stored entry
        columns = X01.indices if X01.format == "csr" else np.repeat(np.arange(X01.shape[1]), np.diff(X01.indptr))
        t = t[columns]
    X01.data = (X01.data > t).astype(np.float64)
    X01.eliminate_zeros()
    return X01


@dataclass(frozen=True, eq=False)
class Binarization:
    """The rule :func:`binarize_input` applied to X, kept so that new rows are binarised alike.

    threshold  None: X was binary and is read as it is (0/1, or -1/1 with 1 on); else a number,
               or one number per column, and a feature is on where x > threshold
    note       what was done, one phrase for provenance notes (None: X was 0/1 and is unchanged)
    """

    threshold: float | np.ndarray | None
    note: str | None = None

    @classmethod
    def from_threshold(cls, threshold, kind: str | None, rule: str | None = None) -> Binarization:
        """The rule ``x > threshold`` for an X of :func:`binary_kind` ``kind``: no note when it
        leaves a 0/1 X as it is (0 <= threshold < 1); ``rule`` describes per-column thresholds."""
        unchanged = kind == "01" and np.ndim(threshold) == 0 and 0.0 <= float(threshold) < 1.0
        return cls(threshold, None if unchanged else f"features binarised as {rule or f'x > {float(threshold):g}'}")

    def apply(self, X, what: str = "This method"):
        """New rows (dense or sparse) binarised by this rule; binary X is required when the rule
        is to read X as it is."""
        if self.threshold is None:
            return binarize_input(X, None, what=what)[0]
        return _above(X, self.threshold)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Binarization):
            return NotImplemented
        same = (self.threshold is None) == (other.threshold is None)
        return same and self.note == other.note and (self.threshold is None or bool(
            np.array_equal(self.threshold, other.threshold)))

    __hash__ = None

    def __str__(self) -> str:
        return self.note or "features already binary (0/1), used as they are"


def binarize_input(X, binarize="auto", *, what: str = "This method"):
    """0/1 features from X and the rule applied: ``(X01, Binarization)``.

    The one meaning of ``binarize`` for every method that needs binary features (MI and MDL
    Naive Bayes, the RTM) and for :func:`binarize_features`:

    ``None``     X must already be binary: 0/1, or -1/1 when dense (read as 0/1, 1 on); anything
                 else is refused with a message saying how to binarise;
    ``"auto"``   binary X as for None; otherwise x > 0.5 for data in [0, 1] (images), else
                 x > each column's median; sparse data: x > 0 (implicit zeros stay off);
    a number t   on where x > t, for every column (scikit-learn's ``Binarizer`` and
                 ``BernoulliNB(binarize=t)``).

    ``X01`` keeps X's storage (dense float64 array, or CSR/CSC); a 0/1 X read as it is is
    returned itself. ``what`` names the method in the refusal.

    >>> X01, rule = binarize_input(np.array([[0.2, 0.9], [0.7, 0.1]]))
    >>> X01.tolist(), rule.note
    ([[0.0, 1.0], [1.0, 0.0]], 'features binarised as x > 0.5')
    >>> rule.apply(np.array([[0.6, 0.4]])).tolist()
    [[1.0, 0.0]]
    """
    auto = isinstance(binarize, str) and binarize == "auto"
    if not (binarize is None or auto or (isinstance(binarize, Real) and not isinstance(binarize, bool))):
        raise ValueError(f"binarize must be None, 'auto' or a number (x > binarize is on), not {binarize!r}")
    kind = binary_kind(X)
    if binarize is None or (auto and kind is not None):
        if kind is None:
            _refuse(X, what)
        if kind == "01":
            return X, Binarization(None)
        return (np.asarray(X) == 1.0).astype(np.float64), Binarization(None, PLUS_MINUS_NOTE)
    if not auto:
        return _above(X, float(binarize)), Binarization.from_threshold(float(binarize), kind)
    if sp.issparse(X):
        return _above(X, 0.0), Binarization.from_threshold(0.0, kind)
    X = np.asarray(X, dtype=np.float64)
    if X.size and X.min() >= 0.0 and X.max() <= 1.0:
        return _above(X, 0.5), Binarization.from_threshold(0.5, kind)
    medians = np.median(X, axis=0)
    return _above(X, medians), Binarization.from_threshold(medians, kind, "x > column median")


def binarize_features(ds: Dataset, threshold: float | str = "auto") -> Dataset:
    """0/1 features for methods that need binary tags (MI, MDL Naive Bayes, RTM).

    A 0/1 dataset is returned unchanged. ``threshold`` as ``binarize`` of :func:`binarize_input`
    (the same rule the selectors apply): ``"auto"`` is 0.5 for data in [0, 1] (images), else each
    column's median (x > median -> 1), x > 0 for sparse data; a number is used for every column.
    The rule is recorded in the provenance notes.
    """
    X01, rule = binarize_input(ds.X, threshold)
    if rule.note is None:
        return ds
    return _with(ds, X=X01.tocsr() if sp.issparse(X01) else X01, note=rule.note)


def min_max_features(ds: Dataset, what: str = "This method") -> Dataset:
    """Features rescaled to [0, 1] for methods that need non-negative values (chi-squared): every
    column becomes (x - min) / (max - min), as scikit-learn's ``MinMaxScaler`` does (a constant
    column becomes 0). Data without negative values are returned unchanged; sparse data with
    negative values are refused (shifting them would fill the matrix). The rule is recorded in the
    provenance notes."""
    values = ds.X.data if sp.issparse(ds.X) else np.asarray(ds.X)
    if not values.size or values.min() >= 0:
        return ds
    if sp.issparse(ds.X):
        raise ValueError(f"{what} needs non-negative features (counts or frequencies); {ds.name} is sparse with "
                         "negative values, which cannot be shifted without filling the matrix. Use the ANOVA F "
                         "test (anova) instead.")
    X = np.asarray(ds.X, dtype=np.float64)
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    scaled = (X - lo) / np.where(span > 0, span, 1.0)
    negative = int(np.sum(lo < 0))
    return _with(ds, X=scaled, note=f"{negative} feature(s) had negative values: every feature rescaled to [0, 1] "
                                    "as (x - min) / (max - min)")


def split_rows(ds: Dataset, test_size: float = 0.25, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The sorted row indices of :func:`split`'s training and test parts."""
    idx = np.arange(ds.n_samples)
    strat = ds.y if ds.task == "classification" else None
    tr, te = train_test_split(idx, test_size=test_size, random_state=seed, stratify=strat)
    return np.sort(tr), np.sort(te)


def split(ds: Dataset, test_size: float = 0.25, seed: int = 0) -> tuple[Dataset, Dataset]:
    """Stratified (for classification) train/test split; each part notes its role."""
    parts = []
    for rows, role in zip(split_rows(ds, test_size, seed), ("train", "test")):
        texts = tuple(ds.texts[i] for i in rows) if ds.texts is not None else None
        parts.append(_with(ds, X=ds.X[rows], y=ds.y[rows], texts=texts, name=f"{ds.name} ({role})",
                           note=f"{role} split: {rows.size} rows (seed {seed}, test_size {test_size})"))
    return parts[0], parts[1]
