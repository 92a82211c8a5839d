"""Small reusable widgets for the method pages."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from fsengine.data import Dataset
from fsengine.params import Param


def param_widget(p: Param, key: str, container=None, bind: str | None = None):
    """The widget of one :class:`~fsengine.params.Param` (dataset or method parameter):
    number inputs bounded by its range, a selectbox for choices, a checkbox for booleans, a
    multiselect of A-J for letters; returns the value in the parameter's type. ``bind``: as for
    Streamlit widgets (``"query-params"`` keeps the value in the URL)."""
    container = container or st
    if p.special:
        switch = container.checkbox(f"{p.label}: {Param.spell(p.special[0])}", value=p.default in p.special,
                                    key=f"{key}_special", bind=bind, help=p.help)
        if switch:
            return p.special[0]
        p = replace(p, special=(), default=_numeric_default(p))
    if p.kind == "letters":
        letters = list("ABCDEFGHIJ")
        chosen = container.multiselect(p.label, letters, default=list(p.default), key=key, bind=bind, help=p.help)
        return "".join(sorted(chosen, key=letters.index))
    if p.kind == "choice":
        return container.selectbox(p.label, p.choices, index=p.choices.index(p.default), key=key,
                                   bind=bind, help=p.help)
    if p.kind == "bool":
        return container.checkbox(p.label, value=p.default, key=key, bind=bind, help=p.help)
    if p.kind == "float":
        return container.number_input(p.label, value=float(p.default), key=key, bind=bind, help=p.help,
                                      min_value=None if p.min is None else float(p.min),
                                      max_value=None if p.max is None else float(p.max), format="%g")
    if p.kind == "int":
        return int(container.number_input(p.label, value=int(p.default), step=1, key=key, bind=bind, help=p.help,
                                          min_value=None if p.min is None else int(p.min),
                                          max_value=None if p.max is None else int(p.max)))
    return container.text_input(p.label, value=str(p.default), key=key, bind=bind, help=p.help)


def _numeric_default(p: Param):
    """The number a widget starts from when a special default (``auto``, ``none``) is switched off:
    the range's lower end, else 1."""
    if p.default not in p.special:
        return p.default
    return p.min if p.min is not None else 1


def class_pair(ds: Dataset, key: str, default=("B", "D"), container=None) -> Dataset:
    """For multi-class data, two selectboxes choosing the positive/negative class; returns the
    two-class dataset (label 0 = first, 1 = second). Binary data is returned as is."""
    from fsengine.data.transforms import class_names, two_classes  # scikit-learn: not needed by the sidebar

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


def follow_data(slot: str, token, defaults: dict) -> None:
    """Reset data-dependent widget values (``key -> default``) when the data ``token`` changes.

    Call before drawing the widgets. The first call of a session only records the token, so
    values restored from a link (URL query parameters) are kept.
    """
    memo = f"_follows_{slot}"
    previous = st.session_state.get(memo)
    st.session_state[memo] = token
    if previous is not None and previous != token:
        st.session_state.update(defaults)
