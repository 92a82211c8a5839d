"""``make test``'s serial part collects only the files that hold serial tests, as listed by the parallel
part's collection (``--serial-files``, tests/conftest.py): a file is listed when any of its tests is
marked serial (one test's mark or the module's ``pytestmark``), whatever ``-m`` then deselects."""

import re

import pytest

from tests.conftest import PROJECT_ROOT

#: a module whose pytestmark is serial, one with a single serial test, one with none
FILES = ["tests/test_parallel_interrupt.py", "tests/commands/test_app.py", "tests/test_progress.py"]


def test_the_list_names_every_file_with_a_serial_test_before_deselection(tmp_path):
    listed = tmp_path / "serial-files.txt"
    code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-m", "not serial",
                        f"--rootdir={PROJECT_ROOT}", f"--serial-files={listed}",
                        *(str(PROJECT_ROOT / f) for f in FILES)])
    assert code == pytest.ExitCode.OK
    assert listed.read_text(encoding="utf-8").splitlines() == sorted(FILES[:2])
    assert not list(tmp_path.glob("*.partial"))


def test_make_tests_serial_parts_collect_the_listed_files():
    recipe = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    listed = re.search(r"^SERIAL_FILES := (\S+)$", recipe, re.M)
    assert listed
    for target in ("test", "test-fast"):
        body = re.search(rf"^{target}: .*\n((?:\t.*\n)+)", recipe, re.M).group(1).replace("\\\n", "")
        parallel, serial = [line for line in body.splitlines() if "-m pytest" in line]
        assert "-n $(TEST_WORKERS)" in parallel and "--serial-files=$(SERIAL_FILES)" in parallel, target
        assert '-m "serial and' in serial and serial.endswith("$$(cat $(SERIAL_FILES) 2>/dev/null)"), target
