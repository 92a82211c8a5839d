"""User-settable parameters: one type for the dataset picker, the method registry, the page
widgets (:func:`fsengine.app.widgets.param_widget`) and the command line (``--param name=value``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any


@dataclass(frozen=True)
class Param:
    """One user-settable parameter of a dataset loader or a method.

    ========  ========================================================================================
    name      keyword of the loader or the selector class
    label     what a widget and ``--help`` call it
    default   its default: the one value the app, the command line and the Python API share
    kind      int | float | str | choice | letters | bool
    choices   the values of a ``choice`` (strings)
    min, max  the range of a number, inclusive (None: unbounded on that side)
    special   values accepted besides a number, ``None`` or strings, e.g. ``("auto",)`` or
              ``(None,)``: the command line takes their spelling (``auto``, ``none``) and a widget
              offers them as a switch
    help      one line of help
    ========  ========================================================================================

    What a method's parameter accepts is decided here once: :meth:`check` (the app's widgets and
    ``run_comparison``), :meth:`parse` (the command line) and the selector class (its
    ``_parameter_constraints``, translated from this parameter by
    :func:`fsengine.methods.registry.method_constraints`) accept exactly the same values. An
    ``int`` is an integral number that is no bool; a ``float`` any finite real number that is no
    bool (an integer too); NaN and inf are in no range.

    Examples
    --------
    >>> from fsengine.compare import Param
    >>> k = Param("k", "Features kept", 20, min=1, max=1000)
    >>> k.parse("50"), k.default
    (50, 20)
    >>> k.check(0)
    Traceback (most recent call last):
    ...
    ValueError: k=0: must be at least 1
    """

    name: str
    label: str
    default: Any
    kind: str = "int"
    choices: tuple = ()
    min: float | None = None
    max: float | None = None
    help: str = ""
    special: tuple = ()

    @staticmethod
    def spell(value) -> str:
        """How a value is written on the command line (``None`` as ``none``)."""
        return "none" if value is None else str(value)

    def parse(self, text: str):
        """Parse a CLI value for this parameter, with a clear error on bad input."""
        for value in self.special:
            if str(text).strip().lower() == self.spell(value).lower():
                return value
        try:
            if self.kind == "int":
                value = int(text)
            elif self.kind == "float":
                value = float(text)
            elif self.kind == "bool":
                value = {"true": True, "false": False}[str(text).strip().lower()]
            elif self.kind == "letters":
                value = "".join(ch for ch in str(text).upper() if ch.isalpha())
            else:
                value = str(text)
        except (ValueError, KeyError) as exc:
            expected = "true or false" if self.kind == "bool" else f"{'an' if self.kind == 'int' else 'a'} {self.kind}"
            also = "".join(f" or {self.spell(v)}" for v in self.special)
            raise ValueError(f"{self.name}={text!r}: expected {expected}{also}") from exc
        self.check(value)
        return value

    def check(self, value) -> None:
        """Raise a ValueError naming the parameter when ``value`` is not of its kind, out of its
        range or not one of its choices (see the class docstring for what each kind accepts)."""
        if any(value is None if v is None else isinstance(value, str) and value == v for v in self.special):
            return
        also = "".join(f" or {self.spell(v)}" for v in self.special)
        if self.kind == "choice":
            if not (isinstance(value, str) and value in self.choices):
                raise ValueError(f"{self.name}={value!r}: choose one of {', '.join(map(str, self.choices))}{also}")
            return
        if self.kind == "bool":
            if not is_bool(value):
                raise ValueError(f"{self.name}={value!r}: expected true or false")
            return
        if self.kind in ("str", "letters"):
            if not isinstance(value, str):
                raise ValueError(f"{self.name}={value!r}: expected text")
            return
        if isinstance(value, Real) and not is_bool(value) and not math.isfinite(value):
            # NaN compares False with every bound: the range checks below would let it through
            raise ValueError(f"{self.name}={value}: must be a finite number")
        if not is_number(value, integral=self.kind == "int"):
            raise ValueError(f"{self.name}={value!r}: expected {'an int' if self.kind == 'int' else 'a number'}{also}")
        if self.min is not None and value < self.min:
            raise ValueError(f"{self.name}={value}: must be at least {self.min}")
        if self.max is not None and value > self.max:
            raise ValueError(f"{self.name}={value}: must be at most {self.max}")


def is_bool(value) -> bool:
    """A Python or numpy bool (what scikit-learn's ``"boolean"`` constraint accepts)."""
    # numpy's bool type is ``numpy.bool`` from numpy 2 and ``numpy.bool_`` before (both spellings
    # name it in numpy 2): matched by name so that listing the methods imports no numpy
    return isinstance(value, bool) or type(value).__name__ in ("bool", "bool_") and type(value).__module__ == "numpy"


def is_number(value, *, integral: bool) -> bool:
    """An int (``integral``) or a finite real number, never a bool: the values a parameter of kind
    ``int`` or ``float`` takes (:func:`fsengine.validation.param_constraints` gives scikit-learn's
    validation the same rule)."""
    if is_bool(value) or not isinstance(value, Integral if integral else Real):
        return False
    return isinstance(value, Integral) or math.isfinite(value)


class HasParams:
    """Parameter lookup shared by catalogue entries (datasets here, methods in
    :mod:`fsengine.methods.registry`): they have ``key`` and ``params`` fields."""

    _kind = "Entry"

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "no parameters"
        raise ValueError(f"{self._kind} '{self.key}' has no parameter {name!r}; it takes: {known}")
