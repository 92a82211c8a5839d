""".ci/min_constraints.py: every requirement of pyproject.toml becomes a ``name==floor`` constraint
for the lowest-versions run (``make test-min``), or the script refuses."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from tests.conftest import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / ".ci" / "min_constraints.py"


def _run(pyproject) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(pyproject)], capture_output=True, text=True)


def test_floors_of_dependencies_and_every_extra_with_markers_and_duplicates(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("""
[project]
name = "fsengine"
dependencies = ["NumPy >= 1.26, <3", "foo[bar]>=2.0; python_version < '3.12'", "Foo_Baz>=1.0"]
[project.optional-dependencies]
test = ["foo-baz>=1.2", "pytest>=8.0"]
notebooks = ["nbclient>=0.10", "fsengine[test]"]
""")
    done = _run(pyproject)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "foo==2.0; python_version < '3.12'",   # the marker is kept
        "foo-baz==1.2",                        # listed twice: the higher floor
        "nbclient==0.10",                      # every extra, not only test
        "numpy==1.26",                         # an upper bound beside the floor is fine
        "pytest==8.0",
    ]


def test_a_requirement_without_a_floor_is_refused_by_name(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\ndependencies = ["numpy>=1.26", "dask[array]"]\n')
    done = _run(pyproject)
    assert done.returncode != 0 and not done.stdout
    assert "'dask[array]'" in done.stderr and "no single '>=' floor" in done.stderr


def test_the_project_itself_gets_one_constraint_per_declared_package():
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    names = {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in declared}
    names.discard(project["name"])
    done = _run(PROJECT_ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stderr
    constrained = {line.split("==")[0] for line in done.stdout.splitlines()}
    assert constrained == names
