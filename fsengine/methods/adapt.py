"""Fit a Dataset to what a method needs (:class:`fsengine.methods.registry.Needs`), saying so.

Two levels, because a comparison must see the same rows for every method:

:func:`restrict_classes`  row level, once per run: keep two classes when any chosen method needs
                          exactly two (``fsengine.data.transforms.two_classes``).
:func:`adapt`             column level, before each fit: binarise features
                          (``fsengine.data.transforms.binarize_features``; the threshold comes from
                          the data being fitted), rescale features with negative values to [0, 1]
                          (``min_max_features``), leave out constant columns, densify sparse data,
                          and refuse what the method cannot handle (task, number of features).

Every change is returned as a note (and recorded in the dataset's provenance by the transforms);
nothing is changed silently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from fsengine.data import Dataset
from fsengine.data.transforms import binarize_features, class_names, min_max_features, two_classes
from fsengine.methods.registry import MethodSpec
from fsengine.validation import constant_columns

#: largest dense matrix a method may ask for when the data are sparse (bytes)
MAX_DENSE_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class Adapted:
    """The data one selector is fitted on.

    ds       the adapted dataset (its columns are ``columns`` of the original)
    columns  original index of each column of ``ds.X``
    notes    what was changed and why, one sentence each
    """

    ds: Dataset
    columns: np.ndarray
    notes: tuple[str, ...]


def restrict_classes(ds: Dataset, specs, classes: tuple[str, str] | None = None) -> tuple[Dataset, tuple[str, ...]]:
    """Keep two classes when ``classes`` is given or any of ``specs`` needs exactly two.

    Without ``classes`` the first two classes (in label order) are kept; the note says which and
    how to choose others.
    """
    specs = list(specs)
    if ds.task != "classification":
        if classes:
            raise ValueError(f"{ds.name} has a regression target; there are no classes to choose.")
        return ds, ()
    names = class_names(ds)
    needing = [s.label for s in specs if s.needs.two_classes]
    if classes is None and (len(names) <= 2 or not needing):
        return ds, ()
    if classes is None:
        first, second = names[0], names[1]
        note = (f"{', '.join(needing)} {'needs' if len(needing) == 1 else 'need'} exactly two classes: "
                f"kept classes {first!r} and {second!r} of {len(names)} (choose others with the class pair).")
    else:
        if len(classes) != 2:
            raise ValueError(f"Give exactly two classes, e.g. B,D; got {len(classes)}: {', '.join(classes)}")
        first, second = (str(c) for c in classes)
        if [first, second] == names:
            return ds, ()
        note = f"Kept classes {first!r} and {second!r} of {len(names)}."
    return two_classes(ds, first, second), (note,)


def _check_task(spec: MethodSpec, ds: Dataset) -> None:
    if ds.task not in spec.needs.tasks:
        raise ValueError(f"{spec.label} needs class labels; {ds.name} has a {ds.task} target. "
                         "Pick a classification dataset.")
    if ds.task == "classification" and spec.needs.two_classes and ds.classes.size != 2:
        raise ValueError(f"{spec.label} needs exactly two classes; {ds.name} has {ds.classes.size}. "
                         "Choose a class pair.")


def adapt(spec: MethodSpec, ds: Dataset) -> Adapted:
    """``ds`` in the form ``spec`` accepts, with the original index of every kept column."""
    _check_task(spec, ds)
    needs = spec.needs
    notes: list[str] = []
    columns = np.arange(ds.n_features)
    if needs.non_constant:
        constant = constant_columns(ds.X)
        if constant.size == ds.n_features:
            raise ValueError(f"Every feature of {ds.name} is constant; {spec.label} has nothing to select.")
        if constant.size:
            columns = np.setdiff1d(columns, constant)
            shown = ", ".join(ds.feature_names[j] for j in constant[:8]) + (" ..." if constant.size > 8 else "")
            notes.append(f"{spec.label}: left out {constant.size} constant feature(s) ({shown}); "
                         "they cannot be standardised and get no score.")
            ds = replace(ds, X=ds.X[:, columns], feature_names=tuple(ds.feature_names[j] for j in columns),
                         image_shape=None, truth=None if ds.truth is None else ds.truth[columns])
    if needs.max_features is not None and ds.n_features > needs.max_features:
        raise ValueError(f"{spec.label} handles at most {needs.max_features:,} features; {ds.name} has "
                         f"{ds.n_features:,}. Use fewer features (e.g. a larger minimum document frequency).")
    if needs.binary_features:
        binary = binarize_features(ds)
        if binary is not ds:
            notes.append(f"{spec.label} needs binary features: {binary.provenance.notes[-1]}.")
        ds = binary
    if needs.non_negative:
        scaled = min_max_features(ds, what=spec.label)
        if scaled is not ds:
            notes.append(f"{spec.label} needs non-negative features: {scaled.provenance.notes[-1]}.")
        ds = scaled
    if not needs.sparse_ok and sp.issparse(ds.X):
        size = ds.n_samples * ds.n_features * 8
        if size > MAX_DENSE_BYTES:
            raise ValueError(f"{spec.label} needs dense data; {ds.name} would take {size / 1024**3:.1f} GB dense.")
        notes.append(f"{spec.label} needs dense data: the sparse matrix was converted.")
        ds = replace(ds, X=ds.X.toarray())
    return Adapted(ds=ds, columns=columns, notes=tuple(notes))
