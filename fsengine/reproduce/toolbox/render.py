"""The toolbox record rendered from its raw files alone: ``results.json``, ``report.md``, the
``<data>_summary.csv`` tables and ``differences.html`` from the held-out rows, the stability
tables, the per-seed values, the fit times and ``run.json`` that a run wrote
(:mod:`fsengine.reproduce.toolbox.running`). The run renders its record this way too, so
:func:`rerender` gives back a run's own outputs byte for byte, and a record picks up later changes to
the report's statistics or wording without computing again."""

from __future__ import annotations

from pathlib import Path

from fsengine.csv_export import read_csv, to_csv
from fsengine.reproduce import results as results_file
from fsengine.reproduce.results import write_figure
from fsengine.reproduce.toolbox.figures import differences_figure
from fsengine.reproduce.toolbox.plan import SEEDED, Plan
from fsengine.reproduce.toolbox.report import report
from fsengine.reproduce.toolbox.statistics import (
    judge_family,
    result_rows,
    runtime_estimates,
    seed_summary,
    single_summary,
)
from fsengine.stats import Estimate

TARGET = "toolbox"


def render(out_dir: Path) -> Path:
    """Write ``results.json``, ``report.md``, the summaries and ``differences.html`` of the run in
    ``out_dir`` from its raw files (``run.json``'s ``note``, when a record carries one, is printed
    under the verdicts: what a record re-rendered by later code does not show). Returns the report."""
    out_dir = Path(out_dir)
    facts = results_file.read_run_facts(out_dir)
    note = facts.get("note", "")
    inputs = facts["inputs"]
    plan = Plan.from_inputs(inputs["plan"])
    summaries, held, n_test = {}, {}, {}
    auc = per_seed = None
    for slug, labels in facts["labels"].items():
        keys = inputs["methods"][slug]
        if slug == SEEDED:
            per_seed = read_csv(out_dir / f"{slug}_per_seed.csv")
            summaries[slug], auc = seed_summary(plan, labels, keys, per_seed)
        else:
            held[slug] = read_csv(out_dir / f"{slug}_held_out_rows.csv")
            n_test[slug] = len(held[slug])
            summaries[slug] = single_summary(plan, labels, keys, held[slug],
                                             read_csv(out_dir / f"{slug}_stability.csv"))
    family_size = judge_family(summaries, auc, held, per_seed, plan)
    runtimes = {slug: runtime_estimates(read_csv(out_dir / f"{slug}_fits.csv")) for slug in summaries}
    all_features = {slug: Estimate(e["ours"], *e["interval"], e["level"], e["method"])
                    for slug, e in facts["all_features"].items()}
    for slug, table in summaries.items():
        to_csv(table, out_dir / f"{slug}_summary.csv", index=False)
    write_figure(differences_figure(summaries, plan), out_dir / "differences.html")
    rows = result_rows(summaries, auc, runtimes, all_features, plan)
    results_file.write(out_dir, TARGET, facts["quick"], inputs, rows)
    path = out_dir / "report.md"
    path.write_text(report(facts, plan, summaries, auc, runtimes, all_features, rows, family_size, n_test, note),
                    encoding="utf-8")
    return path


#: a finished run's record with this code's statistics and words, from its raw files (a run renders its own
#: record the same way, so a run's outputs come back byte for byte)
rerender = render
