"""The shared dataset picker (rendered once in ``app.py``'s sidebar, read by every page)."""

from __future__ import annotations

import streamlit as st

from ..data import Dataset, dataset_specs, get_spec, load_dataset
from ..data.registry import DatasetSpec, Param
from .errors import user_errors

KEY = "dataset_key"
PARAMS = "dataset_params"
DEFAULT_KEY = "notmnist"


@st.cache_resource(show_spinner="Loading dataset ...", max_entries=8)
def _load_cached(key: str, frozen_params: tuple) -> Dataset:
    return load_dataset(key, **dict(frozen_params))


def load_cached(key: str, params: dict) -> Dataset:
    """Load a dataset once per (key, params) for the whole server (treat the result as read-only)."""
    return _load_cached(key, tuple(sorted(params.items())))


def available_specs() -> list[DatasetSpec]:
    return [s for s in dataset_specs() if s.available()]


def default_key() -> str:
    keys = [s.key for s in available_specs()]
    for k in (DEFAULT_KEY, "letters", "digits"):
        if k in keys:
            return k
    return keys[0]


def _param_widget(spec: DatasetSpec, p: Param, container):
    wkey = f"ds_{spec.key}_{p.name}"
    if p.kind == "letters":
        letters = list("ABCDEFGHIJ")
        chosen = container.multiselect(p.label, letters, default=list(p.default), key=wkey, help=p.help)
        return "".join(sorted(chosen, key=letters.index))
    if p.kind == "choice":
        return container.selectbox(p.label, p.choices, index=p.choices.index(p.default), key=wkey, help=p.help)
    if p.kind == "bool":
        return container.checkbox(p.label, value=p.default, key=wkey, help=p.help)
    if p.kind == "float":
        return container.number_input(p.label, value=float(p.default), key=wkey, help=p.help,
                                      min_value=None if p.min is None else float(p.min),
                                      max_value=None if p.max is None else float(p.max), format="%g")
    if p.kind == "int":
        return int(container.number_input(p.label, value=int(p.default), step=1, key=wkey, help=p.help,
                                          min_value=None if p.min is None else int(p.min),
                                          max_value=None if p.max is None else int(p.max)))
    return container.text_input(p.label, value=str(p.default), key=wkey, help=p.help)


def dataset_picker(container=None) -> tuple[str, dict]:
    """Render the picker; store and return the chosen (key, params)."""
    container = container or st.sidebar
    specs = available_specs()
    keys = [s.key for s in specs]
    labels = {s.key: f"{s.group}: {s.label}" for s in specs}
    if st.session_state.get("picker_key") not in keys:
        st.session_state["picker_key"] = default_key()
    key = container.selectbox("Dataset", keys, format_func=labels.get, key="picker_key",
                              help="Shared by every page.")
    spec = get_spec(key)
    container.caption(spec.description)
    params = {p.name: _param_widget(spec, p, container) for p in spec.params}
    missing = [s for s in dataset_specs() if not s.available()]
    if missing:
        container.caption("Not found here: " + "; ".join(f"{s.label} ({s.unavailable_hint})" for s in missing))
    st.session_state[KEY] = key
    st.session_state[PARAMS] = params
    return key, params


def current_selection() -> tuple[str, dict]:
    """The picker's (key, params); defaults when the picker has not run (e.g. page-level tests)."""
    key = st.session_state.get(KEY) or default_key()
    params = st.session_state.get(PARAMS)
    if params is None or st.session_state.get(KEY) is None:
        params = get_spec(key).defaults()
    return key, dict(params)


def current_dataset() -> Dataset:
    """Load the picked dataset (cached); shows an ``st.error`` and stops the page on failure."""
    key, params = current_selection()
    with user_errors():
        return load_cached(key, params)
