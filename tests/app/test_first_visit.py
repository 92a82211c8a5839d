"""A first visit never shows an empty page (issue 32, item 6), without a browser:

- every page draws its title and teaching text before its first computation: a run in which that
  computation is still pending (the first progress bar ends the run) shows them, with the bar;
- while a page's view is still being imported, the shell shows the page's title, summary and a bar;
- a computation another session (or the server-start preparation) is running is followed, not
  repeated; if it fails, the page computes the result itself;
- the server-start preparation fills the stores the BIA page reads: the page then draws its
  figures with the fit, the check and the figure builders unavailable;
- a prepared figure is sent as exactly the element ``st.plotly_chart`` sends for the fresh figure.

Browser timings are in ``test_first_visit_browser.py`` (order only) and benchmarks/bench_first_visit.py.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st

from fsengine.app import compute, prepare, shell
from fsengine.app.registry import PAGES
from tests.conftest import app_test

#: pages whose default first run computes something (a progress bar shows before the figures)
COMPUTING = {"data", "bia", "gain", "bayes_factor", "classic", "rtm", "unified"}


def _main_types(at) -> list[str]:
    """The main area's element types in page order, nested blocks flattened."""
    out = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            kind = getattr(child, "type", "")
            out.append(kind)
            walk(child)

    walk(at.main)
    return out


@pytest.mark.parametrize("spec", PAGES, ids=[p.key for p in PAGES])
def test_title_and_teaching_come_before_the_first_computation(spec, monkeypatch):
    """The first progress bar of the run ends it: what a visitor sees while that computation runs."""
    @contextlib.contextmanager
    def pending(text):
        st.progress(0.0, text=text)
        st.stop()
        yield lambda *a: None

    monkeypatch.setattr(compute, "progress_bar", pending)
    monkeypatch.setattr(compute, "_STORES", {})  # a first visit: nothing computed yet
    st.cache_data.clear()
    st.cache_resource.clear()
    at = app_test(spec.script if not spec.default else None, timeout=120)
    assert not at.exception, at.exception
    assert at.title, f"{spec.key}: no title while its computation is pending"
    assert at.title[0].value == spec.shown_title  # the shell's stand-in shows the same title
    teaching = sum(len(m.value) for m in at.markdown)
    assert teaching > 150, f"{spec.key}: only {teaching} characters of text before the computation"
    types = _main_types(at)
    if spec.key in COMPUTING:
        assert "progress" in types, f"{spec.key}: no progress bar while computing ({types})"
        assert types.index("title") < types.index("progress")
    assert "plotly_chart" not in types or types.index("plotly_chart") > types.index("title")


@pytest.mark.parametrize("key", ["home", "bia", "benchmark"])
def test_while_the_view_loads_the_shell_shows_the_title_summary_and_a_bar(key, monkeypatch):
    spec = next(p for p in PAGES if p.key == key)
    monkeypatch.setattr(shell, "_imported", lambda name: name != spec.module)
    monkeypatch.setattr(shell, "_load_view", lambda spec, loading: st.stop())  # the import still runs
    at = app_test(None if spec.default else spec.script)
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == [spec.shown_title]
    assert [m.value for m in at.markdown if m.value == spec.summary]
    assert "progress" in _main_types(at)


def test_a_running_computation_is_followed_not_repeated_and_a_failed_one_is_redone():
    calls = []
    started, release = threading.Event(), threading.Event()

    def slow(report):
        calls.append("slow")
        report(0.5, "half way")
        started.set()
        release.wait(10)
        return 41

    worker = threading.Thread(target=lambda: compute.prepare("test_jobs", "k", slow))
    worker.start()
    started.wait(10)
    table = compute._store("test_jobs")
    assert table.running["k"].fraction == 0.5 and table.running["k"].message == "half way"
    got = []
    waiter = threading.Thread(target=lambda: got.append(compute.computed_once(
        "test_jobs", "k", lambda report: calls.append("again") or 0, text="...")))
    waiter.start()
    release.set()
    worker.join(10)
    waiter.join(10)
    assert got == [41] and calls == ["slow"]

    def broken(report):
        started.set()
        release.wait(10)
        raise RuntimeError("boom")

    started.clear()
    release.clear()
    failing = threading.Thread(target=lambda: pytest.raises(RuntimeError, compute.prepare, "test_jobs", "j", broken))
    failing.start()
    started.wait(10)
    redone = []
    waiter = threading.Thread(target=lambda: redone.append(compute.computed_once(
        "test_jobs", "j", lambda report: 7, text="...")))
    waiter.start()
    release.set()
    failing.join(10)
    waiter.join(10)
    assert redone == [7] and compute.stored("test_jobs", "j") == 7


def test_a_run_stopped_before_or_while_computing_leaves_no_job_behind(monkeypatch):
    """Streamlit stops a run (a rerun, a closed tab) by raising at its next element; a job left
    claimed would make every later visitor wait for ever."""
    class Stopped(BaseException):
        pass

    @contextlib.contextmanager
    def stopped_at_the_bar(text):
        raise Stopped
        yield

    def stopped_while_reporting(report):
        report(0.1)
        raise Stopped

    monkeypatch.setattr(compute, "progress_bar", stopped_at_the_bar)
    with pytest.raises(Stopped):
        compute.computed_once("test_stopped", "k", lambda report: 1, text="...")
    monkeypatch.undo()
    with pytest.raises(Stopped):
        compute.computed_once("test_stopped", "k", stopped_while_reporting, text="...")
    assert compute._store("test_stopped").running == {}
    assert compute.computed_once("test_stopped", "k", lambda report: 2, text="...") == 2


def _figures():
    """A figure with log axes, a legend and user text; an explorable with a slider."""
    from fsengine.plots.explorable import Step, explorable

    fig = go.Figure(go.Scatter(x=[1, 10, 100], y=[0.2, 0.5, 0.9], name="<a href='x'>feature</a>", mode="lines"))
    fig.update_xaxes(type="log")
    fig.update_layout(height=380, title="check")
    spec = {"data": [{"type": "bar", "x": ["a", "b"], "y": np.array([0.1, 0.2])}],
            "layout": {"height": 300, "images": [{"source": "", "x": 0, "y": 0}]}}
    steps = [Step(str(i), str(i), {0: {"y": np.array([i, i + 1.0])}}, {"images[0].x": i}) for i in range(3)]
    return [fig, explorable(spec, steps, active=1, prefix="i = ")]


def _draw_both(style_lecture: bool, style_dark: bool):
    import plotly.graph_objects as go
    import streamlit as st

    from fsengine.app.figures import PreparedFigure, draw_prepared
    from fsengine.plots.style import Style, restyle
    from tests.app.test_first_visit import _figures

    style = Style(lecture=style_lecture, dark=style_dark)
    for i, fig in enumerate(_figures()):
        st.plotly_chart(restyle(go.Figure(fig), style), theme=None, width="stretch", key=f"fresh{i}")
        draw_prepared(st, PreparedFigure(go.Figure(fig)), style, key=f"prepared{i}")


@pytest.mark.parametrize("lecture,dark", [(False, False), (True, True)])
def test_a_prepared_figure_is_the_element_plotly_chart_sends(lecture, dark):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_draw_both, args=(lecture, dark), default_timeout=30).run()
    assert not at.exception, at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 4
    for fresh, prepared in (charts[0:2], charts[2:4]):
        assert prepared.proto.spec == fresh.proto.spec  # the same bytes
        assert json.loads(prepared.proto.spec)["layout"]["font"]["size"] == (18 if lecture else 13)
        assert (prepared.proto.config, prepared.proto.theme, prepared.proto.form_id) == \
            (fresh.proto.config, fresh.proto.theme, fresh.proto.form_id)
        assert prepared.proto.id != fresh.proto.id  # keyed apart, each registered
    layouts = [c.proto for c in charts]
    assert all(p.spec for p in layouts)


def test_preparation_logs_a_failure_and_leaves_the_page_to_compute(monkeypatch, caplog):
    from fsengine.app.views import bia

    def broken(report):
        raise RuntimeError("no data today")

    monkeypatch.setattr(bia, "first_visit", broken)
    monkeypatch.setattr(prepare, "_order", lambda: [next(p for p in PAGES if p.key == "bia")])
    monkeypatch.setattr(prepare, "status", {})
    with caplog.at_level(logging.ERROR, logger="fsengine.app.prepare"):
        status = prepare.run()
    assert status["bia"] == "failed: no data today"
    assert "preparing the page bia failed; it computes on demand" in caplog.text
    assert prepare.start() is None  # FSENGINE_PREPARE=0 in the tests: no thread


@pytest.mark.slow
def test_the_server_start_preparation_fills_what_the_bia_page_reads(monkeypatch):
    """After :func:`prepare.run`, the BIA page's first visit computes nothing: the fit, the exact
    check, the screening and every figure builder are unavailable, and the page still draws its
    three figures, the explorable as prepared."""
    from fsengine.app.views import bia

    monkeypatch.setattr(compute, "_STORES", {})  # nothing left from other tests
    monkeypatch.setattr(prepare, "status", {})
    monkeypatch.setattr(prepare, "_order", lambda: [p for p in PAGES if p.key in ("bia", "home")])
    assert prepare.run() == {"dataset": "prepared", "bia": "prepared", "home": "imported"}

    def unavailable(*args, **kwargs):
        raise AssertionError("computed again although the preparation stored it")

    for name in ("bia_explorable", "validation_explorable", "agreement_figure", "check_subproblem", "csv_bytes"):
        monkeypatch.setattr(bia, name, unavailable)
    monkeypatch.setattr(bia.study, "run_bia_path", unavailable)
    monkeypatch.setattr(bia.study, "screening_comparison", unavailable)
    monkeypatch.setattr("fsengine.app.picker.load_dataset", unavailable)
    at = app_test("pages/bia.py")
    assert not at.exception, at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 3
    assert json.loads(charts[0].proto.spec)["layout"]["sliders"][0]["steps"]


def test_a_forked_worker_s_results_reach_this_process_s_stores_and_a_waiting_page_follows_them(monkeypatch):
    """``prepare.start(process=True)``: the worker computes in its own process; this process shows
    each of its jobs as running, with its progress, and then stores its result (a page asking
    meanwhile waits for it instead of computing it); the worker's status arrives at the end."""
    import os

    monkeypatch.setenv(prepare.ENV, "1")
    monkeypatch.setattr(prepare, "_thread", None)
    monkeypatch.setattr(prepare, "status", {})
    monkeypatch.setattr(prepare, "_order", lambda: [p for p in PAGES if p.key == "home"])
    monkeypatch.setattr(compute, "_STORES", {})
    parent = os.getpid()
    gate = __import__("multiprocessing").get_context("fork").Event()

    def worker_run(only=None):  # what the forked worker runs instead of the real preparation
        def slow(report):
            report(0.5, "half way")
            gate.wait(20)  # until this process has seen the job running
            return ("computed in", os.getpid())

        compute.prepare("test_remote", "k", slow)
        with contextlib.suppress(RuntimeError):
            compute.prepare("test_remote", "broken", lambda report: (_ for _ in ()).throw(RuntimeError("boom")))
        return {"test": "prepared"}

    monkeypatch.setattr(prepare, "run", worker_run)
    thread = prepare.start(process=True)
    table = compute._store("test_remote")
    for _ in range(400):
        job = table.running.get("k")
        if job is not None and job.fraction == 0.5:
            break
        threading.Event().wait(0.025)
    assert job.message == "half way"
    got = []
    waiter = threading.Thread(target=lambda: got.append(compute.computed_once(
        "test_remote", "k", lambda report: ("computed in", parent), text="...")))
    waiter.start()
    gate.set()
    waiter.join(20)
    thread.join(20)
    assert got and got[0][0] == "computed in" and got[0][1] != parent  # the worker's result, not recomputed here
    assert compute.stored("test_remote", "k") == got[0]
    assert "broken" not in table.items and not table.running  # a failed job is no job here
    assert prepare.status == {"test": "prepared"}
    assert compute.mirror is None  # only the worker tells


def test_the_worker_tells_a_result_after_the_start_of_the_next_job():
    """A page that got one result asks for the next at once: the server must already show the
    worker's next job as running, or the page computes it a second time."""
    sent = []
    tell = prepare._Teller(type("Pipe", (), {"send": lambda self, event: sent.append(event[:2])})())
    tell("start", "a")
    tell("progress", "a")
    tell("done", "a")
    assert sent == [("start", "a"), ("progress", "a")]  # held
    tell("start", "b")
    tell("done", "b")
    tell("progress", "c")  # any other event sends a held result first
    tell("done", "c")
    tell("finished", {})
    assert sent[2:] == [("start", "b"), ("done", "a"), ("done", "b"), ("progress", "c"), ("done", "c"),
                        ("finished", {})]


def test_a_job_of_a_worker_that_dies_fails_and_the_waiting_page_computes_it():
    events = [("start", "test_dead", "k", 8), ("progress", "test_dead", "k", 0.3, "a third")]
    compute.follow(iter(events))
    assert "k" not in compute._store("test_dead").running
    assert compute.computed_once("test_dead", "k", lambda report: 5, text="...") == 5


def test_a_waiting_page_keeps_the_preparation_going_while_a_browser_loads(monkeypatch):
    """A browser fetching the bundle makes background work step aside, unless a page waits for it
    (that visitor's page has arrived and its figures wait for the work)."""
    clock = [100.0]
    monkeypatch.setattr(compute.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(compute.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    compute.browser_loading()
    with compute.serving(), compute._waiting():
        compute.yield_to_pages()
        assert clock[0] == 100.0
    compute.yield_to_pages()
    assert clock[0] - 100.0 >= compute.BROWSER_LOADING_S


def test_a_prepared_figure_travels_between_processes_with_its_json():
    import pickle

    from fsengine.app.figures import PreparedFigure
    from fsengine.plots.style import Style

    fig = PreparedFigure(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    spec = fig.spec(Style())
    copy = pickle.loads(pickle.dumps(fig))
    assert copy.figure == fig.figure and copy._specs == {Style(): spec}
    assert copy.spec(Style(dark=True)) == fig.spec(Style(dark=True))
