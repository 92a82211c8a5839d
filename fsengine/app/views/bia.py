"""BIA Lambda paths: posterior relevance of every feature along the prior strength
(Fisher & Mehta's Bayesian Ising Approximation)."""

import numpy as np
import streamlit as st

from fsengine.app.display import show_figure
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.widgets import class_pair
from fsengine.methods.bia_dataset import run_bia_path, sample_rows
from fsengine.methods.bia_validation import (
    MAX_CHECK_FEATURES,
    MAX_LAPLACE_CHECK_FEATURES,
    check_subproblem,
    pick_features,
)
from fsengine.plots.bia import (
    path_figure,
    posterior_bars,
    posterior_heatmap,
    samples_with_top_pixels,
    top_features,
    validation_figure,
)
from fsengine.validation import constant_columns

#: lines the path plot draws at most (WebGL stays fluid up to a few thousand lines)
MAX_PATH_LINES = 3000


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("BIA: Λ paths")
    st.markdown(
        "The **Bayesian Ising Approximation** (Fisher & Mehta) asks, for every feature, how probable it "
        "is that the feature belongs in a generalised linear model, averaging over all $2^p$ subsets. "
        "With a strong Gaussian prior $\\theta_j \\sim N(0, 1/\\Lambda)$ on standardised features the "
        "log-evidence of a subset becomes the energy of an Ising model whose spins $s_j=\\pm1$ say "
        "*in* or *out*; mean-field magnetizations give the posteriors. Decreasing $\\Lambda$ traces a "
        "feature-selection path, like a LASSO path."
    )
    with st.expander("The method in four equations", expanded=False):
        st.markdown("Evidence of subset $S$ with gradient $b$ and Hessian $H$ of the log-likelihood at "
                    "the prior mean (intercept matched to the mean of $y$), Eq. (5):")
        st.latex(r"\log p(y\mid S) = -\tfrac12\log\lvert I-\epsilon H_S\rvert"
                 r" + \tfrac{\epsilon}{2}\, b_S^\top (I-\epsilon H_S)^{-1} b_S,\qquad \epsilon = 1/\Lambda")
        st.markdown("Expanding to $O(\\epsilon^2)$ and writing $[j\\in S] = (1+s_j)/2$ gives an Ising model:")
        st.latex(r"\log p(s\mid y) = \sum_i h_i s_i + \sum_{i<j} J_{ij} s_i s_j + \text{const},\quad "
                 r"h_i = \epsilon\,\frac{H_{ii}+b_i^2}{4} + \epsilon^2 \sum_j C_{ij},\quad "
                 r"J_{ij} = \epsilon^2 C_{ij},\quad C_{ij} = \frac{H_{ij}^2 + 2 b_i H_{ij} b_j}{8}")
        st.markdown("Mean field, followed along $\\epsilon$ from 0 in steps of $0.05/\\Lambda^*$:")
        st.latex(r"m_i = \tanh\Big(h_i + \sum_{j\neq i} J_{ij} m_j\Big),\qquad p(s_i = 1\mid y) = \frac{1+m_i}{2}")
        st.markdown("The expansion converges for $\\Lambda$ above the breakdown scale ($r$ = root-mean-square "
                    "correlation between features):")
        st.latex(r"\Lambda^* = n\,(1 + p\,r)")

    ds = current_dataset()
    key, params = current_selection()
    with user_errors():
        if ds.task == "classification":
            ds = class_pair(ds, key="bia_pair")

    families = ["logistic", "linear", "poisson"]
    c1, c2, c3, c4 = st.columns(4)
    family = c1.selectbox("Model (GLM family)", families,
                          index=0 if ds.task == "classification" else 1, key="bia_family",
                          help="Logistic for two classes (the paper's B vs D), linear for real targets, "
                               "Poisson for counts.")
    n_steps = int(c2.number_input("Path steps", min_value=20, max_value=1000, value=200, step=20,
                                  key="bia_steps", help="Step k sits at Λ/Λ* = 20/k (δε = 0.05/Λ*)."))
    top_k = int(c3.number_input("Top features in red", min_value=1, max_value=100,
                                value=min(20, max(3, ds.n_features // 10)), key="bia_topk"))
    quantity = c4.radio("Plot", ["posterior", "magnetization"], key="bia_quantity", horizontal=True)

    constant = constant_columns(ds.X)
    exclude = False
    if constant.size:
        shown = ", ".join(ds.feature_names[j] for j in constant[:15]) + (" ..." if constant.size > 15 else "")
        st.warning(f"{constant.size} feature(s) are constant in this sample and cannot be standardised: {shown}. "
                   "They carry no information about the class, so they are left out of the fit and shown "
                   "blank in the heatmap.")
        exclude = st.checkbox(f"Exclude these {constant.size} constant features", value=True, key="bia_exclude",
                              help="Untick to fit every feature as given: the BIA then stops with an error, "
                                   "since a constant column has no variance to standardise by.")


    @st.cache_data(show_spinner="Computing the BIA path ...", max_entries=16)
    def fitted_path(_ds, token, family, n_steps, exclude):
        """The path of one (dataset, class pair, family, steps) combination; ``token`` keys the cache."""
        return run_bia_path(_ds, family, n_steps=n_steps, exclude_constant=exclude)


    token = (key, tuple(sorted(params.items())), ds.name, ds.n_samples)
    with user_errors():
        result = fitted_path(ds, token, family, n_steps, exclude)

    ratios = result.slider_ratios()
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Samples n", f"{result.n_samples:,}")
    m2.metric("Features p", f"{result.features.size:,}")
    m3.metric("RMS correlation r", f"{result.rms_correlation:.3f}")
    m4.metric("Λ* = n(1 + p r)", f"{result.lambda_star:,.0f}")

    current = st.select_slider(
        "Current Λ/Λ*", options=list(ratios), value=ratios[np.argmin(np.abs(np.log(ratios)))],
        format_func=lambda v: f"{v:.3g}", key="bia_ratio",
        help="Moves the red top-k set, the heatmap and the sample overlays along the cached path.")
    position = result.nearest_position(current)
    scores = result.full_scores(position)
    analysed = result.scores_at(position)

    show_figure(st, path_figure(result.path, top_k=top_k, current_ratio=current, quantity=quantity,
                                image_shape=ds.image_shape if not result.excluded.size else None,
                                title="Feature-selection path (Fig. 2A)", max_lines=MAX_PATH_LINES),
                    key="bia_path_chart")
    if result.features.size > MAX_PATH_LINES:
        st.caption(f"The browser draws the {MAX_PATH_LINES:,} highest-posterior lines at the current Λ/Λ* "
                   f"of {result.features.size:,}; the CSV below holds every feature's path.")
    st.caption(
        "What to look for: at large Λ the prior wins and every posterior sits at ½; as Λ decreases the "
        "informative features rise first. In the shaded region (Λ < Λ*) the expansion behind the Ising "
        "model no longer converges: paths that saturate or cross there are not to be trusted."
        + (" For the Poisson family the breakdown begins near mean(y)·Λ* when mean(y) > 1."
           if family == "poisson" else "")
    )

    top = result.features[top_features(analysed, top_k)]
    if ds.image_shape is not None:
        left, right = st.columns([1, 1.4])
        show_figure(left, posterior_heatmap(scores, ds.image_shape,
                                            title=f"Posterior at Λ/Λ* = {current:.3g} (Fig. 2B)"),
                          key="bia_heatmap")
        rows = sample_rows(ds.y, per_class=3, seed=0)
        images = ds.X[rows].toarray() if ds.is_sparse else ds.X[rows]
        show_figure(right, samples_with_top_pixels(images, ds.y[rows], ds.target_names or
                                                   [str(c) for c in np.unique(ds.y)], top, ds.image_shape,
                                                   title=f"Top {top.size} pixels on sample images (Fig. 2C)"),
                           key="bia_samples")
        st.caption("Red squares mark the top pixels: for B vs D they gather where the letters differ, "
                   "the notch on B's right side and B's middle bar.")
    else:
        show_figure(st, posterior_bars(scores, ds.feature_names, top_n=min(40, ds.n_features),
                                       truth=ds.truth, title=f"Posteriors at Λ/Λ* = {current:.3g}"),
                        key="bia_bars")
        if ds.truth is not None:
            st.caption("Red bars are the truly relevant features of the synthetic model.")

    st.download_button("Download the path (CSV)", result.path.to_csv().encode(),
                       file_name=f"bia_path_{family}.csv", mime="text/csv", key="bia_csv")

    st.subheader("Exact check on a small subproblem")
    st.markdown(
        "For a few randomly drawn features the exact posterior over all $2^p$ subsets is computed "
        "independently: closed-form evidence for the linear family, Laplace evidence at the posterior "
        "mode for logistic and Poisson. The purple bars are the exact marginals of the BIA's own Ising "
        "model, so the gap between blue and purple is the error of the expansion in $1/\\Lambda$ and the "
        "gap between purple and red the error of mean field. Both shrink as Λ/Λ* grows."
    )
    v1, v2, v3 = st.columns(3)
    limit = MAX_CHECK_FEATURES if family == "linear" else MAX_LAPLACE_CHECK_FEATURES
    n_check = int(v1.slider("Features in the subproblem", 2, limit, 6, key="bia_check_p",
                            help="2^p subsets are enumerated (Laplace: one optimisation per subset and Λ)."))
    pool_choice = v2.selectbox("Draw them from", ["all features", "the 40 highest posteriors at Λ*"],
                               key="bia_check_pool")
    seed = int(v3.number_input("Draw seed", min_value=0, value=0, step=1, key="bia_check_seed"))


    def exact_check(ds, token, family, features):
        """BIA vs exact posteriors of the subproblem, kept in the session (last 8) so that sliders
        elsewhere on the page never recompute it; a progress bar shows while it runs."""
        store = st.session_state.setdefault("bia_exact_checks", {})
        cache_key = (token, family, features)
        if cache_key not in store:
            bar = st.progress(0.0, text="Exact posterior over all subsets ...")
            store[cache_key] = check_subproblem(ds.X, ds.y, family, list(features), ds.feature_names,
                                                progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg))
            bar.empty()
            while len(store) > 8:
                store.pop(next(iter(store)))
        return store[cache_key]


    with user_errors():
        at_star = result.scores_at(result.nearest_position(1.0))
        pool = result.features[top_features(at_star, 40)] if pool_choice.startswith("the 40") else result.features
        features = tuple(int(j) for j in pick_features(ds.X, n_check, seed, candidates=pool))
        check = exact_check(ds, token, family, features)
    show_figure(st, validation_figure(check.ratios, check.bia, check.exact, check.feature_names,
                                      ising=check.ising, current_ratio=current, exact_label=check.exact_label),
                    key="bia_check_chart")
    err_now = check.max_error[int(np.argmin(np.abs(np.log(check.ratios / current))))]
    st.caption(f"Subproblem Λ* = {check.lambda_star:,.0f}. Largest |p_BIA − p_exact| at the nearest checked "
               f"Λ/Λ*: {err_now:.2g}; at Λ/Λ* = 10: {check.max_error[-1]:.2g}.")
