"""AppTest: the shell, the shared picker and the home page."""

from tests.conftest import app_test


def test_home_shows_picked_dataset_and_picker_drives_it():
    at = app_test()
    assert not at.exception, at.exception
    at.sidebar.selectbox(key="picker_key").set_value("wine").run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"Samples": "178", "Features": "13", "Classes": "3", "Storage": "dense"}
    # the choice survives further reruns (shared state lives in the entry point)
    at.run()
    assert at.sidebar.selectbox(key="picker_key").value == "wine"
