"""Data layer: every loader returns a :class:`Dataset` (X, y, names, image shape, provenance)."""

from fsengine.data.catalogue import DatasetSpec
from fsengine.data.chunked_store import open_chunked
from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.paths import DataNotFoundError
from fsengine.data.registry import dataset_specs, get_spec, load_dataset, parse_spec, register_dataset

__all__ = [
    "Dataset", "Provenance", "DataNotFoundError", "DatasetSpec", "register_dataset",
    "dataset_specs", "get_spec", "load_dataset", "parse_spec", "open_chunked",
]
