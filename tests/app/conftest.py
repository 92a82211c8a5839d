"""The browser tests' app server and Chromium, one of each per test module."""

import pytest

from tests.browser_tools import chromium_browser, healthy_app


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """A fresh ``streamlit run app.py`` on a free loopback port; stopped after the module."""
    with healthy_app(tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="module")
def browser(app_url):
    with chromium_browser() as chromium:
        yield chromium
