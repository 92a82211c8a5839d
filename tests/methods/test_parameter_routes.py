"""One source for every parameter: the command line (``--param name=value``), the app's widgets
and ``run_comparison`` (``Param.check``) and the selector class (scikit-learn's parameter
validation, run first by ``fit``) accept and refuse exactly the same values, for every parameter
of every registered method. The registry's :class:`~fsengine.params.Param` is where a default,
range and choices are written; the classes' ``_parameter_constraints`` are translated from it
(:func:`fsengine.methods.registry.method_constraints`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from fsengine.glm import FAMILY_NAMES
from fsengine.methods.bayes_factor.model import SIGNS
from fsengine.methods.registry import BUILT_IN, METHODS, method_constraints, resolve
from fsengine.methods.rtm.fit import METHODS as RTM_METHODS
from fsengine.params import Param
from fsengine.validation import param_constraints

PARAMETERS = [(key, p) for key in sorted(BUILT_IN) for p in METHODS[key].params]


def _just_outside(bound: float, kind: str, direction: float) -> float:
    """The nearest value past ``bound``: the next integer, or the next representable float."""
    return bound + direction if kind == "int" else float(np.nextafter(float(bound), direction * math.inf))


def candidates(p: Param) -> list:
    """In range, on the boundaries, just outside, NaN, inf, wrong types and the special values."""
    values = [p.default, *p.special, None, "auto", "abc", [1], True, False, np.True_, 0, 1, -1, 2.5,
              math.nan, math.inf, -math.inf]
    if p.kind in ("int", "float"):
        cast = int if p.kind == "int" else float
        for bound, direction in ((p.min, -1), (p.max, 1)):
            if bound is not None:
                values += [cast(bound), _just_outside(bound, p.kind, direction), np.int64(bound) if p.kind == "int"
                           else np.float64(bound), float(bound) + 0.5 * (p.kind == "int")]
        if p.min is not None and p.max is not None:
            values += [cast((p.min + p.max) / 2), float(cast((p.min + p.max) / 2))]
        if p.min is not None and p.max is None:
            values += [cast(p.min) * 1000 + 1]
    if p.kind == "choice":
        values += [*p.choices, p.choices[0].upper(), p.choices[0][:-1], "nope"]
    if p.kind == "bool":
        values += ["yes", "1", np.False_]
    return values


def _api_accepts(key: str, name: str, value) -> bool:
    """The class's own validation (the first thing ``fit`` does) with ``name=value``."""
    spec = METHODS[key]
    estimator = resolve(spec.factory)(**{**spec.defaults(), name: value})
    try:
        estimator._validate_params()
    except InvalidParameterError:
        return False
    return True


def _check_accepts(p: Param, value) -> bool:
    """The app's route: widgets and ``run_comparison`` resolve values with ``Param.check``."""
    try:
        p.check(value)
    except ValueError:
        return False
    return True


def _cli_accepts(key: str, p: Param, value) -> bool:
    """The command line's route: ``--param name=TEXT`` with ``value`` spelled as the CLI spells it."""
    try:
        parsed = METHODS[key].parse([f"{p.name}={Param.spell(value)}"])[p.name]
    except ValueError:
        return False
    assert parsed is value or parsed == value, (p.name, value, parsed)  # the CLI meant the same value
    return True


def _takes_arrays(key: str, name: str) -> bool:
    """Registry parameters declared with ``method_constraints(..., arrays=...)``: the Python API
    also takes one value per candidate, a form no widget or command line spells."""
    return "array-like" in map(str, resolve(METHODS[key].factory)._parameter_constraints[name])


@pytest.mark.parametrize(("key", "p"), PARAMETERS, ids=[f"{k}.{p.name}" for k, p in PARAMETERS])
def test_the_api_the_app_and_the_command_line_accept_the_same_values(key, p):
    disagreements = []
    for value in candidates(p):
        if isinstance(value, list) and _takes_arrays(key, p.name):
            assert _api_accepts(key, p.name, value) and not _check_accepts(p, value)
            continue
        api, app, cli = _api_accepts(key, p.name, value), _check_accepts(p, value), _cli_accepts(key, p, value)
        if not api == app == cli:
            disagreements.append(f"{value!r}: API {api}, app {app}, command line {cli}")
    assert not disagreements, f"{key}.{p.name}: " + "; ".join(disagreements)
    assert _api_accepts(key, p.name, p.default) and p.default is not None or None in p.special


@pytest.mark.parametrize("key", sorted(BUILT_IN))
def test_the_classes_constraints_are_the_registrys_and_cover_every_parameter(key):
    spec = METHODS[key]
    cls = resolve(spec.factory)
    constraints = cls._parameter_constraints
    for p in spec.params:  # translated from the registry, not written again in the class
        assert list(map(str, constraints[p.name]))[:len(param_constraints(p))] == list(map(str, param_constraints(p)))
    # the class's own parameters have their one source too: a constraint for every parameter
    assert set(cls().get_params(deep=False)) == set(constraints), key


@pytest.mark.parametrize("key", sorted(BUILT_IN))
def test_fit_refuses_a_value_out_of_range_before_any_work(key):
    spec = METHODS[key]
    outside = [(p.name, _just_outside(p.min, p.kind, -1)) for p in spec.params if p.min is not None]
    outside += [(p.name, "nope") for p in spec.params if p.kind == "choice"]
    if not outside:
        pytest.skip(f"{key} has no registry parameter")
    bad = outside[0]
    rng = np.random.default_rng(0)
    X, y = rng.random((20, 4)), np.arange(20) % 2
    with pytest.raises(InvalidParameterError, match=f"'{bad[0]}' parameter"):
        resolve(spec.factory)(**{bad[0]: bad[1]}).fit(X, y)


def test_the_mathematics_names_the_registrys_choices():
    """Where a lower module has its own vocabulary, it is the registry's (the registry cannot
    import it: listing the methods imports no numba)."""
    assert set(METHODS["bia"].param("family").choices) == set(FAMILY_NAMES)
    assert set(METHODS["bayes"].param("sign").choices) == set(SIGNS)
    assert set(METHODS["rtm"].param("method").choices) == set(RTM_METHODS)


def test_a_range_is_written_once():
    with pytest.raises(ValueError, match="n_steps come.*from the registry"):
        method_constraints("bia", {"n_steps": [int]})
    with pytest.raises(ValueError, match="arrays= names no registry parameter"):
        method_constraints("bia", arrays=("step",))


def test_messages_name_the_parameter_and_what_it_takes():
    bia = METHODS["bia"]
    for text, message in (("n_steps=2.5", "n_steps='2.5': expected an int"), ("n_steps=nan", "expected an int"),
                          ("lambda_ratio=nan", "lambda_ratio=nan: must be a finite number"),
                          ("lambda_ratio=-1e309", "lambda_ratio=-inf: must be a finite number"),
                          ("lambda_ratio=x", "expected a float"), ("lambda_ratio=100.5", "at most 100"),
                          ("family=LOGISTIC", "choose one of logistic, linear, poisson")):
        with pytest.raises(ValueError, match=message):
            bia.parse([text])
    with pytest.raises(ValueError, match="ard='yes': expected true or false"):
        METHODS["rtm"].parse(["ard=yes"])
    assert METHODS["rtm"].parse(["ard=TRUE"])["ard"] is True
    with pytest.raises(InvalidParameterError, match="'n_steps' parameter of BIASelector must be an int in the "
                                                    r"range \[1, 1000\]. Got True"):
        resolve(bia.factory)(n_steps=True).fit(np.eye(3), [0, 1, 0])
