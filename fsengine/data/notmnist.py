"""notMNIST loaders: MNIST IDX files (gz or not), the original folder-of-PNGs layout, and .npz.

notMNIST (Yaroslav Bulatov, 2011) holds 28x28 grayscale glyphs of the letters A-J rendered from
publicly available fonts. Every loader returns pixels scaled to [0, 1] as float64, labels 0-9 for
A-J, and lets the caller choose letters, the number per class and the sampling seed.
"""

from __future__ import annotations

import gzip
import math
import zipfile
import zlib
from pathlib import Path

import numpy as np

from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.limits import check_declared, check_npz
from fsengine.data.paths import DataNotFoundError, find_file

LETTERS = tuple("ABCDEFGHIJ")
IMAGE_SHAPE = (28, 28)
IDX_IMAGES = "notmnist/t10k-images-idx3-ubyte.gz"
IDX_LABELS = "notmnist/t10k-labels-idx1-ubyte.gz"
SOURCE = "notMNIST (Bulatov 2011), 10k IDX sample via github.com/davidflanagan/notMNIST-to-MNIST"
LICENCE = "MIT (conversion), notMNIST glyphs from public fonts"


class CorruptDataError(ValueError):
    """A data file exists but its content is not what its format promises."""


def pixel_names(shape=IMAGE_SHAPE) -> tuple[str, ...]:
    """Feature names ``px(r,c)`` in row-major order."""
    return tuple(f"px({r},{c})" for r in range(shape[0]) for c in range(shape[1]))


def _open_maybe_gz(path: Path):
    """A binary stream of ``path``'s content, decompressed as it is read when it is gzip."""
    fh = Path(path).open("rb")
    if fh.read(2) == b"\x1f\x8b":
        fh.seek(0)
        return gzip.GzipFile(fileobj=fh, mode="rb")
    fh.seek(0)
    return fh


#: bytes of a stream read (and discarded) to tell a damaged gzip file from a file of another kind
DRAIN_BYTES = 64 * 2**20


def _drain(fh) -> None:
    """Read up to :data:`DRAIN_BYTES` more of ``fh`` in blocks, keeping none: a damaged gzip
    stream raises its error here."""
    left = DRAIN_BYTES
    while left > 0 and fh.read(min(left, 2**20)):
        left -= 2**20


def read_idx(path: Path) -> np.ndarray:
    """Read an IDX file (MNIST format; gz or not) into an ndarray.

    Header: two zero bytes, a type code (0x08 = uint8), the number of dimensions, then one
    big-endian uint32 per dimension. The array the header declares is checked against this
    machine's memory (:func:`fsengine.data.limits.check_declared`) before anything is allocated,
    and no more than one byte past it is ever decompressed (a small .gz can unpack to gigabytes).
    """
    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"IDX file {path} does not exist")
    try:
        with _open_maybe_gz(path) as fh:
            head = fh.read(4)
            if len(head) < 4 or head[0] != 0 or head[1] != 0:
                _drain(fh)  # a damaged gzip stream says so rather than "bad magic"
                raise CorruptDataError(f"{path}: not an IDX file (bad magic number {head!r})")
            dtypes = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
            code, ndim = head[2], head[3]
            if code not in dtypes:
                raise CorruptDataError(f"{path}: unknown IDX element type 0x{code:02x}")
            raw_dims = fh.read(4 * ndim)
            if len(raw_dims) < 4 * ndim:
                raise CorruptDataError(f"{path}: truncated IDX header")
            dims = tuple(int.from_bytes(raw_dims[4 * i: 4 * i + 4], "big") for i in range(ndim))
            dtype = np.dtype(dtypes[code])
            expected = math.prod(dims) * dtype.itemsize  # Python integers: no overflow
            check_declared(expected, f"{path}: the IDX header's {dims} array", error=CorruptDataError,
                           remedy="the header is damaged or the file is not this data set")
            payload = fh.read(expected + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise CorruptDataError(f"{path}: gzip stream is damaged ({exc})") from exc
    if len(payload) != expected:
        held = f"{len(payload)} bytes" if len(payload) < expected else f"more than {expected} bytes"
        raise CorruptDataError(f"{path}: header promises {dims} ({expected} bytes) but the file holds {held}")
    return np.frombuffer(payload, dtype=dtype).reshape(dims)


def _select(images: np.ndarray, labels: np.ndarray, letters, n_per_class, seed) -> tuple[np.ndarray, np.ndarray]:
    """Pick ``n_per_class`` random rows of each chosen letter (all when None); labels stay 0-9."""
    codes = [_letter_code(letter) for letter in letters]
    rng = np.random.default_rng(seed)
    rows = []
    for code in codes:
        idx = np.flatnonzero(labels == code)
        if n_per_class is not None:
            if n_per_class > idx.size:
                raise ValueError(
                    f"Asked for {n_per_class} images of '{LETTERS[code]}' but only {idx.size} exist; "
                    f"lower n_per_class to at most {idx.size}."
                )
            idx = np.sort(rng.choice(idx, size=n_per_class, replace=False))
        rows.append(idx)
    rows = np.concatenate(rows) if rows else np.array([], dtype=int)
    return images[rows], labels[rows]


def _letter_code(letter) -> int:
    if isinstance(letter, (int, np.integer)) and 0 <= int(letter) < 10:
        return int(letter)
    s = str(letter).strip().upper()
    if s in LETTERS:
        return LETTERS.index(s)
    raise ValueError(f"Unknown notMNIST letter {letter!r}; choose from {', '.join(LETTERS)}")


def _to_dataset(images, labels, *, letters, source, licence, name, notes=()) -> Dataset:
    X = images.reshape(len(images), -1).astype(np.float64)
    if X.size and X.max() > 1.0:
        X /= 255.0
    codes = [_letter_code(letter) for letter in letters]
    counts = {LETTERS[c]: int((labels == c).sum()) for c in codes}
    return Dataset(
        X=X, y=labels.astype(np.int64), feature_names=pixel_names(), target_names=LETTERS,
        image_shape=IMAGE_SHAPE, name=name,
        provenance=Provenance(source, licence, {"rows": len(labels), **counts}, tuple(notes)),
    )


def load_notmnist_idx(images_path=None, labels_path=None, *, letters=LETTERS, n_per_class=None,
                      seed=0) -> Dataset:
    """notMNIST from MNIST-format IDX files (default: the 10k sample under the data roots)."""
    images_path = Path(images_path) if images_path else find_file(IDX_IMAGES, fetch_name="notmnist")
    labels_path = Path(labels_path) if labels_path else find_file(IDX_LABELS, fetch_name="notmnist")
    images, labels = read_idx(images_path), read_idx(labels_path)
    if images.ndim != 3 or images.shape[1:] != IMAGE_SHAPE:
        raise CorruptDataError(f"{images_path}: expected images of shape (n, 28, 28), got {images.shape}")
    if labels.ndim != 1 or labels.shape[0] != images.shape[0]:
        raise CorruptDataError(
            f"{labels_path}: {labels.shape} labels do not match {images.shape[0]} images in {images_path}"
        )
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise CorruptDataError(f"{labels_path}: labels outside 0-9 (A-J)")
    images, labels = _select(images, labels, letters, n_per_class, seed)
    return _to_dataset(images, labels, letters=letters, source=f"{SOURCE} ({images_path})",
                       licence=LICENCE, name="notmnist")


def load_notmnist_npz(path, *, letters=LETTERS, n_per_class=None, seed=0) -> Dataset:
    """notMNIST from an .npz holding ``images`` (n, 28, 28) or ``X`` (n, 784), and ``labels``/``y``."""
    path = Path(path)
    if path.is_file():
        check_npz(path, error=CorruptDataError)
    try:
        with np.load(path) as z:
            images = z["images"] if "images" in z else z["X"] if "X" in z else None
            labels = z["labels"] if "labels" in z else z["y"] if "y" in z else None
    except FileNotFoundError as exc:
        raise DataNotFoundError(f"{path} does not exist") from exc
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise CorruptDataError(f"{path}: not a readable .npz archive ({exc})") from exc
    if images is None or labels is None:
        raise CorruptDataError(f"{path}: needs arrays 'images' (or 'X') and 'labels' (or 'y')")
    images = np.asarray(images).reshape(len(images), *IMAGE_SHAPE)
    labels = np.asarray(labels).astype(np.int64)
    images, labels = _select(images, labels, letters, n_per_class, seed)
    return _to_dataset(images, labels, letters=letters, source=f"notMNIST npz ({path})",
                       licence="as supplied", name="notmnist")


def load_notmnist_folder(root, *, letters=LETTERS, n_per_class=None, seed=0) -> Dataset:
    """notMNIST in its original layout: ``root/A/*.png ... root/J/*.png``.

    Unreadable PNGs (the original archive has a few) are skipped, counted and reported in the
    provenance notes; they are never silently dropped.
    """
    from PIL import Image, UnidentifiedImageError

    root = Path(root)
    if not root.is_dir():
        raise DataNotFoundError(f"notMNIST folder {root} does not exist")
    images, labels, unreadable = [], [], []
    for letter in letters:
        code = _letter_code(letter)
        folder = root / LETTERS[code]
        if not folder.is_dir():
            raise DataNotFoundError(f"{root} has no sub-folder {LETTERS[code]}/ (expected A/ ... J/)")
        for png in sorted(folder.glob("*.png")):
            try:
                with Image.open(png) as im:
                    arr = np.asarray(im.convert("L"), dtype=np.uint8)
            except (OSError, UnidentifiedImageError, ValueError):
                unreadable.append(png.name)
                continue
            if arr.shape != IMAGE_SHAPE:
                unreadable.append(png.name)
                continue
            images.append(arr)
            labels.append(code)
    if not images:
        raise CorruptDataError(f"{root}: no readable 28x28 PNGs for letters {letters}")
    images, labels = np.stack(images), np.asarray(labels, dtype=np.int64)
    images, labels = _select(images, labels, letters, n_per_class, seed)
    notes = []
    if unreadable:
        notes.append(f"{len(unreadable)} unreadable or mis-sized PNG(s) skipped, e.g. {unreadable[:3]}")
    ds = _to_dataset(images, labels, letters=letters, source=f"notMNIST PNG folder ({root})",
                     licence="notMNIST (public fonts)", name="notmnist", notes=notes)
    ds.provenance.counts["unreadable"] = len(unreadable)
    return ds


def real_notmnist_available() -> bool:
    """True when the IDX sample is found under the data roots."""
    try:
        find_file(IDX_IMAGES)
        find_file(IDX_LABELS)
    except DataNotFoundError:
        return False
    return True
