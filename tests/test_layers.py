"""No import runs up a layer: the foundation modules import nothing above them, the data and the
mathematics nothing of the figures, the comparison, the reproductions or the app, and the figure
builders (``fsengine.plots``: arrays and tables in, figures out) only the foundation."""

from __future__ import annotations

import ast
from pathlib import Path

import fsengine

PACKAGE = Path(fsengine.__file__).parent

#: the layers, lowest first; a module may import its own layer and the ones below
LAYERS = (
    {"__version__", "params", "config", "progress", "ranking", "position", "stats", "records", "validation",
     "jsonio", "formatting", "chunked", "glm", "files", "csv_export", "sparse_kernels", "selection_metrics",
     "task_store", "parallel", "task_progress", "base", "warm_start"},
    {"data", "maxent", "references"},
    {"methods", "selectors"},
    {"plots"},
    {"compare"},
    {"reproduce", "lecture", "benchmark"},
    {"app", "commands", "cli", "__main__"},
)
#: pure figure builders: the foundation only (a fitted selector's attributes come in as arguments)
PLOTS_MAY_IMPORT = LAYERS[0] | {"plots"}


def _part(module: str) -> str:
    """The top-level part of fsengine a module belongs to (``fsengine.methods.rtm.fit`` -> methods)."""
    return module.split(".")[1] if module.count(".") else "fsengine"


def _layer(part: str) -> int:
    for i, layer in enumerate(LAYERS):
        if part in layer:
            return i
    raise AssertionError(f"fsengine.{part} is in no layer: add it to LAYERS in tests/test_layers.py (the lowest "
                         "layer whose modules are all it imports)")


def imports() -> list[tuple[str, str]]:
    """(importing module, imported fsengine module) for every absolute import in the package."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = ([f"fsengine.{alias.name}" for alias in node.names] if node.module == "fsengine"
                         else [node.module])
            else:
                continue
            found += [(module, name) for name in names if name.startswith("fsengine.")]
    return found


def test_no_import_runs_up_a_layer():
    upward = [f"{module} imports {name}" for module, name in imports()
              if _layer(_part(name)) > _layer(_part(module))]
    assert not upward, "imports against the layering:\n" + "\n".join(sorted(upward))


def test_figure_builders_import_only_the_foundation():
    beyond = [f"{module} imports {name}" for module, name in imports()
              if _part(module) == "plots" and _part(name) not in PLOTS_MAY_IMPORT]
    assert not beyond, "fsengine.plots builds figures from arguments:\n" + "\n".join(sorted(beyond))


def test_the_check_sees_an_upward_import():
    assert _layer("methods") < _layer("reproduce") and _layer("plots") > _layer("methods")
    assert ("fsengine.methods.rtm.study", "fsengine.records") in imports()
