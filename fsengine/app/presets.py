""""As in the paper" buttons: one click sets the dataset and a page's settings to those of a figure
in the source paper (the settings then land in the URL like any other choice)."""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from fsengine.app.picker import available_specs
from fsengine.data import get_spec


@dataclass(frozen=True)
class Preset:
    """``dataset`` with ``dataset_params`` (others at their defaults; ``None``: keep the picked
    data) and page widget values; ``forget``: session keys to drop (e.g. a page's last run)."""

    label: str
    description: str
    dataset: str | None
    dataset_params: dict = field(default_factory=dict)
    widgets: dict = field(default_factory=dict)
    forget: tuple[str, ...] = ()


def apply_preset(preset: Preset) -> None:
    """Write the preset into the session's widget values (a button callback: runs before the page)."""
    if preset.dataset is not None:
        spec = get_spec(preset.dataset)
        st.session_state["picker_key"] = spec.key
        for p in spec.params:
            value = preset.dataset_params.get(p.name, p.default)
            st.session_state[f"ds_{spec.key}_{p.name}"] = list(value) if p.kind == "letters" else value
    st.session_state.update(preset.widgets)
    for key in preset.forget:
        st.session_state.pop(key, None)


def preset_buttons(presets: list[Preset], container=None) -> None:
    """One button per preset; a preset whose dataset is missing here is shown disabled, saying why."""
    container = container or st
    present = {s.key for s in available_specs()}
    cols = container.columns(len(presets))
    for col, preset in zip(cols, presets, strict=True):
        missing = preset.dataset is not None and preset.dataset not in present
        col.button(preset.label, on_click=apply_preset, args=(preset,), disabled=missing,
                   key=f"preset_{preset.label}",
                   help=preset.description + (f" Needs the {get_spec(preset.dataset).label} data: download it on "
                                              "the Data page." if missing else ""))
