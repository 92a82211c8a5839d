"""Feature Selection Explorer: Streamlit entry point (``make app`` serves it on 127.0.0.1:8501)."""

import streamlit as st

from fsengine.ui.picker import dataset_picker

st.set_page_config(page_title="Feature Selection Explorer", page_icon=":mag:", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/data.py", title="Data", icon=":material/table_chart:"),
    st.Page("pages/bia.py", title="BIA: Lambda paths", icon=":material/timeline:"),
    st.Page("pages/sgc_ifs.py", title="SGC vs IFS", icon=":material/speed:"),
    st.Page("pages/bayes_factor.py", title="Bayes-factor selection", icon=":material/balance:"),
    st.Page("pages/classic.py", title="Classic criteria", icon=":material/leaderboard:"),
    st.Page("pages/rtm.py", title="Relevance Tagging Machine", icon=":material/sell:"),
    st.Page("pages/compare.py", title="Compare methods", icon=":material/compare_arrows:"),
]

navigation = st.navigation(PAGES)
with st.sidebar:
    st.subheader("Dataset")
    dataset_picker(st.sidebar)
navigation.run()
