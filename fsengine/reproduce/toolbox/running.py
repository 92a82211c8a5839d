"""Running the toolbox benchmark: every method through the comparison engine on each data set, and
the raw files every reported number is computed from (the record's report, ``results.json`` and
summaries are then rendered from those files alone: :mod:`fsengine.reproduce.toolbox.render`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from fsengine.compare import run_comparison
from fsengine.compare.analyses import ComparisonResult
from fsengine.csv_export import to_csv
from fsengine.methods.registry import METHODS
from fsengine.plots import compare as compare_plots
from fsengine.progress import Progress, scaled
from fsengine.reproduce import results as results_file
from fsengine.reproduce.results import write_figure
from fsengine.reproduce.toolbox import data, figures
from fsengine.reproduce.toolbox.plan import (
    CASES,
    FULL,
    QUICK,
    REFERENCE,
    SEEDED,
    SKIPS,
    Case,
    Plan,
    benchmark_params,
    check_ks,
    method_keys,
    methods_for,
)
from fsengine.reproduce.toolbox.render import render
from fsengine.reproduce.toolbox.statistics import held_column, seed_accuracy_table, seed_summary
from fsengine.stats import t_interval

#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
KEEPS_TASKS = True


@dataclass
class CaseRun:
    """The comparisons of one data set: one, or one per seed of the generator."""

    case: Case
    results: list[ComparisonResult]
    seeds: tuple[int, ...] | None
    skipped: dict[str, str]
    shape: tuple[int, int]
    labels: list[str] = field(default_factory=list)

    @property
    def first(self) -> ComparisonResult:
        return self.results[0]


def run_case(case: Case, plan: Plan, progress: Progress, where: dict) -> CaseRun:
    methods, skipped = methods_for(case.slug, plan)
    settings = plan.settings()
    if case.slug == SEEDED:
        results, shape = [], None
        n = len(plan.glm_seeds)
        for i, seed in enumerate(plan.glm_seeds):
            ds = data.load_glm(plan, seed)
            shape = ds.X.shape
            results.append(run_comparison(ds, methods, settings, progress=scaled(progress, i / n, (i + 1) / n,
                                                                                 f"seed {seed}: "), **where))
        return CaseRun(case, results, tuple(plan.glm_seeds), skipped, shape, _common_labels(results))
    ds = data.load_notmnist(plan) if case.slug == "notmnist_bd" else data.load_polarity(plan)
    result = run_comparison(ds, methods, settings, progress=progress, **where)
    return CaseRun(case, [result], None, skipped, ds.X.shape, list(result.labels))


def _common_labels(results: list[ComparisonResult]) -> list[str]:
    """The methods that ran on every seed (one failing on a seed is left out of the seed summaries
    and named in the report with its error)."""
    labels = list(results[0].labels)
    return [label for label in labels if all(label in r.labels for r in results)]


def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None, scheduler=None) -> Path:
    """Run the benchmark (:data:`~fsengine.reproduce.toolbox.plan.QUICK` or ``FULL``), write its raw
    files and render the report, ``results.json`` and the summaries from them into ``out_dir``.
    The fits of each comparison are tasks of :func:`fsengine.parallel.map_tasks` (``n_jobs`` local
    processes or a Dask ``scheduler``); the numbers do not depend on where they ran (the CPU
    seconds do). BLAS runs one thread per process, so CPU seconds measure one method's work, not
    threads waiting for each other."""
    started, cpu_started = time.perf_counter(), time.process_time()
    plan = QUICK if quick else FULL
    check_ks(plan)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    where = dict(n_jobs=n_jobs, scheduler=scheduler)
    spans = {"notmnist_bd": (0.0, 0.35), SEEDED: (0.35, 0.65), "sentence_polarity": (0.65, 0.98)}
    runs = {}
    with threadpool_limits(1):
        for case in CASES:
            lo, hi = spans[case.slug]
            runs[case.slug] = run_case(case, plan, scaled(progress, lo, hi, f"{case.title}: "), where)
    seconds = {"wall": time.perf_counter() - started, "cpu_main_process": time.process_time() - cpu_started}
    progress(0.99, "report")
    write_raw(out_dir, quick, plan, runs, seconds)
    path = render(out_dir)
    progress(1.0, "done")
    return path


# ------------------------------------------------------------------------------------- raw files

def write_raw(out_dir: Path, quick: bool, plan: Plan, runs: dict[str, CaseRun], seconds: dict) -> None:
    """Every raw file of the record (the module docstring of :mod:`~fsengine.reproduce.toolbox`),
    the engine's per-k tables and figures, and ``run.json`` (what the run measured that is not a
    table: durations, shapes, the all-features accuracy, the engine's notes)."""
    all_features, notes, interval_notes = {}, {}, {}
    failures = {slug: {label: msg for res in run_.results for label, msg in res.failures.items()}
                for slug, run_ in runs.items()}
    for slug, run_ in runs.items():
        to_csv(fit_times(run_), out_dir / f"{slug}_fits.csv", index=False)
        to_csv(bootstrap_tops(run_), out_dir / f"{slug}_bootstrap_top.csv", index=False)
        notes[slug] = sorted({n for res in run_.results for r in res.runs for n in r.notes
                              if "ConvergenceWarning" in n or "did not converge" in n})
        if run_.seeds is None:
            res = run_.first
            all_features[slug] = res.all_features_interval
            interval_notes[slug] = res.interval_note()
            to_csv(held_out_rows(run_, plan), out_dir / f"{slug}_held_out_rows.csv", index=False)
            to_csv(stability_table(run_, plan), out_dir / f"{slug}_stability.csv", index=False)
            to_csv(res.accuracy, out_dir / f"{slug}_accuracy.csv", index=False)
            differences = res.differences(REFERENCE)
            to_csv(differences, out_dir / f"{slug}_differences.csv", index=False)
            write_figure(compare_plots.accuracy_curves(res.accuracy, all_features=res.all_features_accuracy,
                                                       majority=res.majority_accuracy, random_label="random features",
                                                       all_features_interval=res.all_features_interval,
                                                       title=f"{run_.case.title}: held-out accuracy of the top k",
                                                       note=res.band_note()), out_dir / f"{slug}_accuracy.html")
            write_figure(compare_plots.difference_curves(differences,
                                                         title=f"{run_.case.title}: paired difference from "
                                                               f"{METHODS[REFERENCE].label}"),
                         out_dir / f"{slug}_differences.html")
            write_figure(compare_plots.stability_bars(res.stability(plan.ks[0]), plan.ks[0]),
                         out_dir / f"{slug}_stability.html")
        else:
            per_seed = seed_values(run_, plan)
            to_csv(per_seed, out_dir / f"{slug}_per_seed.csv", index=False)
            all_features[slug] = t_interval([r.held_out.all_repeats[0] for r in run_.results], what="generator seeds")
            grid = run_.first.held_out.grid
            acc = seed_accuracy_table({label: np.stack([r.held_out.repeats[0, r.held_out.curves.index(label)]
                                                        for r in run_.results]) for label in run_.labels}, grid)
            to_csv(acc, out_dir / f"{slug}_accuracy.csv", index=False)
            write_figure(compare_plots.accuracy_curves(
                acc, all_features=all_features[slug].value,
                majority=float(np.mean([r.majority_accuracy for r in run_.results])), random_label="random features",
                all_features_interval=all_features[slug], title=f"{run_.case.title}: mean held-out accuracy over seeds",
                note=f"bands: 95% t intervals over {len(run_.seeds)} seeds"), out_dir / f"{slug}_accuracy.html")
            keys = [run_.first.run(label).key for label in run_.labels]
            auc = seed_summary(plan, run_.labels, keys, per_seed)[1]
            write_figure(figures.auc_figure(per_seed, auc), out_dir / f"{slug}_auc.html")
    facts = {
        "quick": bool(quick),
        "inputs": {"plan": plan.inputs(), "reference": REFERENCE,
                   "methods": {slug: [r.key for r in run_.first.runs if r.label in run_.labels]
                               for slug, run_ in runs.items()},
                   "parameters": {key: benchmark_params(key, plan) for key in method_keys()
                                  if benchmark_params(key, plan)},
                   "skipped": {f"{key} on {slug}": reason for (key, slug), reason in SKIPS.items()},
                   "failures": {slug: failed for slug, failed in failures.items() if failed},
                   "shapes": {slug: list(map(int, run_.shape)) for slug, run_ in runs.items()}},
        "labels": {slug: list(run_.labels) for slug, run_ in runs.items()},
        "seconds": seconds,
        "all_features": {slug: e.row() | {"method": e.method} for slug, e in all_features.items()},
        "interval_notes": interval_notes,
        "convergence_notes": notes,
    }
    results_file.write_run_facts(out_dir, facts)


def fit_times(run: CaseRun) -> pd.DataFrame:
    """Every fit's CPU and wall seconds: per method (and seed), the fit on the training part and
    each bootstrap fit."""
    rows = []
    for i, res in enumerate(run.results):
        seed = run.seeds[i] if run.seeds else None
        for r in res.runs:
            if r.label not in run.labels:
                continue
            rows.append({"seed": seed, "method": r.label, "fit": "training part", "cpu_seconds": r.cpu_seconds,
                         "wall_seconds": r.seconds})
            rows += [{"seed": seed, "method": r.label, "fit": f"bootstrap {b + 1}", "cpu_seconds": c,
                      "wall_seconds": w} for b, (c, w) in enumerate(zip(r.boot_cpu_seconds, r.boot_seconds))]
    return pd.DataFrame(rows)


def held_out_rows(run: CaseRun, plan: Plan) -> pd.DataFrame:
    """Per held-out row of the (first) split and per method and reported k: 1 when the classifier
    on the method's top k classified it right (what the Wilson intervals and the exact paired
    differences are computed from)."""
    held = run.first.held_out
    table = {"row": np.arange(held.n_test)}
    for k in plan.ks:
        g = int(np.flatnonzero(held.grid == k)[0])
        for label in run.labels:
            table[held_column(label, k)] = held.rows[held.curves.index(label), g].astype(np.int8)
    return pd.DataFrame(table)


def stability_table(run: CaseRun, plan: Plan) -> pd.DataFrame:
    """The engine's stability at both reported k: Kuncheva's index over the bootstrap fits with its
    jackknife interval and how many fits tie at the cut."""
    parts = []
    for k in plan.ks:
        s = run.first.stability(k)
        parts.append(pd.DataFrame({"method": s["method"], "k": k, "kuncheva": s["kuncheva"], "kuncheva_low": s["low"],
                                   "kuncheva_high": s["high"], "kuncheva_method": s["interval"],
                                   "ties_at_cut": s["ties_at_cut"]}))
    table = pd.concat(parts, ignore_index=True)
    return table[table["method"].isin(run.labels)].reset_index(drop=True)


def seed_values(run: CaseRun, plan: Plan) -> pd.DataFrame:
    """Per seed and method: AUC against the truth, and at each reported k the held-out accuracy (with
    the counts it is made of) and the stability."""
    rows = []
    for seed, res in zip(run.seeds, run.results):
        auc = res.auc()
        held = res.held_out
        stability = {k: res.stability(k).set_index("method")["kuncheva"] for k in plan.ks}
        for label in run.labels:
            c = held.curves.index(label)
            row = {"seed": seed, "method": label, "auc": float(auc[label]), "n_test": held.n_test}
            for name, k in zip(("small", "large"), plan.ks):
                g = int(np.flatnonzero(held.grid == k)[0])
                correct = int(round(float(held.rows[c, g].sum())))
                row.update({f"correct_{name}": correct, f"accuracy_{name}": correct / held.n_test,
                            f"kuncheva_{name}": float(stability[k][label])})
            rows.append(row)
    return pd.DataFrame(rows)


def bootstrap_tops(run: CaseRun) -> pd.DataFrame:
    """The ranked top features (max_k + 1) of every bootstrap fit: Kuncheva's index and its
    jackknife interval are recomputed from these."""
    rows = []
    for i, res in enumerate(run.results):
        seed = run.seeds[i] if run.seeds else None
        for r in res.runs:
            if r.label not in run.labels:
                continue
            for b, top in enumerate(r.boot_top):
                rows.append({"seed": seed, "method": r.label, "resample": b + 1,
                             "n_features": res.n_features, "top": " ".join(map(str, top.tolist()))})
    return pd.DataFrame(rows)
