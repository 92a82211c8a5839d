"""Feature Selection Explorer: Streamlit entry point (``make app`` serves it on 127.0.0.1:8501)."""

import streamlit as st

from fsengine.ui.picker import dataset_picker

st.set_page_config(page_title="Feature Selection Explorer", page_icon=":mag:", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/rtm.py", title="Relevance Tagging Machine", icon=":material/sell:"),
]

navigation = st.navigation(PAGES)
with st.sidebar:
    st.subheader("Dataset")
    dataset_picker(st.sidebar)
navigation.run()
