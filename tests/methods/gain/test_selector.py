"""IFSSelector, SGCSelector and CountCutoffSelector: the scikit-learn contract, the selector dialect
(keyword-only parameters, registry defaults, progress and stop requests), pairs mapped onto
predicate columns, and the same selections as before the redesign."""

import inspect

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsengine.data.synthetic.maxent import make_planted_maxent
from fsengine.maxent import MaxentData
from fsengine.methods.gain.model import select_features
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.progress import StopRequested
from fsengine.selectors import CountCutoffSelector, IFSSelector, SGCSelector

SELECTORS = {"ifs": IFSSelector, "sgc": SGCSelector, "count": CountCutoffSelector}


@parametrize_with_checks([IFSSelector(n_features_to_select=3), SGCSelector(n_features_to_select=3),
                          SGCSelector(n_features_to_select=3, lookahead=2),
                          CountCutoffSelector(n_features_to_select=3)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def planted():
    return make_planted_maxent(seed=0)


@pytest.fixture(scope="module")
def small():
    """The fixed dataset of the recorded selections below."""
    return make_planted_maxent(n_samples=1500, n_predicates=60, n_classes=3, n_true=8, seed=3)


@pytest.mark.parametrize("key", list(SELECTORS))
def test_parameters_are_keyword_only_with_the_registry_defaults(key):
    cls = SELECTORS[key]
    with pytest.raises(TypeError):
        cls(10)  # n_features_to_select was positional before the redesign
    defaults = method_defaults(key)
    assert defaults["n_features_to_select"] == 50  # the registry's 50 pairs won over the classes' 100
    params = cls().get_params()
    assert {name: params[name] for name in defaults} == defaults
    assert type(get_method(key).build()) is cls and get_method(key).build().get_params() == params
    fit = inspect.signature(cls.fit).parameters
    assert fit["progress"].kind == fit["predicate_names"].kind == inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("key", list(SELECTORS))
def test_the_api_the_command_line_and_the_app_fit_the_same_selection(small, key):
    """Class defaults, ``--method KEY`` with no ``--param`` (the registry's parse and build) and the
    app's route (``fit_method`` with the widgets' defaults) give the same ``order_``."""
    api = SELECTORS[key]().fit(small.X, small.y)
    spec = get_method(key)
    cli = spec.build(spec.parse([])).fit(small.X, small.y)
    app = fit_method(key, spec.defaults(), small)
    assert len(api.trace_) == 50
    np.testing.assert_array_equal(cli.order_, api.order_)
    np.testing.assert_array_equal(app.order, api.order_)


def test_min_gain_is_a_parameter_only_where_it_is_used(planted):
    assert "min_gain" not in CountCutoffSelector().get_params()
    with pytest.raises(TypeError):
        CountCutoffSelector(min_gain=1.0)
    # where it is a parameter it changes the selection (IFS / SGC stop at the threshold)
    sel = SGCSelector(n_features_to_select=None, min_gain=20.0).fit(planted.X, planted.y)
    assert (sel.trace_["gain_total"] > 20.0).all() and sel.stop_reason_.startswith("no candidate gains more")
    assert len(sel.trace_) < len(SGCSelector(n_features_to_select=None, min_gain=5.0).fit(planted.X, planted.y).trace_)


#: recorded before the redesign (the selectors of commit 27782c1 on ``small``, 12 pairs, cutoff 2
#: for the count cutoff): the first predicates of ``order_`` and the (predicate, class) pairs
RECORDED = {
    "ifs": ({}, [42, 43, 41, 2, 34, 10, 19, 9, 38, 47, 12, 50, 15, 4, 0, 32, 20, 16, 40, 46],
            [(42, 0), (43, 2), (41, 2), (2, 2), (34, 1), (10, 2), (19, 1), (9, 1), (38, 2), (47, 2), (12, 2), (50, 2)]),
    "sgc": ({}, [42, 43, 41, 2, 10, 34, 9, 19, 38, 50, 15, 0, 16, 40, 59, 45, 33, 51, 20, 30],
            [(42, 0), (43, 2), (41, 2), (2, 2), (10, 2), (34, 1), (9, 1), (19, 1), (38, 2), (50, 2), (15, 0), (0, 1)]),
    "sgc-la": ({"lookahead": 5}, [42, 43, 41, 2, 34, 10, 19, 9, 38, 50, 15, 16, 0, 33, 51, 40, 20, 30, 59, 4],
               [(42, 0), (43, 2), (41, 2), (2, 2), (34, 1), (10, 2), (19, 1), (9, 1), (38, 2), (50, 2), (15, 0),
                (16, 0)]),
    "count": ({"cutoff": 2}, [43, 42, 2, 41, 15, 21, 46, 54, 33, 38, 24, 40, 48, 35, 52, 27, 45, 37, 8, 10],
              [(43, 2), (42, 0), (2, 2), (41, 2), (15, 2), (21, 2), (46, 0), (54, 2), (33, 2), (38, 2), (46, 2),
               (24, 2)]),
}


@pytest.mark.parametrize("name", list(RECORDED))
def test_same_selection_as_before_the_redesign(small, name):
    kw, order, pairs = RECORDED[name]
    sel = SELECTORS[name.split("-")[0]](n_features_to_select=12, **kw).fit(small.X, small.y)
    assert sel.order_[:20].tolist() == order
    assert list(zip(sel.trace_["predicate"], sel.trace_["class"])) == pairs
    assert sel.stop_reason_ == "the budget of 12 pairs is reached"


@pytest.mark.parametrize("name", list(RECORDED))
def test_progress_and_stop_request_in_fit(small, name):
    kw, _, _ = RECORDED[name]
    cls = SELECTORS[name.split("-")[0]]
    seen = []
    full = cls(n_features_to_select=12, **kw).fit(small.X, small.y, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert all(0.0 <= f <= 1.0 for f in fractions) and fractions == sorted(fractions) and fractions[-1] == 1.0
    # the method's own words: the caller names the method (the progress protocol)
    labels = ("IFS", "SGC", "Count cutoff")
    assert seen and not [m for _, m in seen if m.startswith(labels)]

    def stop_at_4(fraction, message):
        if message.startswith("stage 4 of"):
            raise StopRequested

    part = cls(n_features_to_select=12, **kw).fit(small.X, small.y, progress=stop_at_4)
    assert part.stop_reason_ == "stop requested"
    columns = ["stage", "predicate", "feature", "class", "gain_total", "alpha", "gain_computations"]
    assert part.trace_[columns].equals(full.trace_[columns].iloc[:4])
    first = list(dict.fromkeys(full.trace_["predicate"].iloc[:4]))
    assert part.order_[: len(first)].tolist() == first and part.support_.sum() == len(first)
    assert sorted(part.order_) == list(range(small.n_features))
    if cls is not CountCutoffSelector:
        assert part.model_.n_features == 4


def test_the_selected_pairs_are_the_rows_of_the_trace(small):
    sel = SGCSelector(n_features_to_select=6).fit(small.X, np.array(["a", "b", "c"])[small.y])
    assert len(sel.trace_) == 6 and set(sel.trace_["class"]) <= {"a", "b", "c"}
    assert sel.trace_["stage"].tolist() == list(range(6))
    assert not hasattr(sel, "selected_pairs_")  # the alias of fsengine 0.2 is removed (CHANGELOG)


def test_selector_maps_pairs_onto_predicate_columns(planted):
    ds = planted
    labels = np.array(["a", "b", "c", "d"])[ds.y]
    sel = SGCSelector(n_features_to_select=8).fit(ds.X, labels, predicate_names=ds.feature_names)
    first = list(dict.fromkeys(sel.trace_["predicate"]))
    assert sel.order_[: len(first)].tolist() == first
    assert sel.support_.sum() == len(first)
    assert set(sel.trace_["class"]) <= set("abcd")
    assert sel.trace_["feature"].iloc[0].startswith(ds.feature_names[first[0]] + " -> ")
    for j in first:
        assert sel.scores_[j] == pytest.approx(sel.candidates_.query("predicate == @j")["gain"].max())
    assert sel.model_.n_features == 8
    assert sel.transform(ds.X).shape == (ds.n_samples, len(first))
    # the selector is the engine on class indices: the same pairs in the same order
    engine = select_features(MaxentData(ds.X, ds.y), "sgc", n_features=8)
    assert sel.trace_["predicate"].tolist() == engine.trace["predicate"].tolist()
    assert [f"{c}" for c in sel.trace_["class"]] == ["abcd"[c] for c in engine.trace["class"]]
    pipe = Pipeline([("sel", IFSSelector(n_features_to_select=20)), ("clf", LogisticRegression())])
    Xt, yt = ds.extras["test_X"], ds.extras["test_y"]
    # IFS finds the planted predicates: the pipeline scores as the same classifier on the true
    # predicate columns (the attainable accuracy, about 0.50 with 4 classes), far above chance
    truth = sorted(set(ds.extras["true_pairs"]["predicate"]))
    oracle = LogisticRegression().fit(ds.X[:, truth], ds.y).score(Xt[:, truth], yt)
    assert oracle > np.bincount(yt).max() / yt.size + 0.2
    assert pipe.fit(ds.X, ds.y).score(Xt, yt) == pytest.approx(oracle, abs=0.005)
    with pytest.raises(ValueError, match="predicate names"):
        SGCSelector().fit(ds.X, ds.y, predicate_names=["a"])
    with pytest.raises(TypeError):
        SGCSelector().fit(ds.X, ds.y, None, ds.feature_names)  # fit parameters are keyword-only
