"""Home: what the explorer is for, the methods, and the chosen dataset."""

import streamlit as st


from fsengine.ui.picker import current_dataset, current_selection
from fsengine.ui.shell import require_shell

require_shell()

st.title("Feature Selection Explorer")
st.markdown(
    "Explore, compare and teach feature-selection methods side by side: Bayesian posteriors over "
    "feature subsets, greedy maximum-entropy gain selection, information criteria and sparse "
    "Bayesian tagging. Pick a dataset in the sidebar; every page uses it."
)

METHODS = [
    ("Bayesian Ising Approximation", "Fisher & Mehta",
     "posterior relevance of each feature as an Ising magnetization, traced along the prior strength Lambda"),
    ("Bayes-factor selection", "Daume III",
     "Laplace-approximated Bayes factors for adding maxent features; stops by itself"),
    ("IFS and SGC", "Zhou, Wu, Weng & Schmidt",
     "greedy likelihood-gain feature selection for conditional maxent, with selective gain computation"),
    ("Classic criteria", "Jaakkola",
     "mutual information, MDL subset selection, L1 regularisation paths and boosted stumps"),
    ("Relevance Tagging Machine", "Molchanov, Kondrashkin & Vetrov",
     "sparse Bayesian tagging trained by Power EP, EP and EM with ARD priors"),
]
st.subheader("Methods")
st.markdown("\n".join(f"- **{name}** ({who}): {what}." for name, who, what in METHODS))

st.subheader("Current dataset")
key, params = current_selection()
ds = current_dataset()
cols = st.columns(4)
cols[0].metric("Samples", f"{ds.n_samples:,}")
cols[1].metric("Features", f"{ds.n_features:,}")
cols[2].metric("Classes", len(ds.classes) if ds.task == "classification" else "-")
cols[3].metric("Storage", "sparse" if ds.is_sparse else "dense")
st.caption(f"Source: {ds.provenance.source}. Licence: {ds.provenance.licence}.")
