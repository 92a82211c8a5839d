"""The browser tests' app server, one per test process, and Chromium, one per test module.

One server serves every module that asks for ``app_url`` (``test_browser``, ``test_explorables``,
``test_deep_links``, ``test_benchmark_browser``; ``make test``'s two workers run them as one unit,
``tests.conftest.SCHEDULED_TOGETHER``, so they share one server): a page's fits are computed once
for the server (``fsengine.app.compute.computed_once``), so
the second module to open the Gain or Bayes-factor page gets them at once instead of fitting again
(issue 32, item 7). Every test opens its own browser context, so no session state is shared. Tests
that need a server of their own (a fresh start, a memory cap) start one (``test_first_visit_browser``,
``test_upload_browser``, the first-visit test of ``test_browser``). Chromium stays per module: one
process runs one Playwright sync instance at a time, and modules that start their own (the lessons,
the lecture pack, the wheel, the links) would fail beside a session-long one.
"""

import pytest

from tests.browser_tools import chromium_browser, healthy_app


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """A fresh ``streamlit run app.py`` on a free loopback port; stopped after the session."""
    with healthy_app(tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="module")
def browser(app_url):
    with chromium_browser() as chromium:
        yield chromium
