"""Bayes-factor selection: Daume III's approximate Bayes factors for maxent features."""

import pandas as pd
import streamlit as st

from fsengine.app.display import show_figure
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.presets import Preset, preset_buttons
from fsengine.app.safe_text import md_escape
from fsengine.csv_export import csv_bytes
from fsengine.methods.bayes_factor.study import (
    DEFAULT_MODEL_PRIOR,
    DEFAULT_SIGN,
    approximation_check,
    bayes_factor_curve,
    gain_selector_curves,
    heldout_task,
    run_bayes_factor,
    selected_pixels,
    selected_table,
    sign_comparison,
)
from fsengine.plots.bayes_factor import (
    accuracy_figure,
    approximation_figure,
    beta_rounds_figure,
    pixel_pairs_figure,
    sign_figure,
)

SIGN_OPTIONS, SIGN_VALUES = ["Laplace: −½ log a_g", "printed: +½ log a_g"], ["laplace", "printed"]
PRIOR_OPTIONS, PRIOR_VALUES = ["uniform (Eq. 13)", "multiplicity: −log(F−G)"], ["uniform", "multiplicity"]


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Bayes-factor selection")
    st.markdown(
        "Daumé III's **APPROXBFFS** grows a conditional maxent model feature by feature and *decides "
        "itself when to stop*. A feature is a (predicate, class) pair $f(x,y)=x_j[y=c]$. Each round "
        "fits the MAP model of the active features, proposes the predicates that fire on misclassified "
        "training rows (for the gold and the predicted class), fits each candidate's weight $\\mu_g$ "
        "alone with the others fixed, and scores it by a Laplace-approximated log Bayes factor. Up to "
        "$S$ features are added per round; when the current model $\\beta_0$ beats every candidate, "
        "selection stops."
    )
    with st.expander("The method in five equations", expanded=False):
        st.markdown("Laplace approximation of the evidence (Eq. 7), with $A$ the Hessian of "
                    "$-\\log q$, $q(\\lambda)=\\pi(\\lambda)\\,p(D\\mid\\lambda)$, at its maximum $\\lambda^0$:")
        st.latex(r"p(D\mid M) \approx q(\lambda^0)\,\sqrt{(2\pi)^K / \det A}")
        st.markdown("Mean field (other weights fixed) and a diagonal $A$ give the score of adding $g$ "
                    "relative to the current model (Eq. 12), with the sign that Eq. (7) implies:")
        st.latex(r"\beta_g-\beta_0 = \log\frac{\pi(M_g)}{\pi(M_0)} + \underbrace{\log p(D\mid\lambda^0,\mu_g)"
                 r" - \log p(D\mid\lambda^0) - \frac{\mu_g^2}{2\sigma^2}}_{\text{penalised gain }h_g}"
                 r" - \tfrac12\log\left(\sigma^2 a_g\right)")
        st.markdown("where $a_g = \\sum_n x_{ng}^2\\, q_n(1-q_n) + 1/\\sigma^2$ is the curvature of "
                    "Eq. (11) plus the prior precision ($q_n$ the model's probability of class $c$ "
                    "with $\\mu_g$ added). **Eq. (12) as printed** has $+\\tfrac12\\log a_g$ instead, "
                    "i.e. $\\beta_g-\\beta_0 = \\dots + h_g + \\tfrac12\\log(a_g/\\sigma^2)$: a reward "
                    "for well-determined weights where the Laplace formula has an Occam penalty.")
        st.markdown("The weight $\\mu_g$ comes from Newton steps on the penalised log-likelihood "
                    "(Eq. 17 plus the prior), touching only the rows where predicate $j$ fires:")
        st.latex(r"\frac{d}{d\mu}\Big[\log p(D\mid\lambda^0,\mu)-\frac{\mu^2}{2\sigma^2}\Big]"
                 r" = \sum_{n:\,x_{nj}\neq 0} x_{nj}\big([y_n=c]-q_n\big) - \frac{\mu}{\sigma^2}")
        st.markdown("Model priors: uniform over the next model (Eq. 13: the odds are 0), or "
                    "*multiplicity*, which gives the current model half the prior mass and the "
                    "$F-G$ possible additions the other half:")
        st.latex(r"\log\frac{\pi(M_g)}{\pi(M_0)} = -\log(F-G)")
        st.markdown("After adding $g'$, every remaining candidate sharing rows with it is re-scored at "
                    "its fixed $\\mu_g$ on the grown model (Eq. 14), so near-duplicates fall back.")

    preset_buttons(PRESETS)
    ds = current_dataset()
    key, params = current_selection()
    large = ds.is_sparse and ds.n_samples > 20000  # CoNLL-2000 / treebank: start on a subset

    c1, c2, c3, c4 = st.columns(4)
    per_round = int(c1.number_input("S: features per round", min_value=1, max_value=200,
                                    value=20 if large else 10, key=f"bf_S_{key}", bind="query-params",
                                    help="Section 3.5: at most S pairs per round, one MAP fit per round; "
                                         "larger S = fewer, cheaper rounds."))
    variance = c2.select_slider("Prior variance σ²", options=[0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0],
                                value=1.0, key="bf_var", bind="query-params",
                                help="Gaussian prior N(0, σ²) on every candidate weight (the bias is "
                                     "unpenalised).")
    sign_label = c3.radio("Occam term of Eq. (12)", SIGN_OPTIONS, index=SIGN_VALUES.index(DEFAULT_SIGN),
                          key="bf_sign", bind="query-params",
                          help="The Laplace formula Eq. (7) gives −½ log det A; the "
                               "paper's Eq. (12) prints +½ log a_g.")
    sign = SIGN_VALUES[SIGN_OPTIONS.index(sign_label)]
    prior_label = c4.radio("Model prior", PRIOR_OPTIONS, index=PRIOR_VALUES.index(DEFAULT_MODEL_PRIOR),
                           key="bf_prior", bind="query-params")
    model_prior = PRIOR_VALUES[PRIOR_OPTIONS.index(prior_label)]
    st.caption(f"Default: {SIGN_OPTIONS[SIGN_VALUES.index(DEFAULT_SIGN)]} with the "
               f"{PRIOR_OPTIONS[PRIOR_VALUES.index(DEFAULT_MODEL_PRIOR)]} prior, the configuration the recorded "
               "`reproduce bayes-factor` run recommends: on CoNLL-2000 Base-NP it stops by itself with the best "
               "held-out accuracy at its stop, while the paper's uniform prior (Eq. 13) lets noise pairs in "
               "whenever their gain beats ½ log a_g and stops late (9,668 pairs on all the training data).")

    d1, d2, d3, d4, d5 = st.columns(5)
    n_train = int(d1.number_input("Training rows (0 = all)", min_value=0, value=10000 if large else 0,
                                  step=1000, key=f"bf_ntrain_{key}", bind="query-params",
                                  help="The first rows of the training data; a subset keeps the page "
                                       "interactive on CoNLL-2000 (212k tokens)."))
    n_heldout = int(d2.number_input("Held-out rows (0 = all)", min_value=0, value=5000 if large else 0,
                                    step=1000, key=f"bf_nheld_{key}", bind="query-params"))
    budget = int(d3.number_input("Most pairs selected", min_value=5, max_value=5000,
                                 value=200 if large else 300, step=50, key=f"bf_budget_{key}", bind="query-params",
                                 help="A cap: the printed sign often never stops by itself."))
    past = int(d4.number_input("Rounds traced past the stop", min_value=0, max_value=50, value=3,
                               key="bf_past",
                               bind="query-params", help="After β₀ beats every candidate, keep adding the S "
                                                   "best anyway for this many rounds, to see the "
                                                   "held-out accuracy beyond the stopping point."))
    compare = d5.checkbox("Compare with IFS and SGC", value=True, key="bf_compare", bind="query-params",
                          help="Zhou et al.'s gain selectors on the same rows; every prefix re-fitted by "
                               "the same MAP as the Bayes-factor rounds.")

    token = (key, tuple(sorted(params.items())), ds.name, ds.n_samples)


    @st.cache_data(show_spinner=False, max_entries=8)
    def task_of(_ds, token, n_train, n_heldout):
        """Training / held-out rows of the picked dataset (``token`` keys the cache)."""
        return heldout_task(_ds, n_train=n_train, n_heldout=n_heldout)


    @st.cache_data(show_spinner=False, max_entries=32)
    def bayes_run(_task, task_token, per_round, variance, sign, model_prior, budget, past):
        bar = st.progress(0.0, text=f"Bayes-factor selection ({sign} sign) ...")
        run = run_bayes_factor(_task, per_round=per_round, prior_variance=variance, sign=sign,
                               model_prior=model_prior, max_pairs=budget, rounds_past_stop=past,
                               progress=lambda f, msg: bar.progress(f, text=msg))
        bar.empty()
        return run


    @st.cache_data(show_spinner=False, max_entries=16)
    def gain_curves(_task, task_token, budget, variance, extra):
        bar = st.progress(0.0, text="IFS and SGC ...")
        curves = gain_selector_curves(_task, budget, prior_variance=variance, extra_sizes=extra,
                                      progress=lambda f, msg: bar.progress(f, text=msg))
        bar.empty()
        return curves


    with user_errors():
        task = task_of(ds, token, n_train, n_heldout)
        task_token = (token, n_train, n_heldout)
        run = bayes_run(task, task_token, per_round, variance, sign, model_prior, budget, past)
    st.caption(f"{md_escape(ds.name)}: {task.description}. {task.n_classes} classes, "
               f"{len(task.predicate_names):,} predicates (input columns).")

    trace = run.trace
    at_stop = trace.loc[trace["n_selected"] == run.n_at_stop].iloc[0]
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Pairs selected", f"{run.n_at_stop:,}")
    m2.metric("Rounds (MAP fits) to the stop", f"{int(at_stop['round']) + 1:,}")
    m3.metric("Held-out accuracy at the stop", f"{at_stop['heldout_accuracy']:.2%}")
    m4.metric("Seconds to the stop", f"{at_stop['seconds']:.1f}")
    st.caption(f"Why it ended: **{run.stop_reason}**"
               + (" (β₀ never beat every candidate before that)" if run.stop_round is None else
                  (f"; the automatic stop was in round {run.stop_round}, the rounds after it are "
                   "traced for comparison only" if len(trace) - 1 > run.stop_round else "")))

    show_figure(st, beta_rounds_figure(trace, run.stop_round, title="Bayes factors per round"),
                    key="bf_beta_chart")
    st.caption("What to look for: the first rounds add features worth tens to thousands of nats; the "
               "best margin then shrinks towards 0. Grey crosses are the best candidates left after a "
               "round's additions: Eq. (14)'s re-scoring pushes near-duplicates of what was just "
               "added below the purple circles. Selection stops by itself in the first round whose best "
               "candidate is below 0"
               + (f": here round {run.stop_round} (the red dashed line)." if run.stop_round is not None else
                  f"; this run never got there and ended by {run.stop_reason} (so no stop line is drawn)."))

    curves = bayes_factor_curve(run).assign(method="Bayes factor")
    if compare:
        with user_errors():
            others = gain_curves(task, task_token, max(int(trace["n_selected"].max()), 10), variance,
                                 (run.n_at_stop,))
        curves = pd.concat([curves, others], ignore_index=True)
    show_train = st.checkbox("Show training accuracy", value=True, key="bf_show_train")
    show_figure(st, accuracy_figure(curves, run.n_at_stop, show_train=show_train,
                                    title="Accuracy vs number of selected pairs",
                                    stopped=run.stop_round is not None),
                    key="bf_accuracy_chart")
    st.caption("Solid: held-out accuracy; dotted: training accuracy. Bayes-factor points are the MAP "
               "models of its rounds; IFS and SGC (greedy likelihood gain, no stopping rule) are their "
               "first k pairs re-fitted with the same prior and bias. The Bayes factor needs no "
               "held-out data to choose where to stop: compare the red dashed line with the held-out peak"
               + ("." if run.stop_round is not None else " (here it marks the end of the run, not a stop)."))

    pixels = selected_pixels(task, run)
    if pixels is not None:
        show_figure(st, pixel_pairs_figure(pixels.class_means, pixels.rows, pixels.cols, pixels.classes,
                                           task.class_names, pixels.order,
                                           title="Selected pixels (numbered in selection order) on the "
                                                 "mean images"),
                        key="bf_pixels")
        st.caption("A pair (pixel, class) raises the score of its class where the pixel is inked; "
                   "colour = the pair's class.")

    st.subheader("Selected features")
    table = selected_table(task, run)
    st.dataframe(table, hide_index=True, key="bf_table",
                 column_config={"beta_g - beta_0": st.column_config.NumberColumn(format="%.3f"),
                                "beta_g": st.column_config.NumberColumn(format="%.2f"),
                                "mu_g": st.column_config.NumberColumn(format="%.3f"),
                                "MAP weight": st.column_config.NumberColumn(format="%.3f")})
    st.download_button("Download the selected pairs (CSV)", csv_bytes(table, index=False),
                       file_name="bayes_factor_pairs.csv", mime="text/csv", key="bf_csv")

    st.subheader("What the sign of the Occam term changes")
    st.markdown("Both runs below use the same data, S, σ² and model prior; only the sign of "
                "½ log a_g in Eq. (12) differs. With the printed + sign the Occam factor becomes a "
                "reward, β₀ rarely beats the best candidate and selection runs to the budget (or until "
                "no training row is misclassified).")
    with user_errors():
        other_sign = "printed" if sign == "laplace" else "laplace"
        other = bayes_run(task, task_token, per_round, variance, other_sign, model_prior, budget, past)
    laplace_run, printed_run = (run, other) if sign == "laplace" else (other, run)
    cmp = sign_comparison(task, laplace_run, printed_run)
    st.dataframe(cmp.summary, hide_index=True, key="bf_sign_table",
                 column_config={"train accuracy": st.column_config.NumberColumn(format="%.4f"),
                                "held-out accuracy": st.column_config.NumberColumn(format="%.4f")})
    show_figure(st, sign_figure(bayes_factor_curve(laplace_run), bayes_factor_curve(printed_run),
                                laplace_run.n_at_stop, printed_run.n_at_stop,
                                title="Held-out accuracy per round under each sign"),
                    key="bf_sign_chart")
    o1, o2, o3 = st.columns(3)
    o1.markdown(f"**Only with the Laplace sign** ({len(cmp.only_laplace)})")
    o1.dataframe({"pair": cmp.only_laplace}, hide_index=True, key="bf_only_laplace", height=220)
    o2.markdown(f"**Selected under both** ({len(cmp.both)})")
    o2.dataframe({"pair": cmp.both}, hide_index=True, key="bf_both", height=220)
    o3.markdown(f"**Only with the printed sign** ({len(cmp.only_printed)})")
    o3.dataframe({"pair": cmp.only_printed}, hide_index=True, key="bf_only_printed", height=220)

    st.subheader("How good are the approximations?")
    st.markdown(
        "Eq. (12) rests on two assumptions: the other weights stay fixed when $g$ is added (mean "
        "field) and $A$ is diagonal. For the best proposals of one round, the full Laplace Bayes "
        "factor (Eq. 9: every weight re-fitted, the full Hessian, a N(0, 100) prior on the bias) is "
        "computed independently. Where the mean-field bar matches the black one the shortcut is "
        "harmless; a pair correlated with active features is where they part. The printed sign is "
        "off by log a_g. Model priors are left out (they shift all three alike)."
    )
    e1, e2, e3 = st.columns([2, 1, 1])
    check_rounds = [int(r) for r in trace["round"] if run.stop_round is None or r <= run.stop_round]
    check_round = e1.select_slider("Round to check", options=check_rounds, value=check_rounds[-1],
                                   key="bf_check_round", bind="query-params",
                                   help="Default: the stopping round, where the margins are near 0 and "
                                        "the approximations decide whether selection goes on.")
    n_check = int(e2.number_input("Candidates", min_value=2, max_value=8, value=5, key="bf_check_n"))
    do_check = e3.checkbox("Run the exact check", value=False, key="bf_check_run",
                           help="One MAP fit and one dense Hessian per candidate.")


    @st.cache_data(show_spinner=False, max_entries=16)
    def exact_check(_task, _run, run_token, round_, n_candidates, variance):
        bar = st.progress(0.0, text="Full Laplace evidences ...")
        out = approximation_check(_task, _run, round_, n_candidates=n_candidates,
                                  prior_variance=variance,
                                  progress=lambda f, msg: bar.progress(f, text=msg))
        bar.empty()
        return out


    if do_check:
        with user_errors():
            check = exact_check(task, run, (task_token, per_round, variance, sign, model_prior, budget,
                                            past), check_round, n_check, variance)
        show_figure(st, approximation_figure(check, title=f"Round {check_round}: approximate vs full "
                                                          "Laplace Bayes factors"),
                        key="bf_check_chart")
        st.dataframe(check.drop(columns="candidate"), hide_index=True, key="bf_check_table",
                     column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                                    ("full_laplace", "mean_field", "mean_field_printed", "difference")})
        st.caption(f"Largest |mean field − full Laplace| in round {check_round}: "
                   f"{check['difference'].abs().max():.3f} nats. Re-fitting the other weights (above "
                   "all the bias) can only add likelihood, so the mean-field margin is usually the "
                   "cautious one; the gap is largest in early rounds.")


#: the note has no experiment of its own: its two readings of Eq. (12) on the picked data
PRESETS = [
    Preset("As derived in the paper: Laplace, Eq. (7)",
           "Daume III: the Laplace Occam term −½ log a_g, uniform model prior (Eq. 13), σ² = 1.",
           None, widgets={"bf_sign": "Laplace: −½ log a_g", "bf_prior": "uniform (Eq. 13)", "bf_var": 1.0}),
    Preset("As printed in the paper: Eq. (12)",
           "Daume III's Eq. (12) as printed (+½ log a_g), uniform model prior (Eq. 13), σ² = 1.",
           None, widgets={"bf_sign": "printed: +½ log a_g", "bf_prior": "uniform (Eq. 13)", "bf_var": 1.0}),
]
