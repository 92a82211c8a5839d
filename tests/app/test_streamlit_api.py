"""The Streamlit API the app calls exists in the installed streamlit, with the keywords and values
the app passes.

The app's sources (``fsengine/app``, ``app.py``, ``pages/``) are read, not run, so every call is
checked, also those on branches the AppTest runs never reach. A call is checked when its receiver is
known to be Streamlit: ``st`` itself and its attributes (``st.sidebar``, ``st.column_config``, ...),
what ``from streamlit... import`` brings in, and the containers the app makes (the results of
``st.columns``/``tabs``/``container``/``expander``/``form``/..., items of them, ``with ... as``
names, ``x or st``, and parameters named ``container``). For each such call:

* the attribute exists;
* each keyword is a named parameter of the function (a keyword swallowed by ``**kwargs`` means an
  older Streamlit that does not know it);
* a string literal passed by keyword is one the parameter's annotation admits (``width="stretch"``
  against ``int | None`` fails; against ``int | Literal["stretch", "content"]`` it passes).

In the lowest-versions run (``make test-min``) a failure here names the call that needs a newer
Streamlit than pyproject.toml's floor.
"""

from __future__ import annotations

import ast
import collections.abc
import importlib
import inspect
import sys
import types
import typing
from dataclasses import dataclass, field

import pytest
import streamlit

from tests.conftest import PROJECT_ROOT as ROOT

APP_SOURCES = [*sorted((ROOT / "fsengine" / "app").rglob("*.py")), ROOT / "app.py", *sorted(ROOT.glob("pages/*.py"))]
#: st.X(...) calls whose result is a container (or a list of them)
CONTAINER_MAKERS = {"columns", "tabs", "container", "expander", "form", "sidebar", "empty", "popover", "status"}
#: parameters that receive a container (``dataset_picker(container=st.sidebar)``)
CONTAINER_PARAMETERS = {"container"}
UNKNOWN = object()


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    calls: int = 0
    attributes: int = 0
    literal_checks: int = 0


def _streamlit_names(tree: ast.Module) -> dict[str, object]:
    """Names the module binds to Streamlit objects by import."""
    names: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "streamlit":
                    names[alias.asname or alias.name] = streamlit
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "streamlit":
            module = importlib.import_module(node.module)
            for alias in node.names:
                names[alias.asname or alias.name] = getattr(module, alias.name)
    return names


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _owners(tree: ast.Module) -> tuple[dict[int, ast.AST], dict[int, ast.AST]]:
    """``(owner, parent)``: the innermost function (or the module) each node belongs to, and each
    function's enclosing one."""
    owner: dict[int, ast.AST] = {}
    parent: dict[int, ast.AST] = {}

    def visit(node: ast.AST, current: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            owner[id(child)] = current
            if isinstance(child, FUNCTIONS):
                parent[id(child)] = current
                visit(child, child)
            else:
                visit(child, current)

    visit(tree, tree)
    return owner, parent


class _Scope:
    """Resolves the expressions of one function to Streamlit objects, with the names it and the
    functions around it bind to containers (flow-insensitive within a function)."""

    def __init__(self, imported: dict[str, object], nodes: list[ast.AST], parameters: list[str]):
        self.known = dict(imported)
        for name in parameters:
            if name in CONTAINER_PARAMETERS:
                self.known[name] = streamlit.delta_generator.DeltaGenerator
        for _ in range(2):  # a name may be bound from another one bound later in the text
            for node in nodes:
                if isinstance(node, ast.Assign) and self.resolve(node.value) is not None:
                    for target in node.targets:
                        self._bind(target)
                elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                    if self.resolve(node.context_expr) is not None:
                        self._bind(node.optional_vars)

    def _bind(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.known[target.id] = streamlit.delta_generator.DeltaGenerator
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind(element)

    def resolve(self, node: ast.expr):
        """The Streamlit object ``node`` evaluates to (UNKNOWN: a missing attribute), or None when
        it is not known to be Streamlit."""
        if isinstance(node, ast.Name):
            return self.known.get(node.id)
        if isinstance(node, ast.Subscript):
            return streamlit.delta_generator.DeltaGenerator if self.resolve(node.value) is not None else None
        if isinstance(node, ast.BoolOp):
            return next((r for r in map(self.resolve, node.values) if r is not None), None)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CONTAINER_MAKERS:
            return streamlit.delta_generator.DeltaGenerator if self.resolve(node.func.value) is not None else None
        if isinstance(node, ast.Attribute):
            owner = self.resolve(node.value)
            if owner is None or owner is UNKNOWN or _is_key(owner, node.attr):
                return None
            return getattr(owner, node.attr, UNKNOWN)
        return None


def _is_key(owner, attr: str) -> bool:
    """``st.session_state.name`` reads a key, not an API attribute."""
    return isinstance(owner, collections.abc.Mapping) and not hasattr(type(owner), attr)


def _annotation(function, parameter: inspect.Parameter):
    """The parameter's annotation as a typing object, or None when it cannot be evaluated."""
    annotation = parameter.annotation
    if not isinstance(annotation, str):
        return None if annotation is inspect.Parameter.empty else annotation
    namespace = {**vars(typing), **vars(collections.abc)}
    layout = sys.modules.get("streamlit.elements.lib.layout_utils")
    if layout is not None:
        namespace.update(vars(layout))
    module = sys.modules.get(getattr(inspect.unwrap(function), "__module__", ""), None)
    if module is not None:
        namespace.update(vars(module))
    try:
        return eval(annotation, namespace)  # the annotation text of a Streamlit signature
    except Exception:
        return None


def _admits(annotation, value: str) -> bool | None:
    """Does the annotation admit the string ``value``? None: cannot tell."""
    if annotation is typing.Any or annotation is str or annotation is object:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        answers = [_admits(arg, value) for arg in typing.get_args(annotation)]
        return True if any(answers) else (None if None in answers else False)
    if annotation is type(None) or annotation in (int, float, bool):
        return False
    return None


def _signature(function):
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def _check_call(node: ast.Call, function, label: str, report: Report) -> None:
    signature = _signature(function)
    if signature is None:
        return
    report.calls += 1
    parameters = signature.parameters
    for keyword in node.keywords:
        if keyword.arg is None:  # **mapping
            continue
        parameter = parameters.get(keyword.arg)
        if parameter is None or parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
            report.problems.append(f"{label}: no parameter {keyword.arg!r}; it has {list(parameters)}")
            continue
        if isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
            annotation = _annotation(function, parameter)
            verdict = None if annotation is None else _admits(annotation, keyword.value.value)
            if verdict is not None:
                report.literal_checks += 1
            if verdict is False:
                report.problems.append(
                    f"{label}: {keyword.arg}={keyword.value.value!r} is not allowed by {parameter.annotation}"
                )


def check_source(source: str, where: str, report: Report) -> Report:
    """Check every Streamlit call and attribute of one source text (see the module docstring)."""
    tree = ast.parse(source)
    imported = _streamlit_names(tree)
    owner, parent = _owners(tree)
    nodes_of: dict[int, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if node is not tree:
            nodes_of.setdefault(id(owner[id(node)]), []).append(node)
    functions = [tree] + [node for node in ast.walk(tree) if isinstance(node, FUNCTIONS)]
    for function in functions:
        chain = [function]
        while id(chain[-1]) in parent:
            chain.append(parent[id(chain[-1])])
        scope = _Scope(
            imported,
            [node for f in chain for node in nodes_of.get(id(f), [])],
            [a.arg for f in chain if isinstance(f, FUNCTIONS) for a in f.args.args + f.args.kwonlyargs],
        )
        for node in nodes_of.get(id(function), []):
            if isinstance(node, ast.Attribute):
                owner_object = scope.resolve(node.value)
                if owner_object is None or owner_object is UNKNOWN or _is_key(owner_object, node.attr):
                    continue
                report.attributes += 1
                if not hasattr(owner_object, node.attr):
                    report.problems.append(
                        f"{where}:{node.lineno} {ast.unparse(node)}: streamlit {streamlit.__version__} "
                        f"has no {node.attr!r}"
                    )
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = scope.resolve(node.func)
                if target is not None and target is not UNKNOWN and callable(target):
                    _check_call(node, target, f"{where}:{node.lineno} {ast.unparse(node.func)}(...)", report)
    return report


def test_every_streamlit_call_of_the_app_exists_with_its_keywords_and_values():
    report = Report()
    for path in APP_SOURCES:
        check_source(path.read_text(), str(path.relative_to(ROOT)), report)
    assert not report.problems, (
        f"streamlit {streamlit.__version__} lacks what the app uses (raise the floor in pyproject.toml "
        "or change the call):\n" + "\n".join(report.problems)
    )
    # the checker really looked: the app makes well over a hundred Streamlit calls, dozens with
    # literal values such as width="stretch" whose annotation could be read
    assert report.calls > 150 and report.attributes > report.calls and report.literal_checks > 30, report


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("import streamlit as st\nst.no_such_element('x')", "has no 'no_such_element'"),
        ("import streamlit as st\nst.dataframe([], widht='stretch')", "no parameter 'widht'"),
        ("import streamlit as st\nst.columns(2, vertical_alignment='middle')", "vertical_alignment='middle'"),
        ("import streamlit as st\nleft, right = st.columns(2)\nright.metric('a', 1, delta_colour='off')",
         "no parameter 'delta_colour'"),
        ("import streamlit as st\ndef f(container=None):\n    (container or st).slider('a', format=3, lable='x')",
         "no parameter 'lable'"),
        ("from streamlit.runtime.pages_manager import PagesManager\nPagesManager.no_such_flag = 1",
         "has no 'no_such_flag'"),
    ],
)
def test_the_checker_finds_a_missing_name_keyword_or_value(source, problem):
    report = check_source(source, "example.py", Report())
    assert any(problem in p for p in report.problems), report.problems


def test_the_checker_accepts_what_streamlit_has():
    source = (
        "import streamlit as st\n"
        "cols = st.columns([2, 1], gap='small')\n"
        "with cols[0]:\n    st.markdown('x')\n"
        "with st.expander('more') as box:\n    box.caption('y')\n"
        "st.column_config.NumberColumn('n', format='%d')\n"
    )
    report = check_source(source, "example.py", Report())
    assert not report.problems and report.calls == 5 and report.literal_checks >= 2, report
