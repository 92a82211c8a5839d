"""The impurity importances of scikit-learn's random forest, grown without its per-tree Python overhead.

Boruta fits a fresh forest in every iteration: at its defaults (30 trees of depth 5, at most 20
iterations) 600 shallow trees per fit. ``RandomForestClassifier.fit`` spends about 0.8 ms of Python on
each tree besides growing it: it clones the tree estimator (``get_params`` through ``inspect``), sets
its seed, checks the targets, the random state and the sample weights again, builds a fresh
``RandomState`` twice (about 0.1 ms each) and dispatches through joblib. On the movie reviews' shallow
trees that was more than half of a Boruta fit's forest time (benchmarks/RESULTS.md, "Boruta's forests
without the per-tree overhead").

:func:`forest_importances` grows the same trees with scikit-learn's own tree builder
(``sklearn.tree._tree.DepthFirstTreeBuilder`` with the ``Gini`` criterion and ``BestSplitter``, or
``BestSparseSplitter`` on CSC input, as ``DecisionTreeClassifier._fit`` builds them) and writes out the
forest's random streams:

* tree i's seed s_i is the i-th draw ``randint(2**31 - 1)`` of ``RandomState(random_state)``
  (``sklearn.ensemble._base._set_random_states``);
* its bootstrap is ``RandomState(s_i).randint(0, n, n)`` (``_generate_sample_indices``), given to the
  tree as counts per row (sample weights), as ``_parallel_build_trees`` does;
* its splitter takes its state from ``RandomState(s_i)`` afresh (the first ``randint(0, RAND_R_MAX)``,
  drawn when the builder initialises the splitter);
* the forest's importances are the mean, over the trees that split at least once, of each tree's
  ``Tree.compute_feature_importances()``, divided by their sum (zeros when no tree split).

So the importances equal ``RandomForestClassifier(n_estimators=n_estimators, max_depth=max_depth,
n_jobs=1, random_state=random_state).fit(X, y).feature_importances_`` bit for bit, with every other
parameter at scikit-learn's default (tests/methods/wrappers/test_forest.py: dense and sparse, two and
three classes, string labels, unlimited depth, trees that cannot split). The one ``RandomState`` per
forest is re-seeded per tree (``seed(s_i)``: the state ``RandomState(s_i)`` starts from).

The tree builder, splitters and criterion are scikit-learn's private modules: the test above is what
notices when a release changes them, and a release that moves them (ImportError) gets the public
forest (:func:`reference_importances`), the same numbers, slower.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import RandomForestClassifier

try:
    from sklearn.tree._criterion import Gini
    from sklearn.tree._splitter import BestSparseSplitter, BestSplitter
    from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
except ImportError:  # pragma: no cover - a scikit-learn that moved its tree internals: the public forest
    DepthFirstTreeBuilder = None

#: the bound of the seeds a forest gives its trees (scikit-learn's ``_set_random_states``)
SEED_BOUND = np.iinfo(np.int32).max
#: ``max_depth=None``: scikit-learn's trees grow until pure (its ``_fit`` uses the int32 maximum)
UNLIMITED_DEPTH = np.iinfo(np.int32).max


def reference_importances(X, y, *, n_estimators: int, max_depth: int | None, random_state: int) -> np.ndarray:
    """``feature_importances_`` of scikit-learn's forest fitted on (X, y), the numbers
    :func:`forest_importances` gives."""
    forest = RandomForestClassifier(n_estimators=n_estimators, max_depth=max_depth, n_jobs=1,
                                    random_state=random_state)
    return forest.fit(X, y).feature_importances_


def forest_importances(X, y, *, n_estimators: int, max_depth: int | None, random_state: int) -> np.ndarray:
    """The impurity importances of ``RandomForestClassifier(n_estimators=n_estimators,
    max_depth=max_depth, n_jobs=1, random_state=random_state)`` fitted on (X, y), bit for bit, from
    its trees grown by scikit-learn's tree builder without the forest's per-tree overhead (module
    docstring).

    X: finite numbers, dense or sparse (used as float32, CSC when sparse, as the forest uses it;
    :func:`fsengine.methods.wrappers.boruta.forest_matrix` builds it so, and then no copy is made);
    y: class labels. Returns float64 importances of shape (n_features,), summing to 1 (or all 0).
    """
    if DepthFirstTreeBuilder is None:  # pragma: no cover - see the import
        return reference_importances(X, y, n_estimators=n_estimators, max_depth=max_depth,
                                     random_state=random_state)
    if sp.issparse(X):
        X = sp.csc_matrix(X, dtype=np.float32)
        X.sort_indices()
        splitter_type = BestSparseSplitter
    else:
        X = np.asarray(X, dtype=np.float32)
        splitter_type = BestSplitter
    n_samples, n_features = X.shape
    classes, encoded = np.unique(np.asarray(y), return_inverse=True)
    targets = np.ascontiguousarray(encoded.reshape(-1, 1), dtype=np.float64)
    n_classes = np.array([classes.size], dtype=np.intp)
    max_features = max(1, int(np.sqrt(n_features)))  # the forest's max_features="sqrt"
    depth = UNLIMITED_DEPTH if max_depth is None else int(max_depth)
    seeds = np.random.RandomState(random_state)
    stream = np.random.RandomState()
    per_tree = []
    for _ in range(n_estimators):
        seed = seeds.randint(SEED_BOUND)
        stream.seed(seed)
        counts = np.bincount(stream.randint(0, n_samples, n_samples), minlength=n_samples).astype(np.float64)
        stream.seed(seed)  # the splitter's own RandomState(seed), drawn from in build()
        splitter = splitter_type(Gini(1, n_classes), max_features, 1, 0.0, stream, None)
        tree = Tree(n_features, n_classes, 1)
        DepthFirstTreeBuilder(splitter, 2, 1, 0.0, depth, 0.0).build(tree, X, targets, counts, None)
        if tree.node_count > 1:
            per_tree.append(tree.compute_feature_importances())
    if not per_tree:
        return np.zeros(n_features, dtype=np.float64)
    mean = np.mean(per_tree, axis=0, dtype=np.float64)
    return mean / np.sum(mean)
