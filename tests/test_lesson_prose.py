"""The prose of every lesson (notebooks/*.ipynb) says only what its cells compute (issue 31).

A lesson's numbers are formatted by its code cells (``Markdown(f"...")``), so they are the run's.
The markdown cells may name settings (a level, a threshold, a course number), never a result: no
decimal, percentage or "N times" outside math and code, except the settings listed here. Three
sentences that once contradicted their own cells are gone: lesson 2's "two to three orders of
magnitude" (the paper timed a grammatical-relation task, not CoNLL-2000), lesson 3's "a stopping
rule that needs no held-out data" as its take-away, and lesson 1's share of top pixels where the
class means differ most (the dropped 'intuition' rule, which cannot disagree with screening).
"""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
#: numbers a markdown cell may carry: settings and names, not results
SETTINGS = ("6.867", "x > 0.5", "at 1%", "90% interval", "95% intervals")
RESULT = re.compile(r"\d+\.\d+|\d+\s?%|\b\d+x\b|\d+ times|orders? of magnitude")


def _cells(path: Path, kind: str) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == kind]


def _prose(text: str) -> str:
    """Markdown without its math and code spans, and without the named settings."""
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", "", text)
    text = re.sub(r"`[^`]*`", "", text)
    for setting in SETTINGS:
        text = text.replace(setting, "")
    return text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_cells_type_no_result(path):
    for text in _cells(path, "markdown"):
        found = RESULT.findall(_prose(text))
        assert not found, f"{path.name}: a markdown cell types {found}; format it from the cells instead"


def test_the_sentences_that_contradicted_their_cells_are_gone():
    text = {p.stem: "\n".join(_cells(p, "markdown") + _cells(p, "code")) for p in NOTEBOOKS}
    assert "two to three orders of magnitude" not in text["02_sgc_vs_ifs"]
    assert "PAPER_TIMED" in text["02_sgc_vs_ifs"]  # what the paper timed, from the one place it is written
    assert "stopping rule that needs no held-out data" not in text["03_bayes_factor"]
    assert "recorded_stops()" in text["03_bayes_factor"]  # the take-away sets the record beside the cells
    assert "discriminative_share" not in text["01_bia"] and "screening_comparison" in text["01_bia"]
    assert "cv=3" in text["04_classic_criteria"] and "best held-out accuracy" not in text["04_classic_criteria"]


def test_the_paper_timing_names_the_task_it_timed():
    from fsengine.methods.gain.study import PAPER_SPEEDUP, PAPER_TIMED

    paper = (Path(__file__).resolve().parents[1].parent / "shared" / "papers" / "002_a2a0d6c5f3b945d2.txt")
    assert "191,098" in PAPER_TIMED and "grammatical-relation" in PAPER_TIMED and "100 times" in PAPER_SPEEDUP
    if paper.is_file():  # the source text, where this checkout sits beside it
        source = paper.read_text(encoding="utf-8")
        assert "191,098 features" in source and "from more than 100 times to thousands" in source
