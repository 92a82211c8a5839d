"""Download the public datasets into ``datasets/`` (``python -m fsengine datasets fetch NAME``).

Every file has a pinned sha256. A download streams into a temporary file next to its destination
and is renamed into place only after the checksum matched, so an interrupted transfer or a
corrupted file never leaves anything half-written behind (and never replaces a good copy).
Files land in the shared layout (``notmnist/...``, ``nltk_data/corpora/NAME.zip``) under
:func:`fsengine.config.datasets_dir`, where the loaders look.

``FSENGINE_FETCH_BASE_URL`` replaces every public address by ``BASE/<layout path>`` (a mirror
holding the shared layout; the tests use a loopback server). Without network the download fails
after a short timeout with a message saying what to download and where to put it.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsengine import config
from fsengine.data.paths import DataNotFoundError
from fsengine.files import ordinary_mode

NOTMNIST_BASE = "https://raw.githubusercontent.com/davidflanagan/notMNIST-to-MNIST/HEAD/"
NLTK_BASE = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/"
#: seconds to wait for a connection or a chunk before giving up (offline fails fast)
DEFAULT_TIMEOUT = 10.0
CHUNK = 1 << 16

Progress = Callable[[float, str], None]


class FetchError(DataNotFoundError):
    """A download failed; the message says what to download by hand and where to put it."""


class ChecksumError(FetchError):
    """A downloaded file does not have the pinned sha256 (it was discarded)."""


@dataclass(frozen=True)
class RemoteFile:
    """One published file: where it goes under ``datasets/``, its public address and checksum."""

    dest: str
    url: str
    sha256: str
    size: int

    def address(self) -> str:
        """The public URL, or ``FSENGINE_FETCH_BASE_URL/dest`` when a mirror is set."""
        base = os.environ.get("FSENGINE_FETCH_BASE_URL", "").strip()
        return f"{base.rstrip('/')}/{self.dest}" if base else self.url


@dataclass(frozen=True)
class Source:
    """A downloadable dataset: one or more files."""

    name: str
    description: str
    licence: str
    files: tuple[RemoteFile, ...]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


def _nltk(name: str, description: str, licence: str, sha256: str, size: int) -> Source:
    return Source(name, description, licence, (
        RemoteFile(f"nltk_data/corpora/{name}.zip", f"{NLTK_BASE}{name}.zip", sha256, size),))


SOURCES: dict[str, Source] = {s.name: s for s in (
    Source("notmnist", "notMNIST 10k sample (A-J, 1,000 each), 28x28, MNIST IDX format",
           "MIT (conversion, posted with the notMNIST author's permission)", (
               RemoteFile("notmnist/t10k-images-idx3-ubyte.gz",
                          NOTMNIST_BASE + "t10k-images-idx3-ubyte.gz",
                          "70ae9e06201f2827e5b0a3781a3169d735dd2efc69996b9eeaee7f10ed4044d7", 3172375),
               RemoteFile("notmnist/t10k-labels-idx1-ubyte.gz",
                          NOTMNIST_BASE + "t10k-labels-idx1-ubyte.gz",
                          "1fa03836e01c862542f8eb83463bb951bebec6fcb3efa28dad748c6b38a9021b", 5118),
           )),
    _nltk("conll2000", "CoNLL-2000 chunking: WSJ 15-18 train, 20 test (word POS chunk)",
          "NLTK data (WSJ text, research use)",
          "01e65164f268366e7caa0db92332a1955d081908c87016e2c7640c3c5279b7cd", 756607),
    _nltk("treebank", "Penn Treebank 10% WSJ sample (3,914 tagged and parsed sentences)",
          "LDC, non-commercial fair use",
          "9da92d76c3666cfb6cddeaed0f7e86b344cce0f0928a286d439e555f19c37399", 1740034),
    _nltk("movie_reviews", "Pang & Lee polarity v2.0: 1,000 positive + 1,000 negative reviews",
          "CC BY 4.0", "a41211ae685019137410268134db6a1a14428c89b671eb83056151a878539008", 4004848),
    _nltk("sentence_polarity", "Pang & Lee: 5,331 positive + 5,331 negative review snippets",
          "CC BY 4.0", "6e1ed4405b65c7eabf1d199a7f7c437091ac21da0ea7467b410a74062574566b", 490256),
    _nltk("subjectivity", "Pang & Lee: 5,000 subjective + 5,000 objective sentences",
          "CC BY 4.0", "741f3371e1a4375051b874fd82fd55857b90975473c91c19a3101cbe17fc4d8c", 521628),
)}


def get_source(name: str) -> Source:
    if name not in SOURCES:
        raise ValueError(f"Unknown download {name!r}; choose from: {', '.join(SOURCES)}")
    return SOURCES[name]


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def manual_hint(file: RemoteFile, dest: Path) -> str:
    """What to download by hand and where to put it."""
    return (f"Download {file.address()} ({_megabytes(file.size)}, sha256 {file.sha256}) and save it "
            f"as {dest}, or set FSENGINE_DATA to a folder that holds {file.dest}.")


def _download(file: RemoteFile, dest: Path, *, timeout: float, on_bytes: Callable[[int], None]) -> None:
    """Stream ``file`` to a temporary file beside ``dest``, check its sha256, rename into place."""
    url = file.address()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    except OSError as exc:
        raise FetchError(f"Cannot write the download into {dest.parent} ({exc.strerror}); make that folder "
                         "writable or set FSENGINE_DATASETS to a folder you can write to.") from exc
    try:
        digest = hashlib.sha256()
        request = urllib.request.Request(url, headers={"User-Agent": "fsengine-fetch"})
        received = 0
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request, timeout=timeout) as response:
            announced = response.headers.get("Content-Length")
            while chunk := response.read(CHUNK):
                out.write(chunk)
                digest.update(chunk)
                received += len(chunk)
                on_bytes(len(chunk))
        if announced is not None and announced.isdigit() and received < int(announced):
            raise FetchError(f"The connection to {url} closed after {received:,} of {int(announced):,} "
                             f"bytes; nothing was written. Try again.\n{manual_hint(file, dest)}")
        if digest.hexdigest() != file.sha256:
            raise ChecksumError(
                f"{url} has sha256 {digest.hexdigest()}, expected {file.sha256}; the download was "
                f"discarded and nothing was written.\n{manual_hint(file, dest)}")
        os.chmod(tmp, ordinary_mode())  # mkstemp's 0600 would hide a shared download from others
        os.replace(tmp, dest)
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{url}: the server answered {exc.code} {exc.reason}.\n"
                         f"{manual_hint(file, dest)}") from exc
    except (TimeoutError, urllib.error.URLError, http.client.HTTPException, ConnectionError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise FetchError(f"Could not download {url} ({type(exc).__name__}: {reason}); are you "
                         f"offline?\n{manual_hint(file, dest)}") from exc
    except FetchError:
        raise
    except OSError as exc:  # disk full, folder made read-only meanwhile: the .part file is removed below
        raise FetchError(f"Cannot write {dest} ({exc.strerror}); free space or make {dest.parent} writable, "
                         "or set FSENGINE_DATASETS to another folder.") from exc
    finally:
        Path(tmp).unlink(missing_ok=True)


def local_copy(file: RemoteFile, root: Path | None = None) -> Path:
    """Where ``file`` lives (or will live) under the datasets folder."""
    return (root or config.datasets_dir()) / file.dest


def existing_copy(file: RemoteFile, root: Path | None = None) -> Path | None:
    """The first copy of ``file`` found under ``root``, or else under the datasets folder and then
    FSENGINE_DATA; None when there is none."""
    roots = [root] if root else [config.datasets_dir()] + ([config.data_root()] if config.data_root() else [])
    return next((r / file.dest for r in roots if (r / file.dest).is_file()), None)


def is_present(name: str, root: Path | None = None) -> bool:
    """True when every file of a source exists under the datasets folder or FSENGINE_DATA."""
    return all(existing_copy(f, root) is not None for f in get_source(name).files)


def fetch(name: str, *, root: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
          progress: Progress | None = None, force: bool = False) -> list[Path]:
    """Download one source into ``root`` (default the datasets folder); returns its file paths.

    Files already present with the right checksum are kept (no network); ``force`` downloads
    them again. ``progress(fraction, message)`` is called as bytes arrive.
    """
    source = get_source(name)
    progress = progress or (lambda fraction, message: None)
    total, done = max(source.size, 1), 0
    paths = []
    for file in source.files:
        dest = local_copy(file, root)
        if not force and dest.is_file() and sha256_of(dest) == file.sha256:
            done += file.size
            progress(min(done / total, 1.0), f"{file.dest}: already present")
            paths.append(dest)
            continue

        def on_bytes(n: int, _dest=file.dest) -> None:
            nonlocal done
            done += n
            progress(min(done / total, 1.0), f"{_dest}: {_megabytes(done)} of {_megabytes(total)}")

        try:
            _download(file, dest, timeout=timeout, on_bytes=on_bytes)
        except FetchError as exc:
            rest = [f for f in source.files[source.files.index(file) + 1:] if not local_copy(f, root).is_file()]
            if not rest:
                raise
            also = "\n".join(manual_hint(f, local_copy(f, root)) for f in rest)
            raise type(exc)(f"{exc}\nThe dataset also needs:\n{also}") from exc
        paths.append(dest)
    progress(1.0, f"{name}: done")
    return paths
