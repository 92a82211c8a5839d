"""Argument helpers shared by ``fsengine select`` and ``fsengine compare``: the method catalogue
for ``--help``, ``--classes`` parsing, and writing figures next to one copy of plotly.js."""

from __future__ import annotations

from pathlib import Path

from ..methods.registry import METHODS


def methods_help() -> str:
    """Every registered method with its needs and parameters (for ``--help`` epilogs)."""
    lines = ["methods (NAME: label - what the score is; needs; parameters):"]
    for spec in METHODS.values():
        lines.append(f"  {spec.key}: {spec.label} - {spec.summary}")
        lines.append(f"      needs: {spec.needs.describe()}")
        for p in spec.params:
            bounds = "" if p.kind == "choice" else (
                f" [{p.min if p.min is not None else ''}..{p.max if p.max is not None else ''}]"
                if p.min is not None or p.max is not None else "")
            choices = f" one of {', '.join(map(str, p.choices))}" if p.kind == "choice" else ""
            lines.append(f"      {p.name}={p.default} ({p.kind}{choices}{bounds}) {p.label}")
    return "\n".join(lines)


def parse_classes(text: str | None) -> tuple[str, str] | None:
    """``"B,D"`` -> ("B", "D"); letters without a comma (``"BD"``) are split one per class."""
    if text is None:
        return None
    parts = [t.strip() for t in text.split(",")] if "," in text else list(text.strip())
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"--classes {text!r}: give exactly two class names, e.g. --classes B,D")
    return parts[0], parts[1]


def write_figure(fig, path: Path) -> Path:
    """Write ``fig`` as HTML that loads ``plotly.min.js`` from its own folder (written once), so
    the folder opens offline and each file stays small."""
    fig.write_html(path, include_plotlyjs="directory", full_html=True)
    return path
