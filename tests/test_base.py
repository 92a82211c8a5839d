"""The shared selector contract: order, ranks and validation, through the simplest selector
(scikit-learn's estimator checks of that selector are in tests/methods/toolbox/test_selector.py)."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from fsengine.ranking import order_from, top_k_mask
from fsengine.selectors import VarianceRankSelector


def test_order_selected_first_then_scores_then_index():
    scores = np.array([0.1, 0.9, 0.5, 0.9, 0.5])
    assert order_from(scores).tolist() == [1, 3, 2, 4, 0]
    assert order_from(scores, [4, 0]).tolist() == [4, 0, 1, 3, 2]
    assert order_from(np.array([np.nan, 1.0])).tolist() == [1, 0]
    with pytest.raises(ValueError):
        order_from(scores, [1, 1])
    assert top_k_mask(scores, 2).tolist() == [False, True, False, True, False]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_input_has_specific_message(bad):
    X = np.ones((4, 3))
    X[2, 1] = bad
    with pytest.raises(ValueError, match=r"row 2, column 1"):
        VarianceRankSelector().fit(X)
    Xs = sp.csr_matrix(np.eye(4))
    Xs.data[0] = bad
    with pytest.raises(ValueError, match="NaN|inf"):
        VarianceRankSelector().fit(Xs)


def test_ranking_is_a_rank_per_feature_as_in_sklearn_and_order_is_the_ordering():
    """scikit-learn's meaning (``RFE.ranking_``): ``ranking_[j]`` is feature j's rank, 1 = best;
    ``order_`` lists the features best first. Checked against RFE itself: with
    ``n_features_to_select=1`` and ``step=1`` RFE ranks are distinct, and a selector fitted on
    RFE's own scores (ranks reversed) must give RFE's ranking_ back."""
    from sklearn.feature_selection import RFE
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(n_samples=120, n_features=7, n_informative=3, random_state=0)
    rfe = RFE(LogisticRegression(), n_features_to_select=1, step=1).fit(X, y)

    class RFEScores(VarianceRankSelector):
        def _fit(self, X, y):
            self.scores_ = -rfe.ranking_.astype(float)
            self._rank_and_support(rfe.support_)
            self.trace_ = pd.DataFrame({"feature": self.order_})
            return self

    sel = RFEScores().fit(X, y)
    np.testing.assert_array_equal(sel.ranking_, rfe.ranking_)
    np.testing.assert_array_equal(sel.order_, np.argsort(rfe.ranking_))
    assert sel.ranking_[sel.order_[0]] == 1 and sel.ranking_.min() == 1 and sel.ranking_.max() == 7


def test_a_stop_that_reaches_fit_leaves_the_selector_unfitted():
    """A selector that lets StopRequested propagate is left without fitted attributes, even when
    it held an earlier fit (the L1 path does not keep partial paths)."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    from fsengine.progress import StopRequested
    from fsengine.selectors import L1PathSelector

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 5)), rng.integers(0, 2, 60)
    sel = L1PathSelector(n_Cs=4).fit(X, y)

    def stop(fraction, message):
        raise StopRequested

    with pytest.raises(StopRequested):
        sel.fit(X, y, progress=stop)
    with pytest.raises(NotFittedError):
        check_is_fitted(sel)
    assert not [v for v in vars(sel) if v.endswith("_")]
