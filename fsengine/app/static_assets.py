"""Streamlit's own browser bundle served from memory: a fresh browser costs the server little.

A browser that opens a page for the first time fetches Streamlit's scripts, styles and fonts: about
110 files for a page without figures and 130 (8.8 MB) for the BIA page, whose plotly module alone is
4.7 MB. Streamlit serves each from disk through its middleware stack, with the file's lookup,
opening, reading and closing each handed to a worker thread: about 1.2 ms of server CPU per file,
0.15-0.2 s per fresh browser, most of a cached page's cost per view; and while a computation holds
the interpreter (the server-start preparation, another visitor's fit), every hand-off waits its
turn, so a first visit's scripts arrive late and the page stays empty (benchmarks/RESULTS.md,
issue 32).

:class:`StaticBundle` is an ASGI middleware that answers ``GET``/``HEAD /static/...`` for the files of
Streamlit's bundle from memory, each file read once for the server, with the headers Streamlit sends
(content type, length, ``Cache-Control``: the bundle's file names carry a content hash, so they are
immutable): two messages per file and no thread; and while a browser fetches them the server-start
preparation steps aside (:func:`fsengine.app.compute.yield_to_pages`). Any other request, and any
path that is not a file of the bundle, goes to Streamlit unchanged. :mod:`fsengine.app.serve` serves the app through it.

It also answers ``GET``/``HEAD`` of a page's own URL (``/bia``, one segment per page of the app) with
the page Streamlit would send there (its ``index.html``, ``no-cache``) plus one line that tells
Streamlit's browser code where the server is (``window.__streamlit.BACKEND_BASE_URL``: the page's
URL without its last segment, so a path prefix a proxy adds is kept). Without it, the browser asks
``/bia/_stcore/health`` first, gets Streamlit's 404, waits its retry delay and only then asks
``/_stcore/health``: about 0.15 s before the first visit to a page's URL even opens its session
(benchmarks/RESULTS.md, issue 32 item 6). A page that already sets ``window.__streamlit`` (a host
embedding the app) keeps its own.
"""

from __future__ import annotations

import mimetypes
import os
import threading
from pathlib import Path

from fsengine.app.compute import browser_loading

#: URL prefix of Streamlit's bundle (its files live in ``<static dir>/static``)
PREFIX = "/static/"
#: as Streamlit's static handler: hashed bundle files are cached by browsers for a year
CACHE_CONTROL = b"public, immutable, max-age=31536000"
#: as Streamlit's static handler: its HTML is revalidated on every visit
PAGE_CACHE_CONTROL = b"no-cache"
#: inserted before the page's first script: the server's base URL is the page's URL without its last segment
BASE_URL_SCRIPT = (
    "<script>window.__streamlit = window.__streamlit || {BACKEND_BASE_URL: "
    "location.origin + location.pathname.replace(/[^/]*\\/*$/, '')};</script>"
)


def bundle_dir() -> Path:
    """The folder Streamlit serves its bundle from (``file_util.get_static_dir()``)."""
    from streamlit import file_util

    return Path(file_util.get_static_dir())


def bundle_files(root: Path) -> dict[str, Path]:
    """URL path (``/static/js/x.js``) -> file, for every file under ``root/static``: the only
    paths served from memory (a request for anything else, e.g. ``../``, is not looked up on disk)."""
    files = {}
    base = root / "static"
    for folder, _, names in os.walk(base):
        for name in names:
            path = Path(folder) / name
            files[PREFIX + path.relative_to(base).as_posix()] = path
    return files


def page_paths() -> frozenset[str]:
    """The URL path of every page of the app but the home page (``/bia``, ...)."""
    from fsengine.app.registry import PAGES

    return frozenset(f"/{spec.url_path}" for spec in PAGES if spec.url_path)


def page_html(index: bytes) -> bytes:
    """Streamlit's ``index.html`` with :data:`BASE_URL_SCRIPT` before its first script."""
    head = index.index(b"<script")
    return index[:head] + BASE_URL_SCRIPT.encode() + b"\n    " + index[head:]


class StaticBundle:
    """ASGI middleware: Streamlit's bundle (``/static/...``) from memory, a page's URL (``pages``, by
    default :func:`page_paths`) as its HTML with the server's base URL, everything else to ``app``."""

    def __init__(self, app, root: Path | None = None, pages: frozenset[str] | None = None) -> None:
        self.app = app
        root = root or bundle_dir()
        self.files = bundle_files(root)
        self.index = root / "index.html"
        self.pages = page_paths() if pages is None else pages
        self._responses: dict[str, tuple[list, bytes]] = {}
        self._lock = threading.Lock()

    def response(self, path: str) -> tuple[list, bytes] | None:
        """(headers, body) of the bundle file or page at URL ``path``, read once; None for any other path."""
        cached = self._responses.get(path)
        if cached is not None or (path not in self.files and path not in self.pages):
            return cached
        with self._lock:
            if path not in self._responses:
                self._responses[path] = self._page() if path in self.pages else self._file(path)
            return self._responses[path]

    def _file(self, path: str) -> tuple[list, bytes]:
        body = self.files[path].read_bytes()
        kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if kind.startswith("text/"):  # as Starlette's FileResponse
            kind += "; charset=utf-8"
        return _headers(kind, body, CACHE_CONTROL), body

    def _page(self) -> tuple[list, bytes]:
        body = page_html(self.index.read_bytes())
        return _headers("text/html; charset=utf-8", body, PAGE_CACHE_CONTROL), body

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and not scope.get("root_path"):
            found = self.response(scope["path"])
            if found is not None:
                if scope["path"] in self.files:
                    browser_loading()  # the server-start preparation steps aside meanwhile
                headers, body = found
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": body if scope["method"] == "GET" else b""})
                return
        await self.app(scope, receive, send)


def _headers(kind: str, body: bytes, cache_control: bytes) -> list:
    return [(b"content-type", kind.encode()), (b"content-length", str(len(body)).encode()),
            (b"cache-control", cache_control)]
