"""The benchmark's protocol, frozen in code before the first full run.

Every run records :data:`VERSION` and :func:`fingerprint` (a hash of the settings and of the source
of the modules that compute the numbers), so two runs are compared only when they match. What a run
computes, in the order it happens:

1. **Outer folds.** ``repeats`` x ``folds`` repeated stratified k-fold
   (``sklearn.model_selection.RepeatedStratifiedKFold``, ``random_state=seed``; 2 x 5 in the full
   run): every row is held out once per repeat. Every selector is fitted on the training part of
   each fold only (:func:`fsengine.methods.run.fit_method`, which adapts the columns as the
   comparison does and says so); nothing is tuned on held-out rows. Every class needs at least
   ``folds`` rows, so that every test fold holds every class and every training fold at least
   ``folds - 1`` rows of it; a dataset with a smaller class is refused before any fit.
2. **The k grid,** fixed before any fit: absolute sizes and fractions of p (``5,10,20,0.05``). A
   fraction f is ``max(1, round(f p))`` on a dataset of p features; an absolute k at or above p is
   not evaluated there (every method would keep every feature), and a dataset on which no k of the
   grid is below p is refused before any fit.
3. **The classifier** on the first k features of each ranking, trained on the fold's training
   part: :data:`CLASSIFIERS` (standardised L2 logistic regression, C = 1, by default; a
   5-nearest-neighbour classifier on standardised features as the optional second, which also sees
   interactions such as an XOR pair). A method whose own selection is smaller than k is still scored
   on the first k features of its ranking (its order beyond its selection), as the Compare page
   does; the per-fold table keeps the size of its own selection.
4. **The metric** (:func:`metric_name`): balanced accuracy (the mean recall of the classes) when the
   dataset's largest class has more than :data:`IMBALANCE` times the rows of its smallest, else
   accuracy; decided from the whole dataset's class counts before any fit.
5. **Per dataset, method and k:** the mean metric over the R x F folds with the corrected
   resampled t interval (Nadeau & Bengio 2003, :func:`fsengine.stats.t_interval`) with
   ``test_train_ratio = 1 / (F - 1)``: fold results share training rows, so the plain t interval
   would be too narrow (Bouckaert & Frank 2004 use the same correction for repeated k-fold);
   Nogueira et al.'s (2018) stability of the R x F top-k sets with its asymptotic interval
   (:func:`fsengine.selection_metrics.nogueira_stability`); the fit time (CPU and wall seconds)
   as median and interquartile range over the R x F fits (:func:`fsengine.stats.median_iqr`);
   on data with a known truth, the recall of the true features in the top k (mean over folds,
   corrected resampled t).
6. **Applicability.** A method is "not applicable" to a dataset when its :class:`Needs` rule it
   out before any fit: two classes only on multi-class data (the benchmark keeps every class, so
   that all methods are ranked on the same task), a regression-only method on classes, more
   features than it handles. Binary-only methods are adapted (features binarised on each
   training fold) as everywhere in fsengine. A fit that raises, calls ``sys.exit`` or gives no
   finite score is "failed" with its one-line message (:mod:`fsengine.methods.failures`, the
   wrapping every command uses for user code); the run goes on. Neither is dropped silently: both
   are in the tables and the report.
7. **Ranks over datasets** (per k, :mod:`fsengine.benchmark.aggregate`): ranks of the methods on
   each dataset (1 = best, mid-ranks for ties) under the gap rule :data:`GAP_RULE`; the Friedman
   test in the Iman-Davenport form and Nemenyi's critical difference at :data:`ALPHA` (Demšar
   2006); the similarity of the methods' selections: the Jaccard overlap of two methods' top-k
   sets on the same fold, averaged over the folds and then over the datasets where both ran
   (Bommert et al. 2020 compare filters by the similarity of what they select; Jaccard of the top
   k is the measure that depends on k, the figures' slider); accuracy against time: each method's
   average rank against the geometric mean over datasets of its median fit CPU seconds, with the
   Pareto front (no other method both better ranked and faster).
8. **Two Holm families of Wilcoxon signed-rank tests** (Benavoli, Corani & Mangili 2016), each pair
   of methods on the datasets where both have a result, the exact test (ties and zeros included,
   :func:`fsengine.stats.signed_rank_test`), Holm's step-down correction at :data:`ALPHA` within
   the family and within one k:

   * **All pairs** (:data:`FAMILIES` ``"all pairs"``), what the issue asked for: every pair of the
     m methods, Holm over m (m - 1) / 2 tests. It answers "which of any two methods is better",
     and with many methods it can answer little: Holm's first step asks for p < 0.05 / (m (m - 1)
     / 2), while the exact test on N datasets cannot give p below 2 / 2^N (every dataset favouring
     the same method). With 13 datasets (version 1's suite) and 27 methods that is 2.4e-4 against
     1.4e-4: no pair could have been resolved, whatever the data. With the 17 datasets of version 2
     the floor is 1.5e-5, so a pair can be resolved, but only when one method is better on at least
     15 of the 17 datasets (its two losses being its smallest differences); a method that does not
     apply everywhere (two classes only: 15 datasets) needs 14 of its 15.
   * **Against the control** (``"against the control"``), pre-registered here before any run:
     every other method against :data:`CONTROL`, Holm over m - 1 tests (Demšar 2006, section
     3.2.2). :data:`CONTROL_REASON` says why ANOVA F: it is the control because it is the
     simplest filter practitioners reach for first, not because of how it ranks (choosing the
     best-ranked method after the run would make the family's p-values meaningless). The family
     answers the question a practitioner asks of a method: is it better (or worse) than the
     default filter, on this kind of data? With 27 methods its first step asks for p < 0.05 / 26
     = 1.9e-3, which 11 or more datasets can reach; on the 17 datasets a method passes it when it is
     better than the control on at least 13 of them.

   The report states, from the run and per family and k, what could and could not have been
   resolved (:func:`fsengine.stats.signed_rank_reach`, :func:`fsengine.benchmark.aggregate.families`):
   Holm's first-step threshold, the smallest p-value the family's tests could give on their
   datasets (fewer datasets and zero differences raise it), how many comparisons could have passed,
   the fewest wins (of N datasets, the losses being the smallest differences) a method needs to
   pass, and the fewest datasets with which the family could resolve anything. The k values of the
   grid are four looks at one question, not pooled into one family: a finding at one k only is
   read with that in mind.
9. **The suite** (:mod:`fsengine.benchmark.suite`): 17 datasets, fixed with this version. More
   datasets are the only way to more power in an exact rank test (each one halves the floor); the
   suite grew from 13 to 17 with four cheap datasets chosen for what they add, at the cost of a
   slightly larger share of image and generated data (the suite module says which and why).

Versions: ``"1"`` (never run in full) tested all pairs only, with the normal approximation
whenever two differences tied, on 13 datasets; ``"2"`` adds the control family, the exact test with
ties and zeros, the class-size rule of point 1 and four datasets.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

#: the protocol's version: raise it when anything below changes what a run computes
VERSION = "2"
#: outer folds, repeats and their seed of the full run
FOLDS, REPEATS, SEED = 5, 2, 0
#: the k grid of the full run, as the command line writes it
K_GRID = "5,10,20,0.05"
#: the largest ratio of the largest to the smallest class for which plain accuracy is the metric
IMBALANCE = 1.1
#: family level of the Friedman test, the critical difference and the Holm-corrected pairs
ALPHA = 0.05
#: interval level of every per-dataset estimate
LEVEL = 0.95
#: a method enters the ranks at a k when it has a result on at least this share of the datasets
#: evaluated at that k
MIN_COVERAGE = 0.5
GAP_RULE = (f"Ranks, the Friedman test and the critical difference use the methods with a result on at least "
            f"{MIN_COVERAGE:.0%} of the datasets evaluated at that k, and of those datasets the ones where every "
            "such method has a result (complete blocks); the left-out methods and datasets are named with the "
            "reason (not applicable, failed). Each pair's Wilcoxon test uses every dataset where both methods "
            "have a result.")
#: the method every other is compared with in the control family (point 8), fixed before any run
CONTROL = "anova"
CONTROL_REASON = ("ANOVA F is the control because it is the simplest filter practitioners reach for first "
                  "(scikit-learn's SelectKBest scores with it by default), it applies to every dataset of the suite "
                  "(any number of classes, dense or sparse), is deterministic and costs next to nothing, so it has a "
                  "result everywhere; every other method is asked whether it is worth more than that default. It "
                  "was fixed before any run, not chosen for its rank.")
#: the Holm families of signed-rank tests (point 8), as the tables name them
FAMILIES = ("all pairs", "against the control")
#: the downstream classifiers (the first is the default)
CLASSIFIERS = {
    "logistic": "standardised L2 logistic regression (scikit-learn LogisticRegression, C = 1, lbfgs, max_iter 2000)",
    "knn": "5-nearest-neighbour classifier on standardised features (scikit-learn KNeighborsClassifier)",
}


def classifier(name: str, sparse: bool):
    """A fresh, unfitted downstream classifier ``name`` of :data:`CLASSIFIERS` (standardisation
    without centring on sparse data)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    scale = StandardScaler(with_mean=not sparse)
    if name == "logistic":
        return make_pipeline(scale, LogisticRegression(C=1.0, max_iter=2000))
    if name == "knn":
        return make_pipeline(scale, KNeighborsClassifier(n_neighbors=5))
    raise ValueError(f"classifier {name!r}: choose one of {', '.join(CLASSIFIERS)}")


def metric_name(class_counts) -> str:
    """``"balanced accuracy"`` when the largest class has more than :data:`IMBALANCE` times the rows
    of the smallest, else ``"accuracy"``.

    >>> metric_name([212, 357]), metric_name([178, 174, 183])
    ('balanced accuracy', 'accuracy')
    """
    counts = [int(c) for c in class_counts]
    return "balanced accuracy" if max(counts) > IMBALANCE * min(counts) else "accuracy"


@dataclass(frozen=True)
class KSpec:
    """One entry of the k grid: an absolute size (``fraction`` False) or a fraction of p."""

    value: float
    fraction: bool

    @property
    def label(self) -> str:
        """How the grid names it: ``"10"`` or ``"5%"``."""
        return f"{100 * self.value:g}%" if self.fraction else str(int(self.value))

    def resolve(self, p: int) -> int | None:
        """k on a dataset of ``p`` features, or None when it would keep every feature."""
        k = max(1, int(round(self.value * p))) if self.fraction else int(self.value)
        return k if k < p else None


def parse_k_grid(text: str) -> tuple[KSpec, ...]:
    """``"5,10,20,0.05"`` -> the grid: integers >= 1 are sizes, numbers in (0, 1) fractions of p.

    >>> [k.label for k in parse_k_grid("5, 10,0.05")]
    ['5', '10', '5%']
    """
    out = []
    for item in (s.strip() for s in str(text).split(",")):
        if not item:
            continue
        try:
            value = float(item)
        except ValueError:
            raise ValueError(f"--k {text!r}: {item!r} is not a number; write sizes and fractions of p, "
                             "e.g. 5,10,20,0.05") from None
        if 0 < value < 1:
            out.append(KSpec(value, True))
        elif value >= 1 and value == int(value):
            out.append(KSpec(float(int(value)), False))
        else:
            raise ValueError(f"--k {text!r}: {item!r} is neither a size (an integer >= 1) nor a fraction in (0, 1)")
    if not out:
        raise ValueError("--k: give at least one size or fraction, e.g. 5,10,20,0.05")
    if len({k.label for k in out}) != len(out):
        raise ValueError(f"--k {text!r}: an entry is repeated")
    return tuple(out)


@dataclass(frozen=True)
class Settings:
    """What one run is asked to do (the protocol's free parameters): folds, repeats, seed, the k
    grid (as written), the classifier, the methods' parameters that differ from the registry's
    defaults (``{method key: {name: value}}``) and the control of the control family (a method
    key; the protocol's :data:`CONTROL` unless a user's own run names another before it starts)."""

    folds: int = FOLDS
    repeats: int = REPEATS
    seed: int = SEED
    k_grid: str = K_GRID
    classifier: str = "logistic"
    params: dict = field(default_factory=dict)
    control: str = CONTROL

    def __post_init__(self):
        if not 2 <= self.folds <= 20:
            raise ValueError(f"--folds {self.folds}: choose 2 to 20 outer folds")
        if not 1 <= self.repeats <= 50:
            raise ValueError(f"--repeats {self.repeats}: choose 1 to 50 repeats of the folds")
        if self.folds * self.repeats < 3:
            raise ValueError("the stability and the intervals need at least 3 fits per method: raise --folds or "
                             "--repeats")
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"--classifier {self.classifier}: choose one of {', '.join(CLASSIFIERS)}")
        parse_k_grid(self.k_grid)

    @property
    def ks(self) -> tuple[KSpec, ...]:
        return parse_k_grid(self.k_grid)

    @property
    def test_train_ratio(self) -> float:
        """n_test / n_train of a fold, the corrected resampled t's inflation term: 1 / (F - 1)."""
        return 1.0 / (self.folds - 1)

    def as_dict(self) -> dict:
        return asdict(self)


def description() -> dict:
    """The frozen constants of the protocol (what :func:`fingerprint` hashes besides the code)."""
    return {"version": VERSION, "imbalance": IMBALANCE, "alpha": ALPHA, "level": LEVEL, "min_coverage": MIN_COVERAGE,
            "gap_rule": GAP_RULE, "classifiers": CLASSIFIERS, "control": CONTROL, "control_reason": CONTROL_REASON,
            "families": list(FAMILIES)}


#: the source files of the modules that compute a run's numbers: this one, the runner and the
#: aggregate (read as files, so the protocol imports neither of the modules that import it)
NUMBER_SOURCES = tuple(Path(__file__).with_name(name) for name in ("protocol.py", "runner.py", "aggregate.py"))


def fingerprint(settings: Settings) -> str:
    """SHA-256 (first 16 hex digits) of :func:`description`, ``settings`` and the source of the
    modules that compute a run's numbers (:data:`NUMBER_SOURCES`)."""
    digest = hashlib.sha256(json.dumps({"protocol": description(), "settings": settings.as_dict()},
                                       sort_keys=True, default=str).encode())
    for source in NUMBER_SOURCES:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]
