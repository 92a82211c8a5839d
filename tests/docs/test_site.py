"""The built documentation site (``make docs`` builds it into ``docs/_build/html`` and then runs this
file with ``FSENGINE_DOCS_SITE`` set): no internal link is broken and nothing loads from the
network, so it opens from ``file://``; every page of the getting-started and user-guide sections is
built and is real content; every committed record has its page; every registered method has its
parameter table; the lessons carry their live figures.

Without ``FSENGINE_DOCS_SITE`` the tests run on an existing build and skip when there is none (the
site needs the ``docs`` extra; ``make test`` does not install it). With it set, a missing site fails.
"""

from __future__ import annotations

import importlib.util
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: the hand-written sections whose every page must be built and be prose, not a stub
WRITTEN = ("getting-started", "user-guide")
#: words that mark an unfinished page
PLACEHOLDER = re.compile(r"\b(TODO|TBD|FIXME|XXX|coming soon|placeholder|lorem ipsum|to be written)\b", re.I)


@pytest.fixture(scope="module")
def site() -> Path:
    required = os.environ.get("FSENGINE_DOCS_SITE")
    path = Path(required) if required else DOCS / "_build" / "html"
    if not (path / "index.html").is_file():
        if required:
            pytest.fail(f"FSENGINE_DOCS_SITE={required}: no built site there (run make docs)")
        pytest.skip("no built site: make docs builds it and runs these tests")
    return path


class _Text(HTMLParser):
    """The text of a page's article (the theme's navigation left out)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth or (tag == "article" and "bd-article" in (dict(attrs).get("class") or "")):
            self.depth += tag not in {"br", "img", "hr", "input", "meta", "link", "col", "wbr"}

    def handle_endtag(self, tag):
        if self.depth and tag not in {"br", "img", "hr", "input", "meta", "link", "col", "wbr"}:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def article_text(page: Path) -> str:
    parser = _Text()
    parser.feed(page.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).split())


def written_pages() -> list[Path]:
    return sorted(p for section in WRITTEN for p in (DOCS / section).rglob("*.md"))


def test_no_internal_link_is_broken_and_nothing_loads_from_the_network(site):
    spec = importlib.util.spec_from_file_location("check_links", DOCS / "check_links.py")
    check_links = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_links)
    assert check_links.problems(site) == []


@pytest.mark.parametrize("source", written_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_written_page_is_built_and_is_real_content(site, source):
    page = site / source.relative_to(DOCS).with_suffix(".html")
    assert page.is_file(), f"{source} was not built"
    text = article_text(page)
    assert not PLACEHOLDER.search(text), f"{page}: {PLACEHOLDER.search(text).group(0)!r}"
    # an index page is a short map of its section; every other page explains something
    assert len(text.split()) >= (60 if source.stem == "index" else 150), (page, len(text.split()))


def test_every_committed_record_has_its_page_and_a_place_on_the_results_page(site):
    targets = sorted(p.parent.name for p in (DOCS / "results").glob("*/results.json"))
    assert targets
    results = (site / "results.html").read_text(encoding="utf-8")
    for name in targets:
        assert (site / "records" / name / "index.html").is_file(), name
        assert f'href="records/{name}/index.html"' in results, name


def test_every_registered_method_has_its_table_in_the_guide(site):
    from fsengine.methods.registry import METHODS

    text = " ".join(article_text(p) for p in (site / "user-guide" / "methods").glob("*.html"))
    for key, spec in METHODS.items():
        assert f"--method {key}" in text, key
        for param in spec.params:
            assert param.label in text, (key, param.name)


def test_the_lessons_carry_their_live_figures(site):
    lessons = sorted((site / "lessons").glob("0*.html"))
    assert len(lessons) == len(list((ROOT / "notebooks").glob("0*.ipynb")))
    for page in lessons:
        html = page.read_text(encoding="utf-8")
        assert "Plotly.newPlot" in html and "cdn.plot.ly" not in html, page.name
