"""A feature, class or file name written as an HTML link never becomes a live link in a figure.

Plotly renders ``<a href=...>`` in tick labels, legend names, hover and annotation text as a link;
every figure the app shows goes through :func:`fsengine.plots.style.restyle`, which writes the
``<`` of link tags as ``&lt;``. The browser test draws the same figure raw and restyled in headless
Chromium: raw it holds live links (so the test can fail), restyled none, and the name reads as typed.
"""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from fsengine.plots.style import Style, restyle
from tests.browser_tools import launch_chromium, require_chromium

LINK = '<a href="https://example.invalid/x">feature</a>'
LINK_TAG = re.compile(r"(?i)<\s*/?\s*a\b")


def _figure() -> go.Figure:
    fig = go.Figure([go.Bar(x=[LINK, "b<br>c"], y=[1, 2], name=LINK.upper(), text=[LINK, "t"]),
                     go.Heatmap(z=np.ones((2, 2)), x=[LINK, "q"], y=["r", "s"], hovertext=[[LINK] * 2] * 2),
                     go.Scatter(x=np.arange(3), y=np.arange(3.0), text=LINK, mode="markers")])
    fig.update_xaxes(tickvals=[0], ticktext=[LINK])
    fig.add_annotation(text=f"note {LINK}<br>next line", x=0, y=0)
    return fig


def _texts(fig: go.Figure) -> list[str]:
    """Every string of the figure's JSON."""
    out = []

    def walk(node):
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(json.loads(fig.to_json()))
    return out


def test_link_tags_are_disarmed_and_other_markup_kept():
    raw = _figure()
    assert any(LINK_TAG.search(t) for t in _texts(raw))
    for fig in (restyle(_figure(), Style()), restyle(_figure().to_dict(), Style(lecture=True, dark=True))):
        assert not [t for t in _texts(fig) if LINK_TAG.search(t)]
        assert fig.data[0].x == ('&lt;a href="https://example.invalid/x">feature&lt;/a>', "b<br>c")
        assert fig.layout.annotations[0].text.endswith("<br>next line")  # our own markup stays
        numbers = json.loads(fig.to_json())["data"][2]["x"]
        assert numbers == json.loads(raw.to_json())["data"][2]["x"]     # numbers untouched


@pytest.mark.browser
def test_no_live_link_in_the_browser(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    counts = {}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for label, fig in (("raw", _figure()), ("restyled", restyle(_figure(), Style()))):
                path = tmp_path / f"{label}.html"
                fig.update_layout(showlegend=True).write_html(path, include_plotlyjs=True)
                page = browser.new_page()
                page.goto(path.as_uri())
                page.wait_for_selector(".xtick text")
                counts[label] = page.locator("svg a").count()
                if label == "restyled":
                    assert page.locator(".xtick text").first.text_content() == LINK
        finally:
            browser.close()
    assert counts["raw"] > 0 and counts["restyled"] == 0, counts


def test_written_figures_disarm_links(tmp_path):
    from fsengine.commands.method_args import write_figure

    text = write_figure(_figure(), tmp_path / "fig.html").read_text()
    assert "&lt;a href=" in text  # plotly's JSON writes '<' as \u003c: neither form of a live tag is left
    assert "\\u003ca href" not in text and '<a href="https://example.invalid' not in text
