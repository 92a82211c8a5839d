"""Relevance Tagging Machine (Molchanov, Kondrashkin & Vetrov): Power EP, EP and EM side by side.

A thin page: widgets, layout and captions. The numbers come from
:mod:`fsengine.methods.rtm.study`, the figures from :mod:`fsengine.plots.rtm`; each fit is
computed once per (dataset, class pair, settings, method) for the whole server, with a progress
bar over its sweeps (:func:`fsengine.app.compute.computed_once`).
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from fsengine import stats
from fsengine.app.compute import computed_once, dataset_token
from fsengine.app.display import NO_NUMBER, show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.links import link_choice
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.presets import Preset, defaults_preset, preset_buttons, show_start, start_value
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair
from fsengine.data.transforms import binarize_features
from fsengine.formatting import percent
from fsengine.methods.registry import get_method
from fsengine.methods.rtm import METHOD_LABELS, METHODS, RTMSettings, suggested_settings
from fsengine.methods.rtm import study as rtm_study
from fsengine.plots import rtm as rtm_plots

#: the URL parameter holding the threshold explorable's threshold
THRESHOLD_PARAM = "rtm_threshold"
#: the tolerance slider's stops (the fit's default, RTMSettings.tol, among them)
TOLERANCES = [1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5]

SLIDES_PRESET = Preset(
    "As in the slides: synthetic tags (ROC)",
    "Molchanov, Kondrashkin & Vetrov's synthetic experiment: 800 objects, 400 tags of which 30 relevant; "
    "Power EP, EP and EM trained side by side.",
    "synthetic_rtm", {"n_samples": 800, "n_tags": 400, "n_relevant": 30},
    {"rtm_methods": ["power_ep", "ep", "em"]})

_RTM = get_method("rtm")
#: the fit's defaults (RTMSettings: the registry's ARD and sweeps, the class's dampings and tolerance);
#: the prior strength and inner damping follow the data (suggested_settings)
DEFAULTS = {"rtm_damping": RTMSettings.damping, "rtm_ard": RTMSettings.ard, "rtm_sequential": RTMSettings.sequential,
            "rtm_tol": RTMSettings.tol, "rtm_max_iter": RTMSettings.max_iter,
            "rtm_anderson": RTMSettings.anderson_memory}
#: where the page starts: two or three methods side by side in seconds
START = Preset("Lighter first run",
               "A looser tolerance and fewer sweeps let the methods side by side finish in seconds; fits that "
               "reach the cap say so in the convergence panel.",
               None, widgets={"rtm_tol": 1e-3, "rtm_max_iter": 200})
#: the largest Anderson memory the page offers (twice the default: each residual kept adds to every sweep's bookkeeping)
ANDERSON_MAX = 2 * RTMSettings.anderson_memory
LABELS = {"rtm_tol": "tolerance", "rtm_max_iter": "max sweeps", "rtm_damping": "damping",
          "rtm_ard": "ARD", "rtm_sequential": "sequential updates", "rtm_anderson": "Anderson residuals"}


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Relevance Tagging Machine")
    _introduction()
    preset_buttons([SLIDES_PRESET, START, defaults_preset(DEFAULTS)])
    ds = current_dataset()
    if ds.task != "classification":
        st.error(f"{md_escape(ds.name)} is a regression dataset; the RTM needs two classes. Pick a classification "
                 "dataset.")
        st.stop()
    key, params = current_selection()
    with user_errors():
        pair = class_pair(ds, key="rtm_pair")
        binary = binarize_features(pair)
    tags_on, tags_per_object = rtm_study.tag_counts(binary)
    if binary is not pair:
        st.info(f"The RTM needs binary tags: {md_escape(binary.provenance.notes[-1])} ({tags_on:,} tags on).")
    token, classes = dataset_token(key, params, ds), tuple(pair.target_names)
    methods, settings = _controls(tags_per_object, (token, classes))
    if not methods:
        st.warning("Choose at least one training method.")
        st.stop()

    with user_errors():
        results = {rtm_study.RTM_LABELS[m]: _fit(token, classes, settings, m, ds) for m in methods}
        base_acc, base_scores = computed_once(
            "rtm_baselines", (token, classes), partial(_baselines, ds, classes),
            text="Baselines (Naive Bayes, L1-logistic, MI) ...", max_entries=16)
    for res in results.values():
        if not res.converged:
            st.warning(res.message)

    tabs = st.tabs(["Relevant tags", "Convergence", "ROC", "Accuracy"])
    with tabs[0]:
        _tags_tab(results, binary, classes, settings.ard, (token, classes, settings))
    with tabs[1]:
        show_figure(st, rtm_plots.convergence_figure({k: r.trace for k, r in results.items()}, tol=settings.tol),
                    width="stretch", key="rtm_conv_chart")
        st.dataframe(rtm_study.convergence_table(results))
    with tabs[2]:
        _roc_tab(results, base_scores, binary.truth)
    with tabs[3]:
        _accuracy_tab(results, base_acc)


def _introduction() -> None:
    """What the RTM is, its likelihood, how Power EP, EP and EM train it, and what to look for."""
    st.markdown(
        "The RTM classifies objects described by binary **tags** (words present in a review, pixels "
        "that are on). Each tag j carries one number, theta_j = P(class 1 | tag j present), and the tags "
        "of an object vote independently. A symmetric Beta prior pulls every theta_j towards 0.5; "
        "**automatic relevance determination** (ARD) tunes its strength alpha_j by the evidence, and a "
        "tag whose alpha_j runs off to infinity is pinned at 0.5 and drops out."
    )
    st.latex(r"P(c=1\mid x,\theta)=\frac{\prod_j \theta_j^{x_j}}{\prod_j \theta_j^{x_j}+\prod_j(1-\theta_j)^{x_j}},"
             r"\qquad \theta_j\sim \mathrm{Beta}(\alpha_j,\alpha_j)")
    st.markdown(
        "The posterior is approximated by a product of Betas, q(theta) = prod_j Beta(A_j, B_j), one "
        "site per (object, tag). **Power EP** with eta = -1 inverts each likelihood factor, which turns "
        "the tilted distribution into a mixture of two products of Betas; matching E[log theta] and "
        "E[log(1 - theta)] then needs only a 2x2 digamma system per tag. **EP** (eta = 1) has no closed "
        "form: here the other tags' log-odds sum is replaced by a Gaussian. **EM** maximises a "
        "variational lower bound tag by tag."
    )
    st.latex(r"q^{\setminus i}=q\,\tilde t_i,\qquad "
             r"\tilde t_i^{\,new}=\Big(\mathrm{proj}\big[q^{\setminus i}\,t_i^{-1}\big]/q^{\setminus i}\Big)^{-1}")
    st.latex(r"\mathrm{proj}=\mathrm{Beta}(\tilde A,\tilde B):\quad "
             r"\psi(\tilde A)-\psi(\tilde A+\tilde B)=\mathbb E[\log\theta],"
             r"\quad \psi(\tilde B)-\psi(\tilde A+\tilde B)=\mathbb E[\log(1-\theta)]")
    st.caption(
        "What to look for: the convergence panel shows why the slides needed four tricks (damping gamma, "
        "sequential updates, inner damping rho, a fixed prior factor alpha0): set the Anderson residuals to "
        "0 (the slides' plain sweeps), then gamma to 0 or sequential updates off, and watch the changes stall "
        "or the skipped factors pile up; with Anderson acceleration on (the default) the same fixed point "
        "comes in a few times fewer sweeps. Tags whose interval stays clear of 0.5 are the relevant ones."
    )


def _controls(tags_per_object: float, data_id: tuple) -> tuple[list[str], RTMSettings]:
    """The training controls (prior strength and inner damping start from the data's suggestion
    whenever the data change); returns the chosen methods and the settings."""
    suggested = suggested_settings(tags_per_object)
    if st.session_state.get("rtm_suggested_for") != data_id:  # new data: start from its suggestion
        st.session_state["rtm_suggested_for"] = data_id
        st.session_state["rtm_alpha0"] = float(suggested.alpha0)
        st.session_state["rtm_inner"] = float(suggested.inner_damping)
    with st.expander("Training controls", expanded=True):
        st.caption(f"Objects carry {tags_per_object:.0f} tags on average; suggested prior strength "
                   f"alpha0 = {suggested.alpha0:g} and inner damping rho = {suggested.inner_damping:g} "
                   "(long objects need both, or most eta = -1 cavities become undefined).")
        c1, c2, c3 = st.columns(3)
        link_choice("rtm_methods", list(METHODS), METHOD_LABELS.get, multiple=True)  # keys or labels
        methods = c1.multiselect("Methods", list(METHODS), default=["power_ep", "em"], format_func=METHOD_LABELS.get,
                                 key="rtm_methods",
                                 bind="query-params", help="EP integrates each tag numerically: about 10x slower")
        alpha0_p, sweeps_p = _RTM.param("alpha0"), _RTM.param("max_iter")
        alpha0 = c1.number_input("Prior strength alpha0 (fixed prior factor)", float(alpha0_p.min),
                                 float(alpha0_p.max), step=0.5, key="rtm_alpha0", bind="query-params",
                                 help="Beta(alpha0, alpha0) prior on every theta_j")
        damping = c2.slider("Damping gamma (after each sweep)", 0.0, 0.95, start_value("rtm_damping",
                            DEFAULTS["rtm_damping"], START), 0.05, key="rtm_damping", bind="query-params")
        inner = c2.slider("Inner damping rho (within a sweep)", 0.0, 0.95, step=0.05, key="rtm_inner",
                          bind="query-params")
        anderson = int(c2.number_input("Anderson acceleration: residuals kept", 0, ANDERSON_MAX,
                                       start_value("rtm_anderson", DEFAULTS["rtm_anderson"], START), 1,
                                       key="rtm_anderson", bind="query-params",
                                       help="Each sweep starts from the combination of the last sweeps' outputs "
                                            "that best cancels their residuals (Walker & Ni 2011); 0 = plain "
                                            "damped sweeps. Not with ARD."))
        ard = c3.checkbox("ARD (evidence-tuned alpha_j)", value=start_value("rtm_ard", DEFAULTS["rtm_ard"], START),
                          key="rtm_ard", bind="query-params")
        sequential = c3.checkbox("Sequential factor updates", value=start_value(
            "rtm_sequential", DEFAULTS["rtm_sequential"], START), key="rtm_sequential", bind="query-params")
        tol = c3.select_slider("Tolerance (max change of a posterior mean)", TOLERANCES,
                               value=start_value("rtm_tol", DEFAULTS["rtm_tol"], START), key="rtm_tol",
                               bind="query-params")
        max_iter = int(c3.number_input("Max sweeps", int(sweeps_p.min), int(sweeps_p.max),
                                       start_value("rtm_max_iter", DEFAULTS["rtm_max_iter"], START), 10,
                                       key="rtm_max_iter", bind="query-params"))
        show_start(START, DEFAULTS, LABELS)
    return methods, RTMSettings(alpha0=alpha0, damping=damping, inner_damping=inner, ard=ard, sequential=sequential,
                                max_iter=max_iter, tol=float(tol), anderson_memory=anderson)


def _train(ds, classes: tuple, settings: RTMSettings, method: str, progress) -> rtm_study.PageFit:
    train, test = rtm_study.page_split(ds, classes)
    return rtm_study.page_fit(train, test, settings, method, progress=progress)


def _fit(token: tuple, classes: tuple, settings: RTMSettings, method: str, ds) -> rtm_study.PageFit:
    """One training method on the picked data, computed once for the server (a bar over its sweeps)."""
    return computed_once("rtm_fit", (token, classes, settings, method), partial(_train, ds, classes, settings, method),
                         text=f"Training RTM by {METHOD_LABELS[method]} ...", max_entries=64)


def _baselines(ds, classes: tuple, progress):
    train, test = rtm_study.page_split(ds, classes)
    return rtm_study.page_baselines(train, test, progress=progress)


def _tags_tab(results: dict, binary, classes: tuple, ard: bool, run_key: tuple) -> None:
    shown = st.selectbox("Method", list(results), key="rtm_tags_method", bind="query-params")
    fit = results[shown]
    top = fit.top.head(st.slider("Tags shown", 5, 25, 15, key="rtm_tags_k", bind="query-params"))
    show_figure(st, rtm_plots.relevant_tags_figure(top, class_names=classes), key="rtm_tags_chart")
    threshold_section(fit, binary, classes, ard, (*run_key, shown))
    st.dataframe(top.style.format({"mean": "{:.3f}", "lower": "{:.3f}", "upper": "{:.3f}", "log_bf": "{:.2f}",
                                   "alpha": "{:.3g}"}), hide_index=True)


def _roc_tab(results: dict, base_scores: dict, truth) -> None:
    if truth is None:
        recorded_auc = rtm_study.recorded_synthetic_auc()
        st.info("ROC curves need the truly relevant tags, which only synthetic data knows. Pick "
                "'Relevance Tagging Machine model (synthetic tags)' in the sidebar"
                + ("; below is the recorded synthetic experiment." if recorded_auc is not None else "."))
        if recorded_auc is not None:
            show_figure(st, rtm_plots.auc_figure(recorded_auc), width="stretch", key="rtm_auc_chart")
            st.caption("`python -m fsengine reproduce rtm-roc`: one dot per seed, bars the mean with its 95% t "
                       "interval over seeds." + _recorded_auc_sentence())
        return
    curves, auc = rtm_study.page_roc(truth, results, base_scores)
    show_figure(st, rtm_plots.roc_figure(curves, auc), key="rtm_roc_chart")
    st.caption("Scores from the training split." + _recorded_auc_sentence())


#: the methods whose recorded synthetic AUC the page cites beside its own
_CITED = ("RTM Power EP", "MI")


def _recorded_auc_sentence() -> str:
    """The recorded run's mean AUC with intervals for :data:`_CITED`, read from its committed
    ``results.json`` (empty when there is none)."""
    rows = rtm_study.recorded_rows()
    if not rows:
        return ""
    found = [(label, rows.get(f"synthetic AUC, {label}")) for label in _CITED]
    found = [(label, r) for label, r in found if r is not None and r.get("interval")]
    if not found:
        return ""
    return (" The recorded run (`docs/results/rtm-roc/results.json`) gave mean AUC "
            + ", ".join(f"{r['ours']:.3f} [{r['interval'][0]:.3f}, {r['interval'][1]:.3f}] for {label}"
                        for label, r in found) + f" ({found[0][1]['method']}).")


def _accuracy_tab(results: dict, base_acc: dict) -> None:
    acc = rtm_study.page_accuracy(results, base_acc)
    column = ["test accuracy"]
    show_figure(st, rtm_plots.accuracy_figure(acc[column], low=acc[["low"]].set_axis(column, axis=1),
                                              high=acc[["high"]].set_axis(column, axis=1)), key="rtm_acc_chart")
    n_test = next(iter(results.values())).n_test
    st.caption(f"Held-out 25% stratified split of the picked dataset (seed 0): {n_test:,} test objects. Bars: 95% "
               "Wilson intervals of each accuracy. Every method is scored on the same objects, so a difference "
               "between two methods is less uncertain than the two bars suggest (the Compare page pairs them).")
    recorded = rtm_study.recorded_accuracy()
    st.markdown("**Recorded 5-fold CV** (`python -m fsengine reproduce rtm-roc`)")
    if recorded is None:
        st.info("No recorded run found (`fsengine reproduce rtm-roc` records one).")
    else:
        first = next(e for e in recorded.stack().dropna())
        st.dataframe(recorded.map(lambda e: e.format(4) if isinstance(e, stats.Estimate) else None),
                     width="stretch", placeholder=NO_NUMBER)
        st.caption(f"Mean test accuracy over the folds with its {percent(first.level)} interval ({first.method}), "
                   "from the run's `results.json`; the fold-paired differences between methods are in its report.")
    st.markdown("**The slides' table** (their two datasets are not named)")
    st.dataframe(rtm_study.SLIDES_ACCURACY.style.format("{:.4f}"))


@st.cache_data(show_spinner=False, max_entries=16)
def threshold_figure(_fit, _binary, fit_key, classes: tuple, ard: bool, threshold: float) -> dict:
    """The threshold explorable of one fit (with the θ image for image data), starting at ``threshold``."""
    image = _binary.image_shape is not None
    return rtm_plots.threshold_explorable(_fit.relevance, threshold, truth=_binary.truth,
                                          theta=_fit.theta if image else None, image_shape=_binary.image_shape,
                                          class_names=classes, ard_active=_fit.n_active if ard else None
                                          ).to_plotly_json()


def threshold_section(fit, binary, classes: tuple, ard: bool, fit_key: tuple) -> None:
    """The relevance threshold (an explorable: it moves in the browser; the URL keeps it)."""
    try:
        threshold = float(url_value(THRESHOLD_PARAM) or 0.0)
    except ValueError:
        threshold = 0.0
    show_explorable(st, threshold_figure(fit, binary, fit_key, classes, ard, threshold), key="rtm_threshold_figure",
                    param=THRESHOLD_PARAM, fallback="0")
    st.caption("A tag counts as relevant when the log Bayes factor of θ_j against θ_j = ½ (Savage-Dickey) exceeds "
               "the threshold; 0 = even odds.")
