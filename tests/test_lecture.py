"""``fsengine lecture`` and :mod:`fsengine.lecture`: one folder of HTML pages with every method's
explorables, plotly.js once beside them, equations as MathML, written under the output-folder
rules. (The pages in a browser with the network blocked: tests/test_lecture_browser.py.)"""

from __future__ import annotations

import io
import re
import shlex
import stat
import zipfile
from pathlib import Path

import pytest

from fsengine.cli import build_parser, main
from fsengine.commands.output import MARKER
from fsengine.lecture import (
    BUILDERS,
    METHOD_PAGES,
    PLOTLY_JS,
    Figure,
    Pack,
    Page,
    lecture_pages,
    mathml,
    pack_zip,
    paragraph,
)


@pytest.fixture(scope="module")
def pack_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("lecture") / "digits"
    assert main(["lecture", "--data", "digits", "--classes", "3,8", "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_one_page_per_method_and_plotly_js_once(pack_folder):
    names = sorted(p.name for p in pack_folder.iterdir())
    assert names == sorted([MARKER, "index.html", PLOTLY_JS] + [f"{key}.html" for key in METHOD_PAGES])
    index = (pack_folder / "index.html").read_text()
    for key in METHOD_PAGES:
        page = (pack_folder / f"{key}.html").read_text()
        assert f'<a href="{key}.html">' in index
        assert page.count(f'<script src="{PLOTLY_JS}"') == 1  # loaded from beside the page ...
        assert "https://" not in page.replace("https://plot.ly", "")  # ... never from the network
        assert len(page) < 1_000_000 and "Plotly.newPlot" in page  # ... and never inlined
        assert "sliders" in page, f"{key}: no explorable"
        assert "<math" in page and "merror" not in page, f"{key}: an equation did not convert"
    assert (pack_folder / PLOTLY_JS).stat().st_size > 1_000_000


@pytest.mark.slow
def test_the_pack_can_be_opened_by_others(pack_folder):
    mode = pack_folder.stat().st_mode
    assert mode & stat.S_IROTH and mode & stat.S_IXOTH, oct(mode)
    assert all(p.stat().st_mode & stat.S_IROTH for p in pack_folder.iterdir())


def test_output_folder_rules(tmp_path, capsys):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    assert main(["lecture", "--data", "digits", "--out", str(foreign)]) == 2  # refused before computing
    assert "--force" in capsys.readouterr().err and (foreign / "notes.txt").read_text() == "keep"
    assert main(["lecture", "--data", "digits", "--pages", "l1,nope", "--out", str(tmp_path / "x")]) == 2
    assert "choose from" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert main(["lecture", "--data", "digits", "--pages", "l1", "--out", str(foreign), "--force"]) == 0
    assert sorted(p.name for p in foreign.iterdir()) == sorted([MARKER, "index.html", "l1.html", PLOTLY_JS])


def test_regression_data_get_the_pages_that_apply():
    from fsengine.data import load_dataset

    ds = load_dataset("synthetic_glm", family="linear", n=120, p=12)
    pack = lecture_pages(ds, methods=["bia", "l1"])
    assert [p.key for p in pack.pages] == ["bia"]
    assert "regression" in pack.skipped["l1"]
    assert set(METHOD_PAGES) == set(BUILDERS)


def test_equations_are_mathml_and_text_is_escaped():
    assert mathml(r"\frac{a}{b}").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
    text = paragraph("a <b> & $x^2$ and **bold**")
    assert text.startswith("a &lt;b&gt; &amp; <math") and "<b>bold</b>" in text


def test_pack_zip_holds_one_folder(tmp_path):
    import plotly.graph_objects as go

    page = Page("demo", "Demo", "nobody", ("one $x$",), ("y = x",), (Figure(go.Figure(go.Bar(y=[1])), "cap"),))
    data = pack_zip(Pack("demo data", "3 rows", (page,), (), {}), name="pack")
    names = sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())
    assert names == ["pack/demo.html", "pack/index.html", f"pack/{PLOTLY_JS}"]
    html = zipfile.ZipFile(io.BytesIO(data)).read("pack/demo.html").decode()
    assert re.search(r"<nav>.*Contents", html)


#: the getting-started pages of the documentation site that show the lessons and the lecture pack
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "getting-started"


def guide_page(name: str) -> str:
    return (GUIDE / name).read_text(encoding="utf-8")


def test_the_guides_commands_for_jupyter_and_teaching_offline_parse():
    """Every ``fsengine ...`` line the getting-started pages on the lessons and the lecture pack show
    is accepted by the command line as written (argparse exits with status 2 on a wrong option)."""
    lines = [line.split("  #")[0] for name in ("notebooks.md", "lecture.md")
             for line in guide_page(name).splitlines() if line.startswith("fsengine ")]
    assert sum(line.startswith("fsengine lecture ") for line in lines) >= 2, lines
    parser = build_parser()
    for line in lines:
        args = parser.parse_args(shlex.split(line)[1:])
        assert args.command == shlex.split(line)[1]


def test_the_guide_lists_what_a_pack_holds():
    section = guide_page("lecture.md")
    for name in ["index.html", PLOTLY_JS] + [f"{key}.html" for key in METHOD_PAGES]:
        assert f"`{name}`" in section, f"docs/getting-started/lecture.md does not name {name}"
    assert "FigureWidget" not in guide_page("notebooks.md")  # the lessons use no widget figures


def test_the_unified_page_teaches_on_the_planted_task_whatever_the_dataset():
    """The unified criterion's page runs on lesson 7's planted XOR task (where the members differ),
    also for regression data, with beta, gamma and the normalisation as its figure's sliders and a
    caption whose numbers are the study's."""
    from fsengine.data import load_dataset
    from fsengine.data.synthetic.xor import make_xor_redundant
    from fsengine.lecture import page_html
    from fsengine.methods.information import study

    ds = load_dataset("synthetic_glm", family="linear", n=120, p=12)
    pack = lecture_pages(ds, methods=["unified"])
    (page,) = pack.pages
    assert page.key == "unified" and "planted task, not the pack's dataset" in page.data
    fig = page.figures[0].figure
    assert [s.name for s in fig.layout.sliders] == ["beta", "gamma", "normalisation"]
    grid = study.unified_grid(make_xor_redundant(**study.LESSON_TASK))
    assert study.members_sentence(grid, study.grid_summary(grid)) in page.figures[0].caption
    html = page_html(pack, page)
    assert "Data: lesson 7&#x27;s planted task" in html and "<math" in html and "merror" not in html
