"""``reproduce toolbox``: every registered method against the toolbox practitioners already use.

The question of issue 24: *does any of the five sources' methods beat what I already use?* Every
registered method (BIA; MI, MDL, L1 path and boosting; IFS, SGC and the count cutoff; the Bayes
factor; the RTM; the variance baseline; ANOVA F, chi², forest, permutation, RFE, stability
selection, mRMR, Boruta and sequential forward selection) runs through the comparison engine
(:func:`fsengine.compare.run_comparison`) on three data sets:

* notMNIST B vs D (784 pixels in [0, 1]);
* a planted sparse logistic GLM (:func:`fsengine.data.synthetic.glm.make_sparse_glm`), several
  seeds of the generator: ROC/AUC of each method's scores against the planted truth;
* sentence polarity (word-presence tags, sparse).

Per method and data set: held-out accuracy of a logistic regression on the method's top k (the
engine's 95% Wilson interval over the held-out rows; over the generator's seeds a t interval), its
paired difference from a reference fixed before any run (:data:`REFERENCE`) with a
Bonferroni-level interval and the verdict resolved / not resolved, Kuncheva stability of the top
k over bootstrap refits (jackknife interval; over seeds a t interval) and the CPU seconds of a
fit (median and interquartile range of the bootstrap fits). Every k, parameter, seed and skip is
fixed in this module (:data:`FULL`, :data:`QUICK`, :func:`benchmark_params`, :data:`SKIPS`)
before any result is seen; nothing is chosen on a held-out row.

Outputs (``docs/results/toolbox/``): ``report.md``, ``results.json``, raw CSVs from which every
interval is recomputed (``*_held_out_rows.csv``: per held-out row and method whether the
classifier on the top k was right; ``*_bootstrap_top.csv``: the top features of every bootstrap
fit; ``*_fits.csv``: CPU and wall seconds of every fit; ``synthetic_glm_per_seed.csv``: per seed
and method the AUC, accuracy and stability), the engine's accuracy and difference tables and
HTML figures.
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from threadpoolctl import threadpool_limits

from fsengine.compare import CompareSettings, run_comparison
from fsengine.compare.analyses import ComparisonResult, percent
from fsengine.compare.runner import k_grid
from fsengine.csv_export import to_csv
from fsengine.data import Dataset, load_dataset
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.methods.registry import BUILT_IN, METHODS
from fsengine.plots import compare as compare_plots
from fsengine.plots.style import apply_style
from fsengine.progress import Progress, scaled
from fsengine.reproduce import results as results_file
from fsengine.reproduce.results import write_figure
from fsengine.stats import (
    LEVEL,
    Estimate,
    bonferroni_level,
    median_iqr,
    ordering_verdict,
    paired_t_interval,
    t_interval,
)

TARGET = "toolbox"

#: the reference every method is set against, fixed before any run
REFERENCE = "anova"
REFERENCE_WHY = ("ANOVA F is the reference, fixed before any run: it is what scikit-learn's SelectKBest "
                 "scores by default, the first supervised filter a practitioner reaches for, deterministic and "
                 "cheap; the variance baseline ignores the labels and is a floor, not the bar a method must "
                 "clear to be worth its cost.")

#: where each registered method comes from (the five sources, the toolbox, the label-free baseline)
FAMILY = {
    "bia": "source: Fisher & Mehta (BIA)",
    "mi": "source: Jaakkola (classic)", "mdl": "source: Jaakkola (classic)", "l1": "source: Jaakkola (classic)",
    "boosting": "source: Jaakkola (classic)",
    "ifs": "source: Zhou et al. (maxent gain)", "sgc": "source: Zhou et al. (maxent gain)",
    "count": "source: Zhou et al. (maxent gain)",
    "bayes": "source: Daume III (Bayes factor)",
    "rtm": "source: Molchanov et al. (RTM)",
    "variance": "baseline (ignores labels)",
    "anova": "toolbox", "chi2": "toolbox", "forest": "toolbox", "permutation": "toolbox", "rfe": "toolbox",
    "stability": "toolbox", "mrmr": "toolbox", "boruta": "toolbox", "sfs": "toolbox",
}
#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
KEEPS_TASKS = True


def method_keys() -> list[str]:
    """Every built-in registered method, in the registry's order (methods registered by a user at
    run time are theirs to benchmark)."""
    return [key for key in METHODS if key in BUILT_IN]


def is_source(key: str) -> bool:
    return FAMILY.get(key, "").startswith("source")


def is_toolbox(key: str) -> bool:
    return FAMILY.get(key) == "toolbox"


@dataclass(frozen=True)
class Plan:
    """The sizes of one run, all fixed before any result is seen.

    notmnist_per_class  images per letter (B and D); polarity_docs: snippets kept (None: all
    10,662) and polarity_min_df the words' minimum document frequency; glm: the generator's
    settings and glm_seeds its seeds; max_k the largest k of the accuracy grid (the engine's
    geometric grid from 1); ks the two k every number is reported at (both on the grid);
    n_bootstrap the resamples of the stability (5: the fewest the jackknife takes) and
    test_size the held-out share of the engine's stratified split (seed 0).
    """

    notmnist_per_class: int
    polarity_docs: int | None
    polarity_min_df: int
    glm: dict
    glm_seeds: tuple[int, ...]
    max_k: int
    ks: tuple[int, int]
    n_bootstrap: int = 5
    test_size: float = 0.25
    split_seed: int = 0
    #: method parameters of this plan beyond :func:`benchmark_params` (the quick run's cheaper ones)
    overrides: dict = field(default_factory=dict)

    def settings(self) -> CompareSettings:
        return CompareSettings(test_size=self.test_size, n_bootstrap=self.n_bootstrap, max_k=self.max_k,
                               seed=self.split_seed)

    def inputs(self) -> dict:
        return {"notmnist_per_class": self.notmnist_per_class, "polarity_docs": self.polarity_docs,
                "polarity_min_df": self.polarity_min_df, "glm": dict(self.glm), "glm_seeds": list(self.glm_seeds),
                "max_k": self.max_k, "ks": list(self.ks), "n_bootstrap": self.n_bootstrap,
                "test_size": self.test_size, "split_seed": self.split_seed,
                "overrides": {key: dict(values) for key, values in self.overrides.items()}}


FULL = Plan(notmnist_per_class=500, polarity_docs=None, polarity_min_df=10,
            glm=dict(family="logistic", n=500, p=100, k=10, rho=0.5, signal=1.0), glm_seeds=tuple(range(10)),
            max_k=40, ks=(10, 40))
QUICK = Plan(notmnist_per_class=60, polarity_docs=400, polarity_min_df=5,
             glm=dict(family="logistic", n=120, p=20, k=4, rho=0.5, signal=1.0), glm_seeds=tuple(range(5)),
             max_k=15, ks=(5, 15),
             overrides={"permutation": {"n_repeats": 1}, "stability": {"n_resamples": 10, "n_Cs": 5},
                        "forest": {"n_estimators": 20}})

#: names of the two reported k in quantities (no digits of their own, so that a quick and a full
#: run pair their rows: ``tests/reproduce/test_results_schema.py`` masks digits)
K_NAMES = ("the small k", "the large k")


def benchmark_params(key: str, plan: Plan) -> dict:
    """The parameters a method runs with here, where they differ from the registry's defaults
    (:data:`BENCHMARK_CHANGES` says why), then the plan's own overrides (the quick run's)."""
    values = {}
    if key in ("mdl", "mrmr"):
        values = {"max_features": plan.max_k}
    elif key in ("ifs", "sgc", "count"):
        values = {"n_features_to_select": 2 * plan.max_k}
    return {**values, **plan.overrides.get(key, {})}


#: why each parameter differs from the registry's default (printed in the report)
BENCHMARK_CHANGES = {
    "mdl": "max_features = the largest k (the registry's 30 explored sizes would leave the last ranks of "
           "the top k to the fallback order).",
    "mrmr": "max_features = the largest k, for the same reason: the greedy sequence covers every reported k.",
    "ifs": "n_features_to_select = 2 x the largest k (feature, class) pairs: with two classes a predicate can "
           "be selected with both, so the selected predicates cover the largest k.",
    "sgc": "as IFS.",
    "count": "as IFS.",
}

#: (method, data set) pairs not run, with the reason (fixed before the run; a method that fails in
#: the engine is reported with its own error instead)
SKIPS = {
    ("permutation", "sentence_polarity"):
        "the registry's Needs say dense data, so adapt() densifies the sparse tags, and scikit-learn's "
        "permutation_importance then copies the dense held-out block once per word and scores it five "
        "times: one trial fit on the training snippets ran for more than ten minutes without finishing, "
        "and the benchmark fits each method six times per data set within a 45-minute budget",
}

#: choices made after seeing results of this benchmark (none on held-out accuracy): printed in the report
CHOICES_AFTER_SEEING = (
    "The skip of permutation importance on sentence polarity and the RFE step of 0.05 were chosen after "
    "timing single trial fits of the methods on the training part (runtimes only; no held-out accuracy "
    "was computed in those trials).",
    "A timing trial of one comparison on seed 0 of the full GLM plan printed that seed's AUCs; no setting was "
    "changed after it.",
    "The quick run's cheaper parameters (permutation 1 shuffle, stability 10 half-samples and 5 penalties, forest "
    "20 trees) and its smaller GLM were set after timing the first quick run; they do not enter the full run.",
)


# --------------------------------------------------------------------------------------------- data

@dataclass(frozen=True)
class Case:
    """One data set of the benchmark: its slug (file names), title, and how to load it."""

    slug: str
    title: str
    description: str


CASES = (
    Case("notmnist_bd", "notMNIST B vs D", "pixels in [0, 1], 28 x 28"),
    Case("synthetic_glm", "planted logistic GLM", "AR(1) Gaussian features, a few planted relevant ones"),
    Case("sentence_polarity", "sentence polarity", "binary word-presence tags"),
)


def load_notmnist(plan: Plan) -> Dataset:
    return load_dataset("notmnist", letters="BD", n_per_class=plan.notmnist_per_class, seed=0)


def load_polarity(plan: Plan) -> Dataset:
    """Sentence polarity as word-presence tags. With ``polarity_docs`` a stratified seeded subset of
    the snippets is kept first and the vocabulary is the words in at least ``polarity_min_df`` of
    them; otherwise the catalogue's dataset (every snippet, words in at least ``min_df``)."""
    if plan.polarity_docs is None:
        return load_dataset("sentence_polarity", min_df=plan.polarity_min_df)
    ds = load_dataset("sentence_polarity", min_df=1)
    rng = np.random.default_rng(0)
    half = plan.polarity_docs // 2
    rows = np.sort(np.concatenate([rng.choice(np.flatnonzero(ds.y == c), size=half, replace=False)
                                   for c in np.unique(ds.y)]))
    X = ds.X[rows]
    keep = np.flatnonzero(np.asarray((X != 0).sum(axis=0)).ravel() >= plan.polarity_min_df)
    return replace(ds, X=X[:, keep].tocsr(), y=ds.y[rows], feature_names=tuple(ds.feature_names[j] for j in keep),
                   texts=tuple(ds.texts[i] for i in rows) if ds.texts is not None else None,
                   name=f"{ds.name} ({rows.size} snippets)")


def load_glm(plan: Plan, seed: int) -> Dataset:
    return make_sparse_glm(**plan.glm, seed=seed)


# ---------------------------------------------------------------------------------------- running

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


def _methods(slug: str, plan: Plan) -> tuple[list[tuple[str, dict]], dict[str, str]]:
    """The (key, params) the data set runs, the reference first; and the skipped ones by label."""
    keys = [REFERENCE] + [k for k in method_keys() if k != REFERENCE]
    chosen, skipped = [], {}
    for key in keys:
        if (key, slug) in SKIPS:
            skipped[METHODS[key].label] = SKIPS[(key, slug)]
        else:
            chosen.append((key, benchmark_params(key, plan)))
    return chosen, skipped


def run_case(case: Case, plan: Plan, progress: Progress, where: dict) -> CaseRun:
    methods, skipped = _methods(case.slug, plan)
    settings = plan.settings()
    if case.slug == "synthetic_glm":
        results, shape = [], None
        n = len(plan.glm_seeds)
        for i, seed in enumerate(plan.glm_seeds):
            ds = load_glm(plan, seed)
            shape = ds.X.shape
            results.append(run_comparison(ds, methods, settings, progress=scaled(progress, i / n, (i + 1) / n,
                                                                                 f"seed {seed}: "), **where))
        labels = _common_labels(results)
        return CaseRun(case, results, tuple(plan.glm_seeds), skipped, shape, labels)
    ds = load_notmnist(plan) if case.slug == "notmnist_bd" else load_polarity(plan)
    result = run_comparison(ds, methods, settings, progress=progress, **where)
    return CaseRun(case, [result], None, skipped, ds.X.shape, list(result.labels))


def _common_labels(results: list[ComparisonResult]) -> list[str]:
    """The methods that ran on every seed (one failing on a seed is left out of the seed summaries
    and named in the report with its error)."""
    labels = list(results[0].labels)
    return [label for label in labels if all(label in r.labels for r in results)]


# -------------------------------------------------------------------------------------- summaries

def check_ks(plan: Plan) -> None:
    """Both reported k lie on the engine's accuracy grid (so no k is rounded to another)."""
    grid = k_grid(plan.max_k, 10**9)
    missing = [k for k in plan.ks if k not in grid]
    if missing:
        raise ValueError(f"k = {missing} are not on the accuracy grid {grid.tolist()} of max_k = {plan.max_k}")


def _label_key(result: ComparisonResult) -> dict[str, str]:
    return {r.label: r.key for r in result.runs}


def single_summary(run: CaseRun, plan: Plan) -> pd.DataFrame:
    """One row per (method, k): the engine's accuracy with its Wilson interval, the paired difference
    from the reference with its Bonferroni-level bootstrap interval, stability with its jackknife
    interval."""
    res = run.first
    ref = res.reference(REFERENCE)
    diff = res.differences(ref)
    keys = _label_key(res)
    rows = []
    for k in plan.ks:
        acc = res.accuracy[(res.accuracy["k"] == k)].set_index("curve")
        d = diff[diff["k"] == k].set_index("method")
        stab = res.stability(k).set_index("method")
        for label in res.labels:
            row = {"method": label, "key": keys[label], "family": FAMILY.get(keys[label], "user"), "k": k,
                   "accuracy": acc.loc[label, "accuracy"], "accuracy_low": acc.loc[label, "low"],
                   "accuracy_high": acc.loc[label, "high"], "accuracy_method": acc.loc[label, "method"]}
            if label != ref:
                row.update({"difference": d.loc[label, "difference"], "difference_low": d.loc[label, "low"],
                            "difference_high": d.loc[label, "high"], "difference_level": d.loc[label, "level"],
                            "difference_method": d.loc[label, "interval_method"]})
            row.update({"kuncheva": stab.loc[label, "kuncheva"], "kuncheva_low": stab.loc[label, "low"],
                        "kuncheva_high": stab.loc[label, "high"], "kuncheva_method": stab.loc[label, "interval"],
                        "ties_at_cut": stab.loc[label, "ties_at_cut"]})
            rows.append(row)
    return pd.DataFrame(rows)


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


def seed_summary(run: CaseRun, plan: Plan, per_seed: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Over the generator's seeds: per (method, k) the mean accuracy and stability with t intervals
    over the seeds and the seed-paired difference in accuracy from the reference (paired t at the
    Bonferroni level); per method the mean AUC (t interval) and its seed-paired difference."""
    keys = _label_key(run.first)
    ref = run.first.reference(REFERENCE)
    m = len(run.labels) - 1
    level = bonferroni_level(LEVEL, max(1, m))
    what = f"generator seeds, Bonferroni over {m} comparisons"
    by = {label: part.set_index("seed").sort_index() for label, part in per_seed.groupby("method", sort=False)}
    rows = []
    for name, k in zip(("small", "large"), plan.ks):
        for label in run.labels:
            v = by[label]
            acc = t_interval(v[f"accuracy_{name}"], what="generator seeds")
            stab = t_interval(v[f"kuncheva_{name}"], what="generator seeds")
            row = {"method": label, "key": keys[label], "family": FAMILY.get(keys[label], "user"), "k": k,
                   "accuracy": acc.value, "accuracy_low": max(0.0, acc.low), "accuracy_high": min(1.0, acc.high),
                   "accuracy_method": f"95% {acc.method}",
                   "kuncheva": stab.value, "kuncheva_low": max(-1.0, stab.low), "kuncheva_high": min(1.0, stab.high),
                   "kuncheva_method": f"95% {stab.method} (each seed: the mean over pairs of bootstrap fits)",
                   "ties_at_cut": np.nan}
            if label != ref:
                d = paired_t_interval(v[f"accuracy_{name}"], by[ref][f"accuracy_{name}"], level, what=what)
                row.update({"difference": d.value, "difference_low": d.low, "difference_high": d.high,
                            "difference_level": d.level, "difference_method": d.method})
            rows.append(row)
    auc_rows = []
    for label in run.labels:
        v = by[label]
        e = t_interval(v["auc"], what="generator seeds")
        row = {"method": label, "key": keys[label], "family": FAMILY.get(keys[label], "user"), "auc": e.value,
               "auc_low": e.low, "auc_high": e.high, "auc_method": f"95% {e.method}"}
        if label != ref:
            d = paired_t_interval(v["auc"], by[ref]["auc"], level, what=what)
            row.update({"difference": d.value, "difference_low": d.low, "difference_high": d.high,
                        "difference_level": d.level, "difference_method": d.method})
        auc_rows.append(row)
    return pd.DataFrame(rows), pd.DataFrame(auc_rows)


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


def runtime_estimates(times: pd.DataFrame) -> dict[str, Estimate]:
    """Per method: median and IQR of the CPU seconds of its bootstrap fits (all seeds pooled)."""
    boot = times[times["fit"] != "training part"]
    return {label: median_iqr(part["cpu_seconds"], what="bootstrap fits (CPU seconds)")
            for label, part in boot.groupby("method", sort=False)}


# ------------------------------------------------------------------------------------- raw counts

def held_out_rows(run: CaseRun, plan: Plan) -> pd.DataFrame:
    """Per held-out row of the (first) split: its label and, per method and reported k, 1 when the
    classifier on the method's top k classified it right (what the Wilson intervals and the paired
    bootstrap differences are computed from)."""
    res = run.first
    held = res.held_out
    table = {"row": np.arange(held.n_test)}
    for k in plan.ks:
        g = int(np.flatnonzero(held.grid == k)[0])
        for label in run.labels:
            table[f"{label} @ k={k}"] = held.rows[held.curves.index(label), g].astype(np.int8)
    return pd.DataFrame(table)


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


# ----------------------------------------------------------------------------------- result rows

def _ordering_row(quantity: str, d: Estimate, first: str, second: str) -> results_file.Row:
    """An ordering row like :func:`fsengine.reproduce.results.ordering`, its level printed to the
    precision a Bonferroni level needs (99.71%, not 100%)."""
    words = ordering_verdict(d, first, second)
    level = f"{percent(d.level)} interval of the paired difference"
    verdict = (f"{words} ({level} excludes 0)" if words.startswith("resolved")
               else f"not resolved: {first} vs {second} ({level} holds 0)")
    return results_file.Row(quantity, None, float(d.value), verdict, [float(d.low), float(d.high)], float(d.level),
                            d.method)


def _estimate(row, prefix: str, level: float = LEVEL, method_column: str | None = None) -> Estimate:
    method = str(row[method_column or f"{prefix}_method"])
    return Estimate(float(row[prefix]), float(row[f"{prefix}_low"]), float(row[f"{prefix}_high"]), level, method)


def result_rows(summaries: dict, auc: pd.DataFrame | None, runtimes: dict, all_features: dict,
                plan: Plan) -> list[results_file.Row]:
    """The headline rows of every data set (see the module docstring)."""
    rows = []
    for slug, table in summaries.items():
        title = next(c.title for c in CASES if c.slug == slug)
        ref_label = METHODS[REFERENCE].label
        e = all_features[slug]
        rows.append(results_file.recorded(f"held-out accuracy of all features, {title}", e,
                                          note="the classifier on every feature, for scale"))
        for name, k in zip(K_NAMES, plan.ks):
            at = table[table["k"] == k]
            for _, r in at.iterrows():
                where = f"at {name} (k = {k}), {r['method']}, {title}"
                acc = Estimate(float(r["accuracy"]), float(r["accuracy_low"]), float(r["accuracy_high"]), LEVEL,
                               str(r["accuracy_method"]).removeprefix("95% "))
                rows.append(results_file.recorded(f"held-out accuracy of the top k {where}", acc,
                                                  note=f"judged through its paired difference from {ref_label}"))
                if r["method"] != ref_label and np.isfinite(r.get("difference", np.nan)):
                    d = Estimate(float(r["difference"]), float(r["difference_low"]), float(r["difference_high"]),
                                 float(r["difference_level"]), str(r["difference_method"]))
                    rows.append(_ordering_row(f"accuracy difference from {ref_label} {where}", d, r["method"],
                                              ref_label))
                if np.isfinite(r["kuncheva_low"]):
                    s = Estimate(float(r["kuncheva"]), float(r["kuncheva_low"]), float(r["kuncheva_high"]), LEVEL,
                                 str(r["kuncheva_method"]).removeprefix("95% "))
                    rows.append(results_file.recorded(f"stability (Kuncheva) of the top k {where}", s,
                                                      note="0 is chance agreement, 1 the same set every time"))
        for label, e in runtimes[slug].items():
            rows.append(results_file.recorded(f"CPU seconds per fit, {label}, {title}", e,
                                              note="machine- and load-dependent; compared by name only"))
    if auc is not None:
        ref_label = METHODS[REFERENCE].label
        title = next(c.title for c in CASES if c.slug == "synthetic_glm")
        for _, r in auc.iterrows():
            e = Estimate(float(r["auc"]), float(r["auc_low"]), float(r["auc_high"]), LEVEL,
                         str(r["auc_method"]).removeprefix("95% "))
            rows.append(results_file.recorded(f"AUC against the planted truth, {r['method']}, {title}", e,
                                              note=f"judged through its paired difference from {ref_label}"))
            if r["method"] != ref_label:
                d = Estimate(float(r["difference"]), float(r["difference_low"]), float(r["difference_high"]),
                             float(r["difference_level"]), str(r["difference_method"]))
                rows.append(_ordering_row(f"AUC difference from {ref_label}, {r['method']}, {title}", d,
                                          r["method"], ref_label))
    return rows


# ------------------------------------------------------------------------------------------- prose

def _signed(e_value: float, low: float, high: float) -> str:
    """A signed difference and its interval, with the decimals its bounds need
    (:func:`fsengine.reproduce.results.interval_digits`)."""
    digits = results_file.interval_digits(low, high)
    return f"{e_value:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def verdict_groups(table: pd.DataFrame, value: str = "difference") -> dict[str, list[tuple]]:
    """Methods better / worse / not resolved against the reference (from the intervals), each with
    its family and its difference."""
    out = {"better": [], "worse": [], "not resolved": []}
    for _, r in table.iterrows():
        if not np.isfinite(r.get(value, np.nan)):
            continue
        word = "better" if r[f"{value}_low"] > 0 else "worse" if r[f"{value}_high"] < 0 else "not resolved"
        out[word].append((r["method"], r["key"], r[value], r[f"{value}_low"], r[f"{value}_high"]))
    return out


def _names(items, with_values: bool = True) -> str:
    if not items:
        return "none"
    if with_values:
        return ", ".join(f"{m} {_signed(v, lo, hi)}" for m, _, v, lo, hi in items)
    return ", ".join(m for m, *_ in items)


def _side(items, test) -> list:
    return [i for i in items if test(i[1])]


def headline_lines(summaries: dict, auc: pd.DataFrame | None, plan: Plan) -> list[str]:
    """The report's first section: for each data set and k, which of the five sources' methods and
    which toolbox methods the intervals resolve from the reference, and which way (computed)."""
    ref_label = METHODS[REFERENCE].label
    lines = [f"**Verdicts (computed from the intervals below; reference {ref_label}).** A method is "
             f"*better* or *worse* than {ref_label} where the Bonferroni-level interval of its paired "
             "difference excludes 0, else *not resolved*. Differences are in held-out accuracy (AUC for the "
             "planted truth), method minus reference.", ""]
    wins_source, wins_toolbox, losses_source = [], [], []
    for slug, table in summaries.items():
        title = next(c.title for c in CASES if c.slug == slug)
        for k in plan.ks:
            at = table[table["k"] == k]
            level = at["difference_level"].dropna()
            groups = verdict_groups(at)
            src = {w: _side(groups[w], is_source) for w in groups}
            box = {w: _side(groups[w], is_toolbox) for w in groups}
            base = {w: _side(groups[w], lambda key: FAMILY.get(key, "").startswith("baseline")) for w in groups}
            lvl = percent(float(level.iloc[0])) if len(level) else "-"
            lines.append(f"- **{title}, top {k}** ({lvl} intervals): five sources' methods better: "
                         f"{_names(src['better'])}; worse: {_names(src['worse'])}; not resolved: "
                         f"{_names(src['not resolved'], False)}. Toolbox methods better: {_names(box['better'])}; "
                         f"worse: {_names(box['worse'])}; not resolved: {_names(box['not resolved'], False)}. "
                         f"Variance baseline: {_word_of(base)}.")
            wins_source += [f"{m} ({title}, top {k})" for m, *_ in src["better"]]
            wins_toolbox += [f"{m} ({title}, top {k})" for m, *_ in box["better"]]
            losses_source += [f"{m} ({title}, top {k})" for m, *_ in src["worse"]]
    if auc is not None:
        groups = verdict_groups(auc)
        src = {w: _side(groups[w], is_source) for w in groups}
        box = {w: _side(groups[w], is_toolbox) for w in groups}
        title = next(c.title for c in CASES if c.slug == "synthetic_glm")
        lvl = percent(float(auc["difference_level"].dropna().iloc[0]))
        lines.append(f"- **{title}, AUC against the planted truth** ({lvl} intervals over "
                     f"{len(plan.glm_seeds)} seeds): five sources' methods better: {_names(src['better'])}; worse: "
                     f"{_names(src['worse'])}; not resolved: {_names(src['not resolved'], False)}. Toolbox methods "
                     f"better: {_names(box['better'])}; worse: {_names(box['worse'])}; not resolved: "
                     f"{_names(box['not resolved'], False)}.")
        wins_source += [f"{m} ({title}, AUC)" for m, *_ in src["better"]]
        wins_toolbox += [f"{m} ({title}, AUC)" for m, *_ in box["better"]]
        losses_source += [f"{m} ({title}, AUC)" for m, *_ in src["worse"]]
    lines += ["", "In short:", "",
              f"- **Where the five sources' methods win** (resolved better than {ref_label}): "
              + ("; ".join(wins_source) if wins_source else "nowhere") + ".",
              f"- **Where a toolbox method wins** (resolved better than {ref_label}): "
              + ("; ".join(wins_toolbox) if wins_toolbox else "nowhere") + ".",
              f"- **Where {ref_label} beats a source's method** (the source's method resolved worse): "
              + ("; ".join(losses_source) if losses_source else "nowhere") + ".",
              "- Everything else is not resolved at these sample sizes: the data cannot tell those methods "
              f"apart from {ref_label}.", ""]
    return lines


def _word_of(base: dict) -> str:
    for word in ("better", "worse", "not resolved"):
        if base[word]:
            m, _, v, lo, hi = base[word][0]
            return f"{word} {_signed(v, lo, hi)}"
    return "-"


def _fmt(v, lo, hi, digits=3) -> str:
    if not np.isfinite(v):
        return "-"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _verdict_word(r) -> str:
    if not np.isfinite(r.get("difference", np.nan)):
        return "reference"
    return "better" if r["difference_low"] > 0 else "worse" if r["difference_high"] < 0 else "not resolved"


def method_table(table: pd.DataFrame, runtimes: dict[str, Estimate], plan: Plan) -> list[str]:
    """Markdown: per method, accuracy and difference at both k, stability at both k, CPU seconds."""
    small, large = plan.ks
    head = (f"| method | family | accuracy, top {small} | vs reference | accuracy, top {large} | vs reference | "
            f"stability, top {small} | stability, top {large} | CPU s per fit, median [IQR] |")
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for label in dict.fromkeys(table["method"]):
        a = table[(table["method"] == label) & (table["k"] == small)].iloc[0]
        b = table[(table["method"] == label) & (table["k"] == large)].iloc[0]

        def diff(r):
            word = _verdict_word(r)
            if word == "reference":
                return word
            return f"{_signed(r['difference'], r['difference_low'], r['difference_high'])} {word}"

        rt = runtimes.get(label)
        lines.append(f"| {label} | {a['family']} | {_fmt(a['accuracy'], a['accuracy_low'], a['accuracy_high'])} | "
                     f"{diff(a)} | {_fmt(b['accuracy'], b['accuracy_low'], b['accuracy_high'])} | {diff(b)} | "
                     f"{_fmt(a['kuncheva'], a['kuncheva_low'], a['kuncheva_high'], 2)} | "
                     f"{_fmt(b['kuncheva'], b['kuncheva_low'], b['kuncheva_high'], 2)} | "
                     + (f"{rt.value:.3g} [{rt.low:.3g}, {rt.high:.3g}]" if rt else "-") + " |")
    return lines


def auc_table(auc: pd.DataFrame) -> list[str]:
    lines = ["| method | family | AUC [95% t over seeds] | AUC − reference [Bonferroni t] | verdict |",
             "|---|---|---|---|---|"]
    for _, r in auc.iterrows():
        word = _verdict_word(r)
        d = "-" if word == "reference" else _signed(r["difference"], r["difference_low"], r["difference_high"])
        lines.append(f"| {r['method']} | {r['family']} | {_fmt(r['auc'], r['auc_low'], r['auc_high'])} | {d} | "
                     f"{word} |")
    return lines


README_MARKERS = ("<!-- toolbox-summary -->", "<!-- /toolbox-summary -->")


def readme_summary(data: dict, width: int = 100) -> str:
    """The README's summary of the benchmark, formatted from a ``results.json`` of this target: a
    lead sentence, then one bullet per data set at the small k (the reference's accuracy and every
    method resolved from it, with its difference) and one for the AUC against the planted truth.
    Lines are wrapped at ``width``; :func:`readme_with_summary` puts it between the README's markers."""
    ref = METHODS[REFERENCE].label
    rows = {r["quantity"]: r for r in data["rows"]}
    small = data["inputs"]["plan"]["ks"][0]

    def shown(r, signed=False):
        if signed:
            return _signed(r["ours"], *r["interval"])
        return f"{r['ours']:.3f} [{r['interval'][0]:.3f}, {r['interval'][1]:.3f}]"

    def resolved(prefix: str, suffix: str) -> str:
        better, worse = [], []
        for q, r in rows.items():
            if q.startswith(prefix) and q.endswith(suffix) and results_file.outcome(r["verdict"]) == "resolved":
                method = q[len(prefix):len(q) - len(suffix)]
                (better if r["ours"] > 0 else worse).append(f"{method} {shown(r, True)}")
        return f"better: {', '.join(better) or 'none'}; worse: {', '.join(worse) or 'none'}"

    bullets = []
    for case in CASES:
        where = f"at the small k (k = {small}), "
        acc = rows.get(f"held-out accuracy of the top k {where}{ref}, {case.title}")
        if acc is None:
            continue
        bullets.append(f"{case.title}, held-out accuracy: {ref} {shown(acc)}; "
                       + resolved(f"accuracy difference from {ref} {where}", f", {case.title}") + ".")
    glm = next(c.title for c in CASES if c.slug == "synthetic_glm")
    auc = rows.get(f"AUC against the planted truth, {ref}, {glm}")
    if auc is not None:
        seeds = len(data["inputs"]["plan"]["glm_seeds"])
        bullets.append(f"{glm}, AUC against the planted truth (over {seeds} generator seeds): {ref} {shown(auc)}; "
                       + resolved(f"AUC difference from {ref}, ", f", {glm}") + ".")
    lead = (f"Committed full run, top {small} features (all numbers from `docs/results/toolbox/results.json`): "
            f"each method's paired difference from {ref}, resolved only where its Bonferroni-level interval "
            "excludes 0; every other method is not resolved.")
    lines = [*textwrap.wrap(lead, width), ""]
    for b in bullets:
        lines += textwrap.wrap(b, width, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(lines)


def readme_with_summary(readme: str, data: dict) -> str:
    """``readme`` with the text between :data:`README_MARKERS` replaced by :func:`readme_summary`."""
    begin, end = README_MARKERS
    head, rest = readme.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{readme_summary(data)}\n{end}{tail}"


# ------------------------------------------------------------------------------------------ figures


def differences_figure(summaries: dict, plan: Plan) -> go.Figure:
    """Every method's paired difference from the reference at both k on every data set, with its
    Bonferroni-level interval; filled markers where it excludes 0."""
    slugs = list(summaries)
    titles = [f"{next(c.title for c in CASES if c.slug == s)}, top {k}" for k in plan.ks for s in slugs]
    fig = make_subplots(rows=len(plan.ks), cols=len(slugs), subplot_titles=titles, shared_yaxes=True,
                        horizontal_spacing=0.04, vertical_spacing=0.08)
    labels = list(dict.fromkeys(lbl for t in summaries.values() for lbl in t["method"]))
    for i, k in enumerate(plan.ks):
        for j, slug in enumerate(slugs):
            at = summaries[slug][(summaries[slug]["k"] == k)].dropna(subset=["difference"]).set_index("method")
            at = at.reindex([lbl for lbl in labels if lbl in at.index])
            resolved = (at["difference_low"] > 0) | (at["difference_high"] < 0)
            color = [compare_plots.method_color(m, labels.index(m)) for m in at.index]
            fig.add_trace(go.Scatter(
                x=at["difference"], y=list(at.index), mode="markers", showlegend=False,
                marker=dict(size=9, color=color, symbol=np.where(resolved, "circle", "circle-open").tolist(),
                            line=dict(width=2, color=color)),
                error_x=dict(type="data", symmetric=False, array=at["difference_high"] - at["difference"],
                             arrayminus=at["difference"] - at["difference_low"], thickness=1.2, width=3),
                customdata=np.column_stack([at["difference_low"], at["difference_high"]]),
                hovertemplate="%{y}<br>difference %{x:+.3f}<br>interval [%{customdata[0]:+.3f}, "
                              "%{customdata[1]:+.3f}]<extra></extra>"), row=i + 1, col=j + 1)
            fig.add_vline(x=0.0, line=dict(color="#888888", dash="dot", width=1), row=i + 1, col=j + 1)
    fig.update_yaxes(autorange="reversed", type="category")
    ref = METHODS[REFERENCE].label
    fig = apply_style(fig, title=f"Held-out accuracy minus that of {ref} (Bonferroni-level intervals; "
                                 "filled: the interval excludes 0)", height=420 * len(plan.ks))
    return fig


def auc_figure(per_seed: pd.DataFrame, auc: pd.DataFrame) -> go.Figure:
    """Mean AUC per method with its t interval over the seeds, and every seed's AUC as a dot."""
    fig = go.Figure()
    labels = list(auc["method"])
    fig.add_trace(go.Scatter(
        x=auc["auc"], y=labels, mode="markers", name="mean over seeds (95% t interval)",
        marker=dict(size=11, color="#1f3b73"),
        error_x=dict(type="data", symmetric=False, array=auc["auc_high"] - auc["auc"],
                     arrayminus=auc["auc"] - auc["auc_low"], thickness=1.5, width=4)))
    fig.add_trace(go.Scatter(x=per_seed["auc"], y=per_seed["method"], mode="markers", name="one seed",
                             marker=dict(size=6, color="rgba(120,120,120,0.5)"),
                             customdata=per_seed["seed"], hovertemplate="%{y}<br>seed %{customdata}: AUC %{x:.3f}"
                                                                         "<extra></extra>"))
    fig.add_vline(x=0.5, line=dict(color="#888888", dash="dot", width=1), annotation_text="chance")
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(title="AUC of the method's scores against the planted relevant features")
    return apply_style(fig, title="Recovering the planted features (ROC AUC per seed of the generator)", height=520)


def seed_accuracy_table(run: CaseRun) -> pd.DataFrame:
    """Mean held-out accuracy over the seeds at every grid point, with t intervals (the accuracy
    curves of the synthetic data)."""
    rows = []
    grid = run.first.held_out.grid
    for label in run.labels:
        for g, k in enumerate(grid):
            values = [res.held_out.repeats[0, res.held_out.curves.index(label), g] for res in run.results]
            e = t_interval(values, what="generator seeds")
            rows.append({"curve": label, "k": int(k), "accuracy": e.value, "low": max(0.0, e.low),
                         "high": min(1.0, e.high), "method": f"95% {e.method}"})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------- run

def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None, scheduler=None) -> Path:
    """Run the benchmark (:data:`QUICK` or :data:`FULL`) and write its report, ``results.json``,
    raw CSVs and figures into ``out_dir``. The fits of each comparison are tasks of
    :func:`fsengine.parallel.map_tasks` (``n_jobs`` local processes or a Dask ``scheduler``); the
    numbers do not depend on where they ran (the CPU seconds do). BLAS runs one thread per process,
    so CPU seconds measure one method's work, not threads waiting for each other."""
    started, cpu_started = time.perf_counter(), time.process_time()
    plan = QUICK if quick else FULL
    check_ks(plan)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    where = dict(n_jobs=n_jobs, scheduler=scheduler)
    spans = {"notmnist_bd": (0.0, 0.35), "synthetic_glm": (0.35, 0.65), "sentence_polarity": (0.65, 0.98)}
    runs = {}
    with threadpool_limits(1):
        for case in CASES:
            lo, hi = spans[case.slug]
            runs[case.slug] = run_case(case, plan, scaled(progress, lo, hi, f"{case.title}: "), where)
    seconds = {"wall": time.perf_counter() - started, "cpu_main_process": time.process_time() - cpu_started}
    progress(0.99, "report")
    path = write_outputs(out_dir, quick, plan, runs, seconds)
    progress(1.0, "done")
    return path


def write_outputs(out_dir: Path, quick: bool, plan: Plan, runs: dict[str, CaseRun], seconds: dict) -> Path:
    summaries, runtimes, all_features, failures = {}, {}, {}, {}
    per_seed = auc = None
    for slug, run_ in runs.items():
        times = fit_times(run_)
        to_csv(times, out_dir / f"{slug}_fits.csv", index=False)
        runtimes[slug] = runtime_estimates(times)
        to_csv(bootstrap_tops(run_), out_dir / f"{slug}_bootstrap_top.csv", index=False)
        failures[slug] = {label: msg for res in run_.results for label, msg in res.failures.items()}
        if run_.seeds is None:
            res = run_.first
            summaries[slug] = single_summary(run_, plan)
            all_features[slug] = res.all_features_interval
            to_csv(held_out_rows(run_, plan), out_dir / f"{slug}_held_out_rows.csv", index=False)
            to_csv(res.accuracy, out_dir / f"{slug}_accuracy.csv", index=False)
            to_csv(res.differences(REFERENCE), out_dir / f"{slug}_differences.csv", index=False)
            write_figure(compare_plots.accuracy_curves(res.accuracy, all_features=res.all_features_accuracy,
                                                       majority=res.majority_accuracy, random_label="random features",
                                                       all_features_interval=res.all_features_interval,
                                                       title=f"{run_.case.title}: held-out accuracy of the top k",
                                                       note=res.band_note()), out_dir / f"{slug}_accuracy.html")
            write_figure(compare_plots.difference_curves(res.differences(REFERENCE),
                                                         title=f"{run_.case.title}: paired difference from "
                                                               f"{METHODS[REFERENCE].label}"),
                         out_dir / f"{slug}_differences.html")
            write_figure(compare_plots.stability_bars(res.stability(plan.ks[0]), plan.ks[0]),
                         out_dir / f"{slug}_stability.html")
        else:
            per_seed = seed_values(run_, plan)
            to_csv(per_seed, out_dir / f"{slug}_per_seed.csv", index=False)
            summaries[slug], auc = seed_summary(run_, plan, per_seed)
            all_features[slug] = t_interval([r.held_out.all_repeats[0] for r in run_.results], what="generator seeds")
            acc = seed_accuracy_table(run_)
            to_csv(acc, out_dir / f"{slug}_accuracy.csv", index=False)
            write_figure(compare_plots.accuracy_curves(
                acc, all_features=all_features[slug].value,
                majority=float(np.mean([r.majority_accuracy for r in run_.results])), random_label="random features",
                all_features_interval=all_features[slug], title=f"{run_.case.title}: mean held-out accuracy over seeds",
                note=f"bands: 95% t intervals over {len(run_.seeds)} seeds"), out_dir / f"{slug}_accuracy.html")
            write_figure(auc_figure(per_seed, auc), out_dir / f"{slug}_auc.html")
        to_csv(summaries[slug], out_dir / f"{slug}_summary.csv", index=False)
    write_figure(differences_figure(summaries, plan), out_dir / "differences.html")
    rows = result_rows(summaries, auc, runtimes, all_features, plan)
    inputs = {"plan": plan.inputs(), "reference": REFERENCE,
              "methods": {slug: [r.key for r in run_.first.runs if r.label in run_.labels]
                          for slug, run_ in runs.items()},
              "parameters": {key: benchmark_params(key, plan) for key in method_keys() if benchmark_params(key, plan)},
              "skipped": {f"{key} on {slug}": reason for (key, slug), reason in SKIPS.items()},
              "failures": {slug: f for slug, f in failures.items() if f},
              "shapes": {slug: list(map(int, run_.shape)) for slug, run_ in runs.items()}}
    results_file.write(out_dir, TARGET, quick, inputs, rows)
    text = report(quick, plan, runs, summaries, auc, runtimes, all_features, failures, seconds, rows)
    path = out_dir / "report.md"
    path.write_text(text, encoding="utf-8")
    return path


def report(quick, plan, runs, summaries, auc, runtimes, all_features, failures, seconds, rows) -> str:
    ref_label = METHODS[REFERENCE].label
    polarity = runs["sentence_polarity"]
    notmnist = runs["notmnist_bd"]
    first = notmnist.first
    lines = [
        "# toolbox: the five sources' methods against the toolbox practitioners already use",
        "",
        f"Command: `python -m fsengine reproduce toolbox{' --quick' if quick else ''}`"
        + (" (quick: CI-sized, not the benchmark)" if quick else "")
        + f". This run took {seconds['wall'] / 60:.1f} minutes of wall-clock time "
          f"({seconds['cpu_main_process'] / 60:.1f} CPU minutes in the main process).",
        "",
        *headline_lines(summaries, auc, plan),
        "## Set-up (fixed before any run)",
        "",
        f"- **Reference.** {REFERENCE_WHY}",
        f"- **k.** Every number is reported at k = {plan.ks[0]} and at k = {plan.ks[1]}, the largest k of the "
        f"engine's accuracy grid (max_k); the full curves are in the figures and "
        "`*_accuracy.csv`. No k and no method is picked on held-out rows.",
        f"- **Split and classifier** (the comparison runner, `fsengine/compare/runner.py`): a stratified "
        f"{1 - plan.test_size:.0%}/{plan.test_size:.0%} train/held-out split (seed {plan.split_seed}); every "
        "method is fitted on the training part only; a standardised logistic regression is trained on each "
        "method's top k and scored on the held-out rows.",
        f"- **Intervals.** Accuracy: 95% Wilson intervals over the held-out rows ({first.held_out.n_test:,} "
        f"on notMNIST, {polarity.first.held_out.n_test:,} on sentence polarity; the training split is fixed). "
        f"Paired difference from {ref_label}: percentile bootstrap over the same held-out rows (2,000 "
        "resamples, seed 0, the same resamples for every method) at the Bonferroni level over the methods "
        f"compared, so that all differences of one data set and k hold together at 95%. Planted GLM: "
        f"{len(plan.glm_seeds)} seeds of the generator, each with its own comparison; the accuracy, AUC and "
        "stability are means over the seeds with t intervals, the differences seed-paired t intervals at the "
        "Bonferroni level (the seeds are independent data sets). Stability: Kuncheva's index of the top-k "
        f"sets over {plan.n_bootstrap} stratified bootstrap refits of the training part, with a 95% jackknife "
        "interval over the resamples. Runtime: CPU seconds (`time.process_time`, BLAS on one thread) of "
        f"each bootstrap fit, median and interquartile range ({plan.n_bootstrap} fits per data set; "
        f"{plan.n_bootstrap * len(plan.glm_seeds)} pooled over the GLM's seeds).",
        f"- **notMNIST B vs D**: {plan.notmnist_per_class} images per letter (seed 0), "
        f"{notmnist.shape[1]} pixels in [0, 1].",
        f"- **Planted GLM**: logistic, n = {plan.glm['n']}, p = {plan.glm['p']}, {plan.glm['k']} relevant "
        f"features (coefficients ±U(0.5, 1) x signal {plan.glm['signal']:g}), AR(1) correlation "
        f"rho = {plan.glm['rho']:g} between neighbouring features; seeds "
        + ", ".join(map(str, plan.glm_seeds)) + ". AUC: each method's scores (on the training part) against "
        "the planted relevant features.",
        "- **Sentence polarity**: "
        + (f"{polarity.shape[0]:,} snippets (stratified, seed 0)" if plan.polarity_docs else
           f"all {polarity.shape[0]:,} snippets")
        + f", binary word presence of the {polarity.shape[1]:,} words in at least {plan.polarity_min_df} "
          "snippets (the catalogue's `sentence_polarity`; the vocabulary is counted on all snippets, without "
          "labels).",
        "- **Method parameters** are the registry's defaults, except (benchmark settings, with the reason):",
        *[f"  - `{key}`: {BENCHMARK_CHANGES[key]} (here: "
          + ", ".join(f"{n}={v}" for n, v in benchmark_params(key, plan).items()) + ")"
          for key in BENCHMARK_CHANGES],
        *(["  - quick run only, to keep it CI-sized: "
           + "; ".join(f"`{key}` " + ", ".join(f"{n}={v}" for n, v in values.items())
                       for key, values in plan.overrides.items())] if plan.overrides else []),
        "- **Methods that need other data** are adapted by `fsengine/methods/adapt.py` as everywhere in "
        "fsengine, with a note: MI, MDL, the count cutoff and the RTM binarise features (pixels at 0.5, "
        "the GLM's Gaussian features at their median); chi² rescales features with negative values to "
        "[0, 1]; BIA leaves out constant pixels. IFS, SGC and the Bayes factor run on the real values as "
        "maxent predicates f(x, y) = x_j [y = c], as their selectors accept.",
        "- **Skipped** (not run, reason fixed before the run): "
        + ("; ".join(f"{METHODS[key].label} on {next(c.title for c in CASES if c.slug == slug)}: {reason}"
                     for (key, slug), reason in SKIPS.items()) or "none") + ".",
        "- **Failed in the engine** (the error as the engine reports it): "
        + ("; ".join(f"{label} on {next(c.title for c in CASES if c.slug == slug)}: {msg}"
                     for slug, fails in failures.items() for label, msg in fails.items()) or "none") + ".",
        "",
        "Choices made after seeing results of this benchmark:",
        "",
        *[f"- {c}" for c in CHOICES_AFTER_SEEING],
        "",
    ]
    for slug, table in summaries.items():
        run_ = runs[slug]
        e = all_features[slug]
        lines += [f"## {run_.case.title}", "",
                  f"Held-out accuracy of all {run_.shape[1]:,} features: {_fmt(e.value, e.low, e.high)} "
                  f"({e.method}).", ""]
        if slug == "synthetic_glm":
            lines += ["Means over the seeds with 95% t intervals; differences from the reference seed-paired "
                      f"at {percent(float(table['difference_level'].dropna().iloc[0]))}.", ""]
        else:
            res = run_.first
            level = percent(float(table['difference_level'].dropna().iloc[0]))
            lines += [f"{res.interval_note()} Differences: {level} "
                      f"paired bootstrap intervals (Bonferroni over {len(run_.labels) - 1} comparisons).", ""]
        lines += method_table(table, runtimes[slug], plan) + [""]
        if slug == "synthetic_glm" and auc is not None:
            lines += ["AUC of each method's scores against the planted relevant features:", "", *auc_table(auc), ""]
        notes = sorted({n for res in run_.results for r in res.runs for n in r.notes if "ConvergenceWarning" in n
                        or "did not converge" in n})
        if notes:
            shown = notes[:6]
            lines += ["Convergence warnings during the fits (first of "
                      f"{len(notes)} distinct):", "", *[f"- {n[:300]}" for n in shown], ""]
    lines += [
        "## Files",
        "",
        "- [differences.html](differences.html): every method's paired difference from the reference at both k "
        "on every data set.",
        *[f"- {runs[c.slug].case.title}: [{c.slug}_accuracy.html]({c.slug}_accuracy.html) (held-out accuracy "
          "against k with its intervals; numbers in `_accuracy.csv`), "
          + (f"[{c.slug}_auc.html]({c.slug}_auc.html) (AUC per seed)" if c.slug == "synthetic_glm" else
             f"[{c.slug}_differences.html]({c.slug}_differences.html) (paired differences from the reference at "
             f"every k; `_differences.csv`), [{c.slug}_stability.html]({c.slug}_stability.html) (stability at "
             "the small k)") for c in CASES if c.slug in runs],
        "- Raw counts: `<data>_held_out_rows.csv` (per held-out row, 1 where the classifier on the method's top "
        "k was right: the Wilson intervals and paired bootstraps are recomputed from it), "
        "`<data>_bootstrap_top.csv` (the ranked top features of every bootstrap fit: Kuncheva and its "
        "jackknife), `<data>_fits.csv` (CPU and wall seconds of every fit), `synthetic_glm_per_seed.csv` (per "
        "seed and method: AUC, correct held-out rows, stability), `<data>_summary.csv` (the tables above).",
        "",
        "## Headline numbers (`results.json`)",
        "",
        *results_file.markdown(rows),
    ]
    return "\n".join(lines) + "\n"
