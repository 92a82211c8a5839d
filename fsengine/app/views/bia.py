"""BIA Lambda paths: posterior relevance of every feature along the prior strength
(Fisher & Mehta's Bayesian Ising Approximation)."""

import numpy as np
import streamlit as st

from fsengine import ranking
from fsengine.app.display import figure_columns, show_figure
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.presets import Preset, preset_buttons
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair, follow_data
from fsengine.csv_export import csv_bytes
from fsengine.methods.bia import baselines as bia_baselines
from fsengine.methods.bia.study import run_bia_path, sample_rows
from fsengine.methods.bia.validation import (
    MAX_CHECK_FEATURES,
    MAX_LAPLACE_CHECK_FEATURES,
    check_subproblem,
    pick_features,
)
from fsengine.plots.bia import (
    agreement_figure,
    mark_top_pixels,
    path_figure,
    posterior_bars,
    posterior_heatmap,
    samples_base,
    validation_figure,
)
from fsengine.validation import constant_columns

#: lines the path plot draws at most (the rest is the grey band): a slider move re-sends them
MAX_PATH_LINES = 200
#: largest n x p for which the page compares with correlation screening (a dense copy of X)
MAX_SCREENING_CELLS = 20_000_000


def _screening_section(ds, result, top_k: int) -> None:
    """The BIA's top k against correlation screening along the path, said in words."""
    st.subheader("What the BIA adds over correlation screening")
    st.markdown("At large Λ the fields $h_i \\propto b_i^2$ dominate, and for standardised features "
                "$b_i \\propto \\mathrm{corr}(x_i, y)$: the BIA's ranking *is* correlation screening there. "
                "The couplings $J_{ij}$ only reorder features as Λ falls.")
    X = ds.X[:, result.features]
    if X.shape[0] * X.shape[1] > MAX_SCREENING_CELLS:
        st.info(f"Skipped for {X.shape[0]:,} x {X.shape[1]:,} features (more than {MAX_SCREENING_CELLS:,} cells).")
        return
    X = X.toarray() if hasattr(X, "toarray") else X
    screening = bia_baselines.correlation_scores(X, ds.y)
    agreement = bia_baselines.path_agreement(result.path, {bia_baselines.SCREENING: screening}, top_k,
                                             result.slider_ratios(25))
    departure = bia_baselines.departure_ratio(agreement)
    show_figure(st, agreement_figure(agreement, top_k, departure,
                                     title=f"BIA top {top_k} vs correlation screening along the path"),
                key="bia_screening_chart")
    star = agreement.iloc[int(np.argmin(np.abs(np.log(agreement.lambda_ratio))))]
    overlap = star[f"overlap with {bia_baselines.SCREENING}"]
    st.markdown(
        f"Here: at Λ = Λ* the BIA's top {top_k} shares **{overlap:.0%}** of its features with the top {top_k} "
        f"by |corr(x, y)| (Spearman {star['Spearman with screening']:.4f} between posteriors and b²). "
        + (f"The two first differ at Λ/Λ* = **{departure:.3g}**" if departure is not None else
           "They never differ on this path")
        + ": above that the BIA adds nothing to screening; below it the couplings decide. "
        "The recorded notMNIST report (`reproduce bia-notmnist`) also compares the L1 entry order and "
        "logistic |coef| and their top-k accuracy.")


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

    preset_buttons([PAPER_PRESET])
    ds = current_dataset()
    key, params = current_selection()
    with user_errors():
        if ds.task == "classification":
            ds = class_pair(ds, key="bia_pair")
    token = (key, tuple(sorted(params.items())), ds.name, ds.n_samples)
    families = ["logistic", "linear", "poisson"]
    follow_data("bia", (token, ds.n_features), {"bia_topk": default_top_k(ds.n_features),
                                                "bia_check_p": min(6, ds.n_features),
                                                "bia_family": families[0 if ds.task == "classification" else 1]})

    c1, c2, c3, c4 = st.columns(4)
    family = c1.selectbox("Model (GLM family)", families,
                          index=0 if ds.task == "classification" else 1, key="bia_family", bind="query-params",
                          help="Logistic for two classes (the paper's B vs D), linear for real targets, "
                               "Poisson for counts.")
    n_steps = int(c2.number_input("Path steps", min_value=20, max_value=1000, value=200, step=20,
                                  key="bia_steps", bind="query-params",
                                  help="Step k sits at Λ/Λ* = 20/k (δε = 0.05/Λ*)."))
    top_k = int(c3.number_input("Top features in red", min_value=1, max_value=100,
                                value=default_top_k(ds.n_features), key="bia_topk", bind="query-params"))
    quantity = c4.radio("Plot", ["posterior", "magnetization"], key="bia_quantity", horizontal=True,
                        bind="query-params")

    constant = constant_columns(ds.X)
    exclude = False
    if constant.size:
        names = ", ".join(ds.feature_names[j] for j in constant[:15]) + (" ..." if constant.size > 15 else "")
        shown = md_escape(names, inline=True)
        st.warning(f"{constant.size} feature(s) are constant in this sample and cannot be standardised: {shown}. "
                   "They carry no information about the class, so they are left out of the fit and shown "
                   "blank in the heatmap.")
        exclude = st.checkbox(f"Exclude these {constant.size} constant features", value=True, key="bia_exclude",
                              help="Untick to fit every feature as given: the BIA then stops with an error, "
                                   "since a constant column has no variance to standardise by.")

    with user_errors():
        result = fitted_path(ds, token, family, n_steps, exclude)

    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Samples n", f"{result.n_samples:,}")
    m2.metric("Features p", f"{result.features.size:,}")
    m3.metric("RMS correlation r", f"{result.rms_correlation:.3f}")
    m4.metric("Λ* = n(1 + p r)", f"{result.lambda_star:,.0f}")
    st.download_button("Download the path (CSV)", path_csv(result, token, family, n_steps, exclude),
                       file_name=f"bia_path_{family}.csv", mime="text/csv", key="bia_csv",
                       help="Every feature's posterior at every step of the path.")
    position_views(ds, result, token, family, top_k, quantity)
    _screening_section(ds, result, top_k)  # depends on top-k, not on the slider: outside the fragment


def default_top_k(n_features: int) -> int:
    """Red lines by default: a tenth of the features, between 3 and 20."""
    return min(20, max(3, n_features // 10))


PAPER_PRESET = Preset(
    "As in the paper: notMNIST B vs D",
    "Fisher & Mehta Fig. 2: notMNIST letters B and D, 500 images each, logistic model, 200 path steps, "
    "top 20 pixels.",
    "notmnist", {"letters": "BD", "n_per_class": 500, "seed": 0},
    {"bia_family": "logistic", "bia_steps": 200, "bia_topk": 20, "bia_quantity": "posterior"})


@st.cache_data(show_spinner="Computing the BIA path ...", max_entries=16)
def fitted_path(_ds, token, family, n_steps, exclude):
    """The path of one (dataset, class pair, family, steps) combination, shared by every session;
    ``token`` names the dataset in the cache key."""
    return run_bia_path(_ds, family, n_steps=n_steps, exclude_constant=exclude)


@st.cache_data(show_spinner=False, max_entries=4)
def path_csv(_result, token, family, n_steps, exclude) -> bytes:
    return csv_bytes(_result.path)


@st.cache_resource(max_entries=1)
def _exact_checks() -> dict:
    """Exact checks already computed on this server (any session), by data and features."""
    return {}


def exact_check(ds, token, family, features):
    """BIA vs exact posteriors of the subproblem, computed once per server (last 16 kept) with a
    progress bar: the second visitor, and every slider move, gets it at once."""
    store = _exact_checks()
    cache_key = (token, family, features)
    if cache_key not in store:
        bar = st.progress(0.0, text="Exact posterior over all subsets ...")
        store[cache_key] = check_subproblem(ds.X, ds.y, family, list(features), ds.feature_names,
                                            progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg))
        bar.empty()
        while len(store) > 16:
            store.pop(next(iter(store)))
    return store[cache_key]


@st.cache_data(show_spinner=False, max_entries=8)
def sample_images(_ds, token) -> dict:
    """Fig. 2C's images (three per class) without marks, once per dataset: a move only marks pixels."""
    rows = sample_rows(_ds.y, per_class=3, seed=0)
    images = _ds.X[rows].toarray() if _ds.is_sparse else _ds.X[rows]
    return samples_base(images, _ds.y[rows], _ds.target_names or [str(c) for c in np.unique(_ds.y)],
                        _ds.image_shape)


@st.cache_data(show_spinner=False, max_entries=64)
def check_figure(_check, check_key, now: int) -> dict:
    """The exact-check figure at checked ratio ``now``, once per check and ratio (a dozen per check)."""
    return validation_figure(_check.ratios, _check.bia, _check.exact, _check.feature_names, ising=_check.ising,
                             current_ratio=float(_check.ratios[now]), exact_label=_check.exact_label).to_plotly_json()


def ratio_labels(ratios) -> dict[float, str]:
    """Slider labels (and URL values) for the ratios: 3 significant digits, more where needed to
    keep every label distinct."""
    for digits in range(3, 10):
        labels = {r: f"{r:.{digits}g}" for r in ratios}
        if len(set(labels.values())) == len(labels):
            return labels
    return {r: repr(r) for r in ratios}


def _spread(low: float, high: float) -> str:
    """'0.498 to 0.503': as many decimals as it takes for the two ends to differ (at most 4)."""
    for digits in (2, 3, 4):
        if f"{low:.{digits}f}" != f"{high:.{digits}f}":
            break
    return f"{low:.{digits}f} to {high:.{digits}f}"


def _paths_caption(result, quantity: str, family: str) -> str:
    """What the path shows, from its numbers: the spread at the largest Λ, where the mean field stops."""
    x = result.path.index.to_numpy()
    first = result.path.iloc[int(np.argmax(x))].to_numpy()
    if quantity == "magnetization":
        first, neutral = 2 * first - 1, "0"
    else:
        neutral = "½"
    text = (f"What to look for: at the largest Λ/Λ* = {x.max():.3g} the prior dominates and every "
            f"{quantity} lies within {_spread(first.min(), first.max())} (the prior alone gives {neutral}); "
            "as Λ decreases the informative features rise first (red: the top features at the current Λ/Λ*; "
            "grey band: where the other features lie). In the orange region (Λ < Λ*) the expansion behind "
            "the Ising model no longer converges.")
    ok = result.converged
    if not ok.all():
        text += (f" Below Λ/Λ* = {x[~ok].max():.3g} the mean-field recursion itself does not converge (the "
                 "magnetizations flip between two states from one step to the next); those steps are not drawn.")
    if family == "poisson":
        text += " For the Poisson family the breakdown begins near mean(y)·Λ* when mean(y) > 1."
    return text


def _pixels_caption(ds, top, current: float) -> str:
    """Where the top pixels lie, measured: the share inside the quarter of pixels whose class means
    differ most."""
    X = ds.dense_X()
    classes = np.unique(ds.y)
    diff = np.abs(X[ds.y == classes[0]].mean(axis=0) - X[ds.y == classes[1]].mean(axis=0))
    strong = diff >= np.quantile(diff, 0.75)
    share = float(strong[top].mean()) if top.size else 0.0
    names = ds.target_names or [str(c) for c in classes]
    return (f"Red squares mark the top {top.size} pixels at Λ/Λ* = {current:.3g}: {share:.0%} of them lie in the "
            f"quarter of pixels where the mean images of {names[0]} and {names[1]} differ most (chance: 25%).")


@st.fragment
def position_views(ds, result, token, family: str, top_k: int, quantity: str) -> None:
    """Everything that depends on the Λ/Λ* slider. A fragment: a move reruns (and re-sends) only
    this part, never the page above it."""
    ratios = result.slider_ratios()
    labels = ratio_labels(ratios)
    current = st.select_slider(
        "Current Λ/Λ*", options=list(ratios), value=ratios[np.argmin(np.abs(np.log(ratios)))],
        format_func=labels.get, key="bia_ratio", bind="query-params",
        help="Moves the red top-k set, the heatmap and the sample overlays along the cached path.")
    position = result.nearest_position(current)
    scores = result.full_scores(position)
    analysed = result.scores_at(position)
    converged = result.converged

    show_figure(st, path_figure(result.path, top_k=top_k, current_ratio=current, quantity=quantity,
                                image_shape=ds.image_shape if not result.excluded.size else None,
                                title="Feature-selection path (Fig. 2A)", max_lines=MAX_PATH_LINES,
                                converged=converged),
                key="bia_path_chart")
    if result.features.size > MAX_PATH_LINES:
        st.caption(f"Lines: the {MAX_PATH_LINES} highest posteriors at the current Λ/Λ* of "
                   f"{result.features.size:,} features; the grey band summarises all of them, and the CSV "
                   "above holds every feature's path.")
    st.caption(_paths_caption(result, quantity, family))
    if not converged[position]:
        st.warning(f"At Λ/Λ* = {current:.3g} the mean field has not converged: the posteriors below are "
                   "not a solution of the mean-field equations. Move the slider above "
                   f"{result.path.index.to_numpy()[~converged].max():.3g}.")

    top = result.features[ranking.top_k(analysed, top_k)]
    if ds.image_shape is not None:
        left, right = figure_columns([1, 1.4])
        show_figure(left, posterior_heatmap(scores, ds.image_shape,
                                            title=f"Posterior at Λ/Λ* = {current:.3g} (Fig. 2B)"),
                    key="bia_heatmap")
        show_figure(right, mark_top_pixels(sample_images(ds, token), top, ds.image_shape,
                                           title=f"Top {top.size} pixels on sample images (Fig. 2C)"),
                    key="bia_samples")
        if ds.task == "classification" and np.unique(ds.y).size == 2:
            st.caption(_pixels_caption(ds, top, current))
    else:
        show_figure(st, posterior_bars(scores, ds.feature_names, top_n=min(40, ds.n_features),
                                       truth=ds.truth, title=f"Posteriors at Λ/Λ* = {current:.3g}"),
                    key="bia_bars")
        if ds.truth is not None:
            st.caption("Red bars are the truly relevant features of the synthetic model.")
    _exact_check_section(ds, result, token, family, current)


def _exact_check_section(ds, result, token, family: str, current: float) -> None:
    st.subheader("Exact check on a small subproblem")
    st.markdown(
        "For a few randomly drawn features the exact posterior over all $2^p$ subsets is computed "
        "independently: closed-form evidence for the linear family, Laplace evidence at the posterior "
        "mode for logistic and Poisson. The purple bars are the exact marginals of the BIA's own Ising "
        "model, so the gap between blue and purple is the error of the expansion in $1/\\Lambda$ and the "
        "gap between purple and red the error of mean field. Both shrink as Λ/Λ* grows."
    )
    usable = int(result.features.size)
    if usable < 2:
        st.info(f"The exact check needs at least 2 non-constant features; this data has {usable}.")
        return
    v1, v2, v3 = st.columns(3)
    limit = min(MAX_CHECK_FEATURES if family == "linear" else MAX_LAPLACE_CHECK_FEATURES, usable)
    if st.session_state.get("bia_check_p", 0) > limit:
        st.session_state["bia_check_p"] = limit
    n_check = int(v1.slider("Features in the subproblem", 2, limit, min(6, limit), key="bia_check_p",
                            bind="query-params",
                            help="2^p subsets are enumerated (Laplace: one optimisation per subset and Λ)."))
    pool_choice = v2.selectbox("Draw them from", ["all features", "the 40 highest posteriors at Λ*"],
                               key="bia_check_pool", bind="query-params")
    seed = int(v3.number_input("Draw seed", min_value=0, value=0, step=1, key="bia_check_seed", bind="query-params"))
    with user_errors():
        at_star = result.scores_at(result.nearest_position(1.0))
        pool = result.features[ranking.top_k(at_star, 40)] if pool_choice.startswith("the 40") else result.features
        features = tuple(int(j) for j in pick_features(ds.X, min(n_check, pool.size), seed, candidates=pool))
        check = exact_check(ds, token, family, features)
    now = int(np.argmin(np.abs(np.log(check.ratios / current))))
    show_figure(st, check_figure(check, (token, family, features), now), key="bia_check_chart")
    err_now = check.max_error[now]
    st.caption(f"Subproblem Λ* = {check.lambda_star:,.0f}. Largest |p_BIA − p_exact| at the nearest checked "
               f"Λ/Λ*: {err_now:.2g}; at Λ/Λ* = 10: {check.max_error[-1]:.2g}.")
