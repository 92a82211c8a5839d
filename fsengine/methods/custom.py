"""Your own selector as a method: a scikit-learn-style selector or model next to the registered ones.

Three ways in, all resolved here (the compare engine and the commands only call these functions):

* Python: ``run_comparison(ds, ["bia", SelectKBest(k=20), (my_model, {})])`` — any object with
  ``fit`` (:func:`resolve_methods`);
* command line: ``--method MODULE:CLASS`` with ``--param name=value`` (:func:`method_from_argument`,
  values parsed by :func:`parse_value`);
* the app: only registered methods (:func:`fsengine.methods.registry.register_method`, called by
  whoever starts the server). The app never imports a path a visitor types.

The fitted object is wrapped by :class:`EstimatorSelector`, which turns what it exposes into the
selector contract (``scores_``, ``order_``, ``ranking_``, ``support_``, ``trace_``).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import re
import sys
import warnings
from dataclasses import dataclass
from functools import partial
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone, is_regressor
from sklearn.utils._param_validation import HasMethods, Interval

from fsengine.base import BaseFeatureSelector
from fsengine.methods.failures import failure_message, method_calls
from fsengine.methods.registry import ANY_TASK, MethodSpec, Needs, get_method
from fsengine.ranking import order_from

#: where the scores come from, in this order (the first one the fitted object exposes wins)
SCORE_SOURCES = ("scores_", "feature_importances_", "coef_", "ranking_")
_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class NoRankingWarning(UserWarning):
    """The estimator only says which features it selected: its ranking is selected-before-rest."""


def _scores_of(obj, p: int) -> tuple[np.ndarray, str] | None:
    """(scores, source) from the first of SCORE_SOURCES that ``obj`` exposes with p values, else None."""
    for name in SCORE_SOURCES:
        value = getattr(obj, name, None)
        if value is None or callable(value):
            continue
        value = np.asarray(value, dtype=np.float64)
        if name == "coef_":
            name = "|coef_|" if value.ndim == 1 or value.shape[0] == 1 else "|coef_| summed over classes"
            value = np.abs(value) if value.ndim == 1 else np.abs(value).sum(axis=0)
        if value.shape != (p,):
            continue
        if name == "ranking_":
            value = value.max() + 1.0 - value  # rank 1 (best) gets the largest score
        return value, name
    return None


class EstimatorSelector(BaseFeatureSelector):
    """Any scikit-learn-style selector or model as an fsengine selector.

    ``fit`` fits a clone of ``estimator`` and takes the scores from the first of these that the
    fitted object exposes with one value per feature (then, for a meta-estimator such as
    ``SelectFromModel`` or ``RFE``, from its fitted inner ``estimator_``):

    1. ``scores_`` (``SelectKBest``, ``SelectPercentile``, ...), as they are;
    2. ``feature_importances_`` (forests, boosting), as they are;
    3. ``coef_`` (linear models), its absolute value summed over the classes;
    4. ``ranking_`` (``RFE``), as max(ranking_) + 1 - ranking_ (rank 1 scores highest);

    else from ``get_support()`` alone: 1 for a selected feature, 0 for the others, with a
    :class:`NoRankingWarning` saying that no ranking was available (the comparison lists it as a
    note). An estimator exposing none of these is a one-line ValueError.

    Parameters
    ----------
    estimator : estimator object
        Not fitted itself (it is cloned).
    n_features_to_select : int or None, default None
        Keep the k best scored. None: ``get_support()`` of a selector, else the features with a
        positive score.

    Attributes
    ----------
    scores_, order_, ranking_, support_ : ndarray of shape (n_features,)
        As every selector's; ties by lower index.
    score_source_ : str
        Where the scores came from ("scores_", "estimator_.coef_ ...", "get_support()").
    model_ : estimator
        The fitted clone.
    trace_ : DataFrame with n_features rows
        rank, feature, score, selected.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.feature_selection import SelectKBest
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 4))
    >>> y = (X[:, 2] > 0).astype(int)
    >>> sel = EstimatorSelector(estimator=SelectKBest(k=1)).fit(X, y)
    >>> int(sel.order_[0]), sel.score_source_, sel.get_support(indices=True).tolist()
    (2, 'scores_', [2])
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"])],
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, *, estimator=None, n_features_to_select=None):
        self.estimator = estimator
        self.n_features_to_select = n_features_to_select

    @property
    def _classification(self):
        return not is_regressor(self.estimator)

    def _fit(self, X, y):
        name = type(self.estimator).__name__
        self.model_ = clone(self.estimator)
        returned = self.model_.fit(X, y)
        if returned is not self.model_:  # scikit-learn's fit returns self; the fitted object is the clone
            warnings.warn(f"{name}.fit returned {type(returned).__name__} instead of the estimator itself "
                          "(scikit-learn's convention: end fit with 'return self'); fsengine read the scores of the "
                          "object it fitted.", UserWarning, stacklevel=2)
        p = X.shape[1]
        found = _scores_of(self.model_, p)
        if found is None and hasattr(self.model_, "estimator_"):
            found = _scores_of(self.model_.estimator_, p)
            found = found and (found[0], f"estimator_.{found[1]}")
        selects = hasattr(self.model_, "get_support")
        if found is None and not selects:
            raise ValueError(f"{name} exposes none of {', '.join(SCORE_SOURCES)} or get_support() after fit, so "
                             "fsengine cannot rank the features by it; use a selector or a model with one of them.")
        if found is None:
            support = np.asarray(self.model_.get_support(), dtype=bool)
            warnings.warn(f"{name} exposes no scores, importances, coefficients or ranking: no ranking was "
                          "available, so its selected features come first (in index order).", NoRankingWarning,
                          stacklevel=2)
            found = (support.astype(np.float64), "get_support()")
        self.scores_, self.score_source_ = found
        if self.n_features_to_select is not None or not selects:
            self._rank_and_support(np.nan_to_num(self.scores_) > 0)
        else:
            self._set_order(order_from(self.scores_))
            self.support_ = np.asarray(self.model_.get_support(), dtype=bool)
        self.trace_ = pd.DataFrame({"rank": np.arange(1, p + 1), "feature": self.order_,
                                    "score": self.scores_[self.order_], "selected": self.support_[self.order_]})


def as_selector(obj) -> BaseFeatureSelector:
    """``obj`` itself when it is an fsengine selector, else wrapped by :class:`EstimatorSelector`."""
    return obj if isinstance(obj, BaseFeatureSelector) else EstimatorSelector(estimator=obj)


# ------------------------------------------------------------------------------- MODULE:CLASS paths
def _import_module(module_name: str, path: str):
    """Import a user's module; whatever it raises while importing, and a ``sys.exit`` (a script that
    parses its own command line at import), is one ValueError naming ``path``. What the module
    prints while importing is held back and shown after it, unless it exits: then its last line
    (argparse's complaint) goes into the error instead of the script's usage message."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # ImportError, or whatever the module does while importing
        if isinstance(exc, SystemExit):
            said = [line.strip() for line in (out.getvalue() + err.getvalue()).splitlines() if line.strip()]
            reason = failure_message(exc) + (f"; it printed {said[-1][:200]!r}" if said else "")
            hint = "; a module that runs a script's command line when imported needs an " \
                   "'if __name__ == \"__main__\":' guard"
        else:
            reason, hint = f"{type(exc).__name__}: {' '.join(str(exc).split())}", ""
        raise ValueError(f"{path}: cannot import {module_name} ({reason}){hint}") from None
    sys.stdout.write(out.getvalue())
    sys.stderr.write(err.getvalue())
    return module


def import_class(path: str) -> type:
    """The class ``MODULE:CLASS`` names, with a one-line ValueError when it cannot be imported or is
    no estimator class (command line and Python only: the app never calls this)."""
    if not _PATH.match(path):
        raise ValueError(f"{path!r}: write MODULE:CLASS, e.g. sklearn.feature_selection:SelectKBest")
    module_name, _, name = path.partition(":")
    module = _import_module(module_name, path)
    cls = getattr(module, name, None)
    if cls is None:
        raise ValueError(f"{path}: {module_name} has no attribute {name!r}")
    if not inspect.isclass(cls):
        raise ValueError(f"{path} is a {type(cls).__name__}, not an estimator class")
    if not callable(getattr(cls, "fit", None)):
        raise ValueError(f"{path} is a class without fit(X, y), not an estimator")
    return cls


def parse_value(text: str):
    """A ``--param name=value`` value for a MODULE:CLASS method, by Python's literal rules
    (:func:`ast.literal_eval`): numbers (``20``, ``0.5``, ``1e-3``), quoted strings, ``True``,
    ``False``, ``None`` (also written ``true``, ``false``, ``none``), tuples, lists and dicts. A value
    written ``MODULE:NAME`` is imported: a class is instantiated with its defaults
    (``estimator=sklearn.linear_model:LogisticRegression``), anything else (a function such as
    ``score_func=sklearn.feature_selection:chi2``) is used as it is. Any other text is a string.

    >>> parse_value("20"), parse_value("0.5"), parse_value("none"), parse_value("(1, 2)"), parse_value("l2")
    (20, 0.5, None, (1, 2), 'l2')
    """
    text = text.strip()
    lowered = {"none": None, "true": True, "false": False}
    if text.lower() in lowered:
        return lowered[text.lower()]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if _PATH.match(text):
        module_name, _, name = text.partition(":")
        obj = getattr(_import_module(module_name, text), name, None)
        if obj is None:
            raise ValueError(f"{text}: {module_name} has no attribute {name!r}")
        with method_calls(text, own=False, doing="cannot be built"):
            return obj() if inspect.isclass(obj) else obj
    return text


def _wrap_class(cls, **params):
    return EstimatorSelector(estimator=cls(**params))


def _wrap_object(estimator, **params):
    return EstimatorSelector(estimator=clone(estimator).set_params(**params) if params else estimator)


@dataclass(frozen=True)
class CustomMethodSpec(MethodSpec):
    """A method that is no registry entry: an estimator class named ``MODULE:CLASS`` (its parameters
    are its own, parsed by :func:`parse_value` and checked against its signature) or an estimator
    object (its parameters as set; those given with it, ``(obj, {"C": 0.1})``, are set on a clone)."""

    def resolve(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return dict(params or {})

    def parse(self, items) -> dict[str, Any]:
        values = {}
        for item in items:
            name, eq, text = str(item).partition("=")
            if not eq or not name.strip():
                raise ValueError(f"Parameter {item!r} of method '{self.key}' must look like name=value")
            values[name.strip()] = parse_value(text)
        cls = self.factory.args[0] if isinstance(self.factory, partial) and self.factory.args else None
        if cls is not None:
            accepted = inspect.signature(cls).parameters
            if not any(p.kind is p.VAR_KEYWORD for p in accepted.values()):
                unknown = [name for name in values if name not in accepted]
                if unknown:
                    raise ValueError(f"{self.label} has no parameter {unknown[0]!r}; it takes: "
                                     f"{', '.join(accepted) or 'no parameters'}")
            try:
                cls(**values)
            except (Exception, SystemExit) as exc:
                reason = failure_message(exc) if isinstance(exc, SystemExit) else \
                    f"{type(exc).__name__}: {' '.join(str(exc).split())}"
                raise ValueError(f"{self.label}({', '.join(f'{k}={v!r}' for k, v in values.items())}): "
                                 f"{reason}") from None
        return values


def class_method(path: str) -> CustomMethodSpec:
    """The method of an estimator class ``MODULE:CLASS`` (imported here; one-line errors)."""
    cls = import_class(path)
    return CustomMethodSpec(path, cls.__name__, f"your own {cls.__name__} ({path}); scores from "
                            f"{', '.join(SCORE_SOURCES)} or get_support()", partial(_wrap_class, cls),
                            needs=Needs(tasks=ANY_TASK))


def object_method(estimator, key: str | None = None) -> CustomMethodSpec:
    """The method of an estimator object (cloned for every fit)."""
    if not callable(getattr(estimator, "fit", None)):
        raise ValueError(f"{type(estimator).__name__} object: a method is a registered key, a MethodSpec or an "
                         "estimator with fit(X, y)")
    name = type(estimator).__name__
    return CustomMethodSpec(key or name, key or name, f"your own {name}; scores from {', '.join(SCORE_SOURCES)} "
                            "or get_support()", partial(_wrap_object, estimator), needs=Needs(tasks=ANY_TASK))


def method_from_argument(text: str) -> MethodSpec:
    """``--method`` / ``--methods`` item: a registered key, or ``MODULE:CLASS``."""
    text = text.strip()
    return class_method(text) if ":" in text else get_method(text)


def resolve_methods(methods) -> list[tuple[MethodSpec, dict[str, Any]]]:
    """(spec, parameters) of every entry of a comparison's ``methods``: a registered key, a
    :class:`MethodSpec`, an estimator object, or a (one of these, parameters) pair. Estimator
    objects of one class get distinct keys (``SelectKBest``, ``SelectKBest-2``, ...). A string is
    only ever a registered key here: a ``MODULE:CLASS`` path is imported by the command line, not by
    the engine (the app passes keys straight from its list)."""
    out, used = [], {}
    for item in methods:
        target, params = (item[0], dict(item[1])) if isinstance(item, tuple) else (item, {})
        if isinstance(target, str):
            spec = get_method(target)
        elif isinstance(target, MethodSpec):
            spec = target
        else:
            name = type(target).__name__
            used[name] = used.get(name, 0) + 1
            spec = object_method(target, name if used[name] == 1 else f"{name}-{used[name]}")
        out.append((spec, params))
    return out
