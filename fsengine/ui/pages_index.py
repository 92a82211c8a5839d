"""The pages ``app.py`` lists, read from its source (no Streamlit import, no execution).

Home uses it to link every page with the one-line summary from the page's docstring
("Title: summary"); the browser smoke test uses it to open every page. Adding a page to
``PAGES`` in ``app.py`` is therefore enough for both.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ..config import PROJECT_ROOT

APP_FILE = PROJECT_ROOT / "app.py"


@dataclass(frozen=True)
class PageEntry:
    """One ``st.Page`` of ``PAGES``: file (relative to the project), title, icon, URL path."""

    path: str
    title: str
    icon: str | None
    url_path: str
    default: bool
    summary: str


def _constant(node):
    return node.value if isinstance(node, ast.Constant) else None


def _page_calls(value: ast.AST) -> list[ast.Call]:
    """``st.Page(...)`` calls in a list literal or a dict of list literals (sections)."""
    if isinstance(value, ast.Dict):
        return [c for v in value.values for c in _page_calls(v)]
    if isinstance(value, (ast.List, ast.Tuple)):
        return [e for e in value.elts if isinstance(e, ast.Call) and getattr(e.func, "attr", None) == "Page"]
    return []


def default_url_path(path: str) -> str:
    """Streamlit's URL path for a page file: the file stem without a leading number prefix."""
    return re.sub(r"^[0-9]+[_\- ]*", "", Path(path).stem)


def page_summary(path: Path) -> str:
    """First docstring line of a page file, without a leading ``Title:``."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    head, sep, rest = first.partition(": ")
    text = rest.strip() if sep and len(head.split()) <= 4 else first.strip()
    return text[:1].upper() + text[1:]


def listed_pages(app_file: Path = APP_FILE) -> list[PageEntry]:
    """Every page in ``PAGES`` of ``app_file``, in order."""
    tree = ast.parse(Path(app_file).read_text(encoding="utf-8"))
    root = Path(app_file).parent
    pages = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets)):
            continue
        for call in _page_calls(node.value):
            path = _constant(call.args[0]) if call.args else None
            if not isinstance(path, str):
                continue
            kw = {k.arg: _constant(k.value) for k in call.keywords}
            title = kw.get("title") or default_url_path(path).replace("_", " ").title()
            default = bool(kw.get("default"))
            url = "" if default else (kw.get("url_path") or default_url_path(path))
            pages.append(PageEntry(path, title, kw.get("icon"), url, default, page_summary(root / path)))
    return pages
