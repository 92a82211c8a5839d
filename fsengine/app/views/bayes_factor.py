"""Bayes-factor selection: Daume III's approximate Bayes factors for maxent features.

A thin page: the numbers come from :mod:`fsengine.methods.bayes_factor.study`, the figures from
:mod:`fsengine.plots.bayes_factor`; the cached computations below are keyed by the dataset token
(:func:`fsengine.app.compute.dataset_token`) and the widgets' values.
"""

from dataclasses import dataclass

import streamlit as st

from fsengine.app.compute import dataset_token, progress_bar
from fsengine.app.display import show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.presets import Preset, defaults_preset, preset_buttons, show_start, start_value
from fsengine.app.safe_text import md_escape
from fsengine.csv_export import csv_bytes
from fsengine.formatting import points
from fsengine.methods.bayes_factor.study import (
    accuracy_curves,
    approximation_check,
    bayes_factor_curve,
    checkable_rounds,
    comparison_budget,
    gain_selector_curves,
    heldout_task,
    largest_difference,
    page_default,
    run_scored,
    selected_pixels,
    selected_table,
    sign_comparison,
    starts_on_subset,
    stop_summary,
)
from fsengine.methods.registry import get_method
from fsengine.plots.bayes_factor import approximation_figure, beta_rounds_figure, pairs_explorable, sign_figure

#: the URL parameter holding the pairs explorable's k
K_PARAM = "bf_k"
SIGN_OPTIONS, SIGN_VALUES = ["Laplace: −½ log a_g", "printed: +½ log a_g"], ["laplace", "printed"]
PRIOR_OPTIONS, PRIOR_VALUES = ["uniform (Eq. 13)", "multiplicity: −log(F−G)"], ["uniform", "multiplicity"]

INTRO = (
    "Daumé III's **APPROXBFFS** grows a conditional maxent model feature by feature and *decides "
    "itself when to stop*. A feature is a (predicate, class) pair $f(x,y)=x_j[y=c]$. Each round "
    "fits the MAP model of the active features, proposes the predicates that fire on misclassified "
    "training rows (for the gold and the predicted class), fits each candidate's weight $\\mu_g$ "
    "alone with the others fixed, and scores it by a Laplace-approximated log Bayes factor. Up to "
    "$S$ features are added per round; when the current model $\\beta_0$ beats every candidate, "
    "selection stops."
)
#: the expander "The method in five equations": ("markdown" | "latex", text) in order
EQUATIONS = (
    ("markdown", "Laplace approximation of the evidence (Eq. 7), with $A$ the Hessian of "
                 "$-\\log q$, $q(\\lambda)=\\pi(\\lambda)\\,p(D\\mid\\lambda)$, at its maximum $\\lambda^0$:"),
    ("latex", r"p(D\mid M) \approx q(\lambda^0)\,\sqrt{(2\pi)^K / \det A}"),
    ("markdown", "Mean field (other weights fixed) and a diagonal $A$ give the score of adding $g$ "
                 "relative to the current model (Eq. 12), with the sign that Eq. (7) implies:"),
    ("latex", r"\beta_g-\beta_0 = \log\frac{\pi(M_g)}{\pi(M_0)} + \underbrace{\log p(D\mid\lambda^0,\mu_g)"
              r" - \log p(D\mid\lambda^0) - \frac{\mu_g^2}{2\sigma^2}}_{\text{penalised gain }h_g}"
              r" - \tfrac12\log\left(\sigma^2 a_g\right)"),
    ("markdown", "where $a_g = \\sum_n x_{ng}^2\\, q_n(1-q_n) + 1/\\sigma^2$ is the curvature of "
                 "Eq. (11) plus the prior precision ($q_n$ the model's probability of class $c$ "
                 "with $\\mu_g$ added). **Eq. (12) as printed** has $+\\tfrac12\\log a_g$ instead, "
                 "i.e. $\\beta_g-\\beta_0 = \\dots + h_g + \\tfrac12\\log(a_g/\\sigma^2)$: a reward "
                 "for well-determined weights where the Laplace formula has an Occam penalty."),
    ("markdown", "The weight $\\mu_g$ comes from Newton steps on the penalised log-likelihood "
                 "(Eq. 17 plus the prior), touching only the rows where predicate $j$ fires:"),
    ("latex", r"\frac{d}{d\mu}\Big[\log p(D\mid\lambda^0,\mu)-\frac{\mu^2}{2\sigma^2}\Big]"
              r" = \sum_{n:\,x_{nj}\neq 0} x_{nj}\big([y_n=c]-q_n\big) - \frac{\mu}{\sigma^2}"),
    ("markdown", "Model priors: uniform over the next model (Eq. 13: the odds are 0), or "
                 "*multiplicity*, which gives the current model half the prior mass and the "
                 "$F-G$ possible additions the other half:"),
    ("latex", r"\log\frac{\pi(M_g)}{\pi(M_0)} = -\log(F-G)"),
    ("markdown", "After adding $g'$, every remaining candidate sharing rows with it is re-scored at "
                 "its fixed $\\mu_g$ on the grown model (Eq. 14), so near-duplicates fall back."),
)
DEFAULT_NOTE = (
    "Default: {sign} with the {prior} prior, the configuration the recorded "
    "`reproduce bayes-factor` run recommends, chosen on a development split of CoNLL-2000's training "
    "sentences (never on the test section): among the configurations that stop by themselves, the best "
    "development accuracy at the stop, the fewest pairs on near-ties. The paper's uniform prior (Eq. 13) "
    "lets noise pairs in whenever their gain beats ½ log a_g and stops late."
)
PAPER_DEFAULT_NOTE = (
    "Default: {sign} with the {prior} prior, the paper's configuration (Eq. 13): no recorded "
    "`reproduce bayes-factor` run with a recommendation chosen on a development split was found."
)
ROUNDS_NOTE = (
    "What to look for: the first rounds add features worth tens to thousands of nats; the "
    "best margin then shrinks towards 0. Grey crosses are the best candidates left after a "
    "round's additions: Eq. (14)'s re-scoring pushes near-duplicates of what was just "
    "added below the purple circles. Selection stops by itself in the first round whose best "
    "candidate is below 0"
)
ACCURACY_NOTE = (
    "Solid: held-out accuracy; dotted: training accuracy. Bayes-factor points are the MAP "
    "models of its rounds; IFS and SGC (greedy likelihood gain, no stopping rule) are their "
    "first k pairs re-fitted with the same prior and bias. The Bayes factor needs no "
    "held-out data to choose where to stop: compare the red dashed line with the held-out peak"
)
SIGN_INTRO = (
    "Both runs below use the same data, S, σ² and model prior; only the sign of "
    "½ log a_g in Eq. (12) differs. With the printed + sign the Occam factor becomes a "
    "reward, β₀ rarely beats the best candidate and selection runs to the budget (or until "
    "no training row is misclassified)."
)
CHECK_INTRO = (
    "Eq. (12) rests on two assumptions: the other weights stay fixed when $g$ is added (mean "
    "field) and $A$ is diagonal. For the best proposals of one round, the full Laplace Bayes "
    "factor (Eq. 9: every weight re-fitted, the full Hessian, a N(0, 100) prior on the bias) is "
    "computed independently. Where the mean-field bar matches the black one the shortcut is "
    "harmless; a pair correlated with active features is where they part. The printed sign is "
    "off by log a_g. Model priors are left out (they shift all three alike)."
)


def _number(fmt: str):
    """A table column shown with the printf format ``fmt``."""
    return st.column_config.NumberColumn(format=fmt)


@dataclass(frozen=True)
class Settings:
    """The widgets' values; ``run_key`` is the cache key of one Bayes-factor run."""

    task_key: tuple
    n_train: int
    n_heldout: int
    per_round: int
    variance: float
    sign: str
    model_prior: str
    budget: int
    past: int
    compare: bool

    def run_key(self, sign: str | None = None) -> tuple:
        return (self.per_round, self.variance, sign or self.sign, self.model_prior, self.budget, self.past)


# --------------------------------------------------------------------------- cached computations
@st.cache_data(show_spinner=False, max_entries=8)
def task_of(_ds, token, n_train, n_heldout):
    """Training / held-out rows of the picked dataset (``token`` keys the cache)."""
    return heldout_task(_ds, n_train=n_train, n_heldout=n_heldout)


@st.cache_data(show_spinner=False, max_entries=32)
def bayes_run(_task, task_key, per_round, variance, sign, model_prior, budget, past):
    """The run with every round's model scored per held-out unit (:func:`run_scored`)."""
    with progress_bar(f"Bayes-factor selection ({sign} sign) ...") as report:
        return run_scored(_task, per_round=per_round, prior_variance=variance, sign=sign,
                          model_prior=model_prior, max_pairs=budget, rounds_past_stop=past, progress=report)


@st.cache_data(show_spinner=False, max_entries=16)
def gain_curves(_task, task_key, budget, variance, extra):
    with progress_bar("IFS and SGC ...") as report:
        return gain_selector_curves(_task, budget, prior_variance=variance, extra_sizes=extra, progress=report)


@st.cache_data(show_spinner=False, max_entries=16)
def exact_check(_task, _run, run_key, round_, n_candidates, variance):
    with progress_bar("Full Laplace evidences ...") as report:
        return approximation_check(_task, _run, round_, n_candidates=n_candidates, prior_variance=variance,
                                   progress=report)


# --------------------------------------------------------------------------- the page
def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Bayes-factor selection")
    st.markdown(INTRO)
    with st.expander("The method in five equations", expanded=False):
        for kind, text in EQUATIONS:
            getattr(st, kind)(text)
    preset_buttons(PRESETS)
    ds = current_dataset()
    key, params = current_selection()
    token = dataset_token(key, params, ds)
    s = _settings(key, starts_on_subset(ds), token)
    with user_errors():
        task = task_of(ds, token, s.n_train, s.n_heldout)
        scored = bayes_run(task, s.task_key, *s.run_key())
        run = scored.run
    st.caption(f"{md_escape(ds.name)}: {task.description}. {task.n_classes} classes, "
               f"{len(task.predicate_names):,} predicates (input columns).")
    _stop_section(run, stop_summary(run, scored, task))
    _accuracy_section(task, run, s)
    _table_section(task, run)
    _sign_section(task, run, s)
    _check_section(task, run, s)


_BAYES = get_method("bayes")
#: the prior variance slider's stops (the registry's default among them)
VARIANCES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
#: the page's cap on the pairs a run selects (the printed sign often never stops by itself), its range,
#: and the lighter cap of a large dataset's subset start (:func:`large_start`); not a method default
PAIR_CAP, PAIR_CAP_RANGE, LARGE_PAIR_CAP = 300, (5, 5000), 200


def large_start(key: str) -> Preset:
    """Where the page starts on a large sparse dataset (:func:`starts_on_subset`): a subset of the
    rows and more pairs per round keep the first run to seconds."""
    return Preset("Subset first run", "Large data start on the first training and held-out rows with more pairs per "
                  "round (fewer MAP fits); set the rows to 0 for all of them.", None,
                  widgets={f"bf_S_{key}": 20, f"bf_ntrain_{key}": 10000, f"bf_nheld_{key}": 5000,
                           f"bf_budget_{key}": LARGE_PAIR_CAP})


def method_defaults_of(key: str) -> dict:
    """The controls at the method's defaults: the registry's S and σ², every row."""
    return {f"bf_S_{key}": _BAYES.param("features_per_round").default, "bf_var": _BAYES.param("prior_variance").default,
            f"bf_ntrain_{key}": 0, f"bf_nheld_{key}": 0}


def _settings(key: str, large: bool, token: tuple) -> Settings:
    """The two rows of widgets (CoNLL-2000 / treebank start on a subset: ``large``)."""
    start, defaults = (large_start(key) if large else None), method_defaults_of(key)
    if start is not None:
        preset_buttons([start, defaults_preset(defaults)])
        show_start(start, defaults, {f"bf_S_{key}": "S", f"bf_ntrain_{key}": "training rows",
                                     f"bf_nheld_{key}": "held-out rows"})
    c1, c2, c3, c4 = st.columns(4)
    per_round_p = _BAYES.param("features_per_round")
    per_round = int(c1.number_input("S: features per round", min_value=int(per_round_p.min),
                                    max_value=int(per_round_p.max),
                                    value=start_value(f"bf_S_{key}", defaults[f"bf_S_{key}"], start),
                                    key=f"bf_S_{key}", bind="query-params",
                                    help="Section 3.5: at most S pairs per round, one MAP fit per round; "
                                         "larger S = fewer, cheaper rounds."))
    variance = c2.select_slider("Prior variance σ²", options=VARIANCES,
                                value=defaults["bf_var"], key="bf_var", bind="query-params",
                                help="Gaussian prior N(0, σ²) on every candidate weight (the bias is "
                                     "unpenalised).")
    default_sign, default_prior, recommended = page_default()
    sign = c3.radio("Occam term of Eq. (12)", SIGN_OPTIONS, index=SIGN_VALUES.index(default_sign),
                    key="bf_sign", bind="query-params",
                    help="The Laplace formula Eq. (7) gives −½ log det A; the paper's Eq. (12) prints +½ log a_g.")
    prior = c4.radio("Model prior", PRIOR_OPTIONS, index=PRIOR_VALUES.index(default_prior),
                     key="bf_prior", bind="query-params")
    st.caption((DEFAULT_NOTE if recommended else PAPER_DEFAULT_NOTE).format(
        sign=SIGN_OPTIONS[SIGN_VALUES.index(default_sign)], prior=PRIOR_OPTIONS[PRIOR_VALUES.index(default_prior)]))
    d1, d2, d3, d4, d5 = st.columns(5)
    n_train = int(d1.number_input("Training rows (0 = all)", min_value=0,
                                  value=start_value(f"bf_ntrain_{key}", defaults[f"bf_ntrain_{key}"], start),
                                  step=1000, key=f"bf_ntrain_{key}", bind="query-params",
                                  help="The first rows of the training data; a subset keeps the page "
                                       "interactive on CoNLL-2000 (212k tokens)."))
    n_heldout = int(d2.number_input("Held-out rows (0 = all)", min_value=0,
                                    value=start_value(f"bf_nheld_{key}", defaults[f"bf_nheld_{key}"], start),
                                    step=1000, key=f"bf_nheld_{key}", bind="query-params"))
    budget = int(d3.number_input("Most pairs selected", min_value=PAIR_CAP_RANGE[0], max_value=PAIR_CAP_RANGE[1],
                                 value=start_value(f"bf_budget_{key}", PAIR_CAP, start),
                                 step=50, key=f"bf_budget_{key}", bind="query-params",
                                 help="A cap: the printed sign often never stops by itself."))
    past = int(d4.number_input("Rounds traced past the stop", min_value=0, max_value=50, value=3, key="bf_past",
                               bind="query-params", help="After β₀ beats every candidate, keep adding the S "
                                                         "best anyway for this many rounds, to see the "
                                                         "held-out accuracy beyond the stopping point."))
    compare = d5.checkbox("Compare with IFS and SGC", value=True, key="bf_compare", bind="query-params",
                          help="Zhou et al.'s gain selectors on the same rows; every prefix re-fitted by "
                               "the same MAP as the Bayes-factor rounds.")
    return Settings((token, n_train, n_heldout), n_train, n_heldout, per_round, variance,
                    SIGN_VALUES[SIGN_OPTIONS.index(sign)], PRIOR_VALUES[PRIOR_OPTIONS.index(prior)],
                    budget, past, compare)


def _stop_section(run, stop) -> None:
    """Metrics at the stop, why the run ended, and the Bayes factors per round."""
    m1, m2, m3, m4 = st.columns([1, 1, 2, 1])
    m1.metric("Pairs selected", f"{stop.pairs:,}")
    m2.metric("Rounds (MAP fits) to the stop", f"{stop.rounds:,}")
    m3.metric("Held-out accuracy at the stop, %", points(stop.heldout.value, stop.heldout.low, stop.heldout.high, 1,
                                                        unit=""),
              help=f"95% {stop.heldout.method}" + (": a sentence's tokens are not independent, its sentences are"
                                                    if "bootstrap" in stop.heldout.method else ""))
    m4.metric("Seconds to the stop", f"{stop.seconds:.1f}")
    st.caption(f"Why it ended: **{run.stop_reason}**"
               + (" (β₀ never beat every candidate before that)" if run.stop_round is None else
                  (f"; the automatic stop was in round {run.stop_round}, the rounds after it are "
                   "traced for comparison only" if stop.traced_past else "")))
    show_figure(st, beta_rounds_figure(run.trace, run.stop_round, title="Bayes factors per round"),
                key="bf_beta_chart")
    st.caption(ROUNDS_NOTE + (f": here round {run.stop_round} (the red dashed line)." if run.stop_round is not None
                              else f"; this run never got there and ended by {run.stop_reason} (so no stop "
                                   "line is drawn)."))


def _accuracy_section(task, run, s: Settings) -> None:
    """The first k pairs (an explorable): accuracy against the number of pairs, next to IFS and SGC
    when asked, and for images the pixels of the first k pairs; k moves in the browser."""
    others = None
    if s.compare:
        with user_errors():
            others = gain_curves(task, s.task_key, comparison_budget(run), s.variance, (run.n_at_stop,))
    show_train = st.checkbox("Show training accuracy", value=True, key="bf_show_train")
    try:
        k = int(url_value(K_PARAM) or run.n_at_stop)
    except ValueError:
        k = run.n_at_stop
    fig = pairs_figure(task, run, others, (s.task_key, *s.run_key(), s.compare), show_train, k)
    show_explorable(st, fig, key="bf_pairs_explorable", param=K_PARAM, fallback=str(run.n_at_stop))
    st.caption(ACCURACY_NOTE + ("." if run.stop_round is not None else
                                " (here it marks the end of the run, not a stop).")
               + (" Right: the pixels of the first k pairs on each class's mean image, in the colour of the pair's "
                  "class (a pair raises its class's score where the pixel is inked)." if task.image_shape else ""))


@st.cache_data(show_spinner=False, max_entries=16)
def pairs_figure(_task, _run, _others, run_key, show_train: bool, k: int) -> dict:
    """The first-k-pairs explorable of one run, starting at ``k``."""
    return pairs_explorable(_run, accuracy_curves(_run, _others), k=k, predicate_names=_task.predicate_names,
                            class_names=_task.class_names, pixels=selected_pixels(_task, _run),
                            stopped=_run.stop_round is not None, show_train=show_train).to_plotly_json()


def _table_section(task, run) -> None:
    st.subheader("Selected features")
    table = selected_table(task, run)
    st.dataframe(table, hide_index=True, key="bf_table",
                 column_config={"beta_g - beta_0": _number("%.3f"), "beta_g": _number("%.2f"),
                                "mu_g": _number("%.3f"), "MAP weight": _number("%.3f")})
    st.download_button("Download the selected pairs (CSV)", csv_bytes(table, index=False),
                       file_name="bayes_factor_pairs.csv", mime="text/csv", key="bf_csv")


def _sign_section(task, run, s: Settings) -> None:
    """The same run under the other sign of the Occam term: summary, accuracy, pairs."""
    st.subheader("What the sign of the Occam term changes")
    st.markdown(SIGN_INTRO)
    with user_errors():
        other = bayes_run(task, s.task_key, *s.run_key("printed" if s.sign == "laplace" else "laplace")).run
    laplace, printed = (run, other) if s.sign == "laplace" else (other, run)
    cmp = sign_comparison(task, laplace, printed)
    st.dataframe(cmp.summary, hide_index=True, key="bf_sign_table",
                 column_config={"train accuracy": _number("%.4f"), "held-out accuracy": _number("%.4f")})
    show_figure(st, sign_figure(bayes_factor_curve(laplace), bayes_factor_curve(printed), laplace.n_at_stop,
                                printed.n_at_stop, title="Held-out accuracy per round under each sign"),
                key="bf_sign_chart")
    columns = st.columns(3)
    for col, label, pairs, key in ((columns[0], "Only with the Laplace sign", cmp.only_laplace, "bf_only_laplace"),
                                   (columns[1], "Selected under both", cmp.both, "bf_both"),
                                   (columns[2], "Only with the printed sign", cmp.only_printed, "bf_only_printed")):
        col.markdown(f"**{label}** ({len(pairs)})")
        col.dataframe({"pair": pairs}, hide_index=True, key=key, height=220)


def _check_section(task, run, s: Settings) -> None:
    """Mean-field margins of one round's best proposals against the full Laplace Bayes factor."""
    st.subheader("How good are the approximations?")
    st.markdown(CHECK_INTRO)
    e1, e2, e3 = st.columns([2, 1, 1])
    rounds = checkable_rounds(run)
    check_round = e1.select_slider("Round to check", options=rounds, value=rounds[-1],
                                   key="bf_check_round", bind="query-params",
                                   help="Default: the stopping round, where the margins are near 0 and "
                                        "the approximations decide whether selection goes on.")
    n_check = int(e2.number_input("Candidates", min_value=2, max_value=8, value=5, key="bf_check_n"))
    if not e3.checkbox("Run the exact check", value=False, key="bf_check_run",
                       help="One MAP fit and one dense Hessian per candidate."):
        return
    with user_errors():
        check = exact_check(task, run, (s.task_key, *s.run_key()), check_round, n_check, s.variance)
    show_figure(st, approximation_figure(check, title=f"Round {check_round}: approximate vs full "
                                                      "Laplace Bayes factors"),
                key="bf_check_chart")
    st.dataframe(check.drop(columns="candidate"), hide_index=True, key="bf_check_table",
                 column_config={c: _number("%.3f") for c in
                                ("full_laplace", "mean_field", "mean_field_printed", "difference")})
    st.caption(f"Largest |mean field − full Laplace| in round {check_round}: "
               f"{largest_difference(check):.3f} nats. Re-fitting the other weights (above "
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
