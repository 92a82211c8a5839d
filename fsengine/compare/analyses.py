"""What a comparison's fits and held-out outcomes say: the result of :func:`fsengine.compare.runner.
run_comparison` (:class:`ComparisonResult`) and every number computed from it (no fitting here).

* Held-out accuracy (:class:`HeldOut`): whether each held-out row was classified right is kept, and
  every interval is computed from it with :mod:`fsengine.stats`.

  - one split (the default): an accuracy is a proportion of the n held-out rows, with Wilson's
    score interval (95%); the random baseline, a mean over draws per row, by a percentile
    bootstrap over the rows. The paired difference of a method from the reference at each k is
    the difference of their accuracies on the SAME rows, with the exact conditional interval of a
    paired difference (:func:`fsengine.stats.paired_proportion_difference`: Clopper-Pearson on the
    rows where only one of the two is right, dual to the exact McNemar test; no resampling, so a
    Bonferroni level of 99.7% rests on no handful of resamples in a tail). These
    intervals hold the training rows fixed: they say what the held-out rows can tell apart for
    these fits, not how much the fits would move with other training rows.
  - ``n_repeats >= 2``: the accuracy is the mean over the splits, with the corrected resampled t
    interval of Nadeau & Bengio (2003), which inflates the variance for splits that share rows;
    the paired differences likewise (same splits for every method).

  Differences are judged by :func:`fsengine.stats.difference_verdict` ("better" / "worse" when
  the interval excludes 0, else "not resolved"); with m methods, each of the m - 1 intervals
  against the reference is a Bonferroni interval at level 1 - 0.05 / (m - 1), so that all of
  them together hold at 95% at one k. No k is picked on the held-out rows: the curves are
  reported, never their best point.
* Stability over the bootstrap fits: Kuncheva's index of the top-k sets averaged over all pairs of
  resamples (:mod:`fsengine.selection_metrics`), with a 95% jackknife interval over the resamples
  (leave one resample out; needs 5 or more); beside it Nogueira, Sechidis & Brown's (2018)
  estimator with its asymptotic normal interval and their test of equal stability against the
  reference, paired (the resamples are shared), Holm-adjusted over the m - 1 methods at one k
  (:meth:`ComparisonResult.stability`). Runtimes: the fit on the training part, and the median and
  interquartile range of the bootstrap fits (:meth:`ComparisonResult.runtime`).
* Overlap: pairwise Jaccard of the methods' top-k sets. ROC / AUC of each method's scores against
  ``Dataset.truth`` when the data are synthetic.

``k`` for overlap and stability and the reference method are chosen after the run (any k up to
``max_k``), so a page can move them without refitting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fsengine.compare.settings import CompareSettings
from fsengine.formatting import percent
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

#: curve names of the baselines in ``ComparisonResult.accuracy``
RANDOM = "random features"
#: resamples the stability's jackknife interval needs (with 3 or 4 it rests on so few pairs that
#: it can be 0 wide when they happen to agree)
MIN_JACKKNIFE = 5

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
    """What :func:`~fsengine.compare.runner.run_comparison` returns: the methods' fits
    (:class:`MethodRun`), the held-out evidence (:class:`HeldOut`) and the tables computed from them
    with their intervals and verdicts (accuracy, paired differences from a reference, overlap,
    stability, ROC, runtimes), as the module docstring describes.

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
        the bootstrap fits' times; the total of the fit and every bootstrap fit (``total_``, what
        the method cost the comparison); the same in CPU seconds of the process that fitted
        (``_cpu_`` columns: on a busy machine wall-clock times also measure the other processes);
        how many features the method itself selected, its parameters and notes."""
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
                "total_seconds": r.seconds + float(r.boot_seconds.sum()),
                "total_cpu_seconds": r.cpu_seconds + float(r.boot_cpu_seconds.sum()),
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

