"""Links that carry a view (fsengine.app.links): a bound option widget starts from the option a link
names by its label (what the widget writes), its key or its label in another case, and the URL is
rewritten to the canonical form on the run that opens the link."""

from streamlit.testing.v1 import AppTest


def _script():
    import streamlit as st

    from fsengine.app.links import link_choice

    labels = {"light": "Light", "dark": "Dark"}
    link_choice("theme", list(labels), labels.get)
    st.radio("Theme", list(labels), format_func=labels.get, key="theme", bind="query-params")
    methods = {"power_ep": "Power EP", "ep": "EP", "em": "EM"}
    link_choice("methods", list(methods), methods.get, multiple=True)
    st.multiselect("Methods", list(methods), default=["power_ep"], format_func=methods.get, key="methods",
                   bind="query-params")
    views = ("Mutual information", "L1 path")
    link_choice("view", views, aliases={"l1": "L1 path"})
    st.radio("View", views, key="view", bind="query-params")


def _open(**params) -> AppTest:
    at = AppTest.from_function(_script, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_a_link_may_name_an_option_by_key_label_alias_or_in_another_case():
    at = _open(theme="dark", methods=["ep", "EM"], view="l1")
    assert not at.exception
    assert at.radio(key="theme").value == "dark"
    assert at.multiselect(key="methods").value == ["ep", "em"]
    assert at.radio(key="view").value == "L1 path"
    assert at.query_params["theme"] == "Dark" and at.query_params["view"] == "L1 path"  # canonical again
    assert at.query_params["methods"] == ["EP", "EM"]


def test_the_canonical_form_and_unknown_names_are_left_to_streamlit():
    at = _open(theme="Dark", view="Gini")
    assert not at.exception
    assert at.radio(key="theme").value == "dark" and at.radio(key="view").value == "Mutual information"
    assert "view" not in at.query_params  # an unknown name is dropped, as before


def test_after_the_opening_run_the_widget_owns_the_value():
    at = _open(theme="dark")
    at.radio(key="theme").set_value("light").run()
    assert at.radio(key="theme").value == "light"  # the link's form does not come back on a rerun
