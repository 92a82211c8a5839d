"""Data layer: every loader returns a :class:`Dataset` (X, y, names, image shape, provenance)."""

from .chunked_store import open_chunked
from .dataset import Dataset, Provenance
from .paths import DataNotFoundError
from .registry import DatasetSpec, Param, dataset_specs, get_spec, load_dataset, parse_spec

__all__ = [
    "Dataset", "Provenance", "DataNotFoundError", "DatasetSpec", "Param",
    "dataset_specs", "get_spec", "load_dataset", "parse_spec", "open_chunked",
]
