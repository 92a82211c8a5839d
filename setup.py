"""Build hook (everything else is in pyproject.toml): ship the recorded paper reproductions.

The pages read recorded tables of ``fsengine reproduce`` runs (e.g. the RTM accuracy table). In a
checkout they sit in ``docs/results/TARGET/``; the wheel carries their data files (CSV, JSON,
markdown reports; not the HTML figures) as ``fsengine/recorded/TARGET/``, where
:func:`fsengine.config.results_dir` finds them in an installed package.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RECORDED_FILES = ("*.csv", "*.json", "*.md")


class BuildWithRecordedResults(build_py):
    def run(self):
        super().run()
        source = Path(__file__).resolve().parent / "docs" / "results"
        target = Path(self.build_lib) / "fsengine" / "recorded"
        for path in sorted(source.glob("*/*")):
            if path.is_file() and any(path.match(pattern) for pattern in RECORDED_FILES):
                dest = target / path.relative_to(source)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)


setup(cmdclass={"build_py": BuildWithRecordedResults})
