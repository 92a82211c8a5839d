"""SGC vs IFS: greedy likelihood-gain feature selection for conditional maxent (Zhou et al. 2003).

The comparison is :func:`fsengine.methods.gain.study.run_comparison` (computed once per server and
configuration), its numbers come from :class:`~fsengine.methods.gain.study.Comparison` and its
figures from :mod:`fsengine.plots.gain`.
"""

import streamlit as st

from fsengine.app.compute import computed_once, dataset_token
from fsengine.app.display import figure_columns, show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.picker import UPLOAD_KEY, current_selection, load_cached
from fsengine.app.presets import Preset, defaults_preset, preset_buttons, show_start, start_value
from fsengine.data.features.templates import GROUPS
from fsengine.data.registry import get_spec
from fsengine.formatting import percent
from fsengine.methods.gain.study import (
    METHOD_NAMES,
    PAPER_SPEEDUP,
    PAPER_TIMED,
    TIMING_REPEATS,
    Comparison,
    repeated_time_ratio,
    run_comparison,
)
from fsengine.methods.registry import get_method
from fsengine.plots import gain as plots
from fsengine.stats import Estimate

#: the page's tasks: label -> catalogue key
TASKS = {
    "Base-NP chunking (CoNLL-2000)": "conll2000_np",
    "Full chunking (CoNLL-2000)": "conll2000_chunk",
    "POS tagging (Penn Treebank sample)": "treebank_pos",
    "Planted synthetic maxent task": "planted_maxent",
}
#: comparisons kept for the whole server (the oldest dropped beyond this)
STORED_COMPARISONS = 6
#: the URL parameter holding the stage explorable's stage
STAGE_PARAM = "sgc_stage"

PAPER_PRESET = Preset(
    "As in the paper: all sentences, L = 500",
    "Zhou et al.: base-NP chunking on all CoNLL-2000 training sentences, SGC-LA look-ahead L = 500.",
    "conll2000_np", {},
    {"sgc_task": "Base-NP chunking (CoNLL-2000)", "sgc_sentences": 0, "sgc_lookahead": 500},
    forget=("sgc_config",))

_SGC = get_method("sgc")
#: the method's defaults (the registry's budget, look-ahead and cutoff; all training sentences)
DEFAULTS = {"sgc_budget": _SGC.param("n_features_to_select").default, "sgc_lookahead": _SGC.param("lookahead").default,
            "sgc_cutoff": _SGC.param("cutoff").default,
            "sgc_sentences": get_spec("conll2000_np").param("n_sentences").default}
#: where the page starts: a first comparison in seconds, with a look-ahead for SGC-LA to differ from SGC
START = Preset(
    "Lighter first run",
    "300 training sentences and candidates seen at least twice keep the first comparison to seconds; a "
    "look-ahead of 50 (the paper's is 500) makes SGC-LA differ from SGC, which is SGC-LA with L = 0.",
    None, widgets={"sgc_sentences": 300, "sgc_cutoff": 2, "sgc_lookahead": 50}, forget=("sgc_config",))
LABELS = {"sgc_budget": "feature budget", "sgc_lookahead": "look-ahead L", "sgc_cutoff": "count cutoff",
          "sgc_sentences": "training sentences"}
#: the sliders' ranges, page suggestions inside the registry's (the selectors take any budget and a
#: look-ahead up to 5,000; on a 0-5,000 slider the first run's 50 would sit at the left end)
BUDGET_RANGE, LOOKAHEAD_RANGE = (10, 1000), (0, 1000)


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("SGC vs IFS")
    st.markdown(
        "A conditional maximum-entropy model scores each class with weighted binary features "
        "*(predicate, class)*, e.g. *the previous POS tag is DT and the tag is I-NP*. **IFS** "
        "(incremental feature selection) adds, at every stage, the candidate whose single new weight "
        "alpha raises the training log-likelihood most, holding all other weights fixed, and must "
        "re-score **every** candidate at every stage. **SGC** (selective gain computation) keeps the "
        "gains of earlier stages as approximate upper bounds in a priority queue and recomputes only "
        "the top until a fresh gain stays on top; **SGC-LA** also recomputes the next L candidates."
    )
    st.latex(r"G_{S\cup f}(\alpha) = \alpha\,\tilde E[f] - \sum_x \tilde p(x)\,"
             r"\log\frac{Z_S(x) - \mathrm{sum}_S(c\mid x) + e^{\alpha}\,\mathrm{sum}_S(c\mid x)}{Z_S(x)}")
    st.latex(r"\Delta L(S, f) = \max_\alpha G_{S\cup f}(\alpha) \quad\text{(1-D Newton, } |\alpha| \le 20"
             r"\text{)},\qquad g(f, 0) = E_\delta(f)\Big[R \log\tfrac{R}{p_0} + (1 - R)\log\tfrac{1 - R}{1 - p_0}\Big]")
    preset_buttons([PAPER_PRESET, START, defaults_preset(DEFAULTS)])  # defaults: run on "Run comparison"
    available = {label: key for label, key in TASKS.items() if get_spec(key).available()}
    _configure(available)
    config = st.session_state["sgc_config"]
    if config is None:
        st.info("Stopped. Press **Run comparison** to start again.")
        st.stop()
    comp, timing = _comparison(available, config)
    _headline(comp, timing)
    stage_section(comp, config)
    left, right = figure_columns(2)
    traces = comp.traces()
    show_figure(left, plots.gain_computations(traces), key="sgc_fig_comp")
    show_figure(right, plots.cumulative_time(traces), key="sgc_fig_time")
    intervals = comp.f1_intervals()
    show_figure(st, plots.scores_vs_features(comp.curves, comp.all_features, f1_intervals=intervals),
                key="sgc_fig_scores")
    band = (f"Shaded: each method's F1 with its {percent(intervals.attrs['level'])} interval "
            f"({intervals.attrs['method']}). " if len(intervals) else "")
    st.caption(band + f"Fig. 5 here re-trains a MAP model (Gaussian prior, variance "
               f"{comp.settings['prior_variance']:g}) on the first k selected features of each method and "
               "decodes the test sentences left to right with the predicted previous tags; chunking is scored "
               "with conlleval, tagging by token accuracy, the planted task by macro precision / F1. The "
               "recorded reproduction (`fsengine reproduce sgc-vs-ifs`) chooses the variance, and which decoded "
               "model to report, on held-out training sentences instead.")
    left, right = figure_columns([2, 3])
    show_figure(left, plots.overlap_heatmap(comp.overlap()), key="sgc_fig_overlap")
    shown = right.selectbox("Selected features of", list(comp.selections), key="sgc_table_method")
    right.dataframe(comp.selected_table(shown), hide_index=True, height=360, key="sgc_table")


def _configure(available: dict[str, str]) -> None:
    """The form; a submitted (or first) configuration goes to ``sgc_config``, Stop sets it to None."""
    picked = current_selection()[0]
    default_task = next((i for i, key in enumerate(available.values()) if key == picked), 0)
    if picked == UPLOAD_KEY:
        st.info("This page compares IFS and SGC on its own sequence-labelling tasks below (tokens described "
                "by feature templates); your uploaded table is not used here. To run IFS and SGC on your "
                "table, choose them on **Compare methods**.")
    cutoff_p = _SGC.param("cutoff")
    sentences_p = get_spec("conll2000_np").param("n_sentences")
    with st.form("sgc_form"):
        cols = st.columns(4)
        task = cols[0].selectbox("Task", list(available), index=default_task, key="sgc_task", bind="query-params",
                                 help="Real CoNLL-2000 / treebank data when present, else only the planted "
                                      "task. Follows the sidebar dataset when that is one of these tasks.")
        budget = cols[1].slider("Feature budget", *BUDGET_RANGE,
                                start_value("sgc_budget", DEFAULTS["sgc_budget"], START), step=10, key="sgc_budget",
                                bind="query-params",
                                help="Number of (predicate, class) features each method selects.")
        lookahead = cols[2].slider("SGC look-ahead L", *LOOKAHEAD_RANGE,
                                   start_value("sgc_lookahead", DEFAULTS["sgc_lookahead"], START), step=10,
                                   key="sgc_lookahead", bind="query-params",
                                   help="SGC-LA recomputes the next L candidates after the one SGC found (paper: 500).")
        cutoff = cols[3].number_input("Count cutoff", int(cutoff_p.min), int(cutoff_p.max),
                                      start_value("sgc_cutoff", DEFAULTS["sgc_cutoff"], START), key="sgc_cutoff",
                                      bind="query-params", help=cutoff_p.help)
        cols = st.columns(3)
        groups = cols[0].multiselect("Templates", list(GROUPS), default=list(GROUPS), key="sgc_groups",
                                     bind="query-params",
                                     help="Template groups generating the predicates (sequence tasks).")
        n_sentences = cols[1].number_input("Training sentences (0 = all)", int(sentences_p.min), int(sentences_p.max),
                                           start_value("sgc_sentences", DEFAULTS["sgc_sentences"], START), step=100,
                                           key="sgc_sentences", bind="query-params",
                                           help="Training subset size; the planted task uses 25 rows per sentence.")
        methods = cols[2].multiselect("Methods", list(METHOD_NAMES), default=list(METHOD_NAMES),
                                      key="sgc_methods", bind="query-params")
        submitted = st.form_submit_button("Run comparison", type="primary")
    show_start(START, DEFAULTS, LABELS)
    if submitted or "sgc_config" not in st.session_state:
        st.session_state["sgc_config"] = dict(task=task, budget=budget, lookahead=lookahead, cutoff=int(cutoff),
                                              groups=tuple(groups), n_sentences=int(n_sentences),
                                              methods=tuple(methods))
    if st.button("Stop", key="sgc_stop", help="Interrupt a running comparison."):
        st.session_state["sgc_config"] = None


def _dataset(available: dict[str, str], config: dict) -> tuple[str, dict]:
    """Catalogue key and parameters of the configured task, announced in an info box."""
    key = available.get(config["task"], "planted_maxent")
    if key == "planted_maxent":
        real = any(k != "planted_maxent" for k in available.values())
        st.info("Data: the **planted synthetic** maxent task"
                + ("" if real else " (real CoNLL-2000 / treebank data not found: set FSENGINE_DATA)") + ".")
        return key, {"n_samples": max(25 * config["n_sentences"], 1000) if config["n_sentences"] else 20000}
    st.info(f"Data: **real** {config['task']} ({get_spec(key).description})")
    return key, {"groups": "+".join(config["groups"]) or "none", "n_sentences": config["n_sentences"]}


def _comparison(available: dict[str, str], config: dict) -> tuple[Comparison, Estimate | None]:
    """The configured comparison and its IFS / SGC CPU-time ratio over repeats
    (:func:`~fsengine.methods.gain.study.repeated_time_ratio`), each computed once per server (a
    progress bar while it runs)."""
    key, params = _dataset(available, config)
    with user_errors():
        if not config["methods"]:
            raise ValueError("Choose at least one method.")
        ds = load_cached(key, params)
        run_key = (dataset_token(key, params, ds), config["budget"], config["lookahead"], config["cutoff"],
                   config["methods"])
        comp = computed_once(
            "gain_comparison", run_key, lambda report: run_comparison(
                ds, budget=config["budget"], lookahead=config["lookahead"], methods=config["methods"],
                cutoff=config["cutoff"], progress=report),
            text="selecting features ...", max_entries=STORED_COMPARISONS)
        timing = computed_once(
            "gain_timing", run_key, lambda report: repeated_time_ratio(ds, comp, lookahead=config["lookahead"],
                                                                      cutoff=config["cutoff"], progress=report),
            text="timing IFS and SGC again ...", max_entries=STORED_COMPARISONS)
        return comp, timing


def _headline(comp: Comparison, timing: Estimate | None) -> None:
    """Training rows, candidates and IFS's work relative to SGC's (Figs. 3-4) as metrics: the exact
    ratio of gain computations, and the CPU-time ratio as the median and IQR of repeats."""
    cols = st.columns([1, 1, 1, 2])
    cols[0].metric("Training rows", f"{comp.n_train:,}", help="Tokens (sequence tasks) or instances.")
    cols[1].metric("Candidates", f"{comp.n_candidates:,}",
                   help=f"(predicate, class) pairs seen together at least {comp.settings['cutoff']} times.")
    ratios = comp.work_ratios()
    if ratios is None:
        return
    cols[2].metric("IFS / SGC gains computed", f"{ratios.computations:,.0f}x", help="An exact count.")
    if timing is not None:
        cols[3].metric("IFS / SGC CPU time, median [IQR]",
                       f"{timing.value:,.1f}x [{timing.low:,.1f}, {timing.high:,.1f}]",
                       help=f"{timing.method}: one timing moves with the machine's load.")
    st.caption(f"Look for: over these {ratios.stages} stages IFS computed {ratios.computations:,.0f}x as many gains "
               "as SGC (Fig. 3)"
               + (f" and took {timing.value:,.1f}x as much CPU time (median of {TIMING_REPEATS} repeats, Fig. 4)"
                  if timing is not None else "")
               + f" on {comp.n_candidates:,} candidates. The paper timed {PAPER_TIMED}, not this task, and reports "
               f"{PAPER_SPEEDUP}: the more candidates, the more IFS re-scores at every stage. Test precision / F1 "
               "(Fig. 5) should hardly differ between IFS and SGC, while the count cutoff needs many more features.")


@st.cache_data(show_spinner=False, max_entries=8)
def stage_figure(_comp, run_key, stage: int) -> dict:
    """The stage explorable of one comparison, starting at ``stage``."""
    return plots.stage_explorable(_comp, stage).to_plotly_json()


def stage_section(comp: Comparison, config: dict) -> None:
    """Stage by stage (an explorable: the stage moves in the browser; the URL keeps it)."""
    if comp.common_stages < 1:
        return
    st.subheader("Stage by stage")
    try:
        stage = int(url_value(STAGE_PARAM) or 1)
    except ValueError:
        stage = 1
    run_key = tuple(sorted((k, str(v)) for k, v in config.items()))
    show_explorable(st, stage_figure(comp, run_key, stage), key="sgc_stage_figure", param=STAGE_PARAM, fallback="1")
