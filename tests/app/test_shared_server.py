"""The browser modules that share the app server run on one worker.

``make test`` schedules the files of ``tests.conftest.SCHEDULED_TOGETHER["app-server"]`` as one unit, so
one app server computes each page's fits once for all of them. A module that asks for ``app_url`` and is
not listed (checked over the modules collected with this test) would get a server of its own on the
other worker, which fits every page it opens again.
"""

from tests.conftest import APP_SERVER_MODULES, PROJECT_ROOT, SCHEDULED_TOGETHER


def test_every_module_on_the_shared_app_server_is_scheduled_with_the_others(request):
    listed = set(SCHEDULED_TOGETHER["app-server"])
    users = request.config.stash[APP_SERVER_MODULES]  # every collected module's, whatever -k or -m select
    assert users <= listed, f"on the shared app server but not in SCHEDULED_TOGETHER: {sorted(users - listed)}"
    assert all((PROJECT_ROOT / path).is_file() for path in listed), sorted(listed)
