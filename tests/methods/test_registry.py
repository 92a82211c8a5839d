"""The method registry and the adaptation of datasets to each method's needs."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine import selectors
from fsengine.base import BaseFeatureSelector
from fsengine.data import Dataset, Provenance, load_dataset
from fsengine.methods.adapt import adapt, restrict_classes
from fsengine.methods.registry import METHODS, MethodSpec, Needs, get_method
from fsengine.methods.run import fit_method
from fsengine.plots.style import METHOD_COLORS


def _toy(X, y=None, task="classification", **kw) -> Dataset:
    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    n, p = X.shape
    y = np.arange(n) % 2 if y is None else np.asarray(y)
    return Dataset(X=X, y=y, feature_names=tuple(f"f{j}" for j in range(p)), provenance=Provenance("test"),
                   name="toy", task=task, **kw)


def test_every_exported_selector_is_registered():
    registered = {type(spec.build()) for spec in METHODS.values()}
    exported = {getattr(selectors, name) for name in selectors.__all__}
    missing = [cls.__name__ for cls in exported
               if inspect.isclass(cls) and issubclass(cls, BaseFeatureSelector) and cls is not BaseFeatureSelector
               and cls not in registered]
    assert not missing, f"add a MethodSpec to fsengine/methods/registry.py for: {', '.join(missing)}"


def test_labels_are_unique_and_safe_inside_record_quantities():
    """Records name a quantity as "what, method, dataset"; a label with ", " would split wrongly."""
    labels = [spec.label for spec in METHODS.values()]
    assert len(set(labels)) == len(labels)
    assert not [label for label in labels if "," in label]


def test_every_registered_method_has_its_own_colour():
    colours = {spec.label: METHOD_COLORS[spec.label] for spec in METHODS.values()}
    shared = {c: [label for label, cc in colours.items() if cc == c] for c in set(colours.values())}
    assert not {c: labels for c, labels in shared.items() if len(labels) > 1}


@pytest.mark.parametrize("key", list(METHODS))
def test_entry_defaults_build_the_selector_with_them(key):
    spec = METHODS[key]
    assert spec.label in METHOD_COLORS and spec.summary and get_method(key) is spec
    selector = spec.build()
    for p in spec.params:
        p.check(p.default)
        assert p.name in selector.get_params()
    # one dialect: fit takes the progress callback, keyword-only
    fit_progress = inspect.signature(type(selector).fit).parameters["progress"]
    assert fit_progress.kind is inspect.Parameter.KEYWORD_ONLY
    # one source of defaults: the class's signature holds the registry's values, keyword-only
    init = inspect.signature(type(selector).__init__).parameters
    for p in spec.params:
        assert init[p.name].kind is inspect.Parameter.KEYWORD_ONLY, (key, p.name)
        assert init[p.name].default == p.default, (key, p.name, init[p.name].default, p.default)


@pytest.mark.parametrize("key", list(METHODS))
def test_a_two_class_method_is_declared_once_in_its_class(key):
    """``Needs(two_classes=True)`` in the registry (the data is reduced to a class pair) and the
    class's ``_two_classes`` (fit refuses other targets; scikit-learn's checks hand it binary
    targets through ``classifier_tags.multi_class = False``) say the same."""
    spec = METHODS[key]
    selector = spec.build()
    tags = selector.__sklearn_tags__()
    two_classes = tags.classifier_tags is not None and not tags.classifier_tags.multi_class
    assert two_classes == spec.needs.two_classes == bool(selector._two_classes), key
    if two_classes:
        with pytest.raises(ValueError, match="exactly two classes, got 3"):
            selector.fit(np.random.default_rng(0).random((9, 3)), np.arange(9) % 3)


def test_params_parse_check_and_build():
    bia = get_method("bia")
    values = bia.parse(["n_steps=50", "family=linear", "lambda_ratio=2.5"])
    assert values == {"family": "linear", "lambda_ratio": 2.5, "n_steps": 50, "max_memory_mb": 2048.0}
    assert bia.build(values).get_params()["n_steps"] == 50
    for bad, message in ((["n_steps=0"], "at least 1"), (["n_steps=2000"], "at most 1000"),
                         (["family=gamma"], "choose one of"),
                         (["lambda_ratio=x"], "expected a float"), (["nope=1"], "has no parameter 'nope'"),
                         (["n_steps"], "name=value")):
        with pytest.raises(ValueError, match=message):
            bia.parse(bad)
    with pytest.raises(ValueError, match="Known methods: bia, mi"):
        get_method("lasso")
    # the L1 entry's "no cross-validation" is None, spelled cv=none on the command line
    l1 = get_method("l1")
    assert l1.build(l1.parse(["cv=none"])).cv is None and l1.build({"cv": 3}).cv == 3


def test_binarisation_is_announced_and_uses_the_shared_transform():
    rng = np.random.default_rng(0)
    ds = _toy(rng.uniform(size=(40, 5)))
    adapted = adapt(get_method("mi"), ds)
    np.testing.assert_array_equal(adapted.ds.X, (ds.X > 0.5).astype(float))
    assert adapted.notes == ("MI needs binary features: features binarised as x > 0.5.",)
    assert adapt(get_method("mi"), adapted.ds).notes == ()  # already binary: untouched, no note


def test_constant_columns_are_left_out_and_get_no_score():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 6))
    X[:, 2] = 3.0
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    fit = fit_method("bia", {"n_steps": 20}, _toy(X, y))
    assert np.isnan(fit.scores[2]) and np.isfinite(np.delete(fit.scores, 2)).all()
    assert fit.order[-1] == 2 and sorted(fit.order) == list(range(6)) and not fit.support[2]
    assert fit.order[0] == 0
    assert "left out 1 constant feature(s) (f2)" in fit.notes[0]
    np.testing.assert_array_equal(fit.data.columns, [0, 1, 3, 4, 5])


def test_refusals_say_what_to_do():
    # the BIA's cap follows from its memory budget and the rows (fsengine.methods.bia.memory)
    with pytest.raises(ValueError, match=r"BIA needs a 2,001 x 2,001 coupling matrix.*budget of 16 MB.*"
                                         r"At most 1,[0-9]{3} features fit with 10 samples"):
        fit_method("bia", {"n_steps": 20, "max_memory_mb": 16.0},
                   _toy(np.random.default_rng(0).normal(size=(10, 2001))))
    with pytest.raises(ValueError, match="MI needs class labels; toy has a regression target"):
        adapt(get_method("mi"), _toy(np.eye(4), y=np.linspace(0, 1, 4), task="regression"))
    with pytest.raises(ValueError, match="BIA needs exactly two classes; toy has 3"):
        adapt(get_method("bia"), _toy(np.eye(6), y=np.arange(6) % 3))


def test_sparse_data_is_densified_for_methods_that_need_it():
    dense_only = MethodSpec("dense", "Dense", "test", selectors.VarianceRankSelector, needs=Needs(sparse_ok=False))
    X = sp.random(12, 4, density=0.5, format="csr", random_state=0)
    adapted = adapt(dense_only, _toy(X))
    assert isinstance(adapted.ds.X, np.ndarray) and np.allclose(adapted.ds.X, X.toarray())
    assert adapted.notes == ("Dense needs dense data: the sparse matrix was converted.",)
    assert adapt(get_method("mi"), _toy(X)).ds.X.format == "csr"  # sparse is fine for MI


def test_restrict_classes_keeps_the_same_rows_for_all_methods():
    digits = load_dataset("digits")
    ds, notes = restrict_classes(digits, [get_method("mi"), get_method("bia")])
    assert ds.classes.tolist() == [0, 1] and ds.n_samples == int(np.isin(digits.y, [0, 1]).sum())
    assert notes == ("BIA needs exactly two classes: kept classes '0' and '1' of 10 "
                     "(choose others with the class pair).",)
    ds, notes = restrict_classes(digits, [get_method("mi")], ("3", "8"))
    assert ds.target_names == ("3", "8") and notes == ("Kept classes '3' and '8' of 10.",)
    assert restrict_classes(digits, [get_method("mi")]) == (digits, ())
    with pytest.raises(ValueError, match="Class 'Z' is not in digits"):
        restrict_classes(digits, [], ("3", "Z"))
