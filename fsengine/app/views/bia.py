"""BIA Lambda paths: posterior relevance of every feature along the prior strength
(Fisher & Mehta's Bayesian Ising Approximation).

A thin page: the path and its captions come from :mod:`fsengine.methods.bia.study`, the exact
check from :mod:`fsengine.methods.bia.validation`, the figures from :mod:`fsengine.plots.bia`.
Λ/Λ* is the slider of ONE explorable figure (:func:`~fsengine.plots.bia.bia_explorable`: the
path, the Fig. 2B heatmap and the Fig. 2C pixels, or the bars of non-image data), answered in
the browser; its position lives in the URL (``?bia_ratio=0.5``), from which the page starts the
figure, as one :class:`~fsengine.position.Position`. The exact check starts at the checked ratio
nearest it and has its own slider.
"""

import streamlit as st

from fsengine.app.compute import computed_once, dataset_token, prepare
from fsengine.app.display import show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.figures import prepared_figure
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.presets import Preset, preset_buttons
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair, follow_data
from fsengine.csv_export import csv_bytes
from fsengine.methods.bia import study
from fsengine.methods.bia.validation import check_size_limit, check_subproblem
from fsengine.methods.registry import get_method
from fsengine.plots.bia import agreement_figure, bia_explorable, validation_explorable

#: lines the path plot draws at most (the rest is the grey band)
MAX_PATH_LINES = 200
#: the URL parameter holding the explorable's Λ/Λ*
RATIO_PARAM = "bia_ratio"
#: where the explorable starts without one in the URL: Λ = Λ*
DEFAULT_RATIO = 1.0
#: the registry's GLM families and path steps (default and range: as the CLI and the API)
FAMILIES = list(get_method("bia").param("family").choices)
STEPS = get_method("bia").param("n_steps")
DEFAULT_STEPS = STEPS.default

PAPER_PRESET = Preset(
    "As in the paper: notMNIST B vs D",
    "Fisher & Mehta Fig. 2: notMNIST letters B and D, 500 images each, logistic model, 200 path steps, "
    "top 20 pixels.",
    "notmnist", {"letters": "BD", "n_per_class": 500, "seed": 0},
    {"bia_family": "logistic", "bia_steps": 200, "bia_topk": 20, "bia_quantity": "posterior"})


def default_top_k(n_features: int) -> int:
    """Red lines by default: a tenth of the features, between 3 and 20."""
    return min(20, max(3, n_features // 10))


# --- cached computations (module level, keyed by the dataset token and the parameters) ----------

def fitted_path(ds, token, family: str, n_steps: int, exclude: bool, *, background=None) -> study.BIAPathResult:
    """The path of one (dataset, class pair, family, steps) combination, computed once for the
    server with a progress bar along the path; ``token`` names the dataset in the key."""
    return computed_once("bia_path", (token, family, n_steps, exclude),
                         lambda report: study.run_bia_path(ds, family, n_steps=n_steps, exclude_constant=exclude,
                                                           progress=report),
                         text="Computing the BIA path ...", max_entries=16, background=background)


def path_csv(result, token, family, n_steps, exclude) -> bytes:
    return prepare("bia_path_csv", (token, family, n_steps, exclude), lambda report: csv_bytes(result.path),
                   max_entries=4)


def screening(ds, result, token, family, n_steps, exclude, top_k) -> study.ScreeningComparison:
    """The BIA's top k against correlation screening along the path, once per path and k."""
    return prepare("bia_screening", (token, family, n_steps, exclude, top_k),
                   lambda report: study.screening_comparison(ds, result, top_k))


@prepared_figure(max_entries=8)
def explorable(_ds, _result, token, family, n_steps, exclude, top_k, quantity, start):
    """The page's explorable (path, heatmap, pixels or bars) starting at Λ/Λ* = ``start``, once per
    path, settings and start, served as prepared JSON."""
    image = _ds.image_shape is not None
    classes = study.two_class_names(_ds)
    return bia_explorable(_result, _result.position(start), top_k=top_k, quantity=quantity,
                          image_shape=_ds.image_shape, feature_names=_ds.feature_names, truth=_ds.truth,
                          samples=study.sample_images(_ds, per_class=3, seed=0) if image else None,
                          discriminative=study.discriminative_features(_ds) if image and classes else None,
                          class_names=classes, max_lines=MAX_PATH_LINES)


def exact_check(ds, token, family: str, features: tuple[int, ...], *, background=None):
    """BIA vs exact posteriors of the subproblem, computed once per server (last 16 kept) with a
    progress bar: the second visitor gets it at once."""
    return computed_once("bia_exact_check", (token, family, features),
                         lambda report: check_subproblem(ds.X, ds.y, family, list(features), ds.feature_names,
                                                         progress=report),
                         text="Exact posterior over all subsets ...", max_entries=16, background=background)


@prepared_figure(max_entries=64)
def check_explorable(_check, check_key, position):
    """The exact-check figure with its own slider, starting at ``position`` of the checked ratios."""
    return validation_explorable(_check.ratios, _check.bia, _check.exact, _check.feature_names, ising=_check.ising,
                                 position=position, exact_label=_check.exact_label)


@prepared_figure(max_entries=8)
def screening_figure(_comparison, token, family, n_steps, exclude, top_k):
    """The BIA's top k against the baselines' along the path, once per path and k."""
    return agreement_figure(_comparison.agreement, top_k, _comparison.departure,
                            title=f"BIA top {top_k} vs correlation screening along the path")


def start_ratio() -> float:
    """Λ/Λ* where the explorable starts: the URL's, else 1 (Λ = Λ*)."""
    try:
        value = float(url_value(RATIO_PARAM) or DEFAULT_RATIO)
    except ValueError:
        return DEFAULT_RATIO
    return value if value > 0 else DEFAULT_RATIO


# --- the page ------------------------------------------------------------------------------------

def _intro() -> None:
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


def _exclude_constant(ds) -> bool:
    """Warn about constant features and ask whether to leave them out (True by default)."""
    n_constant, names = study.constant_features(ds)
    if not n_constant:
        return False
    st.warning(f"{n_constant} feature(s) are constant in this sample and cannot be standardised: "
               f"{md_escape(names, inline=True)}. They carry no information about the class, so they are left "
               "out of the fit and shown blank in the heatmap.")
    return st.checkbox(f"Exclude these {n_constant} constant features", value=True, key="bia_exclude",
                       help="Untick to fit every feature as given: the BIA then stops with an error, "
                            "since a constant column has no variance to standardise by.")


def _metrics(result) -> None:
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Samples n", f"{result.n_samples:,}")
    m2.metric("Features p", f"{result.features.size:,}")
    m3.metric("RMS correlation r", f"{result.rms_correlation:.3f}")
    m4.metric("Λ* = n(1 + p r)", f"{result.lambda_star:,.0f}")


def first_visit(report) -> None:
    """Compute what a first visitor of the page sees (the default dataset and settings, as
    :func:`render` draws them) into the server's stores, without drawing: the server-start
    preparation (:mod:`fsengine.app.prepare`) calls it, ``report(fraction, message)`` follows it."""
    from fsengine.app.picker import default_selection, load_cached
    from fsengine.plots.style import Style

    key, params = default_selection()
    ds = load_cached(key, params, background=report)
    if ds.task == "classification" and study.two_class_names(ds) is None:
        return  # the page first asks for a class pair
    token = dataset_token(key, params, ds)
    family = FAMILIES[0 if ds.task == "classification" else 1]
    exclude = study.constant_features(ds)[0] > 0
    path_key = (token, family, DEFAULT_STEPS, exclude)
    result = fitted_path(ds, *path_key, background=lambda f, m="": report(0.8 * f, m))
    position = result.position(DEFAULT_RATIO)
    top_k = default_top_k(ds.n_features)
    report(0.8, "BIA figures")  # in the page's order: a visitor waiting for one never waits for the next
    explorable(ds, result, *path_key, top_k, "posterior", position.value).spec(Style())
    if result.features.size >= 2:
        features = study.check_features(ds, result, min(6, check_size_limit(family, int(result.features.size))), 0,
                                        from_top=False)
        check = exact_check(ds, token, family, features, background=lambda f, m="": report(0.8 + 0.15 * f, m))
        check_explorable(check, (token, family, features), check.position(position.value)).spec(Style())
    if study.screening_skipped(result) is None:
        screening_figure(screening(ds, result, *path_key, top_k), *path_key, top_k).spec(Style())


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    _intro()
    preset_buttons([PAPER_PRESET])
    ds = current_dataset()
    key, params = current_selection()
    with user_errors():
        if ds.task == "classification":
            ds = class_pair(ds, key="bia_pair")
    token = dataset_token(key, params, ds)
    classification = ds.task == "classification"
    follow_data("bia", token, {"bia_topk": default_top_k(ds.n_features), "bia_check_p": min(6, ds.n_features),
                               "bia_family": FAMILIES[0 if classification else 1]})

    c1, c2, c3, c4 = st.columns(4)
    family = c1.selectbox("Model (GLM family)", FAMILIES,
                          index=0 if classification else 1, key="bia_family", bind="query-params",
                          help="Logistic for two classes (the paper's B vs D), linear for real targets, "
                               "Poisson for counts.")
    n_steps = int(c2.number_input("Path steps", min_value=int(STEPS.min), max_value=int(STEPS.max),
                                  value=DEFAULT_STEPS, step=20,
                                  key="bia_steps", bind="query-params",
                                  help="Step k sits at Λ/Λ* = 20/k (δε = 0.05/Λ*)."))
    top_k = int(c3.number_input("Top features in red", min_value=1, max_value=100,
                                value=default_top_k(ds.n_features), key="bia_topk", bind="query-params"))
    quantity = c4.radio("Plot", ["posterior", "magnetization"], key="bia_quantity", horizontal=True,
                        bind="query-params")
    exclude = _exclude_constant(ds)

    with user_errors():
        result = fitted_path(ds, token, family, n_steps, exclude)
    _metrics(result)
    # made when clicked: a view sends no megabyte of CSV (a callable's data is deferred)
    st.download_button("Download the path (CSV)", lambda: path_csv(result, token, family, n_steps, exclude),
                       file_name=f"bia_path_{family}.csv", mime="text/csv", key="bia_csv",
                       help="Every feature's posterior at every step of the path.")
    position = result.position(start_ratio())
    _path_section(ds, result, (token, family, n_steps, exclude), top_k, quantity, position)
    _exact_check_section(ds, result, token, family, position)
    _screening_section(ds, result, (token, family, n_steps, exclude), top_k)


def _path_section(ds, result, path_key: tuple, top_k: int, quantity: str, position) -> None:
    """The explorable (Fig. 2A-C) at ``position``, what to look for, and where the mean field fails."""
    fig = explorable(ds, result, *path_key, top_k, quantity, position.value)
    show_explorable(st, fig, key="bia_explorable", param=RATIO_PARAM, fallback=study.ratio_labels([1.0])[1.0])
    if result.features.size > MAX_PATH_LINES:
        st.caption(f"Lines: every feature that is ever among the top {top_k}, and the highest at Λ* up to "
                   f"{MAX_PATH_LINES} of {result.features.size:,} features; the grey band summarises all of them, "
                   "and the CSV above holds every feature's path.")
    st.caption(study.paths_caption(result, quantity, path_key[1]))


def _exact_check_section(ds, result, token, family: str, position) -> None:
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
    limit = check_size_limit(family, usable)
    if st.session_state.get("bia_check_p", 0) > limit:
        st.session_state["bia_check_p"] = limit
    n_check = int(v1.slider("Features in the subproblem", 2, limit, min(6, limit), key="bia_check_p",
                            bind="query-params",
                            help="2^p subsets are enumerated (Laplace: one optimisation per subset and Λ)."))
    pool_choice = v2.selectbox("Draw them from", ["all features", f"the {study.CHECK_POOL} highest posteriors at Λ*"],
                               key="bia_check_pool", bind="query-params")
    seed = int(v3.number_input("Draw seed", min_value=0, value=0, step=1, key="bia_check_seed", bind="query-params"))
    with user_errors():
        features = study.check_features(ds, result, n_check, seed, from_top=pool_choice != "all features")
        check = exact_check(ds, token, family, features)
    at_check = check.position(position.value)  # the checked ratio nearest the page's, made once
    show_figure(st, check_explorable(check, (token, family, features), at_check), key="bia_check_chart")
    st.caption(check.caption())


def _screening_section(ds, result, path_key: tuple, top_k: int) -> None:
    """The BIA's top k against correlation screening along the path, said in words."""
    st.subheader("What the BIA adds over correlation screening")
    st.markdown("At large Λ the fields $h_i \\propto b_i^2$ dominate, and for standardised features "
                "$b_i \\propto \\mathrm{corr}(x_i, y)$: the BIA's ranking *is* correlation screening there. "
                "The couplings $J_{ij}$ only reorder features as Λ falls.")
    skipped = study.screening_skipped(result)
    if skipped is not None:
        st.info(skipped)
        return
    comparison = screening(ds, result, *path_key, top_k)
    show_figure(st, screening_figure(comparison, *path_key, top_k), key="bia_screening_chart")
    st.markdown(comparison.caption())
