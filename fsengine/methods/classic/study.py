"""Our weighted-error stumps next to scikit-learn's AdaBoost with depth-1 trees.

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

import numpy as np
import pandas as pd
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from fsengine.methods.classic.binary import class_codes
from fsengine.methods.classic.boosting import BoostingRun, log_loss_factor
from fsengine.methods.classic.stumps import Stump


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
