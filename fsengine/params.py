"""User-settable parameters: one type for the dataset picker, the method registry, the page
widgets (:func:`fsengine.app.widgets.param_widget`) and the command line (``--param name=value``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any


@dataclass(frozen=True)
class Param:
    """One user-settable parameter of a dataset loader or a method.

    name      keyword of the loader or the selector class
    label     what a widget and ``--help`` call it
    default   its default: the one value the app, the command line and the Python API share
    kind      int | float | str | choice | letters | bool
    choices   the values of a ``choice``
    min, max  the range of a number (inclusive)
    special   values accepted besides a number, e.g. ``("auto",)`` or ``(None,)``: the command
              line takes their spelling (``auto``, ``none``) and a widget offers them as a switch
    help      one line of help
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
                value = str(text).lower() in ("1", "true", "yes", "on")
            elif self.kind == "letters":
                value = "".join(ch for ch in str(text).upper() if ch.isalpha())
            else:
                value = str(text)
        except ValueError as exc:
            also = "".join(f" or {self.spell(v)}" for v in self.special)
            raise ValueError(f"{self.name}={text!r}: expected {self.kind}{also}") from exc
        self.check(value)
        return value

    def check(self, value) -> None:
        """Raise a ValueError naming the parameter when ``value`` is out of its range or choices."""
        if any(value is v or (v is not None and value == v) for v in self.special):
            return
        if self.kind == "choice" and value not in self.choices:
            raise ValueError(f"{self.name}={value!r}: choose one of {', '.join(map(str, self.choices))}")
        if isinstance(value, Real) and not isinstance(value, bool) and not math.isfinite(value):
            # NaN compares False with every bound, so the range checks below would let it through
            raise ValueError(f"{self.name}={value}: must be a finite number")
        if self.min is not None and value < self.min:
            raise ValueError(f"{self.name}={value}: must be at least {self.min}")
        if self.max is not None and value > self.max:
            raise ValueError(f"{self.name}={value}: must be at most {self.max}")


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
