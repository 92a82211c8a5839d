"""The toolbox benchmark's numbers, computed from the raw files a run writes (so a record can be
rendered again from them, :mod:`fsengine.reproduce.toolbox.render`).

* Accuracy of the classifier on a method's top k: Wilson's interval over the held-out rows of the
  one split (``*_held_out_rows.csv``); over the generator's seeds a t interval
  (``synthetic_glm_per_seed.csv``).
* Stability: the engine's Kuncheva index with its jackknife interval (``*_stability.csv``); over
  seeds a t interval.
* CPU seconds per fit: median and interquartile range of the bootstrap fits (``*_fits.csv``).
* **The family of every difference from the reference** (every data set, both k, and the AUC
  against the planted truth) is what the report's first section reads as one, so it is judged as
  one: Holm's step-down procedure at family level 95% (:func:`fsengine.stats.holm_family`). Each
  difference comes with its interval at the level Holm tests it at: on the one split the exact
  conditional interval of the paired difference (dual to the exact McNemar test, no resampling),
  over the seeds the seed-paired t interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsengine.methods.registry import METHODS
from fsengine.reproduce import results as results_file
from fsengine.reproduce.toolbox.plan import K_NAMES, REFERENCE, SEEDED, Plan, family_of, title_of
from fsengine.stats import (
    LEVEL,
    Estimate,
    holm_family,
    mcnemar_exact_pvalue,
    median_iqr,
    paired_proportion_difference,
    paired_t_interval,
    t_interval,
    t_pvalue,
    wilson_interval,
)

#: what the judged family is called in the intervals' method text and the report
FAMILY_NAME = "differences from the reference"


def held_column(label: str, k: int) -> str:
    """The column of ``*_held_out_rows.csv`` for a method at k."""
    return f"{label} @ k={k}"


def single_summary(plan: Plan, labels: list[str], keys: list[str], held: pd.DataFrame,
                   stability: pd.DataFrame) -> pd.DataFrame:
    """One row per (k, method) of a data set with one split: the held-out accuracy with its Wilson
    interval and the stability with its jackknife interval (difference columns: :func:`judge_family`)."""
    rows = []
    stab = stability.set_index(["k", "method"])
    for k in plan.ks:
        for label, key in zip(labels, keys):
            correct = held[held_column(label, k)].to_numpy()
            acc = wilson_interval(int(correct.sum()), int(correct.size))
            s = stab.loc[(k, label)]
            rows.append({"method": label, "key": key, "family": family_of(key), "k": k,
                         "accuracy": acc.value, "accuracy_low": acc.low, "accuracy_high": acc.high,
                         "accuracy_method": f"95% {acc.method}",
                         "kuncheva": s["kuncheva"], "kuncheva_low": s["kuncheva_low"],
                         "kuncheva_high": s["kuncheva_high"], "kuncheva_method": s["kuncheva_method"],
                         "ties_at_cut": s["ties_at_cut"]})
    return pd.DataFrame(rows)


def seed_summary(plan: Plan, labels: list[str], keys: list[str], per_seed: pd.DataFrame
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Over the generator's seeds: per (k, method) the mean accuracy and stability with t intervals
    over the seeds; per method the mean AUC against the planted truth (t interval)."""
    by = _by_method(per_seed)
    rows = []
    for name, k in zip(("small", "large"), plan.ks):
        for label, key in zip(labels, keys):
            v = by[label]
            acc = t_interval(v[f"accuracy_{name}"], what="generator seeds")
            stab = t_interval(v[f"kuncheva_{name}"], what="generator seeds")
            rows.append({"method": label, "key": key, "family": family_of(key), "k": k,
                         "accuracy": acc.value, "accuracy_low": max(0.0, acc.low),
                         "accuracy_high": min(1.0, acc.high), "accuracy_method": f"95% {acc.method}",
                         "kuncheva": stab.value, "kuncheva_low": max(-1.0, stab.low),
                         "kuncheva_high": min(1.0, stab.high),
                         "kuncheva_method": f"95% {stab.method} (each seed: the mean over pairs of bootstrap fits)",
                         "ties_at_cut": np.nan})
    auc_rows = []
    for label, key in zip(labels, keys):
        e = t_interval(by[label]["auc"], what="generator seeds")
        auc_rows.append({"method": label, "key": key, "family": family_of(key), "auc": e.value,
                         "auc_low": e.low, "auc_high": e.high, "auc_method": f"95% {e.method}"})
    return pd.DataFrame(rows), pd.DataFrame(auc_rows)


def _by_method(per_seed: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {label: part.set_index("seed").sort_index() for label, part in per_seed.groupby("method", sort=False)}


DIFFERENCE_COLUMNS = ("difference", "difference_low", "difference_high", "difference_level", "difference_method")


def judge_family(summaries: dict[str, pd.DataFrame], auc: pd.DataFrame | None, held: dict[str, pd.DataFrame],
                 per_seed: pd.DataFrame | None, plan: Plan) -> int:
    """Fill the difference columns of every summary (and of ``auc``) in place: each method's paired
    difference from the reference, judged as one family by Holm's step-down procedure (module
    docstring). Returns the family's size."""
    ref = METHODS[REFERENCE].label
    tests, places = [], []
    for slug, table in summaries.items():
        for i, r in table.iterrows():
            if r["method"] == ref:
                continue
            if slug == SEEDED:
                name = "small" if r["k"] == plan.ks[0] else "large"
                by = _by_method(per_seed)
                a, b = by[r["method"]][f"accuracy_{name}"], by[ref][f"accuracy_{name}"]
                tests.append(_seed_test(a, b))
            else:
                rows = held[slug]
                a, b = rows[held_column(r["method"], r["k"])].to_numpy(), rows[held_column(ref, r["k"])].to_numpy()
                tests.append((mcnemar_exact_pvalue(a, b),
                              lambda level, a=a, b=b: paired_proportion_difference(a, b, level, unit="held-out rows")))
            places.append((table, i))
    if auc is not None:
        by = _by_method(per_seed)
        for i, r in auc.iterrows():
            if r["method"] != ref:
                tests.append(_seed_test(by[r["method"]]["auc"], by[ref]["auc"]))
                places.append((auc, i))
    for c in DIFFERENCE_COLUMNS:
        for table in [*summaries.values(), *([auc] if auc is not None else [])]:
            table[c] = np.nan if c != "difference_method" else None
    for (table, i), e in zip(places, holm_family(tests, family=FAMILY_NAME)):
        table.loc[i, list(DIFFERENCE_COLUMNS)] = [e.value, e.low, e.high, e.level, e.method]
    for table in [*summaries.values(), *([auc] if auc is not None else [])]:
        table["difference_level"] = table["difference_level"].astype(float)
    return len(tests)


def _seed_test(a: pd.Series, b: pd.Series):
    """A seed-paired t test: its p-value and its interval at any level."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return (t_pvalue(a - b), lambda level: paired_t_interval(a, b, level, what="generator seeds"))


def runtime_estimates(times: pd.DataFrame) -> dict[str, Estimate]:
    """Per method: median and IQR of the CPU seconds of its bootstrap fits (all seeds pooled)."""
    boot = times[times["fit"] != "training part"]
    return {label: median_iqr(part["cpu_seconds"], what="bootstrap fits (CPU seconds)")
            for label, part in boot.groupby("method", sort=False)}


def result_rows(summaries: dict, auc: pd.DataFrame | None, runtimes: dict, all_features: dict,
                plan: Plan) -> list[results_file.Row]:
    """The rows of ``results.json``, per data set: the accuracy of every feature (for scale), per k
    and method the accuracy (recorded), the difference from the reference (judged, Holm) and the
    stability (recorded), the CPU seconds (recorded); then the AUC against the planted truth."""
    rows = []
    ref_label = METHODS[REFERENCE].label
    for slug, table in summaries.items():
        title = title_of(slug)
        rows.append(results_file.recorded(f"held-out accuracy of all features, {title}", all_features[slug],
                                          note="the classifier on every feature, for scale"))
        for name, k in zip(K_NAMES, plan.ks):
            for _, r in table[table["k"] == k].iterrows():
                where = f"at {name} (k = {k}), {r['method']}, {title}"
                acc = Estimate(float(r["accuracy"]), float(r["accuracy_low"]), float(r["accuracy_high"]), LEVEL,
                               str(r["accuracy_method"]).removeprefix("95% "))
                rows.append(results_file.recorded(f"held-out accuracy of the top k {where}", acc,
                                                  note=f"judged through its paired difference from {ref_label}"))
                if r["method"] != ref_label and np.isfinite(r.get("difference", np.nan)):
                    rows.append(results_file.ordering(f"accuracy difference from {ref_label} {where}", _difference(r),
                                                      r["method"], ref_label))
                if np.isfinite(r["kuncheva_low"]):
                    s = Estimate(float(r["kuncheva"]), float(r["kuncheva_low"]), float(r["kuncheva_high"]), LEVEL,
                                 str(r["kuncheva_method"]).removeprefix("95% "))
                    rows.append(results_file.recorded(f"stability (Kuncheva) of the top k {where}", s,
                                                      note="0 is chance agreement, 1 the same set every time"))
        for label, e in runtimes[slug].items():
            rows.append(results_file.recorded(f"CPU seconds per fit, {label}, {title}", e,
                                              note="machine- and load-dependent; compared by name only"))
    if auc is not None:
        title = title_of(SEEDED)
        for _, r in auc.iterrows():
            e = Estimate(float(r["auc"]), float(r["auc_low"]), float(r["auc_high"]), LEVEL,
                         str(r["auc_method"]).removeprefix("95% "))
            rows.append(results_file.recorded(f"AUC against the planted truth, {r['method']}, {title}", e,
                                              note=f"judged through its paired difference from {ref_label}"))
            if r["method"] != ref_label:
                rows.append(results_file.ordering(f"AUC difference from {ref_label}, {r['method']}, {title}",
                                                  _difference(r), r["method"], ref_label))
    return rows


def _difference(r) -> Estimate:
    return Estimate(float(r["difference"]), float(r["difference_low"]), float(r["difference_high"]),
                    float(r["difference_level"]), str(r["difference_method"]))


def verdict_word(r) -> str:
    """``better`` / ``worse`` (the interval at Holm's level excludes 0), ``not resolved``, or
    ``reference`` for the reference's own row."""
    if not np.isfinite(r.get("difference", np.nan)):
        return "reference"
    return "better" if r["difference_low"] > 0 else "worse" if r["difference_high"] < 0 else "not resolved"


def seed_accuracy_table(per_grid: dict[str, np.ndarray], grid: np.ndarray) -> pd.DataFrame:
    """Mean held-out accuracy over the seeds at every grid point, with t intervals (the accuracy
    curves of the synthetic data); ``per_grid``: method -> (seeds, grid points) accuracies."""
    rows = []
    for label, values in per_grid.items():
        for g, k in enumerate(grid):
            e = t_interval(values[:, g], what="generator seeds")
            rows.append({"curve": label, "k": int(k), "accuracy": e.value, "low": max(0.0, e.low),
                         "high": min(1.0, e.high), "method": f"95% {e.method}"})
    return pd.DataFrame(rows)

