"""The rtm-roc record's numbers, computed from the raw files (:mod:`fsengine.reproduce.rtm.data`):
the rows of ``results.json`` by section, each estimate with its interval (t over seeds, the
corrected resampled t over folds and their paired versions), and the two families judged as one by
Holm's step-down procedure (the slides' ordering on accuracy, the slides' gaps)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsengine import stats
from fsengine.methods.rtm import study as rtm_study
from fsengine.reproduce import results as results_file
from fsengine.reproduce.rtm.plan import PAIRS, PRIORS, REFIT, SLIDES_DATASET_2, cell_name


def _label(method: str, suffix: str = "") -> str:
    return f"RTM {method}{suffix}"


def _slides_value(label: str) -> float | None:
    """The slides' Dataset 2 accuracy of a fixed-prior RTM label (None for others)."""
    table = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    return float(table[label]) if label in table.index else None


def synthetic_rows(auc: pd.DataFrame) -> list[results_file.Row]:
    """Mean AUC per method (t over seeds), the slides' ordering pair by pair and every RTM variant
    against each baseline (seed-paired t)."""
    rows = [results_file.recorded(f"synthetic AUC, {label}", stats.t_interval(auc[label], what="seeds"),
                                  note="the slides show ROC pictures only") for label in auc.columns]
    for prior, suffix in PRIORS:
        for a, b in PAIRS:
            first, second = _label(a, suffix), _label(b, suffix)
            if {first, second} <= set(auc.columns):
                rows.append(results_file.ordering(
                    f"ordering, synthetic AUC, {prior}, {a} vs {b}",
                    stats.paired_t_interval(auc[first], auc[second], what="seeds"), first, second))
    for label in [c for c in auc.columns if c.startswith("RTM")]:
        for base in (rtm_study.MI_LABEL, rtm_study.L1_LABEL):
            if base in auc.columns:
                rows.append(results_file.ordering(f"synthetic AUC difference, {label} minus {base}",
                                                  stats.paired_t_interval(auc[label], auc[base], what="seeds"),
                                                  label, base))
    return rows


def with_refits(folds: pd.DataFrame, reruns: pd.DataFrame) -> pd.DataFrame:
    """The protocol rows with every cap-stopped fit replaced by its refit (same fold, method)."""
    if reruns.empty:
        return folds
    keys = set(zip(reruns.fold, reruns.method))
    kept = folds[[(f, m) not in keys for f, m in zip(folds.fold, folds.method)]]
    return pd.concat([kept, reruns[folds.columns.intersection(reruns.columns)]], ignore_index=True)


def corpus_rows(key: str, result) -> list[results_file.Row]:
    """One corpus: accuracy per method (corrected resampled t over folds; fixed-prior RTM on the
    slides' Dataset 2 against the slides' value), the slides' ordering pair by pair, every RTM
    variant against every baseline (fold-paired), the fits that did not converge, and the same
    numbers with cap-stopped fits refitted where there were any (the protocol's orderings at 95%
    each; :func:`judge_headline_families` judges them again as one family)."""
    label = rtm_study.CORPORA[key].label
    df = result.folds
    methods = list(dict.fromkeys(df.method))
    dataset2 = label == SLIDES_DATASET_2
    rows = []
    for m in methods:
        est = rtm_study.accuracy_estimate(df, m)
        paper = _slides_value(m) if dataset2 else None
        q = f"accuracy, {m}, {label}"
        rows.append(results_file.versus(q, est, paper, what="the slides' Dataset 2 value") if paper is not None
                    else results_file.recorded(q, est, note="no value in the slides for this corpus and method"))
    rows += _orderings(df, label, dataset2)
    rtm = [m for m in methods if m.startswith("RTM")]
    for m in rtm:
        for base in rtm_study.BASELINES:
            if base in methods:
                rows.append(results_file.ordering(f"accuracy difference, {m} minus {base}, {label}",
                                                  rtm_study.accuracy_difference(df, m, base), m, base))
    rtm_fits = df[df.method.str.startswith("RTM")]
    rows.append(results_file.recorded(f"RTM fits that did not converge, {label}",
                                      float((~rtm_fits.converged.astype(bool)).sum()),
                                      note="protocol fits; the report names them"))
    if not result.reruns.empty:
        refit = with_refits(df, result.reruns)
        for m in dict.fromkeys(result.reruns.method):
            rows.append(results_file.recorded(f"accuracy, {m}, {label}, {REFIT}", rtm_study.accuracy_estimate(refit, m),
                                              note="cap-stopped fits refitted with a higher cap"))
        rows += _orderings(refit, label, dataset2, suffix=f", {REFIT}", involving=set(result.reruns.method))
        rows.append(results_file.recorded(f"RTM fits still not converged after the refit, {label}",
                                          float((~result.reruns.converged.astype(bool)).sum()),
                                          note="refits with the higher cap"))
    return rows


def _orderings(df: pd.DataFrame, label: str, dataset2: bool, suffix: str = "",
               involving: set[str] | None = None, family: list | None = None) -> list[results_file.Row]:
    """The slides' ordering pair by pair on one corpus (only pairs with a method in ``involving``
    when given), each at 95%; with ``family`` each is also registered there as (quantity, folds,
    first, second, the slides' gap or None) to be judged again as one family."""
    rows = []
    methods = set(df.method)
    slides = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    for prior, tail in PRIORS:
        for a, b in PAIRS:
            first, second = _label(a, tail), _label(b, tail)
            if not {first, second} <= methods or (involving is not None and not {first, second} & involving):
                continue
            paper = float(slides[first] - slides[second]) if dataset2 and not tail else None
            quantity = f"ordering, accuracy, {prior}, {a} vs {b}, {label}{suffix}"
            rows.append(results_file.ordering(quantity, rtm_study.accuracy_difference(df, first, second), first,
                                              second, paper=paper))
            if family is not None:
                family.append((quantity, df, first, second, paper))
    return rows


#: the two families the report's first sentences read as one, judged by Holm's step-down procedure
ORDER_FAMILY = "pairs of the slides' ordering on accuracy"
GAP_FAMILY = "slides' gaps on their Dataset 2"


def gap_quantity(ordering_quantity: str) -> str:
    """The quantity of the row judging an ordering's difference against the slides' gap."""
    return ordering_quantity.replace("ordering, ", "gap against the slides, ", 1)


def headline_family(results: dict) -> list[tuple]:
    """The slides' ordering on accuracy over every corpus and prior (the protocol's fits): one
    (quantity, folds, first, second, the slides' gap or None) per pair."""
    family = []
    for key, r in results.items():
        label = rtm_study.CORPORA[key].label
        _orderings(r.folds, label, label == SLIDES_DATASET_2, family=family)
    return family


def holm_adjusted(family: list[tuple], gaps: bool = False) -> np.ndarray:
    """Holm-adjusted p-values of the family (``gaps``: of its tests against the slides' gaps)."""
    tests = [fold_test(df, first, second, paper if gaps else 0.0)[0] for _, df, first, second, paper in family
             if not gaps or paper is not None]
    return stats.holm_adjust(tests)


def fold_test(df: pd.DataFrame, first: str, second: str, null: float = 0.0):
    """The fold-paired corrected resampled t test of ``first - second = null``: its p-value and its
    interval at any level (:func:`fsengine.methods.rtm.study.accuracy_difference`)."""
    a = df[df.method == first].set_index("fold").accuracy.sort_index().to_numpy()
    b = df[df.method == second].set_index("fold").accuracy.sort_index().to_numpy()
    p = stats.t_pvalue(a - b, null=null, test_train_ratio=rtm_study.train_test_ratio(df))
    return p, lambda level: rtm_study.accuracy_difference(df, first, second, level)


def judge_headline_families(sections: dict, family: list) -> None:
    """Judge the slides' ordering on accuracy (every corpus and prior, the protocol's fits) as one
    family and the slides' gaps on their Dataset 2 as another, each by Holm's step-down procedure at
    95% family-wise: the ordering rows are replaced by their intervals at Holm's levels, and a row
    judging each difference against the slides' gap follows its ordering (in place, in ``sections``)."""
    if not family:
        return
    judged = dict(zip([q for q, *_ in family], stats.holm_family(
        [fold_test(df, first, second) for _, df, first, second, _ in family], family=ORDER_FAMILY)))
    gaps = [(q, df, first, second, paper) for q, df, first, second, paper in family if paper is not None]
    against = dict(zip([q for q, *_ in gaps], stats.holm_family(
        [fold_test(df, first, second, paper) for _, df, first, second, paper in gaps], family=GAP_FAMILY)))
    by_quantity = {q: (first, second, paper) for q, _, first, second, paper in family}
    for name, rows in sections.items():
        out = []
        for r in rows:
            if r.quantity not in judged:
                out.append(r)
                continue
            first, second, paper = by_quantity[r.quantity]
            out.append(results_file.ordering(r.quantity, judged[r.quantity], first, second, paper=paper))
            if r.quantity in against:
                out.append(results_file.versus(gap_quantity(r.quantity), against[r.quantity], paper,
                                               what="the slides' gap"))
        sections[name] = out


def sensitivity_rows(key: str, grid: pd.DataFrame) -> list[results_file.Row]:
    """The grid on one corpus: each method's accuracy per cell (against the slides' value on their
    Dataset 2) and Power EP - EM per cell (EM at the same alpha0; it has no damping)."""
    if grid.empty:
        return []
    label = rtm_study.CORPORA[key].label
    dataset2 = label == SLIDES_DATASET_2
    rows = []
    cells = grid.drop_duplicates(["method", "alpha0", "damping"])[["method", "alpha0", "damping"]]
    for _, c in cells.iterrows():
        part = _cell(grid, c.method, c.alpha0, c.damping)
        est = rtm_study.accuracy_estimate(part, c.method)
        q = f"sensitivity, accuracy, {c.method}, {label}, {cell_name(c.alpha0, c.damping)}"
        paper = _slides_value(c.method) if dataset2 else None
        rows.append(results_file.versus(q, est, paper, what="the slides' Dataset 2 value") if paper is not None
                    else results_file.recorded(q, est, note="no value in the slides for this corpus"))
    pep, em = _label("Power EP"), _label("EM")
    slides = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    for _, c in cells[cells.method == pep].iterrows():
        both = pd.concat([_cell(grid, pep, c.alpha0, c.damping), _cell(grid, em, c.alpha0, None)])
        if both.method.nunique() < 2:
            continue
        gap = float(slides[pep] - slides[em]) if dataset2 else None
        quantity = f"sensitivity, ordering, Power EP vs EM, {label}, {cell_name(c.alpha0, c.damping)}"
        difference = rtm_study.accuracy_difference(both, pep, em)
        rows.append(results_file.ordering(quantity, difference, pep, em, paper=gap))
        if gap is not None:
            rows.append(results_file.versus(f"sensitivity, {gap_quantity(quantity.removeprefix('sensitivity, '))}",
                                            difference, gap, what="the slides' gap"))
    return rows


def _cell(grid: pd.DataFrame, method: str, alpha0: float, damping: float | None) -> pd.DataFrame:
    part = grid[(grid.method == method) & (grid.alpha0 == alpha0)]
    if damping is not None and np.isfinite(damping):
        part = part[part.damping == damping]
    return part


def result_rows(auc: pd.DataFrame, results: dict) -> dict[str, list[results_file.Row]]:
    """The rows of ``results.json`` by section: ``synthetic``, one per corpus key, ``sensitivity``."""
    sections = {"synthetic": synthetic_rows(auc)}
    for key, r in results.items():
        sections[key] = corpus_rows(key, r)
    sections["sensitivity"] = [row for key, r in results.items() for row in sensitivity_rows(key, r.sensitivity)]
    judge_headline_families(sections, headline_family(results))
    return sections
