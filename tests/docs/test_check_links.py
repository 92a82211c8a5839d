"""The documentation site's link checker (docs/check_links.py, run by ``make docs``) finds what it
is there to find: a missing page, a missing anchor and a script from the network."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def check_links():
    spec = importlib.util.spec_from_file_location("check_links", ROOT / "docs" / "check_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    for name, body in pages.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"<html><head></head><body>{body}</body></html>")
    return tmp_path


def test_a_whole_site_passes(check_links, tmp_path):
    site = _site(tmp_path, {"index.html": '<a href="a/b.html#x">b</a> <a href="https://example.org">out</a>',
                            "a/b.html": '<h2 id="x">x</h2><a href="../index.html">up</a><a href="#">top</a>',
                            "a/data.csv": ""})
    assert check_links.problems(site) == []
    assert check_links.main([str(site)]) == 0


@pytest.mark.parametrize("body, problem", [
    ('<a href="missing.html">m</a>', "names a missing file"),
    ('<a href="index.html#nowhere">m</a>', "names a missing anchor"),
    ('<script src="https://cdn.plot.ly/plotly.min.js"></script>', "loads from the network"),
    ('<link rel="stylesheet" href="//fonts.example/x.css">', "loads from the network"),
    ('<img src="../outside.png">', "names a missing file"),
])
def test_each_kind_of_problem_is_found(check_links, tmp_path, body, problem):
    site = _site(tmp_path, {"index.html": body})
    found = check_links.problems(site)
    assert len(found) == 1 and problem in found[0]
    assert check_links.main([str(site)]) == 1
