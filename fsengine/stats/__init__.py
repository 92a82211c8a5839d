"""Intervals, paired differences and verdicts: the one statistics module behind every reported
estimate (the reproductions' ``results.json``, the comparison's tables and page, the toolbox
report).

Every function returns an :class:`Estimate`: the value, its interval, the interval's level and a
sentence naming the method, so a number is never reported without its uncertainty and how it
was obtained. The verdicts are computed from intervals, never from point values:

* against a paper's value or a target (:func:`versus_value`): ``"consistent"`` when the value
  lies inside our interval, ``"above"`` / ``"below"`` when our whole interval lies above / below it;
* for a difference between two methods (:func:`difference_verdict`): ``"better"`` /
  ``"worse"`` when the interval excludes 0, ``"not resolved"`` otherwise; for an ordering named
  in a paper (:func:`ordering_verdict`): ``"resolved"`` (with the sign) or ``"not resolved"``.

Methods
-------
=============================  ===================================================================
:func:`wilson_interval`        a proportion (an accuracy on n rows): Wilson's score interval.
:func:`t_interval`             the mean of independent repeats (seeds): Student's t; with
                               ``test_train_ratio`` the corrected resampled t of Nadeau & Bengio
                               (2003) for repeats that share training rows (CV folds, repeated
                               splits), which inflates the variance by ``1/J + n_test/n_train``.
:func:`paired_t_interval`      the mean difference of paired repeats (same folds, same seeds).
:func:`bootstrap_interval`     a statistic of resampled units (sentences, rows): percentile
                               bootstrap with a fixed seed; :func:`paired_bootstrap_interval` puts
                               two models on the SAME resamples and reports their difference.
:func:`bootstrap_means`        many means at once (columns of per-unit values, e.g. per held-out row
                               whether a classifier was right at each k), every column on the same
                               resamples; :func:`paired_bootstrap_means` their paired differences.
:func:`jackknife_interval`     Tukey's jackknife from leave-one-out estimates (a statistic of a few
                               resamples, e.g. a stability index averaged over pairs of fits).
:func:`f1_interval`            chunking F1 from per-sentence true/false positives and false
                               negatives, by the sentence-level bootstrap; :func:`f1_difference`.
:func:`median_iqr`             repeated timings: the median and the interquartile range (a 50% range).
:func:`median_range`           repeats of a whole procedure (e.g. development splits): the median and
                               the range, a distribution-free interval for the median.
:func:`precision_from_counts`  statistics of per-unit sums for :func:`bootstrap_interval`: chunk
                               precision,
:func:`recall_from_counts`     chunk recall,
:func:`ratio_from_counts`      a token accuracy from per-sentence (correct, tokens).
:func:`bonferroni_level`       the per-comparison level that keeps m comparisons at a family level.
:func:`holm_adjust`            Holm's step-down adjusted p-values.
=============================  ===================================================================

Methods over many datasets (Demšar, JMLR 7, 2006; Benavoli, Corani & Mangili, JMLR 17, 2016):

============================ ======================================================================
:func:`rank_rows`            each dataset's methods ranked 1..k with mid-ranks for ties.
:func:`friedman_test`        average ranks, the Friedman statistic and its Iman-Davenport F form.
:func:`nemenyi_cd`           Nemenyi's critical difference of average ranks (studentized range / sqrt 2).
:func:`signed_rank_test`     Wilcoxon's signed-rank test of two methods over datasets (exact, ties and
                             zeros included, or normal).
:func:`pairwise_signed_rank` that test for every pair of methods, or for every method against one
                             control, Holm-corrected, with verdicts.
:func:`signed_rank_reach`    what a family of such tests on N datasets can resolve at all: the smallest
                             attainable p against Holm's first-step threshold, the largest statistic
                             that passes it and the fewest datasets that could.
============================ ======================================================================

How selected sets agree (from :mod:`fsengine.selection_metrics`, public here): :func:`jaccard` and
:func:`jaccard_matrix` (overlap), :func:`kuncheva_index` and :func:`kuncheva_stability` (Kuncheva's
consistency index), :func:`nogueira_stability` and :func:`nogueira_difference` (Nogueira et al.'s
stability with its interval and test), :func:`roc_curve` and :func:`roc_auc` (feature scores
against a known relevant set).
"""

from __future__ import annotations

# one job per module: estimates (Estimate, LEVEL, N_BOOTSTRAP and the intervals), verdicts (the
# verdicts from intervals, the tests dual to them and Holm's procedure) and ranks (methods compared
# over many datasets); estimates imports nothing of the others, verdicts only estimates. The names
# imported ``as`` themselves are not in the public surface (``__all__``): the package uses them
# from here, as it did when this was one module
from fsengine.stats import estimates as _estimates
from fsengine.stats.estimates import WEIGHT_BLOCK as WEIGHT_BLOCK
from fsengine.stats.estimates import (
    Estimate,
    bootstrap_interval,
    bootstrap_means,
    f1_difference,
    f1_interval,
    jackknife_interval,
    median_iqr,
    median_range,
    paired_bootstrap_interval,
    paired_bootstrap_means,
    paired_t_interval,
    precision_from_counts,
    ratio_from_counts,
    recall_from_counts,
    t_interval,
    wilson_interval,
)
from fsengine.stats.estimates import bootstrap_weight_blocks as bootstrap_weight_blocks
from fsengine.stats.estimates import bootstrap_weights as bootstrap_weights
from fsengine.stats.estimates import f1_from_counts as f1_from_counts
from fsengine.stats.ranks import EXACT_SIGNED_RANK as EXACT_SIGNED_RANK
from fsengine.stats.ranks import (
    FriedmanTest,
    PairwiseTest,
    SignedRankReach,
    SignedRankTest,
    friedman_test,
    nemenyi_cd,
    nemenyi_q,
    pairwise_signed_rank,
    rank_rows,
    signed_rank_interval,
    signed_rank_reach,
    signed_rank_test,
)
from fsengine.stats.verdicts import BootstrapReplicates as BootstrapReplicates
from fsengine.stats.verdicts import (
    bonferroni_level,
    difference_verdict,
    holm_adjust,
    ordering_verdict,
    versus_value,
)
from fsengine.stats.verdicts import holm_family as holm_family
from fsengine.stats.verdicts import holm_levels as holm_levels
from fsengine.stats.verdicts import mcnemar_exact_pvalue as mcnemar_exact_pvalue
from fsengine.stats.verdicts import paired_bootstrap_replicates as paired_bootstrap_replicates
from fsengine.stats.verdicts import paired_proportion_difference as paired_proportion_difference
from fsengine.stats.verdicts import t_pvalue as t_pvalue

#: the level of every interval unless said otherwise
LEVEL = _estimates.LEVEL
#: bootstrap resamples unless said otherwise (the issue asks for at least 1,000)
N_BOOTSTRAP = _estimates.N_BOOTSTRAP

#: how selected sets agree, public here (:mod:`fsengine.selection_metrics`, which builds on this
#: module, is imported on first use)
_SELECTION_METRICS = ("jaccard", "jaccard_matrix", "kuncheva_index", "kuncheva_stability", "nogueira_stability",
                      "nogueira_difference", "roc_auc", "roc_curve")

__all__ = [
    "LEVEL", "N_BOOTSTRAP", "Estimate",
    "wilson_interval", "t_interval", "paired_t_interval", "bootstrap_interval", "paired_bootstrap_interval",
    "bootstrap_means", "paired_bootstrap_means", "jackknife_interval", "f1_interval", "f1_difference",
    "precision_from_counts", "recall_from_counts", "ratio_from_counts", "median_iqr", "median_range",
    "bonferroni_level", "holm_adjust", "versus_value", "difference_verdict", "ordering_verdict",
    "FriedmanTest", "PairwiseTest", "SignedRankTest", "rank_rows", "friedman_test", "nemenyi_q", "nemenyi_cd",
    "signed_rank_test", "pairwise_signed_rank", "signed_rank_interval", "SignedRankReach", "signed_rank_reach",
    *_SELECTION_METRICS,
]


def __getattr__(name: str):
    if name in _SELECTION_METRICS:
        from fsengine import selection_metrics

        return getattr(selection_metrics, name)
    raise AttributeError(f"module 'fsengine.stats' has no attribute {name!r}")
