""""As in the paper" buttons: one click sets the dataset and a page's settings to those of a figure
in the source paper (the settings then land in the URL like any other choice).

A page's widgets start from the method's defaults (the registry's, or the class's for the
parameters the registry does not offer). A page that starts elsewhere, e.g. a lighter first run,
names those values as a preset, its *start*: :func:`start_value` gives each widget its first value,
:func:`show_start` says on the page which values differ from the method's defaults, and
:func:`defaults_preset` is the button back to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


def start_value(key: str, default, start: Preset | None = None):
    """The first value of the widget ``key``: the page's starting preset's where it sets one, else
    ``default`` (the method's)."""
    return start.widgets.get(key, default) if start is not None else default


def defaults_preset(defaults: dict[str, Any], forget: tuple[str, ...] = ()) -> Preset:
    """The button back to the method's defaults (widget key -> value) from a page's start."""
    return Preset("Method defaults", "Set the controls to the method's defaults: what the Python API and the "
                  "command line use.", None, widgets=dict(defaults), forget=forget)


def start_note(start: Preset, defaults: dict[str, Any], labels: dict[str, str]) -> str:
    """One sentence naming the page's start and, for each value it sets, the method's default.

    >>> start = Preset("Lighter first run", "", None, widgets={"max_iter": 200})
    >>> start_note(start, {"max_iter": 300}, {"max_iter": "Max sweeps"})
    'The page starts from the preset **Lighter first run**: Max sweeps 200 (method default 300).'
    """
    parts = [f"{labels[key]} {_shown(value)} (method default {_shown(defaults[key])})"
             for key, value in start.widgets.items() if key in defaults and value != defaults[key]]
    return f"The page starts from the preset **{start.label}**: {', '.join(parts)}."


def show_start(start: Preset, defaults: dict[str, Any], labels: dict[str, str], container=None) -> None:
    """Say on the page that it starts from ``start`` and what the method's defaults are
    (:func:`start_note`); :func:`defaults_preset` is the button back to them."""
    (container or st).caption(start_note(start, defaults, labels) + " " + start.description)


def _shown(value) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:g}" if isinstance(value, float) else f"{value:,}"
