"""Every public class and function has an Examples section with a doctest: the API reference
renders it on the object's page, and ``pytest --doctest-modules`` (the suite's own options) runs
it. The public surface is every module that defines ``__all__`` (the rule the site's API pages
follow, ``docs/_ext/fsengine_docs.py``)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: a numpydoc section header: the name, then a line of dashes as long as it
_SECTION = re.compile(r"^(?P<name>[A-Z][A-Za-z ]+)\n-{3,}\s*$", re.MULTILINE)


def public_modules() -> list[str]:
    """The modules of ``fsengine`` whose source assigns ``__all__`` at top level."""
    found = []
    for path in sorted((ROOT / "fsengine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
               for node in tree.body):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def examples_section(doc: str) -> str | None:
    """The text of the docstring's numpydoc Examples section (up to the next section), or None."""
    headers = list(_SECTION.finditer(doc))
    for i, header in enumerate(headers):
        if header.group("name").strip() == "Examples":
            end = headers[i + 1].start() if i + 1 < len(headers) else len(doc)
            return doc[header.end():end]
    return None


def has_example(obj) -> bool:
    section = examples_section(inspect.getdoc(obj) or "")
    return section is not None and ">>>" in section


def public_objects() -> list[tuple[str, object]]:
    """(module.name, object) for every class and function in a public ``__all__`` (constants such
    as ``LEVEL`` are documented by their module)."""
    out = []
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                out.append((f"{module_name}.{name}", obj))
    return out


def test_the_surface_is_found():
    modules = public_modules()
    surface = {"fsengine.selectors", "fsengine.plots", "fsengine.compare", "fsengine.stats", "fsengine.data"}
    assert surface <= set(modules)
    assert len(public_objects()) > 100


@pytest.mark.parametrize("qualified, obj", public_objects(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_public_class_and_function_has_an_example(qualified, obj):
    assert has_example(obj), (
        f"{qualified} has no Examples section with a doctest: add one to its docstring (numpydoc "
        "'Examples' + dashes, then '>>>' lines that run on tiny data); the API page renders it and "
        "pytest runs it")


def test_the_check_finds_a_missing_or_empty_examples_section():
    def no_section():
        """Something.

        >>> 1 + 1
        2
        """

    def prose_only():
        """Something.

        Examples
        --------
        Call it.

        Notes
        -----
        >>> 1 + 1
        2
        """

    def with_example():
        """Something.

        Examples
        --------
        >>> 1 + 1
        2
        """

    assert not has_example(no_section) and not has_example(prose_only) and has_example(with_example)
