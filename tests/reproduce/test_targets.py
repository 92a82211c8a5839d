"""Every reproduce target in its CI-sized form (``--quick``) on the real shared data.

Parametrised over ``fsengine.reproduce.TARGETS``, so a target registered later is covered by
this test as it lands. Real-data policy of ``require_real``: with FSENGINE_DATA set a missing
file fails the test, without it the test skips. The targets' own tests check their numbers; this
one checks the contract (each quick run is shared with the target's own test through the
session fixture ``quick_reproduction``): a markdown report in the output folder that names its quick command,
figures that exist, and no dangling links.
"""

import re

import pytest

from fsengine.cli import main
from fsengine.reproduce import TARGETS, target_names
from tests.reproduce import quick_run_params


@pytest.mark.realdata
@pytest.mark.parametrize("name", quick_run_params(target_names()))
def test_quick_reproduction_writes_a_linked_report(name, quick_reproduction):
    report, fractions = quick_reproduction(name)
    tmp_path = report.parent
    assert report.suffix == ".md" and report.parent.name.startswith(name)
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# ") and f"reproduce {name}" in text and "--quick" in text
    assert fractions and all(0.0 <= f <= 1.0 for f in fractions) and fractions == sorted(fractions)
    figures = list(tmp_path.rglob("*.html"))
    assert figures, "a reproduction writes its figures as HTML"
    for link in re.findall(r"\]\(([^)#\s]+)\)", text):
        if not re.match(r"[a-z]+://", link):
            assert (tmp_path / link).exists(), f"{name}: report links to missing {link}"


def test_unknown_target_is_one_line_and_exit_2(capsys):
    assert main(["reproduce", "fig-99"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fsengine reproduce: error: Unknown reproduce target 'fig-99'; known targets: "
                   f"{', '.join(target_names())}"]
    assert all(len(entry) == 3 and entry[2] for entry in TARGETS.values())
