"""The raw numbers of an rtm-roc run, written beside ``results.json`` and read back from there
(every reported number is computed from them: :mod:`fsengine.reproduce.rtm.render`):
``synthetic_auc.csv``, ``synthetic_fits.csv``, ``synthetic_seconds.csv``, ``accuracy_folds.csv``,
``cap_reruns.csv`` and ``sensitivity_folds.csv``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsengine.csv_export import read_csv, to_csv
from fsengine.methods.rtm import study as rtm_study

#: the column of ``synthetic_seconds.csv``: each method's training seconds, mean over seeds
SECONDS_COLUMN = "mean seconds per seed"


def corpus_frame(results: dict, attr: str) -> pd.DataFrame:
    parts = [getattr(r, attr).assign(corpus=key) for key, r in results.items() if not getattr(r, attr).empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def write_synthetic(out_dir: Path, roc) -> None:
    """``synthetic_auc.csv``, ``synthetic_fits.csv`` and ``synthetic_seconds.csv`` of the synthetic study."""
    to_csv(roc.auc, out_dir / "synthetic_auc.csv")
    to_csv(roc.fits, out_dir / "synthetic_fits.csv", index=False)
    to_csv(pd.DataFrame({"method": list(roc.seconds), SECONDS_COLUMN: list(roc.seconds.values())}),
           out_dir / "synthetic_seconds.csv", index=False)


def read_synthetic(out_dir: Path) -> rtm_study.RocResult:
    """The synthetic study back from its CSVs (AUC per seed, the fits, the mean seconds; no curves)."""
    out_dir = Path(out_dir)
    roc = rtm_study.RocResult(auc=read_csv(out_dir / "synthetic_auc.csv", index_col=0),
                              fits=read_csv(out_dir / "synthetic_fits.csv"))
    times = read_csv(out_dir / "synthetic_seconds.csv")
    roc.seconds.update(zip(times.method, times[SECONDS_COLUMN]))
    return roc


def write_cv(out_dir: Path, results: dict) -> None:
    """``accuracy_folds.csv``, ``cap_reruns.csv`` and ``sensitivity_folds.csv`` of the corpora run so far."""
    for name, attr in (("accuracy_folds.csv", "folds"), ("cap_reruns.csv", "reruns"),
                       ("sensitivity_folds.csv", "sensitivity")):
        frame = corpus_frame(results, attr)
        if frame.empty:
            frame = pd.DataFrame(columns=["corpus", "fold", "method", "n_test", "n_correct", "accuracy"])
        to_csv(frame, out_dir / name, index=False)


def read_cv_results(out_dir: Path) -> dict:
    """The corpora's CV results back from a run's ``accuracy_folds.csv``, ``cap_reruns.csv`` and
    ``sensitivity_folds.csv``."""
    def read(name):
        path = Path(out_dir) / name
        return read_csv(path) if path.is_file() and path.stat().st_size > 1 else pd.DataFrame(columns=["corpus"])

    folds, reruns, grid = read("accuracy_folds.csv"), read("cap_reruns.csv"), read("sensitivity_folds.csv")
    results = {}
    for key, df in folds.groupby("corpus", sort=False):
        def part(frame):
            return frame[frame.corpus == key].drop(columns="corpus").reset_index(drop=True)

        results[key] = rtm_study.CVResult(part(df), part(reruns), part(grid))
    return results
