"""The dataset catalogue shared by the app's picker, the command line and the benchmarks.

A dataset is named by a *spec string* ``key[:param=value,param=value]``, e.g.
``notmnist:letters=BD,n_per_class=500`` or ``digits``. :func:`load_dataset` turns it into a
:class:`~fsengine.data.dataset.Dataset`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsengine.data.catalogue import CATALOGUE, DatasetSpec
from fsengine.data.dataset import Dataset

#: the datasets by key: the built-in catalogue, then those added by :func:`register_dataset`
_SPECS: dict[str, DatasetSpec] = {spec.key: spec for spec in CATALOGUE}


def register_dataset(spec: DatasetSpec) -> DatasetSpec:
    """Add a dataset of your own to the catalogue (keys are unique); call it before the app or a
    command looks the dataset up.

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.data import Dataset, DatasetSpec, Provenance, load_dataset, register_dataset
    >>> def squares():
    ...     X = np.arange(12.0).reshape(6, 2) ** 2
    ...     return Dataset(X=X, y=np.arange(6) % 2, feature_names=("a", "b"),
    ...                    provenance=Provenance("squares"), name="squares")
    >>> _ = register_dataset(DatasetSpec("squares", "Squares", "Tables", "Squares of 0..11", squares))
    >>> load_dataset("squares").X.shape
    (6, 2)
    >>> _ = _SPECS.pop("squares")  # (tidy up after the example)
    """
    if spec.key in _SPECS:
        raise ValueError(f"dataset key {spec.key!r} is registered already")
    _SPECS[spec.key] = spec
    return spec


def dataset_specs() -> list[DatasetSpec]:
    """Every catalogue entry, in registration order.

    Examples
    --------
    >>> from fsengine.data import dataset_specs
    >>> keys = [spec.key for spec in dataset_specs()]
    >>> "digits" in keys and "synthetic_glm" in keys
    True
    """
    return list(_SPECS.values())


def get_spec(key: str) -> DatasetSpec:
    """The catalogue entry of ``key`` (e.g. ``"digits"``), or a ValueError listing the keys.

    Examples
    --------
    >>> from fsengine.data import get_spec
    >>> get_spec("digits").label
    'Digits 8x8 (scikit-learn)'
    """
    if key not in _SPECS:
        raise ValueError(f"Unknown dataset {key!r}. Known datasets: {', '.join(_SPECS)}")
    return _SPECS[key]


def parse_spec(text: str) -> tuple[DatasetSpec, dict[str, Any]]:
    """``key:a=1,b=2`` -> (spec, params with defaults filled in).

    Examples
    --------
    >>> from fsengine.data import parse_spec
    >>> spec, params = parse_spec("synthetic_glm:p=50,k=5")
    >>> spec.key, params["p"], params["k"]
    ('synthetic_glm', 50, 5)
    """
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
    """Load a dataset from a spec string or a key plus keyword parameters.

    Examples
    --------
    >>> from fsengine.data import load_dataset
    >>> digits = load_dataset("digits")
    >>> digits.X.shape, digits.image_shape, digits.task
    ((1797, 64), (8, 8), 'classification')
    >>> int(load_dataset("synthetic_glm", n=100, p=20, k=4).truth.sum())      # a spec's parameters as keywords
    4
    """
    spec, parsed = parse_spec(spec_or_key)
    for name, value in params.items():
        spec.param(name).check(value)
        parsed[name] = value
    if not spec.available():
        from fsengine.data.paths import DataNotFoundError

        raise DataNotFoundError(f"Dataset '{spec.key}' is not available here. {spec.unavailable_hint}")
    return spec.loader(**parsed)


def data_kind(data: str) -> str:
    """What ``--data`` names: "catalogue", "table" (CSV/TSV, compressed or not, Parquet) or "svmlight".
    A path that exists is a file, never a catalogue name: a folder, or a file of another type, is a
    one-line error listing the formats read; a missing path ending like a data file is "no such file"."""
    from fsengine.data.upload import FORMATS_READ, UploadError, file_format

    path = Path(data)
    if path.is_dir():
        raise ValueError(f"--data {data} is a folder, not a data file; fsengine reads {FORMATS_READ}")
    try:
        kind, _ = file_format(path.name)
    except UploadError as exc:
        if path.exists():
            raise ValueError(f"--data {exc}") from None
        return "catalogue"
    if not path.exists():
        raise FileNotFoundError(f"--data {data}: no such file")
    return "table" if kind in ("csv", "parquet") else kind
