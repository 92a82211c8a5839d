"""Small reusable widgets for the method pages."""

from __future__ import annotations

import streamlit as st

from ..data import Dataset
from ..data.transforms import class_names, two_classes


def class_pair(ds: Dataset, key: str, default=("B", "D"), container=None) -> Dataset:
    """For multi-class data, two selectboxes choosing the positive/negative class; returns the
    two-class dataset (label 0 = first, 1 = second). Binary data is returned as is."""
    container = container or st
    names = class_names(ds)
    if len(names) == 2:
        return ds
    first_default = default[0] if default[0] in names else names[0]
    second_default = default[1] if default[1] in names and default[1] != first_default else (
        names[1] if names[0] == first_default else names[0])
    cols = container.columns(2)
    first = cols[0].selectbox("Class 0", names, index=names.index(first_default), key=f"{key}_c0")
    second = cols[1].selectbox("Class 1", names, index=names.index(second_default), key=f"{key}_c1")
    return two_classes(ds, first, second)
