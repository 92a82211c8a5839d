"""``fsengine notebooks``: the shipped lessons copied into the user's folder, never over their edits
and never touching their other files (the wheel test checks the installed package carries them)."""

from __future__ import annotations

import os
import stat

import pytest

from fsengine.cli import main
from fsengine.commands.notebooks import title
from fsengine.files import write_whole
from tests.conftest import PROJECT_ROOT

NOTEBOOKS = sorted((PROJECT_ROOT / "notebooks").glob("*.ipynb"))


def test_list_names_every_lesson_with_its_title(capsys):
    assert main(["notebooks", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == [p.name for p in NOTEBOOKS]
    assert all(title(p) in line and title(p) != p.stem for p, line in zip(NOTEBOOKS, lines))


def test_copies_the_lessons_beside_the_users_files(tmp_path, capsys):
    out = tmp_path / "lessons"
    out.mkdir()
    (out / "my_notes.ipynb").write_text("{}")
    assert main(["notebooks", "--out", str(out)]) == 0
    assert f"{len(NOTEBOOKS)} lessons in {out} ({len(NOTEBOOKS)} copied)" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == sorted([p.name for p in NOTEBOOKS] + ["my_notes.ipynb"])
    for p in NOTEBOOKS:
        assert (out / p.name).read_bytes() == p.read_bytes()
    assert (out / "my_notes.ipynb").read_text() == "{}"
    assert main(["notebooks", "--out", str(out)]) == 0   # again: nothing to do
    assert f"({len(NOTEBOOKS)} unchanged)" in capsys.readouterr().out


def test_an_edited_lesson_is_kept_unless_forced(tmp_path, capsys):
    out = tmp_path / "lessons"
    assert main(["notebooks", "--out", str(out)]) == 0
    edited = out / NOTEBOOKS[0].name
    edited.write_text('{"cells": [], "mine": true}')
    missing = out / NOTEBOOKS[1].name
    missing.unlink()
    capsys.readouterr()
    assert main(["notebooks", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"edited copies of {NOTEBOOKS[0].name}" in err[0] and "--force" in err[0]
    assert edited.read_text() == '{"cells": [], "mine": true}' and not missing.exists()  # nothing written
    assert main(["notebooks", "--out", str(out), "--force"]) == 0
    assert "1 copied" in (said := capsys.readouterr().out) and "1 replaced" in said
    assert edited.read_bytes() == NOTEBOOKS[0].read_bytes() and missing.is_file()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("make", ["file", "below_file"])
def test_an_unusable_folder_is_one_line(tmp_path, capsys, make):
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    out = blocker if make == "file" else blocker / "sub"
    assert main(["notebooks", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "Traceback" not in err[0]


def test_copied_lessons_are_readable_by_others_as_the_umask_allows(tmp_path, capsys):
    """Students open lessons from a shared folder: the files get 0644 under umask 022 (a bare
    temporary file would be 0600)."""
    old = os.umask(0o022)
    try:
        assert main(["notebooks", "--out", str(tmp_path / "lessons")]) == 0
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "lessons").glob("*.ipynb")}
    assert modes and set(modes.values()) == {0o644}, modes


def test_write_whole_gives_an_ordinary_mode_and_leaves_nothing_on_error(tmp_path):
    old = os.umask(0o027)
    try:
        write_whole(tmp_path / "a.bin", b"data")
        assert stat.S_IMODE((tmp_path / "a.bin").stat().st_mode) == 0o640
        with pytest.raises(RuntimeError):
            write_whole(tmp_path / "a.bin", lambda fh: (_ for _ in ()).throw(RuntimeError("boom")))
    finally:
        os.umask(old)
    assert (tmp_path / "a.bin").read_bytes() == b"data"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]
