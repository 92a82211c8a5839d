"""AppTest: the shell, the shared picker (including uploads) and the Home page."""

from __future__ import annotations

import pandas as pd

from fsengine.app.registry import PAGES as APP_PAGES
from fsengine.app.safe_text import md_escape
from fsengine.data.notmnist import real_notmnist_available
from tests.conftest import PROJECT_ROOT, app_test, require_file_uploader


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


def test_default_is_real_notmnist_when_present_else_generated_letters():
    at = app_test()
    expected = "notmnist" if real_notmnist_available() else "letters"
    assert at.sidebar.selectbox(key="picker_key").value == expected
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Samples"] == "1,000" and metrics["Features"] == "784" and metrics["Classes"] == "2"
    generated_note = [i.value for i in at.info if "rendered from the fonts" in i.value]
    assert bool(generated_note) == (expected == "letters")


def test_home_links_every_listed_page_with_its_summary():
    at = app_test()
    pages = [p for p in APP_PAGES if not p.default]
    assert [p.script for p in pages][:1] == ["pages/data.py"]
    main_links = [link.proto.label for link in at.main.get("page_link")]
    for page in pages:
        assert page.title in main_links
        assert any(page.summary in md.value for md in at.markdown), page.summary
    assert not [link for link in main_links if link.lower().startswith("home")]


def test_sidebar_navigation_lists_every_page_in_order():
    at = app_test()
    nav = [link.proto.label for link in at.sidebar.get("page_link")]
    assert nav == [p.title for p in APP_PAGES]
    assert not at.exception


def test_every_checkout_page_script_names_its_registered_view():
    """pages/KEY.py exists for every registered page, and nothing else sits in pages/."""
    scripts = sorted(p.name for p in (PROJECT_ROOT / "pages").glob("*.py"))
    assert scripts == sorted(f"{p.key}.py" for p in APP_PAGES)
    for spec in APP_PAGES:
        assert f'show_page("{spec.key}")' in (PROJECT_ROOT / spec.script).read_text()


def test_upload_choice_validates_and_is_shared_across_pages():
    table = pd.DataFrame({"x1": range(12), "x2": [v % 3 for v in range(12)], "note": ["a"] * 12,
                          "y": ["no", "yes"] * 6})
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("upload").run()
    assert [i.value for i in at.info if "Choose a CSV or Parquet file" in i.value]
    require_file_uploader(at)
    at.sidebar.file_uploader[0].set_value(("mine.csv", table.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception
    assert at.sidebar.selectbox(key="upload_target").value == "y"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"Samples": "12", "Features": "2", "Classes": "2", "Storage": "dense"}
    warning = " ".join(w.value for w in at.sidebar.warning)
    assert f"- note: {md_escape('non-numeric')}" in warning
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Samples"] == "12"
    assert any(md_escape("excluded column 'note': non-numeric") in md.value for md in at.markdown)
    # a target with one class: the specific error is shown on the page, no traceback
    at.sidebar.selectbox(key="upload_target").set_value("note").run()
    assert not at.exception
    assert any(md_escape("single class ('a')") in e.value for e in at.error)


def test_compressed_table_and_svmlight_uploads_work_on_every_page():
    import gzip
    import io

    import numpy as np
    import scipy.sparse as sp
    from sklearn.datasets import dump_svmlight_file

    table = pd.DataFrame({"x1": range(12), "x2": [v % 3 for v in range(12)], "y": ["no", "yes"] * 6})
    at = app_test()
    at.sidebar.selectbox(key="picker_key").set_value("upload").run()
    require_file_uploader(at)
    at.sidebar.file_uploader[0].set_value(("mine.csv.gz", gzip.compress(table.to_csv(index=False).encode()),
                                           "application/gzip")).run()
    assert not at.exception and not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert at.sidebar.selectbox(key="upload_target").value == "y"
    assert {m.label: m.value for m in at.metric} == {"Samples": "12", "Features": "2", "Classes": "2",
                                                     "Storage": "dense"}
    X = sp.random(40, 7, density=0.5, random_state=0, format="csr")
    y = np.where(np.arange(40) % 2, 1, -1)
    buffer = io.BytesIO()
    dump_svmlight_file(X, y, buffer)
    at.sidebar.file_uploader[0].set_value(("news.svm", buffer.getvalue(), "application/octet-stream")).run()
    assert not at.exception and not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert not [s for s in at.sidebar.selectbox if s.key == "upload_target"]   # the labels are in the file
    assert {m.label: m.value for m in at.metric} == {"Samples": "40", "Features": "7", "Classes": "2",
                                                     "Storage": "sparse"}
    at.switch_page("pages/data.py").run()
    assert not at.exception and {m.label: m.value for m in at.metric}["Samples"] == "40"
    at.sidebar.file_uploader[0].set_value(("broken.csv.gz", b"not gzip", "application/gzip")).run()
    assert not at.exception
    assert [e.value for e in at.sidebar.error] == [md_escape("broken.csv.gz is not a readable .gz file (BadGzipFile: "
                                                             "Not a gzipped file (b'no')).")]
