"""Classic criteria (Jaakkola, MIT 6.867 lecture 12): mutual information, MDL, L1 path, boosting.

A thin page: the selectors come from :mod:`fsengine.selectors`, the numbers the page shows from
:mod:`fsengine.methods.classic.study`, the figures from :mod:`fsengine.plots.classic`; fits are
cached at module level, keyed by :func:`fsengine.app.compute.dataset_token` and the parameters.
"""

from __future__ import annotations

import math

import streamlit as st

from fsengine.app.compute import dataset_token, progress_bar
from fsengine.app.display import NO_NUMBER, figure_columns, show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.links import link_choice
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair
from fsengine.data.transforms import binarize_features, class_names, is_binary_matrix
from fsengine.methods.classic import study
from fsengine.methods.registry import method_defaults
from fsengine.plots import classic as figs
from fsengine.plots.explorable import distinct_labels
from fsengine.position import Position
from fsengine.selectors import BoostingSelector, MDLSelector, MutualInfoSelector

VIEWS = ("Mutual information", "MDL", "L1 path", "Boosting")
#: short names a link may use for a criterion (the method keys), besides its label
VIEW_ALIASES = {"mi": "Mutual information", "l1": "L1 path", "boost": "Boosting"}
#: the URL parameter holding the L1 explorable's C
C_PARAM = "classic_l1_C"
#: the sliders' ranges: page suggestions inside the registry's ranges (the API and the command line
#: take the whole range); each slider starts at the registry's default
MDL_RANGE, N_CS_RANGE, ROUNDS_RANGE = (5, 80), (8, 40), (5, 200)
#: the C range as a power of ten (the registry's C_span of 1,000 is 10^3)
SPAN_EXPONENTS = (1, 2, 3, 4)

INTRO = (
    "Four classic ways to choose features from Jaakkola's MIT 6.867 lecture 12: rank binary "
    "features by how much they tell about the label under **Naive Bayes** (mutual information), "
    "grow a Naive Bayes classifier feature by feature until the **description length** of labels "
    "plus model stops shrinking (MDL), let an **L1 penalty** switch logistic-regression "
    "coefficients on one at a time, and let **boosting** pick one decision stump per round."
)
MI_EQUATION = r"\hat I(X_i;Y) = \hat H(X_i) - \hat H(X_i\mid Y) \qquad \text{(Eq. 2)}"
MI_TEXT = (
    "With probabilities estimated from counts, including feature *i* in the Naive Bayes model "
    "(replacing P(x_i) by P(x_i | y) in Eq. 1) raises the log-likelihood of the data by "
    "n Î(X_i; Y); so features enter in decreasing order of mutual information. Each feature is "
    "judged **alone**: two copies of the same pixel get the same high score. Red bars pass an "
    "independence test (G = 2n Î ~ chi-squared, Bonferroni-corrected at 1%)."
)
MDL_EQUATION = (r"\mathrm{DL}(J) = \underbrace{\sum_t -\log \hat P(y_t\mid x_t, J)}_{\text{DL-data (Eq. 10)}}"
                r" + \underbrace{\log^*|J| + \log\binom{d}{|J|} + \log(n+1) + |J|\sum_{y}\log(n_y+1)}"
                r"_{\text{DL-model (Eq. 13-14)}}")
MDL_TEXT = (
    "Naive Bayes is a linear classifier (Eq. 6-9). MDL asks which features help it **classify**: "
    "DL-data is the cost in nats of sending the labels given the inputs; adding a feature changes "
    "the discriminant f(x) by one term. Features are added greedily (the first one is the MI "
    "winner); each costs its own parameters and the choice of which feature it is, so the "
    "total has a minimum: the **chosen size** (star). Look for the point where DL-data flattens "
    "while DL-model keeps climbing. (For more than two classes the count terms generalise to "
    "log C(n+K-1, K-1) and |J| sum over classes of log(n_y + 1).)"
)
L1_EQUATION = (r"J(\theta) = \sum_t \log P(y_t\mid x_t,\theta) - \lambda \sum_{i=1}^d |\theta_i|"
               r"\quad\text{(Eq. 18)},\qquad \frac{\partial l}{\partial\theta_k} = \lambda\,"
               r"\mathrm{sign}(\theta_k)\ \text{if}\ \theta_k\neq 0\quad\text{(Eq. 19)}")
L1_TEXT = (
    "The one-norm penalty sets coefficients **exactly** to zero: a feature enters only when the "
    "slope of the log-likelihood along it reaches lambda = 1/C. The path starts at scikit-learn's "
    "`l1_min_c` (nothing enters) and relaxes the penalty; features are ranked by the order in which "
    "they enter. The top axis counts the non-zero coefficients; the lower panel shows accuracy on "
    "a held-out quarter of the data: it rises while useful features enter and flattens (or drops) "
    "when the model starts fitting noise. Features are standardised first; with more than two "
    "classes each class has its own one-vs-rest path and the curve shows the norm of a feature's "
    "class coefficients."
)
BOOSTING_EQUATION = (
    r"h(x;\theta) = \mathrm{sign}\big(s(x_k-\theta_0)\big)\ \text{(Eq. 21)},\quad "
    r"\hat\alpha_m = \tfrac12\log\frac{1-\hat\epsilon_m}{\hat\epsilon_m}\ \text{(Eq. 33)},\quad "
    r"\tilde W_m(t) \propto \tilde W_{m-1}(t)\,e^{-y_t\hat\alpha_m h(x_t;\hat\theta_m)}\ \text{(Eq. 34)}")
BOOSTING_TEXT = (
    "Each round picks the decision stump with the smallest **weighted error** over every feature "
    "and threshold, gives it alpha votes, and up-weights the examples it got wrong, so the next "
    "stump focuses on them. The features the stumps use are the selected features, ranked by first "
    "use. The exponential training loss falls every round; a feature chosen again later refines "
    "an earlier cut. With more than two classes the stumps vote for one class on each side and "
    "alpha follows the multi-class (SAMME) form, which is Eq. (33) for two classes."
)
GINI_TEXT = (
    "scikit-learn's depth-1 trees split by weighted Gini impurity, not by the weighted error of "
    "Eq. (32). With the same weights, they chose a different feature in **{differ} of "
    "{rounds}** rounds; our stump's weighted error is never larger."
)


@st.cache_data(show_spinner="Counting ...", max_entries=16)
def fit_mi(token, binarization, _ds):
    return MutualInfoSelector().fit(_ds.X, _ds.y)


@st.cache_data(show_spinner=False, max_entries=16)
def fit_mdl(token, binarization, max_features, _ds):
    with progress_bar("MDL forward selection ...") as report:
        return MDLSelector(max_features=max_features).fit(_ds.X, _ds.y, progress=report)


@st.cache_data(show_spinner=False, max_entries=16)
def fit_l1(token, n_Cs, C_span, use_cv, test_size, _ds) -> study.L1HeldOut:
    with progress_bar("L1 path ...") as report:
        return study.l1_held_out(_ds, n_Cs=n_Cs, C_span=C_span, cv=3 if use_cv else None, test_size=test_size,
                                 progress=report)


@st.cache_data(show_spinner=False, max_entries=16)
def fit_boosting(token, rounds, _ds):
    with progress_bar("Boosting ...") as report:
        return BoostingSelector(n_estimators=rounds).fit(_ds.X, _ds.y, progress=report)


@st.cache_data(show_spinner="Fitting Gini stumps with the same weights ...", max_entries=8)
def gini_table(token, rounds, _ds, _selector):
    return study.same_weights(_ds.X, _ds.y, _selector.model_)


@st.cache_data(show_spinner=False, max_entries=16)
def background(token, _ds):
    """The mean image, drawn in grey beneath the pixel figures."""
    return study.mean_image(_ds.X)


def binary_version(ds):
    """The dataset with 0/1 features (the user picks the rule; the page says what was done)."""
    if is_binary_matrix(ds.X):
        st.caption("The features are already binary (0/1), as the Naive Bayes model of Eq. (1) needs.")
        return ds, "binary"
    cols = st.columns([2, 1])
    mode = cols[0].radio("Binarise the features as", ("auto", "x > threshold"), horizontal=True,
                         key="classic_bin_mode", bind="query-params",
                         help="auto: x > 0.5 for data in [0, 1] (images), else x > column median; "
                              "sparse data: x > 0")
    threshold = "auto"
    if mode != "auto":
        threshold = float(cols[1].number_input("threshold", value=0.5, key="classic_bin_threshold", bind="query-params",
                                               format="%g"))
    binary = binarize_features(ds, threshold=threshold)
    st.info(f"Eq. (2) and the Naive Bayes model need binary features: {md_escape(binary.provenance.notes[-1])} "
            "(`fsengine.data.transforms.binarize_features`).")
    return binary, str(threshold)


def count_slider(label: str, low: int, high: int, default: int, key: str) -> int:
    """A slider over counts that degrades to the only possible value for tiny feature sets."""
    if high <= low:
        return high
    return st.slider(label, low, high, min(max(default, low), high), key=key, bind="query-params")


def show_pair(figure, key: str, image=None, image_key: str = "", widths=(3, 2)) -> None:
    """``figure`` alone, or beside ``image()`` (built only for image data) in two columns."""
    if image is None:
        show_figure(st, figure, key=key)
        return
    left, right = figure_columns(list(widths))
    show_figure(left, figure, key=key)
    show_figure(right, image(), key=image_key)


def mi_view(ds, token, names) -> None:
    st.latex(MI_EQUATION)
    st.markdown(MI_TEXT)
    binary, rule = binary_version(ds)
    with user_errors():
        selector = fit_mi(token, rule, binary)
    shown = count_slider("Features shown", 5, min(60, ds.n_features), 25, key="classic_mi_top")
    summary = study.mi_summary(selector, names)
    c = st.columns(3)
    c[0].metric("Largest I(X; Y)", f"{summary.largest:.4f} nats", help=study.LARGEST_MI_NOTE)
    c[1].metric("Significant features", f"{summary.significant:,} of {ds.n_features:,}")
    c[2].metric("Best feature", summary.best)
    image = None if ds.image_shape is None else (
        lambda: figs.feature_image(selector.scores_, ds.image_shape, title="I(X; Y) per pixel", colorbar="I [nats]"))
    show_pair(figs.mi_bars(selector.scores_, names, top=shown, selected=selector.support_), "classic_mi_bars",
              image, "classic_mi_image", widths=(1, 1))


def mdl_view(ds, token, names) -> None:
    st.latex(MDL_EQUATION)
    st.markdown(MDL_TEXT)
    binary, rule = binary_version(ds)
    max_features = count_slider("Largest subset explored", MDL_RANGE[0], min(MDL_RANGE[1], ds.n_features),
                                method_defaults("mdl")["max_features"], key="classic_mdl_max")
    with user_errors():
        selector = fit_mdl(token, rule, max_features, binary)
    summary = study.mdl_summary(selector, names)
    c = st.columns(3)
    c[0].metric("Chosen size |J|", summary.best_size)
    c[1].metric("DL at the minimum", f"{summary.dl_at_minimum:.1f} nats")
    c[2].metric("DL of the empty model", f"{summary.dl_empty:.1f} nats")
    if summary.at_largest_size:
        st.warning("The minimum is at the largest size explored; explore larger subsets.")
    image = None if ds.image_shape is None else (
        lambda: figs.mdl_chosen_image(selector, ds.image_shape, background=background(token, ds)))
    show_pair(figs.mdl_curve(selector.trace_, summary.best_size), "classic_mdl_curve", image, "classic_mdl_image")
    st.dataframe(summary.table, hide_index=True, key="classic_mdl_table")


def l1_settings():
    """The L1 view's four settings: values of C, C range, held-out share, CV on or off."""
    c = st.columns(4)
    defaults = method_defaults("l1")
    n_Cs = c[0].slider("Values of C", *N_CS_RANGE, defaults["n_Cs"], key="classic_l1_nCs", bind="query-params")
    span_exp = c[1].select_slider("C range (max / min)", options=SPAN_EXPONENTS,
                                  value=round(math.log10(defaults["C_span"])),
                                  format_func=lambda e: f"10^{e}", key="classic_l1_span")
    test_size = c[2].select_slider("Held-out share", options=[0.2, 0.25, 0.3, 0.4], value=0.25, key="classic_l1_test")
    use_cv = c[3].checkbox("Choose C by 3-fold CV", value=False, key="classic_l1_cv",
                           help="Cross-validated on the training part; takes four times as long.")
    return n_Cs, 10.0 ** span_exp, test_size, use_cv


def l1_view(ds, token, names) -> None:
    st.latex(L1_EQUATION)
    st.markdown(L1_TEXT)
    n_Cs, C_span, test_size, use_cv = l1_settings()
    with user_errors():
        fit = fit_l1(token, n_Cs, C_span, use_cv, test_size, ds)
    selector, summary = fit.selector, study.l1_summary(fit)
    m = st.columns(3)
    if summary.accuracy is not None:
        e = summary.accuracy
        m[0].metric("Held-out accuracy at the CV-chosen C", e.format(3),
                    help=f"95% {e.method}; C chosen by 3-fold CV on the {fit.n_train} training samples, not on "
                         "the held-out rows")
        m[1].metric("...with non-zero features", summary.active_at_chosen)
        m[2].metric("CV-chosen C", f"{selector.C_:.3g}", help=f"{summary.n_selected} features active")
    else:
        m[0].metric("Held-out accuracy", NO_NUMBER,
                    help="Shown only at a C chosen without the held-out rows: tick “Choose C by 3-fold CV”. The best "
                         "accuracy along the path would pick C on the rows that report it.")
        m[1].metric("First feature to enter", names[selector.order_[0]])
    if not summary.converged:
        st.warning("The solver hit its iteration limit at some C; those coefficients are approximate.")
    Cs = selector.Cs_
    try:
        start = Position.nearest(Cs, float(url_value(C_PARAM) or Cs[len(Cs) // 2]))
    except ValueError:
        start = Position.at(Cs, len(Cs) // 2)
    fig = l1_figure(selector, fit, (token, n_Cs, C_span, use_cv, test_size), start, names, ds.image_shape,
                    None if ds.image_shape is None else background(token, ds), use_cv)
    show_explorable(st, fig, key="classic_l1_explorable", param=C_PARAM,
                    fallback=distinct_labels(Cs)[len(Cs) // 2])


@st.cache_data(show_spinner=False, max_entries=16)
def l1_figure(_selector, _fit, fit_key, start, names, image_shape, _background, use_cv) -> dict:
    """The L1 explorable (path, accuracies and, for images, the coefficient image) starting at ``start``."""
    return figs.l1_explorable(_selector, start, names, image_shape=image_shape, background=_background,
                              held_out=_fit.held_out, chosen_C=_selector.C_ if use_cv else None).to_plotly_json()


def boosting_view(ds, token, names) -> None:
    st.latex(BOOSTING_EQUATION)
    st.markdown(BOOSTING_TEXT)
    rounds = st.slider("Boosting rounds", *ROUNDS_RANGE, method_defaults("boosting")["n_estimators"], step=5,
                       key="classic_boost_rounds", bind="query-params")
    with user_errors():
        selector = fit_boosting(token, rounds, ds)
    summary = study.boosting_summary(selector, rounds)
    c = st.columns(3)
    c[0].metric("Rounds", summary.rounds, help=selector.stop_reason_)
    c[1].metric("Distinct features used", summary.n_features_used)
    c[2].metric("Training error", "-" if summary.train_error is None else f"{summary.train_error:.3f}")
    if summary.stopped_early:
        st.info(f"Boosting stopped early: {selector.stop_reason_}.")
    if summary.rounds:
        image = None if ds.image_shape is None else (
            lambda: figs.boosting_image(selector, ds.image_shape, background=background(token, ds)))
        show_pair(figs.boosting_rounds(selector.trace_, names), "classic_boost_rounds_fig", image,
                  "classic_boost_image")
    if st.checkbox("Compare with scikit-learn's Gini stumps (same weights each round)", key="classic_boost_gini"):
        with user_errors():
            table = gini_table(token, rounds, ds, selector)
        st.markdown(GINI_TEXT.format(differ=study.rounds_with_another_feature(table), rounds=len(table)))
        st.dataframe(table, hide_index=True, key="classic_boost_gini_table")


VIEW_FUNCTIONS = dict(zip(VIEWS, (mi_view, mdl_view, l1_view, boosting_view)))


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Classic criteria")
    st.markdown(INTRO)
    ds = current_dataset()
    key, params = current_selection()
    if ds.task != "classification":
        st.error(f"{md_escape(ds.name)} has a regression target; these criteria need class labels. "
                 "Pick a classification dataset in the sidebar.")
        st.stop()
    top = st.columns([3, 2])
    link_choice("classic_view", VIEWS, aliases=VIEW_ALIASES)  # ?classic_view=l1 as well as L1+path
    view = top[0].radio("Criterion", VIEWS, horizontal=True, key="classic_view", bind="query-params")
    with user_errors():
        if len(class_names(ds)) > 2 and top[1].toggle("Only two classes", key="classic_two_classes",
                                                      help="Every criterion also handles all classes."):
            ds = class_pair(ds, key="classic_pair", container=top[1])
    st.caption(f"{ds.name}: {ds.n_samples:,} samples, {ds.n_features:,} features, "
               f"{len(class_names(ds))} classes ({', '.join(class_names(ds)[:10])}), "
               f"{'sparse' if ds.is_sparse else 'dense'}.")
    VIEW_FUNCTIONS[view](ds, dataset_token(key, params, ds), list(ds.feature_names))
