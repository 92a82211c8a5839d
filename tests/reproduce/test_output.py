"""``fsengine reproduce --out`` follows the output rules of ``select`` and ``compare``: the folder is
checked before anything is computed and replaced whole only when the run completes, so an
interrupted or failing run leaves the previous record complete. The committed records carry the
marker that lets ``reproduce TARGET`` (default ``--out docs/results/TARGET``) replace them."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsengine.cli import main
from fsengine.commands import reproduce as reproduce_command
from fsengine.commands.output import MARKER
from fsengine.reproduce import recorded_target_names
from tests.conftest import PROJECT_ROOT as ROOT


def _fake_target(calls: list, fail_after_writing: bool = False):
    def run(out_dir: Path, quick: bool, progress) -> Path:
        calls.append(out_dir)
        (out_dir / "figure.html").write_text("<html></html>")
        progress(0.5, "half way")
        if fail_after_writing:
            raise RuntimeError("the solver diverged")
        (out_dir / "report.md").write_text(f"# fake\nquick={quick}\n")
        return out_dir / "report.md"
    return run


@pytest.fixture
def fake(monkeypatch):
    calls = []

    def use(**kw):
        monkeypatch.setattr(reproduce_command, "get_target", lambda name: _fake_target(calls, **kw))
        return calls
    return use


def test_a_completed_run_replaces_the_folder_whole_and_names_the_final_report(tmp_path, fake, capsys):
    calls = fake()
    out = tmp_path / "rec"
    out.mkdir()
    (out / MARKER).write_text("{}")
    (out / "stale_figure.html").write_text("from an older version")
    assert main(["reproduce", "mdl-curve", "--quick", "--out", str(out)]) == 0
    assert calls and calls[0] != out  # written into a staging folder, then moved into place
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "figure.html", "report.md"])
    assert '"command": "reproduce mdl-curve --quick"' in (out / MARKER).read_text()
    assert capsys.readouterr().out.strip().endswith(f"report: {out / 'report.md'}")
    assert [p.name for p in tmp_path.iterdir()] == ["rec"]


def test_a_failing_run_leaves_the_previous_record_complete(tmp_path, fake, capsys):
    fake()
    out = tmp_path / "rec"
    assert main(["reproduce", "mdl-curve", "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    fake(fail_after_writing=True)
    with pytest.raises(RuntimeError, match="diverged"):
        main(["reproduce", "mdl-curve", "--out", str(out)])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["rec"]


def test_a_folder_fsengine_did_not_write_is_refused_before_computing(tmp_path, fake, capsys):
    calls = fake()
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("precious")
    assert main(["reproduce", "mdl-curve", "--out", str(mine)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already holds files fsengine did not write (chapter1.tex)" in err[0]
    assert "--force" in err[0] and calls == []
    assert [p.name for p in mine.iterdir()] == ["chapter1.tex"]
    assert main(["reproduce", "mdl-curve", "--out", str(mine), "--force"]) == 0
    assert sorted(p.name for p in mine.iterdir()) == sorted([MARKER, "figure.html", "report.md"])


@pytest.mark.parametrize("name", recorded_target_names())
def test_committed_records_can_be_replaced_by_their_command(name):
    marker = ROOT / "docs" / "results" / name / MARKER
    assert marker.is_file(), f"docs/results/{name} lacks {MARKER}: `fsengine reproduce {name}` would refuse it"
    assert f'"command": "reproduce {name}"' in marker.read_text()
