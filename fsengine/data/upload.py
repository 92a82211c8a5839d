"""User uploads: a CSV or Parquet table with a chosen target column, checked column by column.

Every problem gets its own error saying what is wrong and what to do: a file over the size limit
(``FSENGINE_MAX_UPLOAD_MB``), an unreadable file, duplicate column names, too few rows, missing or
infinite values, a target with a single class (or a class with a single row), no usable feature.
Non-numeric and constant feature columns are excluded by default; each exclusion is listed with
its reason in the provenance notes (and on screen). Nothing is dropped silently.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd

from .. import config
from .dataset import Dataset, Provenance

MIN_ROWS = 10
MIN_ROWS_PER_CLASS = 2
#: an integer-valued numeric target with at most this many distinct values is taken as classes
MAX_AUTO_CLASSES = 20
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
PARQUET_SUFFIXES = (".parquet", ".pq")
TASKS = ("auto", "classification", "regression")


class UploadError(ValueError):
    """An uploaded table cannot be used as it is; the message says why and what to do."""


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _duplicate(names) -> str | None:
    """First name that appears twice (pandas would rename the second copy silently)."""
    seen = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def read_table(data: bytes, filename: str, *, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse an uploaded CSV (comma; ``.tsv`` tab-separated) or Parquet file into a DataFrame."""
    limit = config.max_upload_bytes() if max_bytes is None else max_bytes
    if len(data) > limit:
        raise UploadError(
            f"{filename} is {_mb(len(data))}, over the upload limit of {_mb(limit)}. Upload a smaller "
            "file (fewer rows or columns) or raise the limit with FSENGINE_MAX_UPLOAD_MB.")
    if not data.strip():
        raise UploadError(f"{filename} is empty.")
    suffix = Path(filename).suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        try:
            df = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:
            raise UploadError(f"{filename} is not a readable Parquet file ({type(exc).__name__}: {exc}).") from exc
        df.columns = [str(c) for c in df.columns]
        header = list(df.columns)
    elif suffix in CSV_SUFFIXES:
        sep = "\t" if suffix == ".tsv" else ","
        try:
            header = pd.read_csv(io.BytesIO(data), sep=sep, header=None, nrows=1, dtype=str,
                                 keep_default_na=False).iloc[0].tolist()
            # round_trip: every number reads back exactly as written (pandas' default "high" parser
            # can be one unit in the last place off on the pandas versions the floor allows)
            df = pd.read_csv(io.BytesIO(data), sep=sep, float_precision="round_trip")
        except UnicodeDecodeError as exc:
            raise UploadError(f"{filename} is not UTF-8 text ({exc.reason}); save it as UTF-8 CSV.") from exc
        except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
            raise UploadError(f"{filename} is not a readable CSV file: {exc}".strip()) from exc
    else:
        raise UploadError(f"{filename}: unsupported file type {suffix or '(none)'}; upload a .csv or "
                          ".parquet file.")
    dup = _duplicate(header)
    if dup is not None:
        raise UploadError(f"{filename}: column name {dup!r} appears more than once; rename it so "
                          "every column has its own name.")
    if df.shape[1] == 0:
        raise UploadError(f"{filename} has no columns.")
    return df


def _first_rows(mask: np.ndarray, k: int = 3) -> str:
    rows = (np.flatnonzero(mask)[:k] + 1).tolist()
    return ", ".join(map(str, rows)) + (", ..." if mask.sum() > k else "")


def _non_numeric_example(col: pd.Series) -> str:
    values = col.dropna()
    bad = values[pd.to_numeric(values, errors="coerce").isna()]
    if len(bad):
        pos = int(np.flatnonzero(col.index == bad.index[0])[0]) + 1
        return f"e.g. {str(bad.iloc[0])[:30]!r} in data row {pos}"
    return f"type {col.dtype}"


def _classify_features(df: pd.DataFrame, target: str):
    """Split feature columns into numeric ones and (column, reason) for non-numeric ones."""
    numeric, non_numeric = [], []
    for name in df.columns:
        if name == target:
            continue
        col = df[name]
        if pd.api.types.is_bool_dtype(col) or pd.api.types.is_numeric_dtype(col):
            numeric.append(name)
        else:
            non_numeric.append((name, f"non-numeric ({_non_numeric_example(col)})"))
    return numeric, non_numeric


def _target(df: pd.DataFrame, target: str, task: str):
    """(y, target_names, task) with the target's own checks."""
    col = df[target]
    missing = col.isna().to_numpy()
    if missing.any():
        raise UploadError(f"Target column {target!r} has {int(missing.sum())} missing value(s) (data "
                          f"rows {_first_rows(missing)}); remove those rows or pick another target.")
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    if numeric and not np.isfinite(col.to_numpy(dtype=np.float64)).all():
        bad = ~np.isfinite(col.to_numpy(dtype=np.float64))
        raise UploadError(f"Target column {target!r} has infinite values (data rows {_first_rows(bad)}).")
    if task == "auto":
        values = col.to_numpy()
        integral = numeric and np.all(np.mod(values.astype(np.float64), 1) == 0)
        task = "regression" if numeric and not (integral and col.nunique() <= MAX_AUTO_CLASSES) \
            else "classification"
    if task == "regression":
        if not numeric:
            raise UploadError(f"Target column {target!r} is not numeric ({_non_numeric_example(col)}); "
                              "a regression target must be a number. Choose 'classification'.")
        y = col.to_numpy(dtype=np.float64)
        if np.ptp(y) == 0:
            raise UploadError(f"Target column {target!r} is constant ({y[0]:g}); nothing to predict.")
        return y, (), task
    classes, y = np.unique(col.astype(str).to_numpy() if not numeric else col.to_numpy(), return_inverse=True)
    names = tuple(str(c) for c in classes)
    if len(classes) < 2:
        raise UploadError(f"Target column {target!r} has a single class ({names[0]!r}); feature "
                          "selection needs at least two classes. Pick another target column.")
    counts = np.bincount(y)
    small = [f"{names[i]!r} ({counts[i]} row)" for i in np.flatnonzero(counts < MIN_ROWS_PER_CLASS)]
    if small:
        raise UploadError(f"Target column {target!r}: class(es) {', '.join(small)} have fewer than "
                          f"{MIN_ROWS_PER_CLASS} rows; every class needs at least {MIN_ROWS_PER_CLASS}. "
                          "Merge or remove them.")
    return y.astype(np.int64), names, task


def dataset_from_table(df: pd.DataFrame, target: str, *, name: str = "upload", task: str = "auto",
                       exclude_non_numeric: bool = True, exclude_constant: bool = True) -> Dataset:
    """Validate a table and turn it into a Dataset predicting ``target`` from the other columns.

    ``task="auto"``: numeric targets with at most 20 distinct integer values and every
    non-numeric target are classes, other numeric targets are regression.
    """
    if task not in TASKS:
        raise UploadError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    if target not in df.columns:
        raise UploadError(f"There is no column named {target!r}; columns are: "
                          f"{', '.join(map(repr, df.columns[:20]))}{', ...' if df.shape[1] > 20 else ''}.")
    if len(df) < MIN_ROWS:
        raise UploadError(f"{name} has {len(df)} data row(s); at least {MIN_ROWS} are needed.")
    y, target_names, task = _target(df, target, task)
    numeric, excluded = _classify_features(df, target)
    if excluded and not exclude_non_numeric:
        raise UploadError("Non-numeric column(s): " + "; ".join(f"{c!r} {why}" for c, why in excluded)
                          + ". Encode them as numbers or allow excluding them.")
    X = df[numeric].to_numpy(dtype=np.float64) if numeric else np.empty((len(df), 0))
    problems = []
    for j, col in enumerate(numeric):
        nan, inf = np.isnan(X[:, j]), np.isinf(X[:, j])
        if nan.any():
            problems.append(f"{col!r}: {int(nan.sum())} missing (NaN) in data rows {_first_rows(nan)}")
        if inf.any():
            problems.append(f"{col!r}: {int(inf.sum())} infinite in data rows {_first_rows(inf)}")
    if problems:
        raise UploadError("Missing or infinite values: " + "; ".join(problems)
                          + ". Fill or remove them (e.g. pandas fillna/dropna) and upload again.")
    constant = [j for j in range(X.shape[1]) if np.ptp(X[:, j]) == 0]
    if constant and not exclude_constant:
        raise UploadError("Constant column(s) carry no information: "
                          + ", ".join(repr(numeric[j]) for j in constant)
                          + ". Remove them or allow excluding them.")
    excluded += [(numeric[j], f"constant (every value is {X[0, j]:g})") for j in constant]
    keep = [j for j in range(X.shape[1]) if j not in set(constant)]
    if not keep:
        raise UploadError("No usable feature column: "
                          + ("; ".join(f"{c!r} {why}" for c, why in excluded) or "the table has only the target")
                          + ".")
    features = tuple(str(numeric[j]) for j in keep)
    notes = [f"target column {target!r} ({task}"
             + (f", {len(target_names)} classes)" if task == "classification" else ")")]
    notes += [f"excluded column {c!r}: {why}" for c, why in excluded]
    return Dataset(
        X=np.ascontiguousarray(X[:, keep]), y=y, feature_names=features, target_names=target_names,
        name=name, task=task,
        provenance=Provenance(f"uploaded file {name}", "as supplied by the user",
                              {"rows": len(df), "features": len(features), "excluded_columns": len(excluded)},
                              tuple(notes)),
        extras={"excluded_columns": dict(excluded), "target_column": target},
    )


def load_upload(data: bytes, filename: str, target: str, **options) -> Dataset:
    """Read and validate in one step (``options`` go to :func:`dataset_from_table`)."""
    return dataset_from_table(read_table(data, filename), target, name=filename, **options)
