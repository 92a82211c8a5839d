"""Print the lowest versions pyproject.toml allows, as pip constraints (``name==floor``).

``make test-min`` installs the project with these constraints and runs the fast tests, so every
declared floor is one that actually works.

Every requirement pyproject declares is covered: the runtime dependencies and every optional
extra (a constraint only acts on a package that is installed, so listing all extras is harmless).
A requirement without a ``>=`` floor is an error, not skipped: each dependency must declare the
lowest version it was tested with. Environment markers are kept on the constraint; a package
listed twice with different floors gets the higher one (the lower could never be installed with
both). Usage: ``python .ci/min_constraints.py [pyproject.toml] > constraints.txt``.
"""

import re
import sys
import tomllib
from pathlib import Path

REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_.\-]*)\s*(\[[^\]]*\])?\s*(?P<spec>[^;]*?)\s*(;\s*(?P<marker>.+?))?\s*"
)


def normalized(name: str) -> str:
    """PEP 503 name: case and runs of ``-_.`` do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def version_key(version: str) -> tuple:
    """Ordering of plain release versions (``1.11.1`` > ``1.11``); enough to pick the higher floor."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0]))


def floors(project: dict) -> dict[tuple[str, str], str]:
    """``{(name, marker): floor}`` for every requirement of the project (dependencies + all extras)."""
    own = normalized(project["name"])
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    found: dict[tuple[str, str], str] = {}
    for requirement in requirements:
        match = REQUIREMENT.fullmatch(requirement)
        if match is None:
            raise SystemExit(f"min_constraints: cannot read the requirement {requirement!r} in pyproject.toml")
        name = normalized(match["name"])
        if name == own:  # an extra that pulls in other extras of the project itself
            continue
        lowest = [s.strip()[2:].strip() for s in match["spec"].split(",") if s.strip().startswith(">=")]
        if len(lowest) != 1 or not re.fullmatch(r"[0-9][0-9A-Za-z.+!\-]*", lowest[0]):
            raise SystemExit(
                f"min_constraints: {requirement!r} in pyproject.toml has no single '>=' floor; "
                "declare the lowest version that works (e.g. 'name>=1.2') so the lowest-versions run tests it"
            )
        key = (name, (match["marker"] or "").strip())
        if key not in found or version_key(lowest[0]) > version_key(found[key]):
            found[key] = lowest[0]
    return found


def main(argv: list[str]) -> None:
    path = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "pyproject.toml"
    for (name, marker), floor in sorted(floors(tomllib.loads(path.read_text())["project"]).items()):
        print(f"{name}=={floor}" + (f"; {marker}" if marker else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
