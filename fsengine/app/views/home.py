"""Home: what the explorer is for, its pages and methods, and the chosen dataset."""

import streamlit as st

from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.registry import PAGES
from fsengine.app.safe_text import md_escape
from fsengine.app.shell import page_link


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Feature Selection Explorer")
    st.markdown(
        "Which of many features actually matter? This explorer runs feature-selection methods from five "
        "papers on the same data, side by side, and shows *why* each method picks what it picks: "
        "posteriors, gains, evidence and paths, next to exact references. Pick a dataset in the "
        "sidebar; every page uses it."
    )

    st.subheader("Pages")
    for page in PAGES:
        if page.default:
            continue
        cols = st.columns([2, 5], vertical_alignment="center")
        page_link(page.key, container=cols[0])
        cols[1].markdown(page.summary)

    METHODS = [
        ("Bayesian Ising Approximation", "Fisher & Mehta",
         "posterior relevance of each feature as an Ising magnetization, traced along the prior strength"),
        ("Bayes-factor selection", "Daume III",
         "Laplace-approximated Bayes factors decide whether to add a maxent feature, so selection stops by itself"),
        ("IFS and SGC", "Zhou, Wu, Weng & Schmidt",
         "greedy likelihood-gain selection for conditional maxent; SGC recomputes only the gains that can win"),
        ("Classic criteria", "Jaakkola",
         "mutual information ranking, MDL subset selection, L1 regularisation paths and boosted stumps"),
        ("Relevance Tagging Machine", "Molchanov, Kondrashkin & Vetrov",
         "sparse Bayesian tagging with Beta ARD priors, trained by Power EP, EP or EM"),
    ]
    st.subheader("Methods from the source papers")
    st.markdown("\n".join(f"- **{name}** ({who}): {what}." for name, who, what in METHODS))

    st.subheader("Current dataset")
    key, params = current_selection()
    ds = current_dataset()
    cols = st.columns(4)
    cols[0].metric("Samples", f"{ds.n_samples:,}")
    cols[1].metric("Features", f"{ds.n_features:,}")
    cols[2].metric("Classes", len(ds.classes) if ds.task == "classification" else "-")
    cols[3].metric("Storage", "sparse" if ds.is_sparse else "dense")
    st.caption(f"Source: {md_escape(ds.provenance.source)}. Licence: {md_escape(ds.provenance.licence)}.")
    if key == "letters":
        st.info("Real notMNIST was not found, so these letters are rendered from the fonts on this machine "
                f"({ds.provenance.counts.get('faces', 0)} faces). Download the real sample on the Data page.")
    page_link("data", label="Look at the data: samples, class balance, feature statistics",
              icon=":material/table_chart:")
