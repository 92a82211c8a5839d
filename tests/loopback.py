"""Download fixtures: a loopback HTTP server (127.0.0.1, free port) serving a temporary folder,
an empty datasets folder, and a one-file download source published on that server."""

from __future__ import annotations

import hashlib
import http.server
import threading

import pytest

from fsengine.data import fetch as fetch_mod
from fsengine.data.fetch import RemoteFile, Source


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder; ``/truncated/...`` promises more bytes than it sends, then hangs up."""

    hits: list[str]

    def do_GET(self):
        self.hits.append(self.path)
        if self.path.startswith("/truncated/"):
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"x" * 1000)
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args):
        """Keep test output clean: the tests read ``hits``, not the server's request log."""


@pytest.fixture
def server(tmp_path):
    """(base URL, served folder, list of requested paths) for a server on 127.0.0.1."""
    root = tmp_path / "served"
    root.mkdir()
    hits: list[str] = []
    handler = type("Handler", (_Handler,), {"hits": hits})
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a, **k: handler(*a, directory=str(root), **k))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root, hits
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty datasets folder (FSENGINE_DATASETS), with FSENGINE_DATA unset."""
    out = tmp_path / "datasets"
    monkeypatch.setenv("FSENGINE_DATASETS", str(out))
    monkeypatch.delenv("FSENGINE_DATA", raising=False)
    return out


@pytest.fixture
def fake_source(monkeypatch, server):
    """A one-file source whose published bytes are known; returns (source, served file)."""
    base, root, _ = server
    payload = b"fsengine test payload\n" * 500
    served = root / "fake" / "blob.bin"
    served.parent.mkdir()
    served.write_bytes(payload)
    source = Source("fake", "test file", "none", (
        RemoteFile("fake/blob.bin", "https://example.invalid/blob.bin",
                   hashlib.sha256(payload).hexdigest(), len(payload)),))
    monkeypatch.setitem(fetch_mod.SOURCES, "fake", source)
    monkeypatch.setenv("FSENGINE_FETCH_BASE_URL", base)
    return source, served
