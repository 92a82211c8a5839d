"""The unified information criterion (Brown, Pocock, Zhao & Luján, JMLR 13, 2012): MIM, mRMR, JMI,
CIFE and MIFS as one criterion with two weights, on a planted XOR task where the choice matters.

A thin page: the numbers come from :mod:`fsengine.methods.information.study`, the figure from
:mod:`fsengine.plots.information`. The task's settings refit (once per settings for the whole
server, :func:`fsengine.app.compute.computed_once`); beta, gamma and the normalisation are the
figure's own sliders, answered in the browser and kept in the URL.
"""

from __future__ import annotations

import streamlit as st

from fsengine.app.compute import computed_once
from fsengine.app.display import show_explorable, url_value
from fsengine.app.errors import user_errors
from fsengine.app.presets import Preset, preset_buttons
from fsengine.data import get_spec
from fsengine.methods.information import study
from fsengine.plots.information import unified_explorable

#: the URL parameters of the figure's three sliders, and where each starts without one (MIM)
BETA_PARAM, GAMMA_PARAM, NORMALISE_PARAM = "unified_beta", "unified_gamma", "unified_norm"
START = {BETA_PARAM: "0", GAMMA_PARAM: "0", NORMALISE_PARAM: "mean"}
#: the task's settings on this page: (widget key, generator parameter); ranges inside the catalogue's,
#: narrowed because the figure embeds every (beta, gamma) position's selection of every feature
SETTINGS = {"unified_copies": "n_redundant", "unified_noise": "n_noise", "unified_copy_noise": "copy_noise",
            "unified_rows": "n", "unified_seed": "seed"}
COPIES_RANGE, NOISE_RANGE, ROWS = (1, 8), (0, 20), (200, 400, 600, 1000, 2000, 5000)
COPY_NOISE_STEPS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)

_SPEC = get_spec("xor_redundant")
LESSON_PRESET = Preset("Lesson 7's task", study.LESSON_TASK_WHY, None,
                       widgets={key: study.LESSON_TASK[name] for key, name in SETTINGS.items()})
CATALOGUE_PRESET = Preset("The catalogue's defaults", "The xor_redundant dataset as the catalogue, the Compare page "
                          "and the benchmark draw it.", None,
                          widgets={key: _SPEC.param(name).default for key, name in SETTINGS.items()})

INTRO = (
    "Greedy information-theoretic filters add one feature at a time, the one whose criterion J is largest given "
    "the features S already selected. Brown, Pocock, Zhao & Luján showed that MIM, MIFS, mRMR, JMI and CIFE are "
    "**one criterion** with two weights: **β** on the redundancy of the candidate with what is selected, and "
    "**γ** on its *class-conditional* redundancy, which counts as a bonus: a feature that says more about the "
    "class together with a selected one. mRMR and JMI divide both weights by |S| (a mean over the selected "
    "features); MIFS and CIFE do not (a sum).")
EQUATION = study.EQUATION + r"\qquad\text{(Brown et al. 2012, Eq. 14)}"
TASK_TEXT = (
    "The data make the choice matter: a planted **XOR pair** (the label is x_a XOR x_b: each alone carries no "
    "information, together they determine the label), **noisy copies of the label** (each informative, all "
    "redundant with each other) and **noise**. The smallest set that determines the label is the XOR pair. "
    "The sidebar's dataset is not used here: the lesson needs a task whose answer is known.")
LOOK_FOR = (
    "**What to look for.** Move **β** with γ = 0 (MIM to mRMR): with the weights divided by |S| every copy is "
    "still taken first, because a copy's redundancy with another copy never exceeds its relevance. Switch the "
    "normalisation to **sums** (MIFS): the penalty grows with every copy taken, and β decides how many get in "
    "(map below). Raise **γ** (JMI, CIFE): as soon as one XOR member is selected its partner follows at once, "
    "carried by the purple bonus I(x_a; x_b | Y) = H(Y). Where the *first* XOR member lands is luck: alone it "
    "scores what a noise feature scores, for every member of the family.")


def grid_for(task: tuple) -> tuple:
    """The task drawn, its grid of selections, their XOR summary and the selectors' agreement, once
    per settings for the server."""
    def compute(report):
        from fsengine.data.synthetic.xor import make_xor_redundant

        ds = make_xor_redundant(**dict(task))
        grid = study.unified_grid(ds, progress=lambda f, m="": report(0.9 * f, m))
        report(0.95, "the named members' selectors")
        return ds, grid, study.grid_summary(grid), study.selector_agreement(ds, grid)
    return computed_once("unified_grid", task, compute, text="Greedy selections over the (β, γ) grid ...",
                         max_entries=8)


def replicates_for(task: tuple) -> study.MemberReplicates:
    return computed_once("unified_replicates", task,
                         lambda report: study.member_replicates(dict(task), progress=report),
                         text=f"The named members on {study.REPLICATE_DRAWS} fresh draws ...", max_entries=8)


@st.cache_data(show_spinner=False, max_entries=16)
def figure(_grid, _summary, task: tuple, beta: str, gamma: str, normalise: str) -> dict:
    """The explorable of one task's grid, starting at (beta, gamma, normalise)."""
    return unified_explorable(_grid, beta=float(beta), gamma=float(gamma), normalise=normalise,
                              maps=study.summary_maps(_summary)).to_plotly_json()


def start_position() -> tuple[str, str, str]:
    """(beta, gamma, normalisation) from the URL, each the page's start when missing or not a value of the grid."""
    values = [f"{v:g}" for v in study.GRID]
    chosen = [url_value(p) or START[p] for p in (BETA_PARAM, GAMMA_PARAM, NORMALISE_PARAM)]
    beta, gamma = (v if v in values else START[p] for v, p in zip(chosen[:2], (BETA_PARAM, GAMMA_PARAM)))
    return beta, gamma, chosen[2] if chosen[2] in study.NORMALISATIONS else START[NORMALISE_PARAM]


def task_settings() -> tuple:
    """The task's settings from the widgets (they start at lesson 7's task)."""
    preset_buttons([LESSON_PRESET, CATALOGUE_PRESET])
    start = LESSON_PRESET.widgets
    c = st.columns(5)
    values = {
        "n_redundant": c[0].slider("Copies of the label", *COPIES_RANGE, start["unified_copies"], key="unified_copies",
                                   bind="query-params"),
        "n_noise": c[1].slider("Noise features", *NOISE_RANGE, start["unified_noise"], key="unified_noise",
                               bind="query-params"),
        "copy_noise": c[2].select_slider("Flip probability of a copy", COPY_NOISE_STEPS, start["unified_copy_noise"],
                                         key="unified_copy_noise", bind="query-params"),
        "n": c[3].select_slider("Rows", ROWS, start["unified_rows"], key="unified_rows", bind="query-params"),
        "seed": int(c[4].number_input("Seed", min_value=0, value=start["unified_seed"], step=1, key="unified_seed",
                                      bind="query-params")),
    }
    changes = ", ".join(f"{label.lower()} {value:g} (catalogue default {default:g})"
                        for label, value, default in study.task_changes(study.LESSON_TASK))
    st.caption(f"The page starts from lesson 7's task: {changes}. {study.LESSON_TASK_WHY}")
    return tuple(sorted({**study.LESSON_TASK, **values}.items()))


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("The unified information criterion")
    st.markdown(INTRO)
    st.latex(EQUATION)
    st.dataframe(study.members_table(), hide_index=True, key="unified_members")
    st.markdown(TASK_TEXT)
    task = task_settings()
    with user_errors():
        ds, grid, summary, agreement = grid_for(task)
    st.markdown(LOOK_FOR)
    beta, gamma, normalise = start_position()
    show_explorable(st, figure(grid, summary, task, beta, gamma, normalise), key="unified_explorable",
                    param=BETA_PARAM, fallback=START[BETA_PARAM],
                    more=((GAMMA_PARAM, START[GAMMA_PARAM]), (NORMALISE_PARAM, START[NORMALISE_PARAM])))
    st.caption(f"{ds.provenance.source}. Top right: the kind of feature each greedy step selects; bottom right: J's "
               "three terms for that feature (the member's name shows when the sliders stand on it); left: every "
               f"(β, γ) of the {len(grid.betas)} x {len(grid.gammas)} grid, the named members circled. "
               + study.agreement_sentence(agreement) + " " + study.members_sentence(grid, summary))
    replicates_section(task)


def replicates_section(task: tuple) -> None:
    st.subheader("Is this draw typical?")
    with user_errors():
        reps = replicates_for(task)
    st.markdown(f"The named members on **{reps.n_draws} fresh draws** of the same task (seeds after this one). "
                "Each estimate with its 95% interval: the share of draws in which the second XOR member was selected "
                "right after the first (Wilson), the mean number of label copies selected before the pair was "
                "complete and the mean step at which it was (percentile bootstrap over the draws).")
    st.dataframe(reps.table(), hide_index=True, key="unified_replicates")
