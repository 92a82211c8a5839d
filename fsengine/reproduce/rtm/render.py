"""The rtm-roc record rendered from its raw files: ``results.json``, ``report.md`` and
``accuracy.html``. The run renders its record this way after every corpus, so :func:`rerender`
gives back a run's own outputs byte for byte, and a record picks up later changes to the report's
statistics or wording without computing again."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from fsengine.methods.rtm import study as rtm_study
from fsengine.reproduce import results as results_file
from fsengine.reproduce.rtm.data import read_cv_results, read_synthetic, write_cv
from fsengine.reproduce.rtm.figures import write_accuracy_figure
from fsengine.reproduce.rtm.plan import SYNTHETIC_FULL, SYNTHETIC_QUICK, grid_inputs
from fsengine.reproduce.rtm.report import DURATION, report
from fsengine.reproduce.rtm.statistics import result_rows


def render(out_dir: Path, quick: bool, synth: dict, roc, results: dict, missing: list,
           note: str = "", seconds: float | None = None, processes: str = "") -> None:
    """CSVs of the raw numbers, accuracy figure, ``results.json`` and ``report.md`` from what has
    run so far."""
    write_cv(out_dir, results)
    folds = {key: r.folds for key, r in results.items()}
    table = rtm_study.accuracy_table(folds) if results else pd.DataFrame()
    if results:
        write_accuracy_figure(out_dir, table, results)
    sections = result_rows(roc.auc, results)
    rows = [r for part in sections.values() for r in part]
    results_file.write(out_dir, "rtm-roc", quick, {
        "synthetic": {**synth, "seeds": list(synth["seeds"]), "prior": "Beta(5, 5)"},
        "corpora": {k: {"label": rtm_study.CORPORA[k].label, "documents": int(r.folds.n_docs.iloc[0]),
                        "folds": int(r.folds.fold.nunique())} for k, r in results.items()},
        "variants": [c for c in roc.auc.columns if c.startswith("RTM")],
        "baselines": list(rtm_study.BASELINES),
        "sensitivity": grid_inputs(quick),
        "cap_rerun_factor": rtm_study.CAP_RERUN_FACTOR}, rows)
    text = report(quick, synth, roc, results, table, missing, sections, note=note, seconds=seconds,
                  processes=processes)
    (out_dir / "report.md").write_text(text)


def rerender(out_dir: Path, note: str = "") -> Path:
    """Rewrite ``report.md``, ``results.json`` and ``accuracy.html`` of a run from its CSVs
    (``synthetic_auc.csv``, ``synthetic_fits.csv``, ``synthetic_seconds.csv``, ``accuracy_folds.csv``, and when present
    ``cap_reruns.csv`` and ``sensitivity_folds.csv``) with this code's words, keeping the run's
    duration and ``quick`` flag; ``note`` (e.g. which run, what it lacks) is printed under the
    verdict. A run's own outputs come back unchanged (tested): this is how a finished run's
    report picks up later changes to the report's wording without computing again."""
    out_dir = Path(out_dir)
    roc = read_synthetic(out_dir)
    results = read_cv_results(out_dir)
    took = DURATION.search((out_dir / "report.md").read_text()) if (out_dir / "report.md").is_file() else None
    quick = bool(json.loads((out_dir / results_file.FILENAME).read_text())["quick"])
    render(out_dir, quick, SYNTHETIC_QUICK if quick else SYNTHETIC_FULL, roc, results, [], note=note,
           seconds=float(took.group(1).replace(",", "")) if took else None,
           processes=took.group(2) if took else "")
    return out_dir / "report.md"
