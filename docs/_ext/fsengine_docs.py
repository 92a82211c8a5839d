"""fsengine's own Sphinx extension: math as MathML, and the pages written at build time.

* ``html_math_renderer = "mathml"``: every ``$...$`` and ``$$...$$`` is converted to MathML by
  ``latex2mathml`` (the lecture pack's converter), which browsers draw natively: no MathJax from a
  CDN, so the site's equations show from ``file://`` with no network.
* ``lessons/``: the notebooks of ``notebooks/`` copied in (myst-nb executes them, cached).
* ``records/<target>/``: one page per committed record in ``docs/results/<target>/``, rendered from
  its ``results.json`` (every row: estimate, interval, level, method, verdict) and followed by its
  ``report.md``; the record's figures and CSV files are copied beside the page.
* ``api/<module>.rst``: the API reference of the public surface, one page per public module listing
  its ``__all__`` (autosummary then writes one page per name), and ``api/cli.rst``: every command's
  ``--help``, from the parser itself.
* ``plotly.min.js``: the local copy the lessons' figures use, from the installed plotly.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from latex2mathml.converter import convert

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
    lines = ["---", "myst:", "  all_links_external: true", "---", "", f"# {title}", "", f"Target `{record['target']}`, made by `{record.get('command', '')}`"
             + (" (quick run)" if record.get("quick") else "") + ".", "",
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
    _write_if_changed(API / "modules.rst", "\n".join([".. toctree::", "   :maxdepth: 1", "", *(f"   {m}" for m in modules),
                                                       "   cli", ""]))
    _write_if_changed(API / "cli.rst", cli_page())

    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", DOCS / "_static" / "plotly.min.js")
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        target = GENERATED_LESSONS / notebook.name
        if not target.exists() or target.read_bytes() != notebook.read_bytes():
            shutil.copyfile(notebook, target)
    targets = sorted(p.parent for p in RECORDS.glob("*/results.json"))
    for folder in targets:
        _write_if_changed(GENERATED_RECORDS / folder.name / "index.md", record_page(folder))
    _write_if_changed(GENERATED_RECORDS / "index.md", "\n".join([
        "# Results", "",
        "The committed full runs of the paper reproductions and the benchmark (`fsengine reproduce TARGET`). "
        "Each page is rendered from the record's `results.json`; every number in its report was formatted "
        "from the run.", "", "```{toctree}", ":maxdepth: 1", "", *(f"{f.name}/index" for f in targets), "```", ""]))


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


def setup(app):
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    app.connect("builder-inited", write_pages, priority=400)  # before autosummary reads api/
    app.connect("build-finished", finish_offline)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
