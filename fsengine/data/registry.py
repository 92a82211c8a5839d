"""The dataset catalogue shared by the app's picker, the command line and the benchmarks.

A dataset is named by a *spec string* ``key[:param=value,param=value]``, e.g.
``notmnist:letters=BD,n_per_class=500`` or ``digits``. :func:`load_dataset` turns it into a
:class:`~fsengine.data.dataset.Dataset`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .dataset import Dataset


@dataclass(frozen=True)
class Param:
    """One user-settable loader parameter (drives the picker widgets and CLI parsing)."""

    name: str
    label: str
    default: Any
    kind: str = "int"  # int | float | str | choice | letters | bool
    choices: tuple = ()
    min: float | None = None
    max: float | None = None
    help: str = ""

    def parse(self, text: str):
        """Parse a CLI value for this parameter, with a clear error on bad input."""
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
            raise ValueError(f"{self.name}={text!r}: expected {self.kind}") from exc
        self.check(value)
        return value

    def check(self, value) -> None:
        if self.kind == "choice" and value not in self.choices:
            raise ValueError(f"{self.name}={value!r}: choose one of {', '.join(map(str, self.choices))}")
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


@dataclass(frozen=True)
class DatasetSpec(HasParams):
    """A catalogue entry: how to load a dataset and what to say about it."""

    key: str
    label: str
    group: str  # "Images" | "Tables" | "Text" | "Sequences" | "Synthetic"
    description: str
    loader: Callable[..., Dataset]
    params: tuple[Param, ...] = ()
    available: Callable[[], bool] = field(default=lambda: True)
    unavailable_hint: str = ""

    _kind = "Dataset"



_SPECS: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec) -> DatasetSpec:
    """Add a spec to the catalogue (keys are unique)."""
    if spec.key in _SPECS:
        raise ValueError(f"dataset key {spec.key!r} registered twice")
    _SPECS[spec.key] = spec
    return spec


def dataset_specs() -> list[DatasetSpec]:
    """Every catalogue entry, in registration order."""
    _ensure_catalogue()
    return list(_SPECS.values())


def get_spec(key: str) -> DatasetSpec:
    _ensure_catalogue()
    if key not in _SPECS:
        raise ValueError(f"Unknown dataset {key!r}. Known datasets: {', '.join(_SPECS)}")
    return _SPECS[key]


def parse_spec(text: str) -> tuple[DatasetSpec, dict[str, Any]]:
    """``key:a=1,b=2`` -> (spec, params with defaults filled in)."""
    key, _, rest = text.strip().partition(":")
    spec = get_spec(key.strip())
    params = spec.defaults()
    for item in filter(None, (s.strip() for s in rest.split(","))):
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"Dataset parameter {item!r} in {text!r} must look like name=value")
        params[name.strip()] = spec.param(name.strip()).parse(value.strip())
    return spec, params


def format_spec(key: str, params: dict[str, Any]) -> str:
    """Inverse of :func:`parse_spec` (only non-default parameters are written)."""
    spec = get_spec(key)
    defaults = spec.defaults()
    items = [f"{k}={v}" for k, v in params.items() if defaults.get(k) != v]
    return key + (":" + ",".join(items) if items else "")


def load_dataset(spec_or_key: str, **params) -> Dataset:
    """Load a dataset from a spec string or a key plus keyword parameters."""
    spec, parsed = parse_spec(spec_or_key)
    for name, value in params.items():
        spec.param(name).check(value)
        parsed[name] = value
    if not spec.available():
        from .paths import DataNotFoundError

        raise DataNotFoundError(f"Dataset '{spec.key}' is not available here. {spec.unavailable_hint}")
    return spec.loader(**parsed)


def _ensure_catalogue() -> None:
    """Import the modules that register the built-in datasets (once)."""
    if not _SPECS:
        from . import catalogue  # noqa: F401  (registers on import)
