"""Side-by-side comparison of feature-selection methods on one Dataset (no Streamlit here).

Protocol of :func:`run_comparison`:

1. Rows: two classes are kept when a chosen method needs them (or a class pair is given), so every
   method sees the same rows (:func:`fsengine.methods.adapt.restrict_classes`).
2. A stratified train/test split (``fsengine.data.transforms.split``). Every method is fitted on
   the training part only (:func:`fsengine.methods.run.fit_method`, which adapts columns and says so).
   With ``n_repeats >= 2`` there are further splits (seeds ``seed + 1, ...``) and every method is
   fitted once more on each of their training parts.
3. Held-out accuracy: for each k of a grid, one downstream classifier (standardised logistic
   regression) is trained on the first k features of each method's ranking and scored on the test
   part. Baselines: all features, the same classifier on k random features (mean of 5 draws), and
   the majority class. Whether each held-out row was classified right is kept
   (:class:`HeldOut`), and every interval is computed from it with :mod:`fsengine.stats`:

   * one split (the default): an accuracy is a proportion of the n held-out rows, with Wilson's
     score interval (95%); the random baseline, a mean over draws per row, by a percentile
     bootstrap over the rows. The paired difference of a method from the reference at each k is
     the difference of their accuracies on the SAME rows, with the exact conditional interval of a
     paired difference (:func:`fsengine.stats.paired_proportion_difference`: Clopper-Pearson on the
     rows where only one of the two is right, dual to the exact McNemar test; no resampling, so a
     Bonferroni level of 99.7% rests on no handful of resamples in a tail). These
     intervals hold the training rows fixed: they say what the held-out rows can tell apart for
     these fits, not how much the fits would move with other training rows.
   * ``n_repeats >= 2``: the accuracy is the mean over the splits, with the corrected resampled t
     interval of Nadeau & Bengio (2003), which inflates the variance for splits that share rows;
     the paired differences likewise (same splits for every method).

   Differences are judged by :func:`fsengine.stats.difference_verdict` ("better" / "worse" when
   the interval excludes 0, else "not resolved"); with m methods, each of the m - 1 intervals
   against the reference is a Bonferroni interval at level 1 - 0.05 / (m - 1), so that all of
   them together hold at 95% at one k. No k is picked on the held-out rows: the curves are
   reported, never their best point.
4. Stability: every method is refitted on ``n_bootstrap`` stratified bootstrap resamples of the
   training part (the same resamples for every method; with ``warm_start``, the default, a method
   that can warm start, such as the RTM without ARD, starts them from its fit on the training
   part, :mod:`fsengine.warm_start`, and the report's notes say so); Kuncheva's index of the top-k sets is
   averaged over all pairs of resamples (:mod:`fsengine.selection_metrics`), with a 95% jackknife
   interval over the resamples (leave one resample out; needs 5 or more); beside it Nogueira,
   Sechidis & Brown's (2018) estimator with its asymptotic normal interval and their test of equal
   stability against the reference, paired (the resamples are shared), Holm-adjusted over the m - 1
   methods at one k (:meth:`ComparisonResult.stability`). Runtimes: the fit on the training part,
   and the median and interquartile range of the bootstrap fits.
5. Overlap: pairwise Jaccard of the methods' top-k sets from step 2. ROC / AUC of each method's
   scores against ``Dataset.truth`` when the data are synthetic.

``k`` for overlap and stability and the reference method are chosen after the run (any k up to
``max_k``), so a page can move them without refitting.

Scale-out: the fits of steps 2 and 4 (methods x (n_repeats + resamples)) and the accuracy curves
of step 3 are independent tasks (:func:`fsengine.parallel.map_tasks`), run in this process, on local
worker processes (``n_jobs``) or on a Dask cluster (``scheduler``) with identical results.
Cancellation: ``cancel()`` is polled after every finished task; any exception raised by
``progress`` (called per finished task) also stops the remaining tasks (Streamlit uses this when
the user stops the script).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from fsengine.compare.settings import CompareSettings
from fsengine.data import Dataset
from fsengine.data.transforms import class_names, split
from fsengine.formatting import percent
from fsengine.methods.adapt import restrict_classes
from fsengine.methods.custom import resolve_methods
from fsengine.methods.failures import failure_message
from fsengine.methods.registry import MethodSpec
from fsengine.methods.run import check_values, fit_method, warm_startable
from fsengine.methods.run import subset_rows as _subset
from fsengine.methods.run import warm_up as _untimed_first_call
from fsengine.parallel import TasksCancelled, backend_for, map_tasks
from fsengine.ranking import ranks_from_order
from fsengine.selection_metrics import (
    jaccard_matrix,
    kuncheva_leave_one_out,
    kuncheva_matrix,
    nogueira_difference,
    nogueira_stability,
    roc_auc,
    roc_curve,
)
from fsengine.stats import (
    LEVEL,
    Estimate,
    bonferroni_level,
    bootstrap_means,
    difference_verdict,
    holm_adjust,
    jackknife_interval,
    median_iqr,
    paired_proportion_difference,
    paired_t_interval,
    t_interval,
    wilson_interval,
)
from fsengine.validation import check_magnitude
from fsengine.warm_start import WarmStart

Progress = Callable[[float, str], None]
#: random k-subsets averaged for the "random features" baseline
N_RANDOM_DRAWS = 5
#: points of the accuracy-vs-k grid
N_GRID = 14
#: curve names of the baselines in ``ComparisonResult.accuracy``
RANDOM = "random features"
#: resamples the stability's jackknife interval needs (with 3 or 4 it rests on so few pairs that
#: it can be 0 wide when they happen to agree)
MIN_JACKKNIFE = 5


class ComparisonCancelled(Exception):
    """Raised when ``cancel()`` returned True; nothing of the run is kept.

    Examples
    --------
    >>> from fsengine.compare import ComparisonCancelled, run_comparison
    >>> from fsengine.data import load_dataset
    >>> try:
    ...     run_comparison(load_dataset("synthetic_glm:n=100,p=8,k=2"), ["anova"], cancel=lambda: True)
    ... except ComparisonCancelled:
    ...     print("cancelled, nothing kept")
    cancelled, nothing kept
    """


@dataclass
class MethodRun:
    """What the comparison keeps of one method (picklable, no selector).

    scores, order, support over all features (see :class:`fsengine.methods.run.MethodFit`);
    boot_top (B, max_k + 1) the first ranked features of every bootstrap fit and boot_top_scores
    their scores (for ties at the cut); boot_seconds (B,) their wall-clock and boot_cpu_seconds (B,)
    their CPU seconds (``time.process_time`` of the process that fitted, see
    :class:`fsengine.methods.run.MethodFit`).

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> run = result.run("ANOVA F")
    >>> run.label, run.scores.shape, run.boot_top.shape      # 3 bootstrap fits, their first max_k + 1 features
    ('ANOVA F', (12,), (3, 7))
    """

    key: str
    label: str
    params: dict[str, Any]
    scores: np.ndarray
    order: np.ndarray
    support: np.ndarray
    seconds: float
    notes: tuple[str, ...]
    boot_top: np.ndarray
    boot_top_scores: np.ndarray
    boot_seconds: np.ndarray
    boot_error: str | None = None
    #: the untimed first fit on a few rows before the timed one (numba compilation or loading
    #: compiled kernels happens there, so ``seconds`` measures the method, not the compiler)
    warmup_seconds: float = 0.0
    #: the ranking on the training part of every split (the first is ``order``; more with n_repeats)
    split_orders: tuple[np.ndarray, ...] = ()
    #: CPU seconds of the fit on the training part and of every bootstrap fit
    cpu_seconds: float = 0.0
    boot_cpu_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass
class HeldOut:
    """The held-out evidence every accuracy interval and paired difference is computed from.

    ================  ================================================================================
    grid              (G,) the k of the accuracy curves
    curves            the methods' labels, then :data:`RANDOM`
    rows              (C, G, n_test) float32, per held-out row of the first split: 1 when the classifier on
                      the curve's first k features classified it right, else 0 (for :data:`RANDOM` the
                      share of the draws that did)
    repeats           (R, C, G) the held-out accuracy on each of the R splits (R = ``n_repeats``)
    all_rows          (n_test,), all_repeats (R,): the same for the classifier on all features
    test_train_ratio  n_test / n_train (the corrected resampled t's inflation term)
    seed              the bootstrap's seed (the comparison's)
    ================  ================================================================================

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> held = result.held_out
    >>> held.grid.tolist(), held.curves
    ([1, 2, 3, 4, 5, 6], ('ANOVA F', 'MI', 'random features'))
    >>> held.rows.shape == (3, 6, result.n_test)
    True
    """

    grid: np.ndarray
    curves: tuple[str, ...]
    rows: np.ndarray
    repeats: np.ndarray
    all_rows: np.ndarray
    all_repeats: np.ndarray
    test_train_ratio: float
    seed: int

    @property
    def n_repeats(self) -> int:
        return int(self.repeats.shape[0])

    @property
    def n_test(self) -> int:
        return int(self.rows.shape[-1])

    def curve_estimates(self) -> dict[str, list[Estimate]]:
        """Curve -> its accuracy with a 95% interval at each k of the grid (module docstring)."""
        out = {}
        for c, curve in enumerate(self.curves):
            if self.n_repeats > 1:
                out[curve] = [self._over_splits(self.repeats[:, c, g]) for g in range(self.grid.size)]
            elif curve == RANDOM:
                out[curve] = bootstrap_means(self.rows[c].T, seed=self.seed, unit="held-out rows")
            else:
                out[curve] = [_proportion(row) for row in self.rows[c]]
        return out

    def all_features(self) -> Estimate:
        return self._over_splits(self.all_repeats) if self.n_repeats > 1 else _proportion(self.all_rows)

    def _over_splits(self, values) -> Estimate:
        """The mean accuracy over the splits with its corrected resampled t interval, clipped to
        [0, 1] (a t interval knows no bounds; an accuracy does)."""
        e = t_interval(values, test_train_ratio=self.test_train_ratio, what="repeated splits")
        return Estimate(e.value, max(0.0, e.low), min(1.0, e.high), e.level, e.method)

    def differences(self, method: str, reference: str, level: float) -> list[Estimate]:
        """Accuracy of ``method`` minus that of ``reference`` at each k, paired (same rows, same
        resamples or the same splits), with intervals at ``level``."""
        a, b = self.curves.index(method), self.curves.index(reference)
        if self.n_repeats > 1:
            return [paired_t_interval(self.repeats[:, a, g], self.repeats[:, b, g], level,
                                      test_train_ratio=self.test_train_ratio, what="repeated splits")
                    for g in range(self.grid.size)]
        return [paired_proportion_difference(self.rows[a, g], self.rows[b, g], level, unit="held-out rows")
                for g in range(self.grid.size)]


def _proportion(row: np.ndarray) -> Estimate:
    """Wilson's interval of the share of right answers in a 0/1 row."""
    return wilson_interval(int(round(float(np.sum(row)))), int(row.size))


#: columns of :meth:`ComparisonResult.differences`
DIFFERENCE_COLUMNS = ("method", "reference", "k", "difference", "low", "high", "verdict", "level", "interval_method")


@dataclass
class ComparisonResult:
    """What :func:`run_comparison` returns: the methods' fits (:class:`MethodRun`), the held-out
    evidence (:class:`HeldOut`) and the tables computed from them with their intervals and
    verdicts (accuracy, paired differences from a reference, overlap, stability, ROC, runtimes),
    as the module docstring describes.

    Examples
    --------
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")       # 3 of 12 features planted
    >>> result = run_comparison(ds, ["anova", "mi"], CompareSettings(max_k=6, n_bootstrap=3))
    >>> result.labels, result.k_range(), result.n_train, result.n_test
    (['ANOVA F', 'MI'], (1, 6), 150, 50)
    >>> summary = result.summary(3, "ANOVA F")
    >>> summary[["method", "k", "accuracy_at_grid_k", "verdict"]].columns.tolist()
    ['method', 'k', 'accuracy_at_grid_k', 'verdict']
    >>> sorted(result.tables(3, "ANOVA F"))
    ['accuracy', 'differences', 'jaccard', 'roc', 'runtime', 'scores', 'stability', 'summary']
    """

    dataset: str
    feature_names: tuple[str, ...]
    image_shape: tuple[int, int] | None
    truth: np.ndarray | None
    classes: tuple[str, ...]
    n_train: int
    n_test: int
    settings: CompareSettings
    notes: tuple[str, ...]
    runs: list[MethodRun]
    failures: dict[str, str]
    #: columns curve, k, accuracy, low, high (its 95% interval) and method (how the interval was made)
    accuracy: pd.DataFrame
    all_features_accuracy: float
    majority_accuracy: float
    seconds: float
    held_out: HeldOut
    all_features_interval: Estimate
    #: differences by reference, computed once (a page redraws them on every move of a slider)
    _differences: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.runs]

    def run(self, label: str) -> MethodRun:
        for r in self.runs:
            if r.label == label:
                return r
        raise ValueError(f"No method {label!r} in this comparison; it has: {', '.join(self.labels)}")

    def k_range(self) -> tuple[int, int]:
        """Smallest and largest k for overlap and stability (Kuncheva's index needs k < p)."""
        return 1, max(1, min(self.settings.max_k, self.n_features - 1))

    def _check_k(self, k: int) -> int:
        lo, hi = self.k_range()
        if not lo <= int(k) <= hi:
            raise ValueError(f"k={k}: choose k between {lo} and {hi}")
        return int(k)

    def grid_k(self, k: int) -> int:
        """The k of the accuracy grid nearest ``k`` (accuracy is measured on the grid only)."""
        grid = self.held_out.grid
        return int(grid[np.argmin(np.abs(grid - int(k)))])

    def reference(self, reference: str | None = None) -> str:
        """The reference method's label: ``reference`` given as a label or a method key; by
        default the first method (in the order chosen)."""
        if reference is None:
            return self.labels[0]
        for r in self.runs:
            if reference in (r.label, r.key):
                return r.label
        raise ValueError(f"Reference {reference!r} is not among the compared methods: {', '.join(self.labels)}")

    def comparison_level(self) -> float:
        """The level of each difference's interval: Bonferroni over the m - 1 methods compared
        with the reference, so that together they hold at 95%."""
        return bonferroni_level(LEVEL, max(1, len(self.runs) - 1))

    def interval_note(self) -> str:
        """One sentence: how the accuracy intervals were made."""
        n = self.held_out.n_test
        if self.held_out.n_repeats > 1:
            return (f"Bands: 95% corrected resampled t intervals (Nadeau & Bengio) of the mean accuracy over "
                    f"{self.held_out.n_repeats} repeated train/test splits of {n:,} held-out rows each.")
        return (f"Bands: 95% Wilson intervals of each accuracy on the {n:,} held-out rows (random features: "
                f"percentile bootstrap over the rows); the training split is fixed.")

    def band_note(self) -> str:
        """What the accuracy figure's bands are, short enough for a line under its title."""
        if self.held_out.n_repeats > 1:
            return f"bands: 95% corrected resampled t, {self.held_out.n_repeats} train/test splits"
        return f"bands: 95% Wilson intervals, {self.held_out.n_test:,} held-out rows; one training split"

    def differences(self, reference: str | None = None) -> pd.DataFrame:
        """Every other method against ``reference`` (default: the first) at every k of the
        accuracy grid: the paired difference in held-out accuracy, its Bonferroni interval
        (:meth:`comparison_level`) and the verdict better / worse / not resolved."""
        ref = self.reference(reference)
        if ref not in self._differences:
            self._differences[ref] = self._compute_differences(ref)
        return self._differences[ref].copy()

    def _compute_differences(self, ref: str) -> pd.DataFrame:
        level = self.comparison_level()
        others = [label for label in self.labels if label != ref]
        rows = []
        for label in others:
            for k, e in zip(self.held_out.grid, self.held_out.differences(label, ref, level)):
                rows.append({"method": label, "reference": ref, "k": int(k), "difference": e.value, "low": e.low,
                             "high": e.high, "verdict": difference_verdict(e), "level": e.level,
                             "interval_method": f"{e.method}, Bonferroni over {len(others)} comparison"
                                                f"{'s' if len(others) != 1 else ''}"})
        return pd.DataFrame(rows, columns=list(DIFFERENCE_COLUMNS))

    def resolved_sentence(self, k: int, reference: str | None = None) -> str:
        """How many methods the held-out data resolve from the reference at the grid point
        nearest ``k``, and by which rule (:meth:`resolved_at` and :meth:`resolution_rule`)."""
        rule = self.resolution_rule(reference)
        return self.resolved_at(k, reference) + (f" {rule}" if rule else "")

    def resolved_at(self, k: int, reference: str | None = None) -> str:
        """The part of :meth:`resolved_sentence` that depends on ``k``: how many methods are
        resolved from the reference at the accuracy-grid point nearest ``k``, and which."""
        ref, at = self.reference(reference), self.grid_k(k)
        table = self.differences(ref)
        table = table[table["k"] == at]
        if table.empty:
            return f"Only one method, {ref}, is in this comparison: there is no other to set against it."
        m = len(table)
        where = f"k = {at}" if at == k else f"k = {at} (the accuracy grid point nearest k = {k})"
        resolved = table[table["verdict"] != "not resolved"]
        named = ", ".join(f"{row.method} {row.verdict}" for row in resolved.itertuples())
        unresolved = ", ".join(table.loc[table["verdict"] == "not resolved", "method"])
        text = f"At {where}, {len(resolved)} of {m} method{'s' if m != 1 else ''} "
        text += f"{'is' if len(resolved) == 1 else 'are'} resolved from {ref}"
        text += f" ({named})" if named else ""
        return text + (f"; not resolved: {unresolved}." if unresolved else ".")

    def resolution_rule(self, reference: str | None = None) -> str:
        """The part of :meth:`resolved_sentence` that holds at every k: how each difference's
        interval is made and at which level ('' with a single method)."""
        self.reference(reference)  # checks the name
        m = len(self.runs) - 1
        if m < 1:
            return ""
        how = ("the exact conditional interval of the paired difference over the held-out rows (dual to the exact "
               "McNemar test)" if self.held_out.n_repeats == 1 else
               f"a paired corrected resampled t over {self.held_out.n_repeats} repeated splits")
        return (f"Each difference's interval is {how} at {percent(self.comparison_level())}: Bonferroni over "
                f"the {m} comparison{'s' if m != 1 else ''}, so that all of them hold together at 95%.")

    def top_k(self, k: int) -> dict[str, np.ndarray]:
        k = self._check_k(k)
        return {r.label: r.order[:k] for r in self.runs}

    def jaccard(self, k: int) -> pd.DataFrame:
        """Pairwise Jaccard overlap of the methods' top-k sets (fits on the training part)."""
        sets = self.top_k(k)
        return pd.DataFrame(jaccard_matrix(sets), index=list(sets), columns=list(sets))

    def stability(self, k: int, reference: str | None = None) -> pd.DataFrame:
        """Per method, the stability of its top-k sets over the bootstrap fits, two ways:

        * Kuncheva's index (the mean over pairs; ``kuncheva``) with its 95% jackknife interval over
          the resamples (``low``, ``high``; clipped to the index's range [-1, 1]; needs
          :data:`MIN_JACKKNIFE` resamples), the pairs it averages, and in how many fits the k-th and
          (k+1)-th scores tie (the cut is then decided by feature index, not by the method);
        * Nogueira, Sechidis & Brown's estimator (JMLR 18, 2018; ``nogueira``) with its asymptotic
          normal 95% interval (Theorem 9; ``nogueira_low``, ``nogueira_high``, clipped at its maximum
          1; it assumes many runs, and with 5 resamples it is a rough guide). On top-k sets, all of
          size k, its value equals Kuncheva's (both are the mean correlation of the selection
          vectors); the interval is its own. Then its test of equal stability against
          ``reference`` (default: the first method): the difference Phi_method - Phi_reference with
          an interval at :meth:`comparison_level` (Bonferroni over the m - 1 methods, as the accuracy
          differences), the z statistic and two-sided p-value of the PAIRED test (every method is
          fitted on the same bootstrap resamples, so run i of both saw the same rows), the p-value
          Holm-adjusted over the m - 1 tests at this k (``stability_p_holm``), and the verdict "more
          stable" / "less stable" when that adjusted p-value is <= 0.05, else "not resolved". (Holm
          rejects whenever the Bonferroni interval excludes 0, and sometimes when it does not.)
        """
        k = self._check_k(k)
        ref = self.reference(reference)
        rows, selections = [], {}
        for r in self.runs:
            B = r.boot_top.shape[0]
            value = low = high = phi = phi_low = phi_high = np.nan
            ties, how, phi_how = 0, "", ""
            if B >= 2 and k < self.n_features:
                selections[r.label] = list(r.boot_top[:, :k])
                matrix = kuncheva_matrix(selections[r.label], self.n_features)
                value = float(matrix[np.triu_indices(B, 1)].mean())
                ties = int(np.sum(r.boot_top_scores[:, k - 1] == r.boot_top_scores[:, k]))
                if B >= MIN_JACKKNIFE:
                    e = jackknife_interval(value, kuncheva_leave_one_out(matrix), what="bootstrap resamples")
                    low, high = max(-1.0, e.low), min(1.0, e.high)
                    how = f"95% {e.method} (leave one resample out)"
                else:
                    how = f"no interval: it needs {MIN_JACKKNIFE} or more resamples"
                phi_estimate = nogueira_stability(selections[r.label], self.n_features)
                phi, phi_low, phi_high, phi_how = (phi_estimate.value, phi_estimate.low, min(1.0, phi_estimate.high),
                                                   f"95% {phi_estimate.method} (clipped at 1)")
            rows.append({"method": r.label, "kuncheva": value, "low": low, "high": high, "pairs": B * (B - 1) // 2,
                         "ties_at_cut": ties, "resamples": B, "interval": how, "nogueira": phi,
                         "nogueira_low": phi_low, "nogueira_high": phi_high, "nogueira_interval": phi_how,
                         "error": r.boot_error or ""})
        table = pd.DataFrame(rows)
        return table.join(self._stability_tests(selections, ref), on="method")

    def _stability_tests(self, selections: dict[str, list], ref: str) -> pd.DataFrame:
        """Nogueira et al.'s paired test of equal stability of every method against ``ref`` (see
        :meth:`stability`), indexed by method."""
        level = self.comparison_level()
        others = [label for label in self.labels if label != ref]
        tested = [label for label in others if label in selections and ref in selections]
        rows = {label: {"reference": ref, "stability_difference": np.nan, "stability_difference_low": np.nan,
                        "stability_difference_high": np.nan, "stability_z": np.nan, "stability_p": np.nan,
                        "stability_p_holm": np.nan, "stability_verdict": "reference" if label == ref else "",
                        "stability_test": ""} for label in self.labels}
        if tested:
            results = [nogueira_difference(selections[ref], selections[label], self.n_features, paired=True,
                                           level=level) for label in tested]
            holm = holm_adjust([t.pvalue for t in results])
            for label, t, p_holm in zip(tested, results, holm):
                d = t.difference
                verdict = "not resolved" if p_holm > 1 - LEVEL else ("more stable" if d.value > 0 else "less stable")
                rows[label].update({
                    "stability_difference": d.value, "stability_difference_low": d.low,
                    "stability_difference_high": d.high, "stability_z": t.statistic, "stability_p": t.pvalue,
                    "stability_p_holm": float(p_holm), "stability_verdict": verdict,
                    "stability_test": f"{d.method}; interval at {percent(level)} (Bonferroni over {len(others)}), "
                                      f"p Holm-adjusted over the {len(tested)} test{'s' if len(tested) != 1 else ''}"})
        return pd.DataFrame.from_dict(rows, orient="index")

    def roc(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Method -> (fpr, tpr) of its scores against the known relevant features (synthetic data)."""
        if self.truth is None:
            return {}
        return {r.label: roc_curve(self.truth, finite_scores(r.scores))[:2] for r in self.runs}

    def auc(self) -> pd.Series:
        if self.truth is None:
            return pd.Series(dtype=float, name="auc")
        return pd.Series({r.label: roc_auc(self.truth, finite_scores(r.scores)) for r in self.runs}, name="auc")

    def runtime(self) -> pd.DataFrame:
        """Per method: fit time on the training part; median and interquartile range (q1, q3) of
        the bootstrap fits' times; the same in CPU seconds of the process that fitted (``_cpu_``
        columns: on a busy machine wall-clock times also measure the other processes); how many
        features the method itself selected, its parameters and notes."""
        rows = []
        for r in self.runs:
            spread = median_iqr(r.boot_seconds) if r.boot_seconds.size else None
            cpu = median_iqr(r.boot_cpu_seconds) if r.boot_cpu_seconds.size else None
            rows.append({
                "method": r.label, "fit_seconds": r.seconds, "warmup_seconds": r.warmup_seconds,
                "bootstrap_median_seconds": spread.value if spread else np.nan,
                "bootstrap_q1_seconds": spread.low if spread else np.nan,
                "bootstrap_q3_seconds": spread.high if spread else np.nan,
                "bootstrap_fits": int(r.boot_seconds.size),
                "fit_cpu_seconds": r.cpu_seconds,
                "bootstrap_median_cpu_seconds": cpu.value if cpu else np.nan,
                "bootstrap_q1_cpu_seconds": cpu.low if cpu else np.nan,
                "bootstrap_q3_cpu_seconds": cpu.high if cpu else np.nan,
                "selected_by_method": int(r.support.sum()),
                "parameters": ", ".join(f"{k}={v}" for k, v in r.params.items()),
                "notes": " ".join(r.notes),
            })
        return pd.DataFrame(rows)

    def summary(self, k: int, reference: str | None = None) -> pd.DataFrame:
        """One row per method at top-k size ``k``: held-out accuracy at the accuracy-grid point
        nearest k (``grid_k``) with its interval, the paired difference from the reference there
        with its Bonferroni interval and verdict, stability at k (Kuncheva's and Nogueira's, with
        their intervals, and the verdict of Nogueira's paired test against the reference), runtime,
        own selection size, AUC on synthetic data. No best k is picked: choosing the k with the highest
        held-out accuracy on these rows would report an optimistic number."""
        k, ref = self._check_k(k), self.reference(reference)
        at = self.grid_k(k)
        acc = self.accuracy[self.accuracy["k"] == at].set_index("curve")
        diff = self.differences(ref)
        diff = diff[diff["k"] == at].set_index("method")
        stab = self.stability(k, ref).set_index("method")
        table = pd.DataFrame({"method": self.labels})
        table["k"] = k
        table["grid_k"] = at
        for column, source in (("accuracy_at_grid_k", "accuracy"), ("accuracy_low", "low"),
                               ("accuracy_high", "high")):
            table[column] = table["method"].map(acc[source])
        table["reference"] = ref
        for column, source in (("difference", "difference"), ("difference_low", "low"),
                               ("difference_high", "high")):
            table[column] = table["method"].map(diff[source])
        table["verdict"] = [diff["verdict"].get(label, "reference") for label in self.labels]
        for column, source in (("kuncheva_at_k", "kuncheva"), ("kuncheva_low", "low"), ("kuncheva_high", "high"),
                               ("nogueira_at_k", "nogueira"), ("nogueira_low", "nogueira_low"),
                               ("nogueira_high", "nogueira_high"), ("stability_verdict", "stability_verdict")):
            table[column] = table["method"].map(stab[source])
        runtime = self.runtime().set_index("method")
        for column in ("fit_seconds", "bootstrap_median_seconds", "selected_by_method"):
            table[column] = table["method"].map(runtime[column])
        if self.truth is not None:
            table["auc"] = table["method"].map(self.auc())
        return table

    def scores_table(self) -> pd.DataFrame:
        """One row per feature: name, truth (synthetic data), and each method's score and rank."""
        table = pd.DataFrame({"feature": np.arange(self.n_features), "name": list(self.feature_names)})
        if self.truth is not None:
            table["relevant"] = self.truth
        for r in self.runs:
            table[f"score_{r.key}"] = r.scores
            table[f"rank_{r.key}"] = ranks_from_order(r.order)
            table[f"selected_{r.key}"] = r.support
        return table

    def tables(self, k: int, reference: str | None = None) -> dict[str, pd.DataFrame]:
        """Every table of the comparison by file stem (what the CSV exports hold)."""
        out = {
            "summary": self.summary(k, reference),
            "accuracy": self.accuracy,
            "differences": self.differences(reference),
            "jaccard": self.jaccard(k).rename_axis("method").reset_index(),
            "stability": self.stability(k, reference),
            "runtime": self.runtime(),
            "scores": self.scores_table(),
        }
        if self.truth is not None:
            out["roc"] = pd.concat([pd.DataFrame({"method": label, "fpr": fpr, "tpr": tpr})
                                    for label, (fpr, tpr) in self.roc().items()], ignore_index=True)
        if self.failures:
            out["failures"] = pd.DataFrame({"method": list(self.failures), "error": list(self.failures.values())})
        return out


def finite_scores(scores: np.ndarray) -> np.ndarray:
    """Scores for ROC: features a method gave no score (NaN, -inf) rank below every scored one
    (they become min - 1), +inf above every one (max + 1)."""
    s = np.asarray(scores, dtype=np.float64).copy()
    finite = np.isfinite(s)
    lo, hi = (s[finite].min(), s[finite].max()) if finite.any() else (0.0, 0.0)
    s[np.isnan(s) | (s == -np.inf)] = lo - 1.0
    s[s == np.inf] = hi + 1.0
    return s


def k_grid(max_k: int, n_features: int, n_points: int = N_GRID) -> np.ndarray:
    """Roughly geometric grid 1..min(max_k, p) of feature counts."""
    top = max(1, min(int(max_k), n_features))
    return np.unique(np.round(np.geomspace(1, top, n_points)).astype(int))


def stratified_bootstrap(y: np.ndarray, n_resamples: int, seed: int) -> list[np.ndarray]:
    """Row indices of ``n_resamples`` bootstrap resamples drawn within each class (class counts kept)."""
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(y == c) for c in np.unique(y)]
    return [np.sort(np.concatenate([rng.choice(g, size=g.size, replace=True) for g in groups]))
            for _ in range(n_resamples)]


def _classifier(X):
    return make_pipeline(StandardScaler(with_mean=not sp.issparse(X)), LogisticRegression(max_iter=2000))


def held_out_correct(train: Dataset, test: Dataset, columns) -> np.ndarray:
    """Per row of ``test``: whether standardised logistic regression trained on
    ``train[:, columns]`` classifies it right (bool, shape (n_test,))."""
    columns = np.asarray(columns, dtype=np.intp)
    clf = _classifier(train.X).fit(train.X[:, columns], train.y)
    return np.asarray(clf.predict(test.X[:, columns]) == test.y, dtype=bool)


def held_out_accuracy(train: Dataset, test: Dataset, columns) -> float:
    """Accuracy on ``test`` of standardised logistic regression trained on ``train[:, columns]``."""
    return float(np.mean(held_out_correct(train, test, columns)))


@dataclass(frozen=True)
class _FitJob:
    """What every fit task shares: the training part of every split (the first is the one the
    bootstrap resamples and every view but the accuracy intervals use), the methods (spec,
    resolved parameters; the spec travels with the task, so workers also fit registered and
    user-given methods) and how many of the first ranked features a bootstrap fit keeps."""

    trains: tuple[Dataset, ...]
    methods: tuple[tuple[MethodSpec, dict[str, Any]], ...]
    keep: int


@dataclass(frozen=True)
class _Fitted:
    """One fit as a task returns it (no selector, so it pickles small)."""

    scores: np.ndarray
    order: np.ndarray
    support: np.ndarray
    seconds: float
    notes: tuple[str, ...]
    warmup_seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: the fit on the first split's training part: where its bootstrap fits may start (None when
    #: the method cannot warm start)
    warm: WarmStart | None = None


def _fit_task(job: _FitJob, item: tuple, progress: Progress | None = None) -> _Fitted | str:
    """Fit method ``item[0]`` on the training part of split ``item[1]`` (``item[2]`` None) or on
    the bootstrap rows ``item[2]`` of the first split's, from the warm start ``item[3]`` when the
    item has one; an error of the method comes back as one line (a failure, not a crash)."""
    m, s, rows, *warm = item
    spec, values = job.methods[m]
    train = job.trains[s]
    # always a fresh copy: arrays that arrive from another process can be aligned differently, and
    # numpy's vectorised sums then round differently (1e-16 in BIA's scores on a Dask worker)
    ds = _subset(train, np.arange(train.n_samples) if rows is None else rows)
    try:
        # the first full fit compiles (or loads) the method's kernels untimed, in the process that fits
        warmup = _untimed_first_call(spec, values, ds) if rows is None and s == 0 else 0.0
        fit = fit_method(spec, values, ds, progress, warm_start=warm[0] if warm else None)
    except Exception as exc:  # the method's failure; cancellation (BaseException here) passes through
        return failure_message(exc)
    return _Fitted(scores=fit.scores, order=fit.order, support=fit.support, seconds=fit.seconds, notes=fit.notes,
                   warmup_seconds=warmup, cpu_seconds=fit.cpu_seconds,
                   warm=fit.warm_start() if rows is None and s == 0 else None)


def _fit_waves(job: _FitJob, items: list, names: list[str], progress: Progress | None, where: dict,
               warm_start: bool) -> list:
    """The fit tasks' results in the order of ``items``. With ``warm_start``, the bootstrap fits of a
    method that can warm start (:mod:`fsengine.warm_start`) run in a second wave, each started from
    the method's fit on the training part (the same stopping rule, fewer iterations); every other
    fit runs in the first."""
    warm = {m for m, (spec, values) in enumerate(job.methods) if warm_start and warm_startable(spec, values)}
    later = [i for i, (m, s, rows) in enumerate(items) if m in warm and rows is not None]
    first = sorted(set(range(len(items))) - set(later))
    share = 0.9 * len(first) / max(len(items), 1)
    results: list = [None] * len(items)
    done = map_tasks(_fit_task, [items[i] for i in first], shared=job, names=[names[i] for i in first],
                     progress=_phase(progress, 0.0, share, "fits"), task_progress=True, **where)
    for i, fit in zip(first, done):
        results[i] = fit
    if later:
        start = {items[i][0]: results[i].warm for i in first
                 if items[i][1] == 0 and items[i][2] is None and isinstance(results[i], _Fitted)}
        second = [(*items[i], None if start.get(items[i][0]) is None else start[items[i][0]].for_rows(items[i][2]))
                  for i in later]
        done = map_tasks(_fit_task, second, shared=job, names=[names[i] + " (warm start)" for i in later],
                         progress=_phase(progress, share, 0.9, "fits"), task_progress=True, **where)
        for i, fit in zip(later, done):
            results[i] = fit
        for i in first:  # say so beside the method's fit on the training part
            m = items[i][0]
            if m in start and items[i][2] is None and items[i][1] == 0 and start[m] is not None:
                results[i] = replace(results[i], notes=results[i].notes + (
                    f"{job.methods[m][0].label}: the bootstrap fits started from the fit on the training part "
                    "(warm start, same stopping rule).",))
    return results


def _accuracy_task(parts: tuple[tuple[Dataset, Dataset], ...], item: tuple[int, list[np.ndarray]]) -> np.ndarray:
    """Right or wrong per held-out row of split ``item[0]`` for each column set of ``item[1]``:
    bool (len(column sets), n_test). One BLAS thread (many tiny solver calls: oversubscribed BLAS
    threads made each fit >10x slower on a busy 2-core machine, and one thread gives the same
    numbers in every worker)."""
    s, columns = item
    train, test = (_subset(ds, np.arange(ds.n_samples)) for ds in parts[s])  # fresh copies, see _fit_task
    with threadpool_limits(1):
        return np.stack([held_out_correct(train, test, cols) for cols in columns])


def _phase(progress: Progress | None, lo: float, hi: float, what: str) -> Progress | None:
    if progress is None:
        return None
    return lambda fraction, message: progress(lo + (hi - lo) * fraction, f"{what}: {message}")


def _method_runs(specs, params, fits: list, n_resamples: int, keep: int) -> tuple[list[MethodRun], dict[str, str]]:
    """MethodRun per method from the fit tasks' results on the first split (method-major: the
    full fit, then every resample). A failed fit on the training part makes the method a
    failure; a failed bootstrap fit empties its stability data and records the first error in
    resample order."""
    runs, failures = [], {}
    per = 1 + n_resamples
    for i, (spec, values) in enumerate(zip(specs, params)):
        fit, boots = fits[i * per], fits[i * per + 1:(i + 1) * per]
        if isinstance(fit, str):
            failures[spec.label] = fit
            continue
        errors = [b for b in boots if isinstance(b, str)]
        boot_error = f"bootstrap fit failed: {errors[0]}" if errors else None
        boots = [] if errors else boots
        runs.append(MethodRun(
            key=spec.key, label=spec.label, params=values, scores=fit.scores, order=fit.order,
            support=fit.support, seconds=fit.seconds, notes=fit.notes,
            boot_top=np.array([b.order[:keep] for b in boots], dtype=np.intp).reshape(len(boots), keep),
            boot_top_scores=np.array([b.scores[b.order[:keep]] for b in boots],
                                     dtype=np.float64).reshape(len(boots), keep),
            boot_seconds=np.array([b.seconds for b in boots]), boot_error=boot_error,
            warmup_seconds=fit.warmup_seconds, cpu_seconds=fit.cpu_seconds,
            boot_cpu_seconds=np.array([b.cpu_seconds for b in boots], dtype=np.float64)))
    return runs, failures


def _split_orders(runs: list[MethodRun], specs, later: list, failures: dict[str, str]) -> list[MethodRun]:
    """Each method's ranking on every split (``later``: the fits on splits 2, 3, ..., split-major);
    a method whose fit fails on a further split becomes a failure (its accuracy would be
    missing there)."""
    if not later:
        for r in runs:
            r.split_orders = (r.order,)
        return runs
    by_label = {spec.label: m for m, spec in enumerate(specs)}
    kept = []
    for r in runs:
        m = by_label[r.label]
        fits = later[m::len(specs)]
        bad = [(s, f) for s, f in enumerate(fits, start=2) if isinstance(f, str)]
        if bad:
            failures[r.label] = f"split {bad[0][0]} of {len(fits) + 1}: {bad[0][1]}"
            continue
        r.split_orders = (r.order, *(f.order for f in fits))
        kept.append(r)
    return kept


def _accuracy_items(runs: list[MethodRun], grid: np.ndarray, draws: list, n_features: int, n_splits: int):
    """The accuracy tasks (split, column sets) and their names: per split, one per method (its
    first k features at each k of the grid), one per k for the random draws, one for all features."""
    items, names = [], []
    for s in range(n_splits):
        where = "" if n_splits == 1 else f", split {s + 1} of {n_splits}"
        items += [(s, [r.split_orders[s][:k] for k in grid]) for r in runs]
        names += [f"held-out accuracy: {r.label}{where}" for r in runs]
        items += [(s, ks) for ks in draws] + [(s, [np.arange(n_features)])]
        names += [f"held-out accuracy: {RANDOM}, k={k}{where}" for k in grid]
        names.append(f"held-out accuracy: all features{where}")
    return items, names


def _held_out(outcomes: list[np.ndarray], runs, grid: np.ndarray, n_splits: int, ratio: float, seed: int) -> HeldOut:
    """The accuracy tasks' outcomes (split-major, in :func:`_accuracy_items`' order) as a HeldOut."""
    per = len(runs) + grid.size + 1
    rows, accuracies, all_accuracies, all_rows = None, [], [], None
    for s in range(n_splits):
        part = outcomes[s * per:(s + 1) * per]
        methods = np.stack(part[:len(runs)]).astype(np.float32)  # (M, G, n_test)
        random = np.stack([draws.mean(axis=0) for draws in part[len(runs):-1]]).astype(np.float32)  # (G, n_test)
        split_rows = np.concatenate([methods, random[None]])
        accuracies.append(split_rows.mean(axis=-1, dtype=np.float64))
        all_accuracies.append(float(np.mean(part[-1][0])))
        if s == 0:
            rows, all_rows = split_rows, part[-1][0].astype(np.float32)
    return HeldOut(grid=grid, curves=(*(r.label for r in runs), RANDOM), rows=rows, repeats=np.stack(accuracies),
                   all_rows=all_rows, all_repeats=np.array(all_accuracies), test_train_ratio=ratio, seed=seed)


def _accuracy_table(held: HeldOut) -> pd.DataFrame:
    """Columns curve, k, accuracy, low, high, method: every curve's accuracy with its interval."""
    return pd.DataFrame([{"curve": curve, "k": int(k), "accuracy": e.value, "low": e.low, "high": e.high,
                          "method": f"{percent(e.level)} {e.method}"}
                         for curve, estimates in held.curve_estimates().items()
                         for k, e in zip(held.grid, estimates)])


def run_comparison(ds: Dataset, methods, settings: CompareSettings = CompareSettings(), *,
                   progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
                   n_jobs: int | None = None, scheduler=None) -> ComparisonResult:
    """Run ``methods`` on ``ds`` as described in the module docstring. Each is a registered key, a
    :class:`~fsengine.methods.registry.MethodSpec`, any scikit-learn-style selector or model object
    (scores from ``scores_``, ``feature_importances_``, ``|coef_|``, ``ranking_`` or ``get_support()``,
    :class:`fsengine.methods.custom.EstimatorSelector`), or a (one of these, params) pair
    (:func:`fsengine.methods.custom.resolve_methods`).

    Every method's parameter values are validated before any fit
    (:func:`fsengine.methods.run.check_values`): a bad value is a ValueError, not a failed method. A
    method whose fit raises (a ValueError such as too many features, any other error of the method,
    its warm-up included, or scores that are all NaN or infinite) is reported in ``failures`` and
    the others go on; the run fails only when no method succeeds. Cancellation and interrupts are
    never swallowed.

    The fits (methods x (n_repeats + resamples)) and the accuracy curves are independent tasks run
    by :func:`fsengine.parallel.map_tasks`: ``n_jobs`` local processes (-1: every core) or the
    workers of the Dask scheduler at ``scheduler``. Results are identical to the serial run:
    every task is deterministic (splits, resamples and random baselines are drawn here from
    ``seed``) and results are assembled in submission order. ``progress`` advances per finished task.

    Examples
    --------
    Two registered methods and a scikit-learn selector on a planted GLM (the truth is known, so each
    method's ROC against it is part of the result):

    >>> from sklearn.feature_selection import SelectKBest
    >>> from fsengine.compare import CompareSettings, run_comparison
    >>> from fsengine.data import load_dataset
    >>> ds = load_dataset("synthetic_glm:n=200,p=12,k=3")
    >>> result = run_comparison(ds, ["anova", "mi", SelectKBest(k=3)], CompareSettings(max_k=6, n_bootstrap=3))
    >>> result.labels
    ['ANOVA F', 'MI', 'SelectKBest']
    >>> differences = result.differences("ANOVA F")
    >>> differences.columns[:7].tolist()
    ['method', 'reference', 'k', 'difference', 'low', 'high', 'verdict']
    >>> sorted(result.auc().index)
    ['ANOVA F', 'MI', 'SelectKBest']
    """
    started = time.perf_counter()
    choices = resolve_methods(methods)
    if not choices:
        raise ValueError("Choose at least one method to compare.")
    specs = [spec for spec, _ in choices]
    if len({s.key for s in specs}) != len(specs):
        raise ValueError("Each method can be chosen once per comparison.")
    params = [spec.resolve(values) for spec, (_, values) in zip(specs, choices)]
    for spec, values in zip(specs, params):  # a bad value fails the run here, never one method mid-run
        check_values(spec, values)
    backend_for(n_jobs, scheduler)  # a wrong n_jobs / scheduler fails before any work
    if ds.task != "classification":
        raise ValueError(f"{ds.name} has a {ds.task} target; the comparison scores held-out accuracy and "
                         "needs class labels. Pick a classification dataset.")
    check_magnitude(ds.X, ds.name)
    ds, notes = restrict_classes(ds, specs, settings.classes)
    splits = [split(ds, test_size=settings.test_size, seed=settings.seed + s) for s in range(settings.n_repeats)]
    train, test = splits[0]
    resamples = stratified_bootstrap(train.y, settings.n_bootstrap, settings.seed)
    keep = min(settings.max_k + 1, ds.n_features)
    where = dict(n_jobs=n_jobs, scheduler=scheduler, cancel=cancel)

    job = _FitJob(trains=tuple(t for t, _ in splits), methods=tuple(zip(specs, params)), keep=keep)
    items = [(m, 0, rows) for m in range(len(specs)) for rows in [None, *resamples]]
    names = [specs[m].label + ("" if rows is None else f" bootstrap {b} of {len(resamples)}")
             for m in range(len(specs)) for b, rows in enumerate([None, *resamples])]
    items += [(m, s, None) for s in range(1, len(splits)) for m in range(len(specs))]
    names += [f"{specs[m].label} split {s + 1} of {len(splits)}"
              for s in range(1, len(splits)) for m in range(len(specs))]
    try:
        fits = _fit_waves(job, items, names, progress, where, settings.warm_start)
        first = len(specs) * (1 + len(resamples))
        runs, failures = _method_runs(specs, params, fits[:first], len(resamples), keep)
        runs = _split_orders(runs, specs, fits[first:], failures)
        if not runs:
            raise ValueError("No method could run on this data: "
                             + " ".join(f"{label}: {msg}" for label, msg in failures.items()))

        grid = k_grid(settings.max_k, ds.n_features)
        rng = np.random.default_rng(settings.seed)
        draws = [[rng.choice(ds.n_features, size=k, replace=False) for _ in range(N_RANDOM_DRAWS)] for k in grid]
        tasks, task_names = _accuracy_items(runs, grid, draws, ds.n_features, len(splits))
        outcomes = map_tasks(_accuracy_task, tasks, shared=tuple(splits), names=task_names,
                             progress=_phase(progress, 0.9, 1.0, "accuracy"), **where)
    except TasksCancelled as exc:
        raise ComparisonCancelled("The comparison was cancelled.") from exc
    held = _held_out(outcomes, runs, grid, len(splits), test.n_samples / train.n_samples, settings.seed)
    majority = []
    for tr, te in splits:
        labels, counts = np.unique(tr.y, return_counts=True)
        majority.append(float(np.mean(te.y == labels[np.argmax(counts)])))
    all_features = held.all_features()
    if progress is not None:
        progress(1.0, "done")
    return ComparisonResult(
        dataset=ds.name, feature_names=tuple(ds.feature_names), image_shape=ds.image_shape,
        truth=None if ds.truth is None else np.asarray(ds.truth, dtype=bool), classes=tuple(class_names(ds)),
        n_train=train.n_samples, n_test=test.n_samples, settings=settings, notes=notes, runs=runs,
        failures=failures, accuracy=_accuracy_table(held), all_features_accuracy=all_features.value,
        majority_accuracy=float(np.mean(majority)), seconds=time.perf_counter() - started, held_out=held,
        all_features_interval=all_features)
