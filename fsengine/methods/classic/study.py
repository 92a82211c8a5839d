"""What the Classic criteria page and its reproduction run beside the selectors.

The numbers the page shows (``mi_summary``, ``mdl_summary``, ``l1_held_out`` and ``l1_summary``,
``boosting_summary``, ``mean_image``) and the comparison of our weighted-error stumps with
scikit-learn's AdaBoost with depth-1 trees.

scikit-learn's ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))`` grows each stump by
the weighted Gini impurity, not by the weighted error that Eq. (32) minimises, so the two can
choose different stumps. Two comparisons, both per round:

``same_weights``  at every round of *our* run, a Gini stump is fitted with our weights and its
                  weighted error under those weights is set beside ours (isolates the criterion);
``side_by_side``  our run and scikit-learn's run (SAMME, which equals Eq. 33-34 for two classes up
                  to alpha being twice ours) round by round; once a stump differs the weights
                  differ and later rounds are no longer comparable one-to-one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from fsengine.data.transforms import split
from fsengine.methods.classic.binary import class_codes
from fsengine.methods.classic.boosting import BoostingRun, log_loss_factor
from fsengine.methods.classic.selector import L1PathSelector
from fsengine.methods.classic.stumps import Stump
from fsengine.progress import Progress
from fsengine.stats import Estimate, wilson_interval


def mean_image(X) -> np.ndarray:
    """The mean of every column (dense or sparse X): the grey background of the pixel figures."""
    return np.asarray(X.mean(axis=0)).ravel()


@dataclass(frozen=True)
class MISummary:
    """The mutual-information view's numbers: the largest I(X; Y) (nats; the maximum of plug-in
    estimates, so biased upward: each plug-in I is biased up by about (|X| - 1)(|Y| - 1) / 2n nats, and
    the largest of many is further up by selection, :data:`LARGEST_MI_NOTE`), how many features pass
    the Bonferroni-corrected test, and the best feature's name."""

    largest: float
    significant: int
    best: str


#: what the page says about "Largest I(X; Y)" (Miller 1955 for the plug-in bias; the maximum adds selection)
LARGEST_MI_NOTE = ("The largest of many plug-in estimates, so biased upward: each plug-in I(X; Y) overestimates by "
                   "about (|X| − 1)(|Y| − 1) / 2n nats (Miller 1955), and picking the largest adds the luck of the "
                   "winner. It ranks features; it is no estimate of the best feature's true information.")


def mi_summary(selector, names) -> MISummary:
    return MISummary(float(selector.scores_.max()), int(selector.support_.sum()), names[int(selector.order_[0])])


@dataclass(frozen=True)
class MDLSummary:
    """The MDL view's numbers: the chosen size, DL at it and of the empty model (nats), whether
    the minimum is at the largest size explored, and the table of the forward sequence."""

    best_size: int
    dl_at_minimum: float
    dl_empty: float
    at_largest_size: bool
    table: pd.DataFrame


def mdl_summary(selector, names) -> MDLSummary:
    trace, best = selector.trace_, int(selector.best_size_)
    table = trace.loc[trace["size"] > 0, ["size", "feature", "dl_data", "gain", "dl_model", "dl_total"]].copy()
    table.insert(2, "name", [names[j] for j in table["feature"]])
    return MDLSummary(best, float(trace["dl_total"].iloc[best]), float(trace["dl_total"].iloc[0]),
                      best == int(trace["size"].iloc[-1]), table)


@dataclass(frozen=True)
class L1HeldOut:
    """An L1 path fitted on the training part of a split, and its accuracy on the held-out part."""

    selector: L1PathSelector
    held_out: pd.Series
    n_train: int
    n_test: int


def l1_held_out(ds, *, n_Cs: int, C_span: float, cv: int | None, test_size: float,
                progress: Progress | None = None) -> L1HeldOut:
    """``L1PathSelector`` on a stratified split of ``ds`` (seed 0), with held-out accuracy per C."""
    train, test = split(ds, test_size=test_size, seed=0)
    selector = L1PathSelector(n_Cs=n_Cs, C_span=C_span, cv=cv).fit(train.X, train.y, progress=progress)
    return L1HeldOut(selector, selector.path_accuracy(test.X, test.y), train.n_samples, test.n_samples)


@dataclass(frozen=True)
class L1Summary:
    """The L1 view's numbers: the held-out accuracy at the C chosen by cross-validation on the
    training part, with its 95% Wilson interval over the held-out rows, and the non-zero features
    there (both None when C was not chosen by cross-validation: the best accuracy along the path
    would choose C on the rows that report it); the number of features the chosen C keeps; whether
    the solver converged at every C."""

    accuracy: Estimate | None
    active_at_chosen: int | None
    n_selected: int
    converged: bool


def l1_summary(fit: L1HeldOut) -> L1Summary:
    selector = fit.selector
    trace = selector.trace_
    accuracy = active = None
    if selector.cv:
        chosen = int(np.flatnonzero(selector.Cs_ == selector.C_)[0])
        correct = int(round(float(fit.held_out.iloc[chosen]) * fit.n_test))
        accuracy, active = wilson_interval(correct, fit.n_test), int(trace["n_active"].iloc[chosen])
    return L1Summary(accuracy, active, int(selector.support_.sum()), bool(trace["converged"].all()))


@dataclass(frozen=True)
class BoostingSummary:
    """The boosting view's numbers: rounds run, distinct features used, the final training error
    (None without rounds) and whether boosting stopped before the rounds asked for."""

    rounds: int
    n_features_used: int
    train_error: float | None
    stopped_early: bool


def boosting_summary(selector, rounds: int) -> BoostingSummary:
    trace = selector.trace_
    return BoostingSummary(len(trace), int(np.count_nonzero(selector.scores_ > 0)),
                           float(trace["train_error"].iloc[-1]) if len(trace) else None, len(trace) < rounds)


def _tree_stump(tree: DecisionTreeClassifier, classes: np.ndarray) -> tuple[int, float, np.ndarray]:
    """(feature, threshold, leaf predictions as class codes) of a fitted depth-1 tree; -1 if a leaf."""
    t = tree.tree_
    if t.node_count < 3:
        return -1, np.nan, np.zeros(0, dtype=int)
    leaves = [t.children_left[0], t.children_right[0]]
    predicted = tree.classes_[np.argmax(t.value[leaves, 0, :], axis=1)]
    return int(t.feature[0]), float(t.threshold[0]), np.searchsorted(classes, predicted)


def same_weights(X, y, run: BoostingRun) -> pd.DataFrame:
    """Per round of ``run``: our stump and a Gini stump fitted with the same weights."""
    codes, classes = class_codes(y)
    K, n = classes.size, codes.size
    log_w = np.zeros(n)
    rows = []
    for m, (stump, alpha) in enumerate(zip(run.stumps, run.alphas), start=1):
        weights = np.exp(log_w - log_w.max())
        weights /= weights.sum()
        tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y, sample_weight=weights)
        feature, threshold, leaf_codes = _tree_stump(tree, classes)
        gini_error = np.nan
        if feature >= 0:
            gini = Stump(feature, threshold, int(leaf_codes[0]), int(leaf_codes[1]), np.nan)
            gini_error = float(weights[gini.predict_codes(X) != codes].sum())
        rows.append({
            "round": m, "feature": stump.feature, "threshold": stump.threshold,
            "weighted_error": stump.error, "gini_feature": feature, "gini_threshold": threshold,
            "gini_weighted_error": gini_error,
            "gini_leaves_differ": feature >= 0 and leaf_codes[0] != leaf_codes[1],
            "same_feature": feature == stump.feature,
        })
        log_w += log_loss_factor(alpha, stump.predict_codes(X) != codes, K)
    return pd.DataFrame(rows)


def side_by_side(X, y, run: BoostingRun, random_state: int = 0) -> pd.DataFrame:
    """Our rounds next to ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))``'s."""
    codes, classes = class_codes(y)
    sk = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=len(run.stumps),
                            learning_rate=1.0, random_state=random_state).fit(X, y)
    rows = []
    for m, stump in enumerate(run.stumps):
        row = {"round": m + 1, "feature": stump.feature, "threshold": stump.threshold,
               "weighted_error": stump.error, "alpha": run.alphas[m]}
        if m < len(sk.estimators_):
            feature, threshold, _ = _tree_stump(sk.estimators_[m], classes)
            row.update(sk_feature=feature, sk_threshold=threshold,
                       sk_weighted_error=float(sk.estimator_errors_[m]),
                       sk_alpha=float(sk.estimator_weights_[m]))
        rows.append(row)
    table = pd.DataFrame(rows)
    same = (table["feature"] == table.get("sk_feature")) & np.isclose(
        table["threshold"], table.get("sk_threshold"), rtol=0, atol=1e-6)
    table["same_stump"] = same
    table["weights_identical"] = same.cumprod().shift(1, fill_value=1).astype(bool)
    return table


def rounds_with_another_feature(table: pd.DataFrame) -> int:
    """How many rounds of a :func:`same_weights` table the Gini stump split on another feature."""
    return int((~table["same_feature"].astype(bool)).sum())
