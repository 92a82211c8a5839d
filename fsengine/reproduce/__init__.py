"""Paper reproductions: ``python -m fsengine reproduce TARGET [--quick] [--out DIR]``.

Each target is a function ``run(out_dir: Path, quick: bool, progress: Callable[[float, str], None])
-> Path`` that writes its figures (HTML) and a short markdown report with our numbers next to the
paper's, and returns the report's path. Targets are imported lazily.
"""

from __future__ import annotations

import importlib

#: target name -> ("module", "function", one-line description)
TARGETS: dict[str, tuple[str, str, str]] = {
    "rtm-roc": ("fsengine.reproduce.rtm_roc", "run", "Molchanov et al.: RTM tag-relevance ROC and sentiment accuracy"),
}


def target_names() -> list[str]:
    return sorted(TARGETS)


def get_target(name: str):
    if name not in TARGETS:
        known = ", ".join(target_names()) or "none yet"
        raise ValueError(f"Unknown reproduce target {name!r}; known targets: {known}")
    module, func, _ = TARGETS[name]
    return getattr(importlib.import_module(module), func)
