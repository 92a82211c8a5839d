"""The rtm-roc record's figures (built by :mod:`fsengine.plots.rtm`): the ROC, AUC and convergence
of the synthetic study and the accuracy table of the corpora."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsengine.methods.rtm import study as rtm_study
from fsengine.plots import rtm as rtm_plots
from fsengine.reproduce.results import write_figure


def write_synthetic_figures(out_dir: Path, roc) -> None:
    """``roc.html`` (seed 0), ``auc.html`` (every seed) and ``convergence.html`` (traces of seed 0)."""
    write_figure(rtm_plots.roc_figure(roc.curves, roc.auc.iloc[0].to_dict(),
                                title=f"Tag relevance ROC, seed {roc.auc.index[0]}"), out_dir / "roc.html")
    write_figure(rtm_plots.auc_figure(roc.auc), out_dir / "auc.html")
    write_figure(rtm_plots.convergence_figure(roc.traces, tol=1e-4), out_dir / "convergence.html")


def write_accuracy_figure(out_dir: Path, table: pd.DataFrame, results: dict) -> None:
    """``accuracy.html``: every method's accuracy per corpus with its interval."""
    labels = [rtm_study.CORPORA[k].label for k in results]
    low = table[[f"{c} low" for c in labels]].set_axis(labels, axis=1)
    high = table[[f"{c} high" for c in labels]].set_axis(labels, axis=1)
    write_figure(rtm_plots.accuracy_figure(table[labels], low=low, high=high), out_dir / "accuracy.html")
