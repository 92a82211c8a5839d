"""fsengine's own Sphinx extension: math as MathML, and the pages written at build time.

* ``html_math_renderer = "mathml"``: every ``$...$`` and ``$$...$$`` is converted to MathML by
  ``latex2mathml`` (the lecture pack's converter), which browsers draw natively: no MathJax from a
  CDN, so the site's equations show from ``file://`` with no network.
* ``lessons/``: the notebooks of ``notebooks/`` copied in (myst-nb executes them, cached).
* ``records/<target>/``: one page per committed record in ``docs/results/<target>/``, rendered from
  its ``results.json`` (every row: estimate, interval, level, method, verdict) and followed by its
  ``report.md``; the record's figures and CSV files are copied beside the page. Their parent,
  ``results.md``, is committed: ``python -m fsengine.reproduce.summary`` writes it from the same
  records (a test holds it to them).
* ``api/<module>.rst``: the API reference of the public surface, one page per public module listing
  its ``__all__`` (autosummary then writes one page per name), and ``api/cli.rst``: every command's
  ``--help``, from the parser itself.
* ``plotly.min.js``: the local copy the lessons' figures use, from the installed plotly.

Markup helpers keep each fact written once, in the package: ``{fsengine-methods} KEY ...`` (a
directive) renders registered methods from the registry (label, key, selector class, what the score
means, what data it needs, and every parameter's default, accepted values and meaning),
``{fsengine-method-keys}`` (a directive) the table of every registered method's key,
``{fsengine-page}`KEY``` (a role) the title of an app page from the app's page registry,
``{fsengine-value}`module:NAME``` (a role) the value of a module constant (a protocol's folds, a
threshold), and ``{fsengine-environment}`` (a directive) the table of environment variables from
``fsengine.config``'s docstring, where each is described once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from latex2mathml.converter import convert
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective, SphinxRole

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
RECORDS = DOCS / "results"
GENERATED_RECORDS = DOCS / "records"
GENERATED_LESSONS = DOCS / "lessons"
ASSET_SUFFIXES = {".html", ".csv", ".json", ".md"}
API = DOCS / "api"


def public_modules() -> list[str]:
    """The public surface: the modules that define ``__all__`` (only public modules do; fsengine's
    docstring states the rule and ``tests/test_public_api.py`` holds the package to it)."""
    import ast

    found = []
    for path in sorted((ROOT / "fsengine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
               for node in tree.body):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


# --- math ------------------------------------------------------------------------------------------

def _mathml(latex: str, display: str) -> str:
    return convert(latex.strip(), display=display)


def _visit_math(self, node):
    self.body.append(f'<span class="math notranslate">{_mathml(node.astext(), "inline")}</span>')
    raise nodes.SkipNode


def _visit_displaymath(self, node):
    latex = node.astext()
    if "\\\\" in latex and "\\begin" not in latex:  # several lines: aligned, as MathJax shows them
        latex = "\\begin{aligned}" + latex + "\\end{aligned}"
    self.body.append(f'<div class="math notranslate">{_mathml(latex, "block")}</div>')
    raise nodes.SkipNode


# --- generated pages -----------------------------------------------------------------------------

def _write_if_changed(path: Path, text: str) -> None:
    """Leave an unchanged page alone, so that Sphinx's incremental build does not redo it."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _interval(row: dict) -> str:
    interval = row.get("interval")
    if not interval:
        return ""
    level = row.get("level")
    return f"[{_cell(interval[0])}, {_cell(interval[1])}]" + (f" at {level:.4g}" if level else "")


def record_page(folder: Path) -> str:
    """The page of one committed record: its rows from ``results.json``, then its report."""
    record = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    report = (folder / "report.md").read_text(encoding="utf-8") if (folder / "report.md").exists() else ""
    title = next((line[2:].strip() for line in report.splitlines() if line.startswith("# ")), record["target"])
    # the record's links are to its own files, copied beside the page: plain links, not cross-references
    made = f"Target `{record['target']}`, made by `{record.get('command', '')}`"
    lines = ["---", "myst:", "  all_links_external: true", "---", "", f"# {title}", "",
             made + (" (quick run)" if record.get("quick") else "") + ".", "",
             "Every row of the record's `results.json`: the estimate, its interval and the method behind it, "
             "and the verdict computed from the interval.", "",
             "| quantity | paper | ours | interval | method | verdict |", "|---|---|---|---|---|---|"]
    for row in record.get("rows", []):
        lines.append("| " + " | ".join([_cell(row.get("quantity")), _cell(row.get("paper")), _cell(row.get("ours")),
                                         _interval(row), _cell(row.get("method")), _cell(row.get("verdict"))]) + " |")
    files = sorted(p.name for p in folder.iterdir() if p.suffix in ASSET_SUFFIXES)
    lines += ["", "The record's files: " + ", ".join(f"[{name}]({name})" for name in files) + ".", "",
              "## The report", "", "```{include} ../../results/" + folder.name + "/report.md",
              ":heading-offset: 1", "```", ""]
    return "\n".join(lines)


def api_page(module_name: str) -> str:
    """One public module: its docstring, then an autosummary of its ``__all__``."""
    import importlib

    module = importlib.import_module(module_name)
    names = sorted(module.__all__)
    lines = [module_name, "=" * len(module_name), "", f".. automodule:: {module_name}", "   :no-members:", "",
             ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def _remove_stale_api_pages(modules: list[str]) -> None:
    """Pages of a name or module that left the public surface go, so that the site lists exactly
    today's ``__all__`` (autosummary writes new pages but never removes old ones)."""
    import importlib

    current = {f"{m}.{name}" for m in modules for name in importlib.import_module(m).__all__}
    for page in (API / "generated").glob("*.rst"):
        if page.stem not in current:
            page.unlink()
    for page in API.glob("fsengine*.rst"):
        if page.stem not in modules:
            page.unlink()


def cli_page() -> str:
    """``fsengine --help`` and every command's ``--help``, as the parser prints them."""
    import argparse

    from fsengine.cli import build_parser

    parser = build_parser()
    lines = ["Command line", "============", "", "``fsengine COMMAND ...`` (or ``python -m fsengine``); "
             "every command's help as ``fsengine COMMAND --help`` prints it.", "", "::", ""]
    lines += ["   " + line for line in parser.format_help().splitlines()]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        title = f"fsengine {name}"
        lines += ["", title, "-" * len(title), "", "::", ""]
        lines += ["   " + line for line in command.format_help().splitlines()]
    return "\n".join(lines) + "\n"


def write_pages(app) -> None:
    """builder-inited: the lessons, the record pages, the API pages and the local plotly.js."""
    import plotly

    modules = public_modules()
    _remove_stale_api_pages(modules)
    for module_name in modules:
        _write_if_changed(API / f"{module_name}.rst", api_page(module_name))
    _write_if_changed(API / "modules.rst", "\n".join([".. toctree::", "   :maxdepth: 1", "",
                                                       *(f"   {m}" for m in modules), "   cli", ""]))
    _write_if_changed(API / "cli.rst", cli_page())

    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", DOCS / "_static" / "plotly.min.js")
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        target = GENERATED_LESSONS / notebook.name
        if not target.exists() or target.read_bytes() != notebook.read_bytes():
            shutil.copyfile(notebook, target)
    targets = sorted(p.parent for p in RECORDS.glob("*/results.json"))
    for folder in targets:
        _write_if_changed(GENERATED_RECORDS / folder.name / "index.md", record_page(folder))
    # the pages of records no longer committed go (results.md, generated from the same records by
    # ``python -m fsengine.reproduce.summary``, is their parent page)
    if GENERATED_RECORDS.is_dir():
        for page in GENERATED_RECORDS.glob("*/index.md"):
            if page.parent.name not in {f.name for f in targets}:
                shutil.rmtree(page.parent)
        (GENERATED_RECORDS / "index.md").unlink(missing_ok=True)
    # Sphinx listed the sources before this handler wrote them: list them again, so that autosummary
    # (the next builder-inited handler) writes the pages of a fresh build's API modules too
    app.env.find_files(app.config, app.builder)


#: the <script> tags plotly writes for its CDN copies of plotly.js and MathJax
_CDN_SCRIPT = re.compile(r'<script[^>]*src="https://(cdn\.plot\.ly|cdnjs\.cloudflare\.com/ajax/libs/mathjax)/[^"]*"'
                         r'[^>]*>\s*</script>')


def offline(html: str, static: str) -> str:
    """A page or figure that loads nothing from the network: plotly's CDN ``<script>`` tags are
    replaced by the site's own copy of plotly.js (``static``: the relative path of ``_static``), or
    dropped where the page loads it already; MathJax is dropped (the figures carry no LaTeX)."""
    local = f'<script src="{static}/plotly.min.js"></script>'
    already = "plotly.min.js" in html.split("</head>", 1)[0]

    def replace(match):
        return "" if already or "mathjax" in match.group(1) else local
    return _CDN_SCRIPT.sub(replace, html)


def finish_offline(app, exception) -> None:
    """build-finished: each record's figures and tables beside its page (its links point there),
    and every page and figure of the site made to load nothing from the network."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for folder in sorted(p.parent for p in RECORDS.glob("*/results.json")):
        out = outdir / "records" / folder.name
        out.mkdir(parents=True, exist_ok=True)
        for path in folder.iterdir():
            if path.suffix in ASSET_SUFFIXES:
                shutil.copyfile(path, out / path.name)
    for page in outdir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        fixed = offline(html, os.path.relpath(outdir / "_static", page.parent))
        if fixed != html:
            page.write_text(fixed, encoding="utf-8")


# --- facts from the package: the registry's methods and the app's pages ---------------------------------

def accepted_values(param) -> str:
    """What a parameter accepts, as ``--param`` and the widgets check it: a range (inclusive), the
    choices, true/false, and the special values such as ``none`` or ``auto``."""
    from fsengine.params import Param

    if param.kind == "choice":
        text = "one of " + ", ".join(map(str, param.choices))
    elif param.kind == "bool":
        text = "true or false"
    elif param.min is not None and param.max is not None:
        text = f"{param.kind} from {param.min:g} to {param.max:g}"
    elif param.min is not None:
        text = f"{param.kind} from {param.min:g}"
    elif param.max is not None:
        text = f"{param.kind} up to {param.max:g}"
    else:
        text = param.kind
    return text + "".join(f", or {Param.spell(v)}" for v in param.special)


def _table(header: list[str], rows: list[list[nodes.Node]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["fsengine-parameters"])
    group = nodes.tgroup(cols=len(header))
    table += group
    group.extend(nodes.colspec(colwidth=w) for w in widths)
    head = nodes.thead()
    head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=h)) for h in header))
    group += head
    body = nodes.tbody()
    for cells in rows:
        body += nodes.row("", *(nodes.entry("", nodes.paragraph("", "", *cell) if isinstance(cell, list)
                                            else nodes.paragraph(text=str(cell))) for cell in cells))
    group += body
    return table


class MethodsDirective(SphinxDirective):
    """``{fsengine-methods} KEY ...``: each registered method as the registry states it."""

    required_arguments = 1
    optional_arguments = 100

    def _selector_ref(self, factory: str) -> nodes.Node:
        import fsengine.selectors as public

        name = factory.split(":")[1]
        target = f"fsengine.selectors.{name}" if name in public.__all__ else factory.replace(":", ".")
        ref = addnodes.pending_xref("", refdomain="py", reftype="class", reftarget=target, refexplicit=False,
                                    refwarn=False, refdoc=self.env.docname)
        ref += nodes.literal(text=target)
        return ref

    def run(self):
        from fsengine.methods import registry
        from fsengine.methods.registry import METHODS
        from fsengine.params import Param

        self.env.note_dependency(registry.__file__)  # a changed default or range rebuilds the page
        out = []
        for key in self.arguments:
            spec = METHODS.get(key)
            if spec is None:
                note = nodes.note()
                note += nodes.paragraph(text=f"The method {key!r} is not registered in this version of fsengine.")
                out.append(note)
                continue
            para = nodes.paragraph()
            para += nodes.strong(text=spec.label)
            para += nodes.Text(" (")
            para += nodes.literal(text=f"--method {spec.key}")
            para += nodes.Text(", ")
            para += self._selector_ref(spec.factory)
            para += nodes.Text(f"): {spec.summary}. Needs: {spec.needs.describe()}.")
            out.append(para)
            if spec.params:
                rows = [[[nodes.literal(text=p.name)], [nodes.literal(text=Param.spell(p.default))],
                         accepted_values(p), p.label + (f": {p.help}" if p.help else "")] for p in spec.params]
                out.append(_table(["parameter", "default", "accepts", "meaning"], rows, [18, 12, 25, 45]))
        return out


class MethodKeysDirective(MethodsDirective):
    """``{fsengine-method-keys}``: one row per registered method (key, label, selector, what its
    score means), in the registry's order."""

    required_arguments = 0
    optional_arguments = 0

    def run(self):
        from fsengine.methods import registry
        from fsengine.methods.registry import METHODS

        self.env.note_dependency(registry.__file__)
        rows = [[[nodes.literal(text=key)], spec.label, [self._selector_ref(spec.factory)], spec.summary]
                for key, spec in METHODS.items()]
        return [_table(["key", "method", "selector", "score"], rows, [12, 16, 30, 42])]


class PageRole(SphinxRole):
    """``{fsengine-page}`KEY```: the title of the app page ``KEY``, as the app's navigation shows it."""

    def run(self):
        from fsengine.app.registry import get_page

        try:
            title = get_page(self.text.strip()).title
        except KeyError as exc:
            msg = self.inliner.reporter.error(str(exc), line=self.lineno)
            return [self.inliner.problematic(self.rawtext, self.rawtext, msg)], [msg]
        return [nodes.emphasis(text=title)], []


class ValueRole(SphinxRole):
    """``{fsengine-value}`module:NAME```: the value of a module constant, formatted (``1,000``;
    a float as ``{:g}``)."""

    def run(self):
        import importlib

        module, _, name = self.text.strip().partition(":")
        try:
            value = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            msg = self.inliner.reporter.error(f"fsengine-value {self.text!r}: {exc}", line=self.lineno)
            return [self.inliner.problematic(self.rawtext, self.rawtext, msg)], [msg]
        self.env.note_dependency(importlib.import_module(module).__file__)
        text = f"{value:,}" if isinstance(value, int) else f"{value:g}" if isinstance(value, float) else str(value)
        return [nodes.Text(text)], []


def environment_variables() -> list[tuple[str, str]]:
    """(variable, meaning) of every environment variable, from ``fsengine.config``'s docstring (a
    name in capitals at the start of a line, its meaning beside it and on the indented lines below)."""
    import re

    import fsengine.config

    found: list[list[str]] = []
    for line in fsengine.config.__doc__.splitlines():
        match = re.match(r"^([A-Z][A-Z0-9_]+)\s+(.*)$", line)
        if match:
            found.append([match.group(1), match.group(2).strip()])
        elif found and line.startswith(" ") and line.strip():
            found[-1][1] += " " + line.strip()
        elif found and not line.strip():
            break
    return [(name, text) for name, text in found]


class EnvironmentDirective(SphinxDirective):
    """``{fsengine-environment}``: every environment variable fsengine reads and what it means."""

    def run(self):
        import fsengine.config

        self.env.note_dependency(fsengine.config.__file__)
        rows = [[[nodes.literal(text=name)], text.replace("``", "")] for name, text in environment_variables()]
        return [_table(["variable", "meaning"], rows, [25, 75])]


def setup(app):
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    app.add_directive("fsengine-methods", MethodsDirective)
    app.add_directive("fsengine-method-keys", MethodKeysDirective)
    app.add_role("fsengine-page", PageRole())
    app.add_role("fsengine-value", ValueRole())
    app.add_directive("fsengine-environment", EnvironmentDirective)
    app.connect("builder-inited", write_pages, priority=400)  # before autosummary reads api/
    app.connect("build-finished", finish_offline)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
