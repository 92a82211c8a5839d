"""The sgc-vs-ifs record's figures (built by :mod:`fsengine.plots.gain`): Figs. 3-5 of the paper,
the gain per stage and the overlap of the selections."""

from __future__ import annotations

from pathlib import Path

from fsengine.methods.gain.study import (
    Comparison,
)
from fsengine.plots import gain as plots
from fsengine.reproduce import results as results_file
from fsengine.reproduce.gain.plan import BOOTSTRAP


def write_figures(comp: Comparison, out_dir: Path, tag: str) -> list[str]:
    traces = comp.traces()
    figures = {
        f"{tag}_gain_per_stage.html": plots.gain_per_stage(traces),
        f"{tag}_fig3_gain_computations.html": plots.gain_computations(traces),
        f"{tag}_fig4_time.html": plots.cumulative_time(traces),
        f"{tag}_fig5_scores.html": plots.scores_vs_features(comp.curves, comp.all_features,
                                                            f1_intervals=comp.f1_intervals(**BOOTSTRAP)),
        f"{tag}_overlap.html": plots.overlap_heatmap(comp.overlap()),
    }
    for name, fig in figures.items():
        results_file.write_figure(fig, out_dir / name)
    return list(figures)
