"""The numbers of a benchmark run (:class:`fsengine.benchmark.runner.Run`), as the protocol says
(:mod:`fsengine.benchmark.protocol`, points 5 and 7): per dataset, method and k with intervals,
then over the datasets at each k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsengine.benchmark.protocol import ALPHA, LEVEL, MIN_COVERAGE
from fsengine.selection_metrics import jaccard, nogueira_stability
from fsengine.stats import (
    Estimate,
    FriedmanTest,
    PairwiseTest,
    friedman_test,
    median_iqr,
    nemenyi_cd,
    pairwise_signed_rank,
    rank_rows,
    t_interval,
)

#: the columns of :func:`summary`
SUMMARY_COLUMNS = ("dataset", "method", "label", "k_label", "k", "status", "metric", "value", "low", "high",
                   "interval", "accuracy", "stability", "stability_low", "stability_high", "stability_interval",
                   "recall", "recall_low", "recall_high", "fit_cpu_median", "fit_cpu_q1", "fit_cpu_q3",
                   "fit_wall_median", "fit_wall_q1", "fit_wall_q3", "n_folds")


def _over_folds(values, ratio: float, low: float = 0.0, high: float = 1.0) -> Estimate:
    """Mean over the folds with the corrected resampled t interval, clipped to [low, high]."""
    e = t_interval(values, LEVEL, test_train_ratio=ratio, what="outer folds")
    return Estimate(e.value, max(low, e.low), min(high, e.high), e.level, e.method)


def summary(run) -> pd.DataFrame:
    """One row per (dataset, method, grid label): the status; the mean held-out metric with its
    corrected resampled t interval; plain accuracy; Nogueira's stability of the top-k sets with its
    interval; recall of the truth (NaN without one) with its interval; fit CPU and wall seconds
    (median and interquartile range over the folds, the same at every k). A method that is not
    applicable or failed has a row with its status and no numbers; the all-features classifier is
    the method ``"all features"`` (k = p)."""
    ratio = run.settings.test_train_ratio
    info = run.info.set_index("dataset")
    labels = dict(zip(run.methods["key"], run.methods["label"]))
    rows = []
    grouped = {key: part for key, part in run.folds.groupby(["dataset", "method", "k_label"], sort=False)}
    n_splits = run.settings.folds * run.settings.repeats
    for entry in run.entries:
        slug = entry.slug
        p = int(info.loc[slug, "features"])
        base_part = grouped.get((slug, "all features", "all"))
        if base_part is not None:
            e = _over_folds(base_part["metric"], ratio)
            rows.append({"dataset": slug, "method": "all features", "label": "all features", "k_label": "all", "k": p,
                         "status": "ok", "metric": info.loc[slug, "metric"], "value": e.value, "low": e.low,
                         "high": e.high, "interval": e.method, "accuracy": float(base_part["accuracy"].mean()),
                         "n_folds": len(base_part)})
        for key in run.methods["key"]:
            status = run.status[(slug, key)]
            for label, k in run.ks[slug].items():
                row = {"dataset": slug, "method": key, "label": labels[key], "k_label": label, "k": k, "status": status,
                       "metric": info.loc[slug, "metric"]}
                part = grouped.get((slug, key, label))
                if status != "ok" or part is None:
                    rows.append(row)
                    continue
                e = _over_folds(part["metric"], ratio)
                sets = [run.tops[(slug, key, s)][:k] for s in range(n_splits)]
                stab = nogueira_stability(sets, p)
                cpu = median_iqr(part["fit_cpu_seconds"], what="fits")
                wall = median_iqr(part["fit_seconds"], what="fits")
                row.update(value=e.value, low=e.low, high=e.high, interval=e.method,
                           accuracy=float(part["accuracy"].mean()), stability=stab.value,
                           stability_low=max(-1.0, stab.low), stability_high=min(1.0, stab.high),
                           stability_interval=stab.method, fit_cpu_median=cpu.value, fit_cpu_q1=cpu.low,
                           fit_cpu_q3=cpu.high, fit_wall_median=wall.value, fit_wall_q1=wall.low,
                           fit_wall_q3=wall.high, n_folds=len(part))
                if part["recall"].notna().all():
                    r = _over_folds(part["recall"], ratio)
                    row.update(recall=r.value, recall_low=r.low, recall_high=r.high)
                rows.append(row)
    return pd.DataFrame(rows).reindex(columns=list(SUMMARY_COLUMNS))


def score_table(table: pd.DataFrame, k_label: str, column: str = "value") -> pd.DataFrame:
    """Datasets (rows, run order) x methods (columns, run order) of ``column`` at ``k_label``; NaN
    where a method has no result or the k is not evaluated on a dataset."""
    part = table[(table["k_label"] == k_label) & (table["method"] != "all features")]
    wide = part.pivot(index="dataset", columns="method", values=column)
    datasets = [d for d in dict.fromkeys(table["dataset"]) if d in wide.index]
    methods = [m for m in dict.fromkeys(table.loc[table["method"] != "all features", "method"])]
    return wide.reindex(index=datasets, columns=methods).astype(float)


@dataclass(frozen=True)
class Ranking:
    """The aggregate at one k: which methods and datasets enter the ranks (the gap rule) and why
    the others do not, the ranks (blocks x ranked methods), the Friedman test, Nemenyi's critical
    difference, and the Holm-corrected pairwise tests of every method with at least two results."""

    k_label: str
    methods: tuple[str, ...]
    datasets: tuple[str, ...]
    left_out_methods: dict[str, str]
    left_out_datasets: dict[str, str]
    ranks: pd.DataFrame
    friedman: FriedmanTest | None
    cd: float | None
    pairs: tuple[PairwiseTest, ...]
    why_no_test: str = ""

    @property
    def average_ranks(self) -> pd.Series:
        return self.ranks.mean(axis=0) if len(self.ranks) else pd.Series(dtype=float)


def ranking(table: pd.DataFrame, k_label: str, status: dict | None = None) -> Ranking:
    """The protocol's aggregate at ``k_label`` from :func:`summary` (see :data:`protocol.GAP_RULE`)."""
    scores = score_table(table, k_label)
    evaluated = [d for d in scores.index if d in set(table.loc[table["k_label"] == k_label, "dataset"])]
    scores = scores.loc[evaluated]
    status = status or {}

    def reason(d, m):
        return status[(d, m)]

    covered = scores.notna().sum(axis=0)
    need = math.ceil(MIN_COVERAGE * len(evaluated))
    methods = [m for m in scores.columns if covered[m] >= max(1, need)]
    left_methods = {m: f"a result on {int(covered[m])} of {len(evaluated)} datasets at this k (the ranks need "
                       f"{max(1, need)})" for m in scores.columns if m not in methods}
    complete = scores[methods].notna().all(axis=1) if methods else pd.Series(False, index=scores.index)
    datasets = [d for d in evaluated if complete[d]]
    left_data = {d: "; ".join(reason(d, m) if (d, m) in status else f"{m}: no result" for m in methods
                              if not np.isfinite(scores.loc[d, m]))
                 for d in evaluated if not complete[d]}
    block = scores.loc[datasets, methods]
    ranks = pd.DataFrame(rank_rows(block.to_numpy()) if len(datasets) else np.zeros((0, len(methods))),
                         index=datasets, columns=methods)
    friedman = cd = None
    why = ""
    if len(methods) < 2:
        why = "fewer than two methods have results on enough datasets"
    elif len(datasets) < 2:
        why = "fewer than two datasets have a result for every ranked method"
    else:
        friedman = friedman_test(block.to_numpy())
        cd = nemenyi_cd(len(methods), len(datasets), ALPHA)
    tested = [m for m in scores.columns if covered[m] >= 2]
    pairs = tuple(pairwise_signed_rank(scores[tested].to_numpy(), tested, alpha=ALPHA)) if len(tested) >= 2 else ()
    return Ranking(k_label=k_label, methods=tuple(methods), datasets=tuple(datasets), left_out_methods=left_methods,
                   left_out_datasets=left_data, ranks=ranks, friedman=friedman, cd=cd, pairs=pairs, why_no_test=why)


def pairs_table(result: Ranking) -> pd.DataFrame:
    """The pairwise tests as a table: a, b, datasets, R+, R-, p, Holm-adjusted p, median difference, verdict."""
    return pd.DataFrame([{"k_label": result.k_label, "a": p.a, "b": p.b, "datasets": p.test.n,
                          "r_plus": p.test.r_plus, "r_minus": p.test.r_minus, "statistic": p.test.statistic,
                          "pvalue": p.test.pvalue, "holm_pvalue": p.holm_pvalue, "p_method": p.test.method,
                          "median_difference": p.test.median_difference, "verdict": p.verdict}
                         for p in result.pairs])


def similarity(run, k_label: str) -> pd.DataFrame:
    """Methods x methods: the Jaccard overlap of two methods' top-k sets on the same outer fold,
    averaged over the folds and then over the datasets where both ran at this k (1 on the
    diagonal; NaN for a pair without a common dataset)."""
    keys = [m for m in run.methods["key"]]
    n_splits = run.settings.folds * run.settings.repeats
    sums = np.zeros((len(keys), len(keys)))
    counts = np.zeros((len(keys), len(keys)))
    for entry in run.entries:
        k = run.ks[entry.slug].get(k_label)
        if k is None:
            continue
        present = [i for i, key in enumerate(keys) if (entry.slug, key, 0) in run.tops]
        for a in present:
            for b in present:
                if b < a:
                    continue
                value = 1.0 if a == b else float(np.mean([
                    jaccard(run.tops[(entry.slug, keys[a], s)][:k], run.tops[(entry.slug, keys[b], s)][:k])
                    for s in range(n_splits)]))
                for i, j in ((a, b), (b, a)):
                    sums[i, j] += value
                    counts[i, j] += 1
    with np.errstate(invalid="ignore"):
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return pd.DataFrame(mean, index=keys, columns=keys)


def tradeoff(table: pd.DataFrame, result: Ranking) -> pd.DataFrame:
    """Per ranked method: its average rank at this k, the geometric mean over the ranked datasets
    of its median fit CPU seconds, and whether it is on the Pareto front (no other method both
    better ranked and faster)."""
    part = table[(table["k_label"] == result.k_label) & table["method"].isin(result.methods)
                 & table["dataset"].isin(result.datasets)]
    seconds = part.groupby("method")["fit_cpu_median"].apply(
        lambda s: float(np.exp(np.mean(np.log(np.maximum(s.to_numpy(dtype=float), 1e-6))))))
    ranks = result.average_ranks
    out = pd.DataFrame({"method": list(result.methods), "average_rank": [float(ranks[m]) for m in result.methods],
                        "cpu_seconds": [float(seconds.get(m, np.nan)) for m in result.methods]})
    dominated = [bool(((out["average_rank"] < r.average_rank) & (out["cpu_seconds"] <= r.cpu_seconds)).any()
                      or ((out["average_rank"] <= r.average_rank) & (out["cpu_seconds"] < r.cpu_seconds)).any())
                 for r in out.itertuples()]
    out["pareto"] = [not d for d in dominated]
    return out
