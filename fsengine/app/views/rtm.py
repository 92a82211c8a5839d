"""Relevance Tagging Machine (Molchanov, Kondrashkin & Vetrov): Power EP, EP and EM side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from fsengine.app.display import show_figure
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.presets import Preset, preset_buttons
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair
from fsengine.data.transforms import binarize_features, split, two_classes
from fsengine.methods.rtm import METHOD_LABELS, METHODS, RTMSettings, suggested_settings
from fsengine.methods.rtm import study as rtm_exp
from fsengine.methods.rtm.evidence import top_tags
from fsengine.plots import rtm as rtm_plots


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Relevance Tagging Machine")
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
        "sequential updates, inner damping rho, a fixed prior factor alpha0): set gamma to 0 or switch "
        "sequential updates off and watch the changes stall or the skipped factors pile up. Tags whose "
        "interval stays clear of 0.5 are the relevant ones."
    )

    preset_buttons([SLIDES_PRESET])
    ds = current_dataset()
    if ds.task != "classification":
        st.error(f"{md_escape(ds.name)} is a regression dataset; the RTM needs two classes. Pick a classification "
                 "dataset.")
        st.stop()
    key, params = current_selection()
    with user_errors():
        pair = class_pair(ds, key="rtm_pair")
        binary = binarize_features(pair)
    if binary is not pair:
        st.info(f"The RTM needs binary tags: {md_escape(binary.provenance.notes[-1])} "
                f"({binary.X.nnz if binary.is_sparse else int(binary.X.sum()):,} tags on).")

    tags_per_object = (binary.X.nnz if binary.is_sparse else float(binary.X.sum())) / max(binary.n_samples, 1)
    suggested = suggested_settings(tags_per_object)
    data_id = (key, tuple(sorted(params.items())), tuple(pair.target_names))
    if st.session_state.get("rtm_suggested_for") != data_id:  # new data: start from its suggestion
        st.session_state["rtm_suggested_for"] = data_id
        st.session_state["rtm_alpha0"] = float(suggested.alpha0)
        st.session_state["rtm_inner"] = float(suggested.inner_damping)
    with st.expander("Training controls", expanded=True):
        st.caption(f"Objects carry {tags_per_object:.0f} tags on average; suggested prior strength "
                   f"alpha0 = {suggested.alpha0:g} and inner damping rho = {suggested.inner_damping:g} "
                   "(long objects need both, or most eta = -1 cavities become undefined).")
        c1, c2, c3 = st.columns(3)
        methods = c1.multiselect("Methods", list(METHODS), default=["power_ep", "em"], format_func=METHOD_LABELS.get,
                                 key="rtm_methods",
                                 bind="query-params", help="EP integrates each tag numerically: about 10x slower")
        alpha0 = c1.slider("Prior strength alpha0 (fixed prior factor)", 1.0, 100.0, step=0.5, key="rtm_alpha0",
                           bind="query-params",
                           help="Beta(alpha0, alpha0) prior on every theta_j")
        damping = c2.slider("Damping gamma (after each sweep)", 0.0, 0.95, 0.5, 0.05, key="rtm_damping",
                            bind="query-params")
        inner = c2.slider("Inner damping rho (within a sweep)", 0.0, 0.95, step=0.05, key="rtm_inner",
                          bind="query-params")
        ard = c3.checkbox("ARD (evidence-tuned alpha_j)", value=False, key="rtm_ard", bind="query-params")
        sequential = c3.checkbox("Sequential factor updates", value=True, key="rtm_sequential", bind="query-params")
        tol = c3.select_slider("Tolerance (max change of a posterior mean)", [1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5],
                               value=1e-3, key="rtm_tol", bind="query-params")
        max_iter = int(c3.number_input("Max sweeps", 10, 2000, 200, 10, key="rtm_max_iter", bind="query-params"))
    if not methods:
        st.warning("Choose at least one training method.")
        st.stop()

    settings = RTMSettings(alpha0=alpha0, damping=damping, inner_damping=inner, ard=ard, sequential=sequential,
                           max_iter=max_iter, tol=float(tol))
    classes = tuple(pair.target_names)


    def _prepared(data, classes: tuple):
        """The picked dataset (catalogue or upload), reduced to the chosen class pair, binarised and split
        (train, test)."""
        if len(data.classes) > 2:
            data = two_classes(data, *classes)
        return split(binarize_features(data), test_size=0.25, seed=0)


    # (key, frozen) identify the data, the upload too (its params hold the file id and options); _data is not hashed
    @st.cache_data(show_spinner=False, max_entries=64)
    def _fit_method(key: str, frozen: tuple, classes: tuple, settings: RTMSettings, method: str, _data):
        train, test = _prepared(_data, classes)
        fit, acc, secs = rtm_exp.fit_and_score(train.X, train.y, test.X, test.y, settings, method)
        return {"A": fit.A, "B": fit.B, "alpha": fit.alpha, "trace": fit.trace, "converged": fit.converged,
                "message": fit.message, "relevance": fit.relevance(), "theta": fit.theta_mean,
                "active": int(fit.active().sum()),
                "accuracy": acc, "seconds": secs, "top": top_tags(fit.A, fit.B, fit.alpha, train.feature_names, k=25)}


    @st.cache_data(show_spinner=False, max_entries=16)
    def _baselines(key: str, frozen: tuple, classes: tuple, _data):
        train, test = _prepared(_data, classes)
        acc = rtm_exp.baseline_accuracy(train.X, train.y, test.X, test.y)
        scores = {rtm_exp.MI_LABEL: rtm_exp.mutual_information_scores(train.X, train.y),
                  rtm_exp.L1_LABEL: rtm_exp.l1_path_scores(train.X, train.y)}
        return acc, scores


    frozen = tuple(sorted(params.items()))
    bar = st.progress(0.0, text="Training ...")
    results = {}
    with user_errors():
        for k, m in enumerate(methods):
            bar.progress(k / (len(methods) + 1), text=f"Training RTM by {METHOD_LABELS[m]} ...")
            results[rtm_exp.RTM_LABELS[m]] = _fit_method(key, frozen, classes, settings, m, ds)
        bar.progress(len(methods) / (len(methods) + 1), text="Baselines (Naive Bayes, L1-logistic, MI) ...")
        base_acc, base_scores = _baselines(key, frozen, classes, ds)
    bar.empty()

    for res in results.values():
        if not res["converged"]:
            st.warning(res["message"])

    tabs = st.tabs(["Relevant tags", "Convergence", "ROC", "Accuracy"])

    with tabs[0]:
        shown = st.selectbox("Method", list(results), key="rtm_tags_method", bind="query-params")
        top = results[shown]["top"].head(st.slider("Tags shown", 5, 25, 15, key="rtm_tags_k", bind="query-params"))
        show_figure(st, rtm_plots.relevant_tags_figure(top, class_names=classes),
                        key="rtm_tags_chart")
        if binary.image_shape is not None:
            show_figure(st, rtm_plots.theta_image_figure(results[shown]["theta"], binary.image_shape,
                                                         class_names=classes),
                            width="stretch", key="rtm_image_chart")
        threshold_views(results[shown]["relevance"], binary.truth, binary.n_features,
                        results[shown]["active"] if ard else None)
        st.dataframe(top.style.format({"mean": "{:.3f}", "lower": "{:.3f}", "upper": "{:.3f}", "log_bf": "{:.2f}",
                                       "alpha": "{:.3g}"}), hide_index=True)

    with tabs[1]:
        show_figure(st, rtm_plots.convergence_figure({k: r["trace"] for k, r in results.items()}, tol=settings.tol),
                        width="stretch", key="rtm_conv_chart")
        # rows from a list of dicts keep the methods' and the columns' order on every pandas version
        st.dataframe(pd.DataFrame([{"sweeps": len(r["trace"]), "converged": r["converged"],
                                    "seconds": round(r["seconds"], 2),
                                    "final log evidence": r["trace"]["log_evidence"].iloc[-1]}
                                   for r in results.values()], index=list(results)))

    with tabs[2]:
        if binary.truth is None:
            recorded_auc = rtm_exp.recorded_synthetic_auc()
            st.info("ROC curves need the truly relevant tags, which only synthetic data knows. Pick "
                    "'Relevance Tagging Machine model (synthetic tags)' in the sidebar"
                    + ("; below is the recorded synthetic experiment." if recorded_auc is not None else "."))
            if recorded_auc is not None:
                show_figure(st, rtm_plots.auc_figure(recorded_auc, reference={"RTM Power EP": 0.82, "MI": 0.80}),
                                width="stretch", key="rtm_auc_chart")
                st.caption("`python -m fsengine reproduce rtm-roc`: 800 objects, 400 tags, 30 relevant, one dot "
                           "per seed; diamonds: an earlier run of the same experiment (Power EP 0.82, MI 0.80), "
                           "for comparison.")
        else:
            scores = {**{k: r["relevance"] for k, r in results.items()}, **base_scores}
            curves, auc = rtm_exp.roc_curves(binary.truth, scores)
            show_figure(st, rtm_plots.roc_figure(curves, auc), key="rtm_roc_chart")
            st.caption("Scores from the training split. For comparison, an earlier run of the recorded "
                       "experiment (800 objects, 400 tags, 30 relevant) gave AUC 0.82 for Power EP and 0.80 for MI.")

    with tabs[3]:
        table = pd.Series({**{k: r["accuracy"] for k, r in results.items()}, **base_acc},
                          name="test accuracy").to_frame()  # RTM methods first, then the baselines
        show_figure(st, rtm_plots.accuracy_figure(table), key="rtm_acc_chart")
        st.caption("Held-out 25% stratified split of the picked dataset (seed 0).")
        c_ours, c_slides = st.columns(2)
        recorded = rtm_exp.recorded_accuracy()
        c_ours.markdown("**Recorded 5-fold CV** (`python -m fsengine reproduce rtm-roc`)")
        if recorded is None:
            c_ours.info("No recorded run found (`fsengine reproduce rtm-roc` records one).")
        else:
            c_ours.dataframe(recorded.style.format("{:.4f}"))
        c_slides.markdown("**The slides' table** (their two datasets are not named)")
        c_slides.dataframe(rtm_exp.SLIDES_ACCURACY.style.format("{:.4f}"))


SLIDES_PRESET = Preset(
    "As in the slides: synthetic tags (ROC)",
    "Molchanov, Kondrashkin & Vetrov's synthetic experiment: 800 objects, 400 tags of which 30 relevant; "
    "Power EP, EP and EM trained side by side.",
    "synthetic_rtm", {"n_samples": 800, "n_tags": 400, "n_relevant": 30},
    {"rtm_methods": ["power_ep", "ep", "em"]})


@st.fragment
def threshold_views(relevance, truth, n_features: int, ard_active: int | None) -> None:
    """The relevance threshold and the count it gives (a fragment: moving it re-sends only this)."""
    threshold = st.slider("Relevance threshold: log Bayes factor above", -5.0, 5.0, 0.0, 0.5, key="rtm_threshold",
                          bind="query-params",
                          help="A tag counts as relevant when the log Bayes factor of θ_j against θ_j = ½ "
                               "(Savage-Dickey) exceeds this; 0 = even odds.")
    chosen = relevance > threshold
    cols = st.columns(3 if truth is not None else 1)
    cols[0].metric("Tags above the threshold", f"{int(chosen.sum()):,} of {n_features:,}")
    if truth is not None:
        truth = truth.astype(bool)
        cols[1].metric("Truly relevant among them", f"{int((chosen & truth).sum()):,} of {int(truth.sum()):,}")
        cols[2].metric("Irrelevant among them", f"{int((chosen & ~truth).sum()):,}")
    st.caption("Score: log Bayes factor of θ_j against θ_j = ½ (Savage-Dickey)."
               + (f" The ARD itself left {ard_active:,} tags unpinned." if ard_active is not None else ""))
