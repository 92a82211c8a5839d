"""Build hook (everything else is in pyproject.toml): ship the recorded paper reproductions and
the teaching notebooks.

The pages read recorded tables of ``fsengine reproduce`` runs (e.g. the RTM accuracy table). In a
checkout they sit in ``docs/results/TARGET/``; the wheel carries their data files (CSV, JSON,
markdown reports; not the HTML figures) as ``fsengine/recorded/TARGET/``, where
:func:`fsengine.config.results_dir` finds them in an installed package. The lessons
(``notebooks/*.ipynb``) go to ``fsengine/lessons/`` (:func:`fsengine.config.lessons_dir`), from where
``fsengine notebooks`` copies them to the user's folder.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RECORDED_FILES = ("*.csv", "*.json", "*.md")


ROOT = Path(__file__).resolve().parent


class BuildWithRecordedResultsAndLessons(build_py):
    def run(self):
        super().run()
        source = ROOT / "docs" / "results"
        package = Path(self.build_lib) / "fsengine"
        for path in sorted(source.glob("*/*")):
            if path.is_file() and any(path.match(pattern) for pattern in RECORDED_FILES):
                dest = package / "recorded" / path.relative_to(source)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
        (package / "lessons").mkdir(parents=True, exist_ok=True)
        for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
            shutil.copy2(path, package / "lessons" / path.name)


setup(cmdclass={"build_py": BuildWithRecordedResultsAndLessons})
