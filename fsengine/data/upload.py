"""User uploads: a CSV/TSV (plain or compressed) or Parquet table with a chosen target column, checked
column by column, or an svmlight/libsvm file with its own labels.

Formats read (:func:`file_format`): ``.csv``, ``.tsv``, ``.txt``, each also compressed as ``.gz``,
``.bz2``, ``.xz`` or ``.zip`` (one table inside); ``.parquet``, ``.pq``; ``.svm``, ``.libsvm``,
``.svmlight`` (sparse features, labels in the file; :func:`load_svmlight`). A compressed table is
decompressed in memory and then read and checked exactly as the plain file; its decompressed size
counts against the upload limit.

Every problem gets its own error saying what is wrong and what to do: a file over the size limit
(``FSENGINE_MAX_UPLOAD_MB``), an unreadable file, duplicate column names, too few rows, missing or
infinite values, a target with a single class (or a class with a single row), no usable feature.
Non-numeric and constant feature columns are excluded by default; each exclusion is listed with
its reason in the provenance notes (and on screen). Nothing is dropped silently.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import math
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import config
from fsengine.csv_export import EXACT_FLOATS
from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.limits import check_declared, memory_budget
from fsengine.data.wide_csv import read_wide
from fsengine.validation import MAX_ABS_VALUE, constant_columns

MIN_ROWS = 10
MIN_ROWS_PER_CLASS = 2
#: an integer-valued numeric target with at most this many distinct values is taken as classes
MAX_AUTO_CLASSES = 20
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
PARQUET_SUFFIXES = (".parquet", ".pq")
SVMLIGHT_SUFFIXES = (".svm", ".libsvm", ".svmlight")
#: compressions of a CSV/TSV file, by the suffix after the table's own (``table.csv.gz``)
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zip")
#: every file name ending read, for error messages and the upload widget
FORMATS_READ = ("CSV/TSV (.csv, .tsv, .txt, also compressed: .csv.gz, .csv.bz2, .csv.xz, .csv.zip, .tsv.gz, ...), "
                "Parquet (.parquet, .pq), svmlight/libsvm (.svm, .libsvm, .svmlight)")
UPLOAD_TYPES = tuple(s.lstrip(".") for s in CSV_SUFFIXES + PARQUET_SUFFIXES + SVMLIGHT_SUFFIXES) + tuple(
    f"{t.lstrip('.')}{c}" for t in CSV_SUFFIXES for c in COMPRESSIONS)
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


#: separators tried on text files, in order of preference when several fit
SEPARATORS = (",", ";", "\t", "|")
#: lines of a text file looked at to find its separator
SNIFF_LINES = 50


def _decode(data: bytes, filename: str) -> tuple[str, str | None]:
    """Text of an uploaded file and a note when it was not UTF-8 (BOMs are removed)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "read as UTF-16 (byte-order mark)"
        except UnicodeDecodeError as exc:
            raise UploadError(f"{filename} starts with a UTF-16 byte-order mark but is not UTF-16 text; save it "
                              "as UTF-8 CSV.") from exc
    if b"\x00" in data[:65536]:
        raise UploadError(f"{filename} holds binary data (NUL bytes), not text; upload a CSV text file or a "
                          ".parquet file.")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "not UTF-8: read as Windows-1252 (Western European); check accented names"
    except UnicodeDecodeError as exc:
        raise UploadError(f"{filename} is not UTF-8 text (byte {data[exc.start]:#04x} at position {exc.start}); "
                          "save it as UTF-8 CSV.") from exc


def _field_counts(lines: list[str], sep: str) -> list[int]:
    try:
        return [len(row) for row in csv.reader(lines, delimiter=sep, quotechar='"') if row]
    except csv.Error:
        return []


#: the line breaks of ``str.splitlines``
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _first_lines(text: str, k: int) -> tuple[list[str], bool]:
    """The first ``k`` lines of ``text`` (as ``text.splitlines()[:k]``) and whether more follow,
    without splitting the rest of a large file into a list of lines."""
    for i, brk in enumerate(_LINE_BREAK.finditer(text)):
        if i + 1 == k:
            return text[:brk.end()].splitlines(), brk.end() < len(text)
    return text.splitlines(), False


def sniff_separator(text: str, default: str = ",") -> str:
    """The separator of ``text``: among :data:`SEPARATORS`, the one that splits the first lines into the
    same number (> 1) of fields, the most fields winning; ``default`` when none does."""
    lines, more = _first_lines(text, SNIFF_LINES)
    if more:
        lines = lines[:-1]  # the last sampled line may be cut inside a quoted field
    best, best_fields = default, 1
    for sep in SEPARATORS:
        counts = _field_counts(lines, sep)
        if counts and len(set(counts)) == 1 and counts[0] > best_fields:
            best, best_fields = sep, counts[0]
    return best


def _is_number_dtype(dtype) -> bool:
    return pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)


def _numeric_columns(df: pd.DataFrame) -> int:
    return sum(map(_is_number_dtype, df.dtypes))


def _parse(text: str, sep: str, decimal: str) -> pd.DataFrame:
    """pandas' reader, or the linear-time one for wide tables (:mod:`fsengine.data.wide_csv`)."""
    df = read_wide(text, sep, decimal)
    return df if df is not None else pd.read_csv(io.StringIO(text), sep=sep, quotechar='"', decimal=decimal,
                                                 **EXACT_FLOATS)


def _check_declared_cells(text: str, filename: str, sep: str, columns: int) -> None:
    """The header declares ``columns`` cells per row; a table whose rows hold them needs at least
    one character per cell (its value, a separator or the line's end), so ``columns x rows`` cannot
    exceed the text's length. Rows shorter than the header would be padded with missing values,
    and a header of many names over many short lines would make the reader allocate a grid
    quadratic in the file's size: such a table is refused before it is parsed."""
    if columns * text.count("\n") <= len(text):
        return
    rows = sum(1 for row in csv.reader(io.StringIO(text), delimiter=sep, quotechar='"') if row) - 1
    if columns * rows > len(text):
        raise UploadError(f"{filename}: the header names {columns:,} columns, more than its {rows:,} data rows can "
                          f"fill ({_mb(len(text))} of text): rows are shorter than the header. Give every row one "
                          "value per column.")


def _read_text_table(text: str, filename: str, sep: str) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Parse CSV text with separator ``sep``; with ``;``, tab or ``|`` a decimal comma is tried as well
    and kept when it turns more columns into numbers."""
    header = next(csv.reader([text.split("\n", 1)[0].rstrip("\r")], delimiter=sep, quotechar='"'), [])
    _check_declared_cells(text, filename, sep, len(header))
    df = _parse(text, sep, ".")
    notes = [] if sep == "," else [f"separator {sep!r} detected" if sep != "\t" else "tab-separated"]
    if sep != "," and _numeric_columns(df) < df.shape[1]:
        comma = _parse(text, sep, ",")
        if _numeric_columns(comma) > _numeric_columns(df):
            df = comma
            notes.append("decimal comma detected (1,5 read as 1.5)")
    return df, header, notes


def file_format(filename: str) -> tuple[str, str | None]:
    """(kind, compression) of a file by its name: kind "csv", "parquet" or "svmlight"; compression
    one of :data:`COMPRESSIONS` (CSV/TSV only) or None. Any other name is an :class:`UploadError`
    listing the formats read.

    >>> file_format("table.csv.gz"), file_format("data.TSV"), file_format("news.libsvm")
    (('csv', '.gz'), ('csv', None), ('svmlight', None))
    """
    suffixes = [s.lower() for s in Path(filename).suffixes]
    compression = suffixes.pop() if suffixes and suffixes[-1] in COMPRESSIONS else None
    inner = suffixes[-1] if suffixes else ""
    if inner in CSV_SUFFIXES:
        return "csv", compression
    if compression is None and inner in PARQUET_SUFFIXES:
        return "parquet", None
    if compression is None and inner in SVMLIGHT_SUFFIXES:
        return "svmlight", None
    shown = "".join(Path(filename).suffixes[-2:]) or "(none)"
    raise UploadError(f"{Path(filename).name}: unsupported file type {shown}; fsengine reads {FORMATS_READ}.")


#: a file named on the command line (no upload limit) may unpack to at most this share of the
#: machine's memory: its text, the parsed table and the features are held at once
UNPACKED_SHARE = 4


def _over_limit(filename: str, what: str, cap: int, limit: float) -> UploadError:
    if math.isinf(limit):
        return UploadError(f"{filename} {what} more than {_mb(cap)}, a quarter of this machine's memory: too large to "
                           "read here; split the table or read it in parts.")
    return UploadError(f"{filename} {what} more than {_mb(cap)}, over the upload limit; upload a smaller table or "
                       "raise the limit with FSENGINE_MAX_UPLOAD_MB.")


def _decompress(data: bytes, compression: str, filename: str, limit: float) -> bytes:
    """The content of a .gz/.bz2/.xz/.zip file, read at most ``limit`` bytes far (a small file may
    unpack to gigabytes; a file on disk, ``limit`` inf, at most 1/:data:`UNPACKED_SHARE` of this
    machine's memory); a .zip must hold one file, whose declared size is checked before it is
    unpacked."""
    cap = memory_budget() // UNPACKED_SHARE if math.isinf(limit) else int(limit)
    if compression == ".zip":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [m for m in archive.infolist() if not m.is_dir()]
                if len(members) != 1:
                    raise UploadError(f"{filename} holds {len(members)} files; put exactly one CSV/TSV table in "
                                      "the .zip.")
                declared = members[0].file_size  # the central directory's word: checked before unpacking
                if declared > cap:
                    raise _over_limit(filename, f"declares {members[0].filename!r} as {_mb(declared)} unpacked,",
                                      cap, limit)
                with archive.open(members[0]) as member:
                    out = member.read(cap + 1)  # zipfile also stops at the declared size
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError,
                zlib.error) as exc:
            raise UploadError(f"{filename} is not a readable .zip archive ({type(exc).__name__}: "
                              f"{_one_line(exc)}).") from exc
    else:
        opener = {".gz": gzip.GzipFile, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}[compression]
        try:
            with opener(fileobj=io.BytesIO(data)) if compression == ".gz" else opener(io.BytesIO(data)) as stream:
                out = stream.read(cap + 1)
        except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as exc:
            raise UploadError(f"{filename} is not a readable {compression} file ({type(exc).__name__}: "
                              f"{_one_line(exc)}).") from exc
    if len(out) > cap:
        raise _over_limit(filename, "unpacks to", cap, limit)
    return out


def _check_parquet_size(data: bytes, filename: str, limit: float) -> None:
    """A Parquet file's footer declares its rows and columns; at 8 bytes a cell (the least a value
    takes in memory) they must fit the upload limit (a file on disk: this machine's memory) before
    any column is decoded: a few kilobytes of run-length encoded constants can declare a billion
    rows. A file whose footer cannot be read is left to the reader's own error."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
    except Exception:  # pandas' reader names the problem
        return
    rows, columns = int(meta.num_rows), int(meta.num_columns)
    check_declared(8 * rows * columns, f"{filename} declares {rows:,} rows x {columns:,} columns, which",
                   None if math.isinf(limit) else limit, error=UploadError)


def read_table(data: bytes, filename: str, *, max_bytes: float | None = None) -> pd.DataFrame:
    """Parse an uploaded CSV (separator and decimal comma detected; UTF-8 with or without BOM,
    UTF-16, else Windows-1252; plain or compressed, :func:`file_format`) or Parquet file into a
    DataFrame. How it was read is listed in ``df.attrs["read_notes"]``. ``max_bytes`` limits the
    file and its decompressed content (default: the upload limit)."""
    limit = config.max_upload_bytes() if max_bytes is None else max_bytes
    if len(data) > limit:
        raise UploadError(
            f"{filename} is {_mb(len(data))}, over the upload limit of {_mb(limit)}. Upload a smaller "
            "file (fewer rows or columns) or raise the limit with FSENGINE_MAX_UPLOAD_MB.")
    if not data.strip():
        raise UploadError(f"{filename} is empty.")
    kind, compression = file_format(filename)
    if kind == "svmlight":
        raise UploadError(f"{filename} is an svmlight/libsvm file: it has its own labels and no target column "
                          "(read it with load_svmlight).")
    notes: list[str] = []
    if compression is not None:
        data = _decompress(data, compression, filename, limit)
        notes.append(f"decompressed ({compression})")
        if not data.strip():
            raise UploadError(f"{filename} is empty once decompressed.")
    suffix = Path(filename).suffixes[-2 if compression else -1].lower()
    if kind == "parquet":
        _check_parquet_size(data, filename, limit)
        try:
            df = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:
            raise UploadError(f"{filename} is not a readable Parquet file ({type(exc).__name__}: "
                              f"{_one_line(exc)}).") from exc
        df.columns = [str(c) for c in df.columns]
        header = list(df.columns)
    else:
        text, encoding_note = _decode(data, filename)
        notes += [encoding_note] if encoding_note else []
        if not text.strip():
            raise UploadError(f"{filename} is empty.")
        sep = sniff_separator(text, default="\t" if suffix == ".tsv" else ",")
        try:
            df, header, sep_notes = _read_text_table(text, filename, sep)
        except UploadError:
            raise
        except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv.Error) as exc:
            raise UploadError(f"{filename} is not a readable CSV file (separator {sep!r}): {_one_line(exc)}") from exc
        notes += sep_notes
        if df.shape[1] == 1:
            raise UploadError(f"{filename}: found a single column; fsengine reads text separated by commas, "
                              "semicolons, tabs or |, with one header line. Check the separator and the header.")
    dup = _duplicate(header)
    if dup is not None:
        raise UploadError(f"{filename}: column name {dup!r} appears more than once; rename it so "
                          "every column has its own name.")
    if df.shape[1] == 0:
        raise UploadError(f"{filename} has no columns.")
    df.attrs["read_notes"] = notes
    return df


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


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
    numeric, non_numeric = [], []  # positions and (name, reason)
    dtypes = df.dtypes.tolist()
    is_number = {dtype: _is_number_dtype(dtype) for dtype in set(dtypes)}
    for j, (name, dtype) in enumerate(zip(df.columns.tolist(), dtypes)):
        if name == target:
            continue
        if is_number[dtype]:
            numeric.append(j)
        else:
            non_numeric.append((name, f"non-numeric ({_non_numeric_example(df.iloc[:, j])})"))
    return numeric, non_numeric


def _check_magnitude(X: np.ndarray, names) -> None:
    """Refuse finite values beyond :data:`MAX_ABS_VALUE` (sums of squares would overflow to inf)."""
    if not X.size:
        return
    big = np.abs(X) > MAX_ABS_VALUE
    if big.any():
        row, col = np.argwhere(big)[0]
        raise UploadError(f"Column {names[col]!r} has a value of {X[row, col]:.3g} (data row {row + 1}); values "
                          f"beyond {MAX_ABS_VALUE:.0e} in magnitude overflow the computations. Rescale the column "
                          "(e.g. divide it by a power of ten) and upload again.")


def _target(df: pd.DataFrame, target: str, task: str, *, subject: str | None = None,
            remedy: str = " Pick another target column."):
    """(y, target_names, task) with the target's own checks. ``subject`` is what the messages call
    the target (default "Target column 'NAME'"); ``remedy`` what a single class can do about it."""
    col = df[target]
    subject = subject or f"Target column {target!r}"
    missing = col.isna().to_numpy()
    if missing.any():
        raise UploadError(f"{subject} has {int(missing.sum())} missing value(s) (data "
                          f"rows {_first_rows(missing)}); remove those rows or pick another target.")
    numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
    if numeric and not np.isfinite(col.to_numpy(dtype=np.float64)).all():
        bad = ~np.isfinite(col.to_numpy(dtype=np.float64))
        raise UploadError(f"{subject} has infinite values (data rows {_first_rows(bad)}).")
    if task == "auto":
        values = col.to_numpy()
        integral = numeric and np.all(np.mod(values.astype(np.float64), 1) == 0)
        task = "regression" if numeric and not (integral and col.nunique() <= MAX_AUTO_CLASSES) \
            else "classification"
    if task == "regression":
        if not numeric:
            raise UploadError(f"{subject} is not numeric ({_non_numeric_example(col)}); "
                              "a regression target must be a number. Choose 'classification'.")
        y = col.to_numpy(dtype=np.float64)
        _check_magnitude(y[:, None], [target])
        if np.ptp(y) == 0:
            raise UploadError(f"{subject} is constant ({y[0]:g}); nothing to predict.")
        return y, (), task
    classes, y = np.unique(col.astype(str).to_numpy() if not numeric else col.to_numpy(), return_inverse=True)
    names = tuple(str(c) for c in classes)
    if len(classes) < 2:
        raise UploadError(f"{subject} has a single class ({names[0]!r}); feature selection needs at least two "
                          f"classes.{remedy}")
    counts = np.bincount(y)
    small = [f"{names[i]!r} ({counts[i]} row)" for i in np.flatnonzero(counts < MIN_ROWS_PER_CLASS)]
    if small:
        raise UploadError(f"{subject}: class(es) {', '.join(small)} have fewer than "
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
    positions, excluded = _classify_features(df, target)
    names = df.columns.tolist()
    numeric = [names[j] for j in positions]
    if excluded and not exclude_non_numeric:
        raise UploadError("Non-numeric column(s): " + "; ".join(f"{c!r} {why}" for c, why in excluded)
                          + ". Encode them as numbers or allow excluding them.")
    X = df.iloc[:, positions].to_numpy(dtype=np.float64) if positions else np.empty((len(df), 0))
    problems = []
    for j in np.flatnonzero(~np.isfinite(X).all(axis=0)):  # only the columns with a problem
        nan, inf = np.isnan(X[:, j]), np.isinf(X[:, j])
        if nan.any():
            problems.append(f"{numeric[j]!r}: {int(nan.sum())} missing (NaN) in data rows {_first_rows(nan)}")
        if inf.any():
            problems.append(f"{numeric[j]!r}: {int(inf.sum())} infinite in data rows {_first_rows(inf)}")
    if problems:
        raise UploadError("Missing or infinite values: " + "; ".join(problems)
                          + ". Fill or remove them (e.g. pandas fillna/dropna) and upload again.")
    _check_magnitude(X, numeric)
    is_constant = np.ptp(X, axis=0) == 0 if X.shape[1] else np.zeros(0, dtype=bool)
    constant = np.flatnonzero(is_constant)
    if constant.size and not exclude_constant:
        raise UploadError("Constant column(s) carry no information: "
                          + ", ".join(repr(numeric[j]) for j in constant[:20]) + (", ..." if constant.size > 20 else "")
                          + ". Remove them or allow excluding them.")
    excluded += [(numeric[j], f"constant (every value is {X[0, j]:g})") for j in constant]
    keep = np.flatnonzero(~is_constant)
    if not keep.size:
        shown = "; ".join(f"{c!r} {why}" for c, why in excluded[:10]) + ("; ..." if len(excluded) > 10 else "")
        raise UploadError("No usable feature column: " + (shown or "the table has only the target") + ".")
    features = tuple(str(numeric[j]) for j in keep)
    notes = [f"target column {target!r} ({task}"
             + (f", {len(target_names)} classes)" if task == "classification" else ")")]
    notes += list(df.attrs.get("read_notes", ()))
    notes += [f"excluded column {c!r}: {why}" for c, why in excluded]
    return Dataset(
        X=np.ascontiguousarray(X[:, keep]), y=y, feature_names=features, target_names=target_names,
        name=name, task=task,
        provenance=Provenance(f"uploaded file {name}", "as supplied by the user",
                              {"rows": len(df), "features": len(features), "excluded_columns": len(excluded)},
                              tuple(notes)),
        extras={"excluded_columns": dict(excluded), "target_column": target},
    )


#: the largest feature index of an svmlight file (scikit-learn's reader holds indices as C ints)
MAX_SVMLIGHT_INDEX = 2**31 - 1


def _occurring_columns(X) -> tuple[object, np.ndarray]:
    """``X`` (CSR, as read, one column per index up to the largest) reduced to the columns that hold
    an entry, and those columns' indices in the file. Memory follows the entries, never the largest
    index: no array is as long as the index range."""
    import scipy.sparse as sp

    used, columns = np.unique(X.indices, return_inverse=True)
    reduced = sp.csr_matrix((X.data, columns.astype(np.int32 if used.size < 2**31 else np.int64), X.indptr),
                            shape=(X.shape[0], used.size))
    return reduced, used


def load_svmlight(data: bytes, filename: str, *, task: str = "auto", max_bytes: float | None = None,
                  exclude_constant: bool = True) -> Dataset:
    """An svmlight/libsvm file (``label index:value ...`` per row, read by scikit-learn's
    ``load_svmlight_file``) as a sparse Dataset with the file's own labels: the common format of
    text feature-selection benchmarks. The features are the indices that occur in the file, named
    by their index (``f1``, ...; "counted from 1" is noted when index 0 never occurs); the
    indices that never occur are all-zero columns, counted in a note, and never allocated, so
    memory follows the file's entries, not its largest index (at most :data:`MAX_SVMLIGHT_INDEX`).
    The checks of a table apply: size limit, at least 10 rows, finite values below 1e100, every
    class with two rows, ``task`` as for :func:`dataset_from_table` (auto: at most 20
    whole-number labels are classes), constant features excluded and listed."""
    from sklearn.datasets import load_svmlight_file

    limit = config.max_upload_bytes() if max_bytes is None else max_bytes
    if len(data) > limit:
        raise UploadError(f"{filename} is {_mb(len(data))}, over the upload limit of {_mb(limit)}. Upload a smaller "
                          "file or raise the limit with FSENGINE_MAX_UPLOAD_MB.")
    if not data.strip():
        raise UploadError(f"{filename} is empty.")
    if task not in TASKS:
        raise UploadError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    try:
        X, labels = load_svmlight_file(io.BytesIO(data), zero_based=True, dtype=np.float64)
    except OverflowError as exc:
        raise UploadError(f"{filename} has a feature index beyond {MAX_SVMLIGHT_INDEX:,}, the largest an svmlight "
                          "reader takes; number the features from 1 (or 0) upwards.") from exc
    except (ValueError, TypeError, IndexError, UnicodeDecodeError) as exc:
        raise UploadError(f"{filename} is not a readable svmlight/libsvm file (one 'label index:value ...' line "
                          f"per row): {_one_line(exc)}") from exc
    X, indices = _occurring_columns(X.tocsr())  # shape (n, largest index + 1) until here: never densified
    if X.shape[0] < MIN_ROWS:
        raise UploadError(f"{filename} has {X.shape[0]} row(s); at least {MIN_ROWS} are needed.")
    if not indices.size:
        raise UploadError(f"No usable feature in {filename}: no row holds an 'index:value' entry.")
    if not np.isfinite(X.data).all() or not np.isfinite(labels).all():
        raise UploadError(f"{filename} holds NaN or infinite values; fix or remove those entries.")
    names = [f"f{j}" for j in indices]
    big = np.flatnonzero(np.abs(X.data) > MAX_ABS_VALUE)
    if big.size:
        row, col = int(np.searchsorted(X.indptr, big[0], side="right")) - 1, int(X.indices[big[0]])
        raise UploadError(f"Feature {names[col]!r} has a value of {X.data[big[0]]:.3g} (row {row + 1}); values beyond "
                          f"{MAX_ABS_VALUE:.0e} in magnitude overflow the computations. Rescale it.")
    whole = np.all(labels == np.round(labels)) and np.all(np.abs(labels) < 2**53)  # exact as int64
    y, target_names, task = _target(
        pd.DataFrame({"label": labels.astype(np.int64) if whole else labels}), "label", task,
        subject=f"The label column of {filename}",
        remedy=" An svmlight file carries its own labels: use one whose rows have two or more.")
    constant = constant_columns(X)
    if constant.size and not exclude_constant:
        raise UploadError(f"{constant.size:,} feature(s) of {filename} are constant; allow excluding them.")
    keep = np.setdiff1d(np.arange(X.shape[1]), constant)
    if not keep.size:
        raise UploadError(f"No usable feature in {filename}: every feature is constant.")
    first = np.asarray(X[0, constant].todense()).ravel() if constant.size else np.zeros(0)
    excluded = {names[j]: f"constant (every value is {v:g})" for j, v in zip(constant, first)}
    notes = [f"svmlight labels ({task}" + (f", {len(target_names)} classes)" if task == "classification" else ")")]
    if indices[0] > 0:
        notes.append("feature indices counted from 1")
    absent = int(indices[-1]) + 1 - (indices[0] > 0) - indices.size
    if absent:
        one = absent == 1
        notes.append(f"{absent:,} feature {'index' if one else 'indices'} between {int(indices[0] > 0)} and "
                     f"{int(indices[-1]):,} never {'occurs' if one else 'occur'} (all-zero, left out); "
                     f"{indices.size:,} occur")
    notes += [f"excluded {constant.size:,} constant feature(s), e.g. {names[constant[0]]!r}"] if constant.size else []
    return Dataset(
        X=X[:, keep].tocsr(), y=y, feature_names=tuple(names[j] for j in keep), target_names=target_names,
        name=filename, task=task,
        provenance=Provenance(f"uploaded file {filename}", "as supplied by the user",
                              {"rows": int(X.shape[0]), "features": int(keep.size), "excluded_columns": len(excluded),
                               "absent_indices": absent}, tuple(notes)),
        extras={"excluded_columns": excluded, "format": "svmlight"},
    )


def load_upload(data: bytes, filename: str, target: str, **options) -> Dataset:
    """Read and validate in one step (``options`` go to :func:`dataset_from_table`)."""
    return dataset_from_table(read_table(data, filename), target, name=filename, **options)


def load_file(path: Path, target: str | None, **options) -> Dataset:
    """A data file on disk (``fsengine select|compare --data FILE [--target COLUMN]``), read and
    validated exactly like an upload; no size limit (the limit protects the app's server). A table
    needs ``target``; an svmlight/libsvm file has its own labels and takes none."""
    path = Path(path)
    kind, _ = file_format(path.name)
    if kind == "svmlight" and target is not None:
        raise UploadError(f"{path.name} is an svmlight/libsvm file with its own labels; leave out the target column.")
    if kind != "svmlight" and target is None:
        raise UploadError(f"{path.name}: name the column to predict (the target).")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UploadError(f"{path}: cannot read the file ({exc.strerror}).") from exc
    if kind == "svmlight":
        return load_svmlight(data, path.name, max_bytes=math.inf, **options)
    return dataset_from_table(read_table(data, path.name, max_bytes=math.inf), target, name=path.name, **options)
