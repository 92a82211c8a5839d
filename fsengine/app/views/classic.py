"""Classic criteria (Jaakkola, MIT 6.867 lecture 12): mutual information, MDL, L1 path, boosting."""

from __future__ import annotations

import contextlib

import numpy as np
import streamlit as st

from fsengine.app.display import figure_columns, show_figure
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair
from fsengine.data.transforms import binarize_features, class_names, is_binary_matrix, split
from fsengine.methods.classic.study import same_weights
from fsengine.plots import classic as figs
from fsengine.selectors import BoostingSelector, L1PathSelector, MDLSelector, MutualInfoSelector

VIEWS = ("Mutual information", "MDL", "L1 path", "Boosting")


@contextlib.contextmanager
def progress_bar(text: str):
    """A progress bar for one cached computation; yields ``report(fraction, message)``."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda fraction, message: bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)
    finally:
        bar.empty()


@st.cache_data(show_spinner="Counting ...", max_entries=16)
def fit_mi(ds_id, binarization, _ds):
    return MutualInfoSelector().fit(_ds.X, _ds.y)


@st.cache_data(show_spinner=False, max_entries=16)
def fit_mdl(ds_id, binarization, max_features, _ds):
    with progress_bar("MDL forward selection ...") as report:
        return MDLSelector(max_features=max_features).fit(_ds.X, _ds.y, progress=report)


@st.cache_data(show_spinner=False, max_entries=16)
def fit_l1(ds_id, n_Cs, C_span, use_cv, test_size, _ds):
    train, test = split(_ds, test_size=test_size, seed=0)
    with progress_bar("L1 path ...") as report:
        selector = L1PathSelector(n_Cs=n_Cs, C_span=C_span, cv=3 if use_cv else None).fit(
            train.X, train.y, progress=report)
    return selector, selector.path_accuracy(test.X, test.y), train.n_samples, test.n_samples


@st.cache_data(show_spinner=False, max_entries=16)
def fit_boosting(ds_id, rounds, _ds):
    with progress_bar("Boosting ...") as report:
        return BoostingSelector(n_estimators=rounds).fit(_ds.X, _ds.y, progress=report)


@st.cache_data(show_spinner="Fitting Gini stumps with the same weights ...", max_entries=8)
def gini_table(ds_id, rounds, _ds, _selector):
    return same_weights(_ds.X, _ds.y, _selector.ensemble_)


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


def mean_image(ds) -> np.ndarray:
    return np.asarray(ds.X.mean(axis=0)).ravel()


def ordinal_labels(order, p) -> np.ndarray:
    labels = np.full(p, "", dtype=object)
    labels[np.asarray(order)] = [str(i + 1) for i in range(len(order))]
    return labels


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Classic criteria")
    st.markdown(
        "Four classic ways to choose features from Jaakkola's MIT 6.867 lecture 12: rank binary "
        "features by how much they tell about the label under **Naive Bayes** (mutual information), "
        "grow a Naive Bayes classifier feature by feature until the **description length** of labels "
        "plus model stops shrinking (MDL), let an **L1 penalty** switch logistic-regression "
        "coefficients on one at a time, and let **boosting** pick one decision stump per round."
    )

    ds = current_dataset()
    key, params = current_selection()
    if ds.task != "classification":
        st.error(f"{md_escape(ds.name)} has a regression target; these criteria need class labels. "
                 "Pick a classification dataset in the sidebar.")
        st.stop()

    top = st.columns([3, 2])
    view = top[0].radio("Criterion", VIEWS, horizontal=True, key="classic_view", bind="query-params")
    with user_errors():
        if len(class_names(ds)) > 2 and top[1].toggle("Only two classes", key="classic_two_classes",
                                                      help="Every criterion also handles all classes."):
            ds = class_pair(ds, key="classic_pair", container=top[1])
    ds_id = (key, tuple(sorted(params.items())), ds.name, ds.n_samples)
    names = list(ds.feature_names)
    st.caption(f"{ds.name}: {ds.n_samples:,} samples, {ds.n_features:,} features, "
               f"{len(class_names(ds))} classes ({', '.join(class_names(ds)[:10])}), "
               f"{'sparse' if ds.is_sparse else 'dense'}.")

    if view == "Mutual information":
        st.latex(r"\hat I(X_i;Y) = \hat H(X_i) - \hat H(X_i\mid Y) \qquad \text{(Eq. 2)}")
        st.markdown(
            "With probabilities estimated from counts, including feature *i* in the Naive Bayes model "
            "(replacing P(x_i) by P(x_i | y) in Eq. 1) raises the log-likelihood of the data by "
            "n Î(X_i; Y); so features enter in decreasing order of mutual information. Each feature is "
            "judged **alone**: two copies of the same pixel get the same high score. Red bars pass an "
            "independence test (G = 2n Î ~ chi-squared, Bonferroni-corrected at 1%)."
        )
        binary, rule = binary_version(ds)
        with user_errors():
            selector = fit_mi(ds_id, rule, binary)
        shown = count_slider("Features shown", 5, min(60, ds.n_features), 25, key="classic_mi_top")
        c = st.columns(3)
        c[0].metric("Largest I(X; Y)", f"{selector.scores_.max():.4f} nats")
        c[1].metric("Significant features", f"{int(selector.support_.sum()):,} of {ds.n_features:,}")
        c[2].metric("Best feature", names[int(selector.order_[0])])
        bars = figs.mi_bars(selector.scores_, names, top=shown, selected=selector.support_)
        if ds.image_shape is not None:
            left, right = figure_columns([1, 1])
            show_figure(left, bars, key="classic_mi_bars")
            show_figure(right, figs.feature_image(selector.scores_, ds.image_shape, title="I(X; Y) per pixel",
                                                  colorbar="I [nats]"), key="classic_mi_image")
        else:
            show_figure(st, bars, key="classic_mi_bars")

    elif view == "MDL":
        st.latex(r"\mathrm{DL}(J) = \underbrace{\sum_t -\log \hat P(y_t\mid x_t, J)}_{\text{DL-data (Eq. 10)}}"
                 r" + \underbrace{\log^*|J| + \log\binom{d}{|J|} + \log(n+1) + |J|\sum_{y}\log(n_y+1)}"
                 r"_{\text{DL-model (Eq. 13-14)}}")
        st.markdown(
            "Naive Bayes is a linear classifier (Eq. 6-9). MDL asks which features help it **classify**: "
            "DL-data is the cost in nats of sending the labels given the inputs; adding a feature changes "
            "the discriminant f(x) by one term. Features are added greedily (the first one is the MI "
            "winner); each costs its own parameters and the choice of which feature it is, so the "
            "total has a minimum: the **chosen size** (star). Look for the point where DL-data flattens "
            "while DL-model keeps climbing. (For more than two classes the count terms generalise to "
            "log C(n+K-1, K-1) and |J| sum over classes of log(n_y + 1).)"
        )
        binary, rule = binary_version(ds)
        max_features = count_slider("Largest subset explored", 5, min(80, ds.n_features), 30, key="classic_mdl_max")
        with user_errors():
            selector = fit_mdl(ds_id, rule, max_features, binary)
        trace = selector.trace_
        best = selector.best_size_
        c = st.columns(3)
        c[0].metric("Chosen size |J|", best)
        c[1].metric("DL at the minimum", f"{trace['dl_total'].iloc[best]:.1f} nats")
        c[2].metric("DL of the empty model", f"{trace['dl_total'].iloc[0]:.1f} nats")
        if best == trace["size"].iloc[-1]:
            st.warning("The minimum is at the largest size explored; explore larger subsets.")
        curve = figs.mdl_curve(trace, best)
        if ds.image_shape is not None:
            left, right = figure_columns([3, 2])
            show_figure(left, curve, key="classic_mdl_curve")
            entered = np.full(ds.n_features, np.nan)
            entered[selector.forward_sequence_[:best]] = np.arange(1, best + 1)
            show_figure(right, figs.feature_image(entered, ds.image_shape, title="Chosen pixels (order added)",
                                                  colorbar="added at step", colorscale="Plasma_r",
                                                  text=ordinal_labels(selector.forward_sequence_[:best], ds.n_features),
                                                  background=mean_image(ds)),
                               key="classic_mdl_image")
        else:
            show_figure(st, curve, key="classic_mdl_curve")
        table = trace.loc[trace["size"] > 0, ["size", "feature", "dl_data", "gain", "dl_model", "dl_total"]].copy()
        table.insert(2, "name", [names[j] for j in table["feature"]])
        st.dataframe(table, hide_index=True, key="classic_mdl_table")

    elif view == "L1 path":
        st.latex(r"J(\theta) = \sum_t \log P(y_t\mid x_t,\theta) - \lambda \sum_{i=1}^d |\theta_i|"
                 r"\quad\text{(Eq. 18)},\qquad \frac{\partial l}{\partial\theta_k} = \lambda\,"
                 r"\mathrm{sign}(\theta_k)\ \text{if}\ \theta_k\neq 0\quad\text{(Eq. 19)}")
        st.markdown(
            "The one-norm penalty sets coefficients **exactly** to zero: a feature enters only when the "
            "slope of the log-likelihood along it reaches lambda = 1/C. The path starts at scikit-learn's "
            "`l1_min_c` (nothing enters) and relaxes the penalty; features are ranked by the order in which "
            "they enter. The top axis counts the non-zero coefficients; the lower panel shows accuracy on "
            "a held-out quarter of the data: it rises while useful features enter and flattens (or drops) "
            "when the model starts fitting noise. Features are standardised first; with more than two "
            "classes each class has its own one-vs-rest path and the curve shows the norm of a feature's "
            "class coefficients."
        )
        c = st.columns(4)
        n_Cs = c[0].slider("Values of C", 8, 40, 20, key="classic_l1_nCs", bind="query-params")
        span_exp = c[1].select_slider("C range (max / min)", options=[1, 2, 3, 4], value=3,
                                      format_func=lambda e: f"10^{e}", key="classic_l1_span")
        test_size = c[2].select_slider("Held-out share", options=[0.2, 0.25, 0.3, 0.4], value=0.25,
                                       key="classic_l1_test")
        use_cv = c[3].checkbox("Choose C by 3-fold CV", value=False, key="classic_l1_cv",
                               help="Cross-validated on the training part; takes four times as long.")
        with user_errors():
            selector, held_out, n_train, n_test = fit_l1(ds_id, n_Cs, 10.0 ** span_exp, use_cv, test_size, ds)
        trace = selector.trace_
        best_held = int(np.argmax(held_out.to_numpy()))
        m = st.columns(3)
        m[0].metric("Best held-out accuracy", f"{held_out.iloc[best_held]:.3f}",
                    help=f"{n_test} held-out samples, fitted on {n_train}")
        m[1].metric("...with non-zero features", int(trace["n_active"].iloc[best_held]))
        if use_cv:
            m[2].metric("CV-chosen C", f"{selector.C_:.3g}", help=f"{int(selector.support_.sum())} features active")
        else:
            m[2].metric("First feature to enter", names[int(selector.order_[0])])
        if not trace["converged"].all():
            st.warning("The solver hit its iteration limit at some C; those coefficients are approximate.")
        ylabel = "coefficient" if selector.coefs_.shape[1] == 1 else "norm of class coefficients"
        order = [j for j in selector.order_ if selector.scores_[j] > 0]
        fig = figs.l1_path(selector.path_, trace, order, names, held_out=held_out,
                           chosen_C=selector.C_ if use_cv else None, ylabel=ylabel)
        if ds.image_shape is not None:
            left, right = figure_columns([3, 2])
            show_figure(left, fig, key="classic_l1_path")
            step = right.select_slider("C for the coefficient image", options=list(range(len(selector.Cs_))),
                                       value=len(selector.Cs_) // 2, key="classic_l1_step", bind="query-params",
                                       format_func=lambda i: f"{selector.Cs_[i]:.3g}")
            show_figure(right, figs.feature_image(selector.path_.iloc[step].to_numpy(), ds.image_shape,
                                                  title=f"{ylabel} at C = {selector.Cs_[step]:.3g}",
                                                  colorbar=ylabel.split()[0],
                                                  colorscale="RdBu" if selector.coefs_.shape[1] == 1 else "Viridis",
                                                  zmid=0.0 if selector.coefs_.shape[1] == 1 else None,
                                                  background=mean_image(ds), blank_zero=True),
                               key="classic_l1_image")
        else:
            show_figure(st, fig, key="classic_l1_path")

    else:
        st.latex(r"h(x;\theta) = \mathrm{sign}\big(s(x_k-\theta_0)\big)\ \text{(Eq. 21)},\quad "
                 r"\hat\alpha_m = \tfrac12\log\frac{1-\hat\epsilon_m}{\hat\epsilon_m}\ \text{(Eq. 33)},\quad "
                 r"\tilde W_m(t) \propto \tilde W_{m-1}(t)\,e^{-y_t\hat\alpha_m h(x_t;\hat\theta_m)}\ \text{(Eq. 34)}")
        st.markdown(
            "Each round picks the decision stump with the smallest **weighted error** over every feature "
            "and threshold, gives it alpha votes, and up-weights the examples it got wrong, so the next "
            "stump focuses on them. The features the stumps use are the selected features, ranked by first "
            "use. The exponential training loss falls every round; a feature chosen again later refines "
            "an earlier cut. With more than two classes the stumps vote for one class on each side and "
            "alpha follows the multi-class (SAMME) form, which is Eq. (33) for two classes."
        )
        rounds = st.slider("Boosting rounds", 5, 200, 40, step=5, key="classic_boost_rounds", bind="query-params")
        with user_errors():
            selector = fit_boosting(ds_id, rounds, ds)
        trace = selector.trace_
        c = st.columns(3)
        c[0].metric("Rounds", len(trace), help=selector.stop_reason_)
        c[1].metric("Distinct features used", len(selector.first_use_))
        c[2].metric("Training error", f"{trace['train_error'].iloc[-1]:.3f}" if len(trace) else "-")
        if len(trace) < rounds:
            st.info(f"Boosting stopped early: {selector.stop_reason_}.")
        if len(trace):
            fig = figs.boosting_rounds(trace, names)
            if ds.image_shape is not None:
                left, right = figure_columns([3, 2])
                show_figure(left, fig, key="classic_boost_rounds_fig")
                show_figure(right, figs.feature_image(
                    selector.scores_, ds.image_shape, blank_zero=True,
                    title="Chosen pixels (total alpha, first-use order)", colorbar="total alpha",
                    text=ordinal_labels(selector.first_use_, ds.n_features), background=mean_image(ds)),
                    key="classic_boost_image")
            else:
                show_figure(st, fig, key="classic_boost_rounds_fig")
        if st.checkbox("Compare with scikit-learn's Gini stumps (same weights each round)", key="classic_boost_gini"):
            with user_errors():
                table = gini_table(ds_id, rounds, ds, selector)
            differ = table.loc[~table["same_feature"]]
            st.markdown(
                f"scikit-learn's depth-1 trees split by weighted Gini impurity, not by the weighted error of "
                f"Eq. (32). With the same weights, they chose a different feature in **{len(differ)} of "
                f"{len(table)}** rounds; our stump's weighted error is never larger."
            )
            st.dataframe(table, hide_index=True, key="classic_boost_gini_table")
