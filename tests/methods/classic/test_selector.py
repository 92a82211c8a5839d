"""The four classic-criteria selectors: scikit-learn's estimator checks and the shared contract."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.selectors import BoostingSelector, L1PathSelector, MDLSelector, MutualInfoSelector

# Exemptions (documented in each selector's docstring): the Naive Bayes criteria are checked with
# binarize="auto" (their default refuses the continuous data the checks use), the L1 path with
# cv=None (the checks' data have one-sample classes that stratified CV cannot split).
CHECKED = [
    MutualInfoSelector(binarize="auto"),
    MutualInfoSelector(binarize=0.0, n_features_to_select=2),
    MDLSelector(binarize="auto", max_features=5),
    L1PathSelector(cv=None, n_Cs=5),
    BoostingSelector(n_estimators=5),
]


@parametrize_with_checks(CHECKED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
