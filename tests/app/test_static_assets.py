"""Streamlit's browser bundle served from memory (:mod:`fsengine.app.static_assets`) answers as
Streamlit's own static handler does, and ``fsengine app`` serves through it (issue 32, item 6)."""

from __future__ import annotations

import asyncio

import pytest

from fsengine.app import serve
from fsengine.app.options import parse_flags, streamlit_flags
from fsengine.app.static_assets import BASE_URL_SCRIPT, StaticBundle, bundle_dir, page_html, page_paths


def _call(app, path: str, method: str = "GET") -> list[dict]:
    """The ASGI messages ``app`` sends for one HTTP request."""
    sent, requested = [], []

    async def receive():  # the request, then no disconnect until the response is sent
        if requested:
            await asyncio.Event().wait()
        requested.append(True)
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": "",
             "query_string": b"", "headers": [], "scheme": "http", "server": ("127.0.0.1", 80),
             "http_version": "1.1"}
    asyncio.run(app(scope, receive, send))
    return sent


def _response(messages: list[dict]) -> tuple[int, dict, bytes]:
    start = next(m for m in messages if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body


def _streamlit_static():
    from streamlit.web.server.starlette.starlette_static_routes import create_streamlit_static_handler

    return create_streamlit_static_handler(str(bundle_dir()), None)


def _bundle_samples() -> list[str]:
    """A script, the largest script (the plotly module), a style sheet and a font of the bundle."""
    files = StaticBundle(None).files
    scripts = sorted((p for p in files if p.endswith(".js")), key=lambda p: files[p].stat().st_size)
    return [scripts[0], scripts[-1], next(p for p in files if p.endswith(".css")),
            next(p for p in files if p.endswith(".woff2"))]


@pytest.mark.parametrize("path", _bundle_samples())
def test_a_bundle_file_is_the_bytes_and_headers_streamlit_sends(path):
    calls = []

    async def streamlit_app(scope, receive, send):  # must not be asked for a bundle file
        calls.append(scope["path"])

    bundle = StaticBundle(streamlit_app)
    ours = _response(_call(bundle, path))
    theirs = _response(_call(_streamlit_static(), path))
    assert calls == []
    assert ours[0] == theirs[0] == 200
    assert ours[2] == theirs[2] and len(ours[2]) > 0
    for header in ("content-type", "content-length", "cache-control"):
        assert ours[1][header] == theirs[1][header], header
    status, headers, body = _response(_call(bundle, path, method="HEAD"))
    assert (status, body, headers["content-length"]) == (200, b"", theirs[1]["content-length"])
    assert bundle.response(path) is bundle.response(path)  # read once


@pytest.mark.parametrize("path", ["/", "/bia/", "/bia/x", "/nope", "/static/js/missing.js", "/static/../index.html",
                                  "/static/js/../../index.html", "/_stcore/health", "/static"])
def test_anything_else_goes_to_streamlit(path):
    calls = []

    async def streamlit_app(scope, receive, send):
        calls.append(scope["path"])

    _call(StaticBundle(streamlit_app), path)
    _call(StaticBundle(streamlit_app), "/static/js/" + _bundle_samples()[0].rsplit("/", 1)[1], method="POST")
    assert calls[0] == path and len(calls) == 2


@pytest.mark.parametrize("path", sorted(page_paths()))
def test_a_page_url_is_streamlits_html_with_the_servers_base_url(path):
    calls = []

    async def streamlit_app(scope, receive, send):  # must not be asked for a page's HTML
        calls.append(scope["path"])

    bundle = StaticBundle(streamlit_app)
    ours = _response(_call(bundle, path))
    theirs = _response(_call(_streamlit_static(), path))  # Streamlit's fallback: its index.html
    assert calls == [] and ours[0] == theirs[0] == 200
    assert ours[2] == page_html(theirs[2]) != theirs[2]
    assert ours[2].replace(BASE_URL_SCRIPT.encode() + b"\n    ", b"", 1) == theirs[2]
    assert ours[2].index(BASE_URL_SCRIPT.encode()) < ours[2].index(b'<script type="module"')  # before Streamlit's code
    for header in ("content-type", "cache-control"):
        assert ours[1][header] == theirs[1][header], header
    assert int(ours[1]["content-length"]) == len(ours[2])
    status, _, body = _response(_call(bundle, path, method="HEAD"))
    assert (status, body) == (200, b"")


def test_every_page_but_home_has_its_url_served():
    from fsengine.app.registry import PAGES

    assert page_paths() == {f"/{spec.key}" for spec in PAGES if not spec.default} and "/" not in page_paths()


def test_fsengine_app_serves_through_the_bundle_middleware_with_typed_options(monkeypatch, tmp_path):
    from fsengine.app import prepare
    from fsengine.app.options import streamlit_flags

    ran = {}

    def run(app, *, config):
        ran.update(script=app.script_path, middleware=[m.cls for m in app._user_middleware], config=config)

    import streamlit as st

    monkeypatch.setattr(st.App, "run", run)
    monkeypatch.setattr(prepare, "preload", lambda: ran.setdefault("order", []).append("preload"))
    monkeypatch.setattr(prepare, "start", lambda **kw: ran.setdefault("order", []).append(("start", kw)))
    monkeypatch.setattr("sys.argv", ["serve"])
    from streamlit.runtime.pages_manager import PagesManager

    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    entry = tmp_path / "app.py"
    entry.write_text("import streamlit as st\n")
    serve.main([str(entry), *streamlit_flags(port=8765, host="127.0.0.1", max_upload_mb=12)])
    assert ran["script"] == entry and ran["middleware"] == [StaticBundle]
    assert ran["order"] == ["preload", ("start", {"process": True})]  # the worker forked before any thread
    assert PagesManager.uses_pages_directory is False  # a first request for /bia runs the entry, not pages/bia.py
    assert ran["config"]["server.port"] == 8765 and ran["config"]["server.maxUploadSize"] == 12
    assert ran["config"]["server.headless"] is True and ran["config"]["runner.postScriptGC"] is False
    assert ran["config"]["server.fileWatcherType"] == "none"


@pytest.mark.parametrize("flags", [["--server.port"], ["server.port", "1"], ["--server.nope", "1"]])
def test_malformed_flags_are_refused(flags):
    with pytest.raises((ValueError, KeyError)):
        parse_flags(flags)


def test_a_bundle_request_makes_the_preparation_step_aside(monkeypatch):
    """A fresh browser's requests for the bundle mark it loading (anything else does not), and
    background work between its steps sleeps until BROWSER_LOADING_S after the last of them."""
    from fsengine.app import compute, static_assets

    marked = []
    monkeypatch.setattr(static_assets, "browser_loading", lambda: marked.append(True))

    reached = []

    async def streamlit_app(scope, receive, send):
        reached.append(scope["path"])  # Streamlit's own handling is not what this test looks at

    _call(StaticBundle(streamlit_app), "/")
    _call(StaticBundle(streamlit_app), "/bia")  # a page's HTML: the bundle comes next
    assert reached == ["/"] and not marked
    _call(StaticBundle(streamlit_app), _bundle_samples()[0])
    assert marked == [True]

    clock = [100.0]
    monkeypatch.setattr(compute.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(compute.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    compute.browser_loading()
    compute.yield_to_pages()
    assert clock[0] - 100.0 >= compute.BROWSER_LOADING_S
    before = clock[0]
    compute.yield_to_pages()  # nothing loading: no sleep
    assert clock[0] == before


def test_parse_flags_inverts_streamlit_flags():
    from fsengine.app.options import COMMAND_LINE, OPTIONS

    parsed = parse_flags(streamlit_flags(port=8501, host="0.0.0.0", max_upload_mb=200))
    assert parsed == {**OPTIONS, **dict(zip(COMMAND_LINE, (8501, "0.0.0.0", 200), strict=True))}
    assert all(type(parsed[name]) is type(value) for name, value in OPTIONS.items())


def test_the_repl_check_streamlit_makes_at_a_first_element_is_skipped(monkeypatch):
    """Streamlit's check (``inspect.stack()``, 0.1-0.2 s with the engine imported) runs at a process's
    first element unless the flag :func:`fsengine.app.shell.skip_repl_check` sets is set."""
    import streamlit.delta_generator as delta_generator
    from streamlit import env_util

    from fsengine.app.shell import skip_repl_check

    checked = []
    monkeypatch.setattr(env_util, "is_repl", lambda: checked.append(True) or False)
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    delta_generator._maybe_print_use_warning()
    assert checked == [True]  # the flag is what stands between a first element and the check
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    skip_repl_check()
    delta_generator._maybe_print_use_warning()
    assert checked == [True]
