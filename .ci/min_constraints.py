"""Print the lowest versions pyproject.toml allows, as pip constraints (``name==floor``).

``make test-min`` installs the project with these constraints and runs the fast tests, so every
declared floor is one that actually works.
"""

import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
requirements = list(project["dependencies"])
for extra in sys.argv[1:]:
    requirements += project["optional-dependencies"][extra]
for requirement in requirements:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)\s*", requirement)
    if match:
        print(f"{match.group(1)}=={match.group(3)}")
