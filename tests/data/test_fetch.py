"""The download step against a loopback HTTP server: checksums, atomic writes, failures."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from fsengine.cli import main
from fsengine.data import fetch as fetch_mod
from fsengine.data.corpora import read_sentence_polarity
from fsengine.data.fetch import ChecksumError, FetchError, fetch
from fsengine.data.notmnist import load_notmnist_idx


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_real_files_fetched_from_mirror_match_pinned_checksums(shared_data_root, server, store, monkeypatch):
    """Every pinned sha256 is checked against the real files, and the loaders read the result."""
    base, root, _ = server
    for source in fetch_mod.SOURCES.values():
        for file in source.files:
            original = shared_data_root / file.dest
            if not original.is_file():
                pytest.fail(f"FSENGINE_DATA is set but {original} is missing")
            (root / file.dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(original, root / file.dest)
    monkeypatch.setenv("FSENGINE_FETCH_BASE_URL", base + "/")
    seen = []
    for name in fetch_mod.SOURCES:
        for path in fetch(name, progress=lambda f, m: seen.append(f)):
            assert path.is_file() and path.is_relative_to(store)
    assert seen and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    ds = load_notmnist_idx(letters="BD", n_per_class=10)   # found under FSENGINE_DATASETS only
    assert ds.X.shape == (20, 784) and str(store) in ds.provenance.source
    assert len(read_sentence_polarity().texts) == 10662


def test_fetch_writes_file_and_skips_network_when_present(fake_source, server, store):
    source, served = fake_source
    _, _, hits = server
    paths = fetch("fake")
    assert paths == [store / "fake" / "blob.bin"]
    assert paths[0].read_bytes() == served.read_bytes()
    assert hits == ["/fake/blob.bin"]
    fetch("fake")                       # checksum matches: no second request
    assert hits == ["/fake/blob.bin"]
    fetch("fake", force=True)
    assert len(hits) == 2
    assert _leftovers(store) == paths   # no temporary files


def test_checksum_mismatch_leaves_nothing_behind(fake_source, store):
    _, served = fake_source
    served.write_bytes(served.read_bytes()[:-10] + b"corrupted!")
    with pytest.raises(ChecksumError, match=r"sha256 .* expected .*nothing was written") as err:
        fetch("fake")
    assert "fake/blob.bin" in str(err.value) and str(store) in str(err.value)
    assert _leftovers(store) == []


def test_corrupt_redownload_keeps_the_good_copy(fake_source, store):
    _, served = fake_source
    good = fetch("fake")[0].read_bytes()
    served.write_bytes(b"tampered")
    with pytest.raises(ChecksumError):
        fetch("fake", force=True)
    assert _leftovers(store) == [store / "fake" / "blob.bin"]
    assert (store / "fake" / "blob.bin").read_bytes() == good


def test_truncated_transfer_leaves_nothing_behind(fake_source, monkeypatch, server, store):
    source, _ = fake_source
    base, _, _ = server
    monkeypatch.setenv("FSENGINE_FETCH_BASE_URL", base + "/truncated")
    with pytest.raises(FetchError, match="closed after 1,000 of 100,000 bytes"):
        fetch("fake")
    assert _leftovers(store) == []


def test_interruption_leaves_nothing_behind(fake_source, store):
    def interrupt(fraction, message):
        if fraction > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fetch("fake", progress=interrupt)
    assert _leftovers(store) == []


def test_http_error_names_status_and_manual_route(fake_source, store, monkeypatch, server):
    base, _, _ = server
    monkeypatch.setenv("FSENGINE_FETCH_BASE_URL", base + "/nothing-here")
    with pytest.raises(FetchError, match="404"):
        fetch("fake")
    assert _leftovers(store) == []


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_server_fails_fast_with_instructions(fake_source, store, monkeypatch):
    port = _closed_port()
    monkeypatch.setenv("FSENGINE_FETCH_BASE_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(FetchError) as err:
        fetch("fake", timeout=2)
    message = str(err.value)
    assert "offline" in message and f"127.0.0.1:{port}/fake/blob.bin" in message
    assert str(store / "fake" / "blob.bin") in message and "sha256" in message
    assert "FSENGINE_DATA" in message
    assert _leftovers(store) == []


def test_public_addresses_without_mirror(monkeypatch):
    monkeypatch.delenv("FSENGINE_FETCH_BASE_URL", raising=False)
    files = {f.dest: f.address() for s in fetch_mod.SOURCES.values() for f in s.files}
    assert files["nltk_data/corpora/treebank.zip"] == (
        "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/treebank.zip")
    assert files["notmnist/t10k-labels-idx1-ubyte.gz"].startswith(
        "https://raw.githubusercontent.com/davidflanagan/notMNIST-to-MNIST/")
    assert set(fetch_mod.SOURCES) == {"notmnist", "conll2000", "treebank", "movie_reviews",
                                      "sentence_polarity", "subjectivity"}


def test_cli_fetch_list_info(fake_source, store, capsys):
    assert main(["datasets", "fetch", "fake"]) == 0
    assert str(store / "fake" / "blob.bin") in capsys.readouterr().out
    assert main(["datasets", "info", "fake"]) == 0
    assert "checksum ok" in capsys.readouterr().out
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert "letters" in out and "conll2000" in out and "not downloaded" in out
    assert main(["datasets", "fetch", "nope"]) == 2
    assert "Unknown download 'nope'" in capsys.readouterr().err
    assert main(["datasets", "info", "letters"]) == 0
    assert "n_per_class" in capsys.readouterr().out


def test_offline_message_lists_every_missing_file_of_the_dataset(store, monkeypatch):
    monkeypatch.setenv("FSENGINE_FETCH_BASE_URL", f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(FetchError) as err:
        fetch("notmnist", timeout=2)
    message = str(err.value)
    assert "t10k-images-idx3-ubyte.gz" in message and "The dataset also needs" in message
    assert str(store / "notmnist" / "t10k-labels-idx1-ubyte.gz") in message
    assert _leftovers(store) == []


def test_cli_info_finds_copies_under_fsengine_data(fake_source, store, tmp_path, monkeypatch, capsys):
    source, served = fake_source
    shared = tmp_path / "shared"
    (shared / "fake").mkdir(parents=True)
    (shared / "fake" / "blob.bin").write_bytes(served.read_bytes())
    monkeypatch.setenv("FSENGINE_DATA", str(shared))
    assert main(["datasets", "info", "fake"]) == 0
    out = capsys.readouterr().out
    assert f"present at {shared / 'fake' / 'blob.bin'} (checksum ok)" in out and "not downloaded" not in out
    (shared / "fake" / "blob.bin").write_bytes(b"tampered")
    assert main(["datasets", "info", "fake"]) == 0
    assert "CHECKSUM MISMATCH" in capsys.readouterr().out
