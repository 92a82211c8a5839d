"""Compare methods: run several selectors on the picked dataset; accuracy with intervals, paired
differences from a reference method, overlap, stability, ROC."""

import streamlit as st

from fsengine.app.compute import dataset_token, progress_bar
from fsengine.app.display import NO_NUMBER, explorable_bridge, show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import class_pair, param_widget
from fsengine.compare.analyses import ComparisonResult
from fsengine.compare.report import (
    EXPLANATIONS,
    comparison_figures,
    differences_at,
    html_report,
    stability_at,
    tables_zip,
)
from fsengine.compare.runner import CompareSettings, run_comparison
from fsengine.compare.settings import MAX_SEED
from fsengine.csv_export import csv_bytes
from fsengine.data.transforms import class_names
from fsengine.methods.registry import METHODS
from fsengine.parallel import available_cores, start_workers
from fsengine.plots.compare import nearest_step, roc_curves, top_k_explorable

DEFAULT_METHODS = ("bia", "mi", "l1")
#: session slots: the last finished run (config, result) and whether a run is under way
LAST = "compare_last"
RUNNING = "compare_running"


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    _explain()
    ds = current_dataset()
    key, params = current_selection()
    if ds.task != "classification":
        st.error(f"{md_escape(ds.name)} has a regression target; the comparison scores held-out accuracy and needs "
                 "class labels. Pick a classification dataset in the sidebar.")
        st.stop()
    chosen, choices = _method_choices()
    ds = _restrict_classes(ds, chosen)
    settings, n_jobs = _settings(ds)
    config = (dataset_token(key, params, ds), tuple((m, tuple(sorted(v.items()))) for m, v in choices), settings)
    b1, b2, _ = st.columns([1, 1, 4])
    run = b1.button("Run comparison", type="primary", key="compare_run", disabled=not chosen)
    cancel = b2.button("Cancel", key="compare_cancel", help="Stops a running comparison; nothing of it is kept.")
    _run_or_cancel(run, cancel, config, ds, n_jobs)
    last = st.session_state.get(LAST)
    if last is None:
        st.info("Choose methods and press **Run comparison**. Results are cached: running the same settings "
                "again is instant.")
        st.stop()
    last_config, result = last
    if last_config != config:
        st.warning("The settings above changed since these results were computed; press **Run comparison** "
                   "to update them.")
    _overview(result)
    top_k_views(result, last_config)


def _explain() -> None:
    st.title("Compare methods")
    st.markdown(
        "Run several feature-selection methods on the same data and compare them on equal terms. Every "
        "method ranks the features on the **same training rows**; the rankings are then judged by how well "
        "a plain logistic regression does with the first *k* features of each (held-out accuracy), by "
        "how much the methods agree (**Jaccard** overlap), by how reproducible each method's choice is "
        "when the training rows are resampled (**Kuncheva**'s index and **Nogueira** et al.'s estimator, with "
        "their test of equal stability), by their cost (runtime) and, on "
        "synthetic data where the relevant features are known, by how well the scores find them (**ROC**)."
    )
    with st.expander("The agreement and stability measures", expanded=False):
        st.markdown("Overlap of two selected sets $A$, $B$ (1 = identical, 0 = disjoint):")
        st.latex(r"J(A, B) = \frac{|A\cap B|}{|A\cup B|}")
        st.markdown("Kuncheva's consistency index of two $k$-subsets of $n$ features sharing $r$ features. Two "
                    "random $k$-subsets share $k^2/n$ features on average, so the index is 0 for chance, 1 for "
                    "identical sets; the stability of a method is its mean over all pairs of bootstrap fits:")
        st.latex(r"I_C(A, B) = \frac{r\,n - k^2}{k\,(n - k)},\qquad "
                 r"\mathrm{stability} = \frac{2}{K(K-1)}\sum_{i<j} I_C(S_i, S_j)")
        st.markdown("Nogueira, Sechidis & Brown (JMLR 2018) measure stability from how often each feature $f$ is "
                    "selected over the $M$ fits ($\\hat p_f$; $\\bar k$ the mean set size). It takes sets of any "
                    "size, is 0 in expectation for random sets, and comes with an interval and a test of equal "
                    "stability of two methods. On top-$k$ sets, all of size $k$, it equals Kuncheva's mean over pairs:")
        st.latex(r"\hat\Phi = 1 - \frac{\frac1n\sum_f \frac{M}{M-1}\hat p_f(1-\hat p_f)}"
                 r"{\frac{\bar k}{n}\left(1-\frac{\bar k}{n}\right)}")
        st.markdown("Area under the ROC curve of scores $s$ against the known relevant set (ties count half):")
        st.latex(r"\mathrm{AUC} = P(s_{\text{relevant}} > s_{\text{irrelevant}}) + \tfrac12\,"
                 r"P(s_{\text{relevant}} = s_{\text{irrelevant}})")
    with st.expander("How sure are these numbers?", expanded=False):
        st.markdown(
            "An accuracy measured on $n$ held-out rows is a proportion with a standard error of about "
            r"$\sqrt{a(1-a)/n}$: 0.017 for $a = 0.92$ on 250 rows, so differences of a point or two are mostly "
            "noise. The bands are 95% **Wilson** intervals of each accuracy. Two methods are scored on the "
            "**same rows**, so their difference is judged on the rows where only one of them is right: the "
            "**exact McNemar** test and its Clopper-Pearson interval (no resampling, exact at any level). "
            "With $m$ methods, each of the $m-1$ differences from the reference gets a **Bonferroni** interval "
            "at level $1 - 0.05/(m-1)$, so that all of them hold together at 95%; a verdict is *better* or "
            "*worse* only when its interval excludes 0. **Repeated splits** also refit every method on other "
            "training rows and use the corrected resampled $t$ of Nadeau & Bengio, which widens the variance "
            "for splits that share rows:")
        st.latex(r"\hat\sigma^2_{\text{corrected}} = \Big(\frac1J + \frac{n_{\text{test}}}{n_{\text{train}}}\Big)"
                 r"\, s^2 \quad\text{over } J \text{ splits}")
        st.markdown("The stability's whiskers are jackknife intervals: the stability is recomputed leaving out "
                    "each bootstrap resample in turn; Nogueira's are asymptotic normal intervals (Theorem 9 of "
                    "the paper). Every method is refitted on the **same** bootstrap resamples, so the test of "
                    "equal stability against the reference is **paired**; with $m$ methods it is $m-1$ tests at "
                    "each $k$, and their p-values are **Holm**-adjusted. The page never picks the *k* with the "
                    "highest held-out accuracy: picked on the rows that report it, that number would be optimistic.")
    with st.expander("How the work is spread over the cores", expanded=False):
        st.markdown("A comparison of $M$ methods with $B$ bootstrap resamples is $M(1+B)$ independent fits, then "
                    "one accuracy curve per method and per random-baseline size. They run as separate tasks on "
                    "worker processes (every core by default); each task is deterministic (the resamples and "
                    "random draws are made from the seed before any task starts) and the results are put back "
                    "in their serial order, so the tables are identical whatever the number of workers. With "
                    "$W$ workers and tasks of similar cost the fits take about")
        st.latex(r"T_W \approx \lceil M(1+B)/W \rceil \; \bar t_{\text{fit}}")
        st.markdown("The command line does the same with `--n-jobs N`, or on a Dask cluster with "
                    "`--scheduler tcp://HOST:8786`.")


def _method_choices() -> tuple[list[str], list[tuple[str, dict]]]:
    """The chosen method keys and, per method, its parameters from the registry's widgets."""
    chosen = st.multiselect("Methods", list(METHODS), default=[m for m in DEFAULT_METHODS if m in METHODS],
                            format_func=lambda m: METHODS[m].label, key="compare_methods",
                            help="Every registered method; see each one's page for what it does.")
    choices = []
    if chosen:
        with st.expander("Method parameters", expanded=False):
            columns = st.columns(min(3, len(chosen)))
            for i, method in enumerate(chosen):
                spec = METHODS[method]
                box = columns[i % len(columns)]
                box.markdown(f"**{spec.label}**: {spec.summary}. Needs {spec.needs.describe()}.")
                values = {p.name: param_widget(p, f"compare_{method}_{p.name}", box) for p in spec.params}
                choices.append((method, values))
    return chosen, choices


def _restrict_classes(ds, chosen):
    """Multi-class data: the class pair every method is compared on (when one needs two classes,
    or when asked)."""
    with user_errors():
        needing = [METHODS[m].label for m in chosen if METHODS[m].needs.two_classes]
        if len(class_names(ds)) > 2:
            if needing:
                st.info(f"{', '.join(needing)} {'needs' if len(needing) == 1 else 'need'} exactly two classes: "
                        "every method is compared on the pair chosen here.")
            if needing or st.toggle("Only two classes", key="compare_two_classes"):
                ds = class_pair(ds, key="compare_pair")
    return ds


def _settings(ds) -> tuple[CompareSettings, int]:
    """The comparison's settings and worker count from the page's controls."""
    c1, c2, c3, c4, c5 = st.columns(5)
    n_bootstrap = c1.select_slider("Bootstrap resamples", options=[0, 2, 3, 5, 8, 10, 15, 20], value=5,
                                   key="compare_bootstrap", bind="query-params",
                                   help="Each method is refitted on this many resamples for the stability view "
                                        "(0: off). The run costs (1 + resamples) fits per method.")
    test_size = c2.select_slider("Held-out share", options=[0.2, 0.25, 0.3, 0.4], value=0.25, key="compare_test",
                                 bind="query-params")
    max_k = int(c3.number_input("Largest k", min_value=2, max_value=max(2, min(200, ds.n_features)),
                                value=min(50, ds.n_features), key="compare_max_k",
                                help="Largest number of features in the accuracy curve and the top-k views."))
    seed = int(c4.number_input("Seed", min_value=0, max_value=MAX_SEED, value=0, step=1, key="compare_seed",
                               help="Train/test split, bootstrap resamples and the random baseline."))
    repeats = c5.select_slider("Train/test splits", options=[1, 3, 5, 10], value=1, key="compare_repeats",
                               bind="query-params",
                               help="1: one split; the accuracy intervals come from a bootstrap over the held-out "
                                    "rows (fast). More: every method is refitted on each split and the intervals "
                                    "include how much the training rows move the result (that many times the fits "
                                    "of the accuracy curves).")
    settings = CompareSettings(test_size=test_size, n_bootstrap=n_bootstrap, max_k=max_k, seed=seed,
                               n_repeats=repeats)
    cores = available_cores()
    n_jobs = 1
    if cores > 1:
        every = st.toggle(f"Use every core ({cores} worker processes)", value=True, key="compare_every_core",
                          help="The fits (methods x (1 + resamples)) and the accuracy curves are independent tasks; "
                               "they run on worker processes started when this page opened. The results are "
                               "identical to a run in one process.")
        n_jobs = -1 if every else 1
        start_workers(n_jobs)
    return settings, n_jobs


@st.cache_data(show_spinner=False, max_entries=8)
def compared(token, methods, settings, _ds, _n_jobs) -> ComparisonResult:
    """One comparison per (dataset, methods with parameters, settings); ``token`` keys the dataset
    (the number of worker processes does not change the result, so it is not part of the key)."""
    with progress_bar("Starting ...") as report:
        return run_comparison(_ds, [(m, dict(v)) for m, v in methods], settings, n_jobs=_n_jobs, progress=report)


@st.cache_data(show_spinner="Writing the report ...", max_entries=8)
def downloads(config, k, reference, _result) -> tuple[bytes, bytes, bytes]:
    """(zip of CSV tables, summary CSV, HTML report) of a run at top-k size ``k`` against ``reference``."""
    return (tables_zip(_result, k, reference), csv_bytes(_result.summary(k, reference), index=False),
            html_report(_result, k, reference).encode())


def _run_or_cancel(run: bool, cancel: bool, config, ds, n_jobs: int) -> None:
    """Start the comparison of ``config`` (the last finished one is kept in the session), or say
    that a run was cancelled or interrupted."""
    if cancel:
        if st.session_state.get(RUNNING):
            st.warning("Comparison cancelled; nothing of it was kept.")
        st.session_state[RUNNING] = False
    elif st.session_state.get(RUNNING):
        st.warning("The last comparison was interrupted before it finished; press **Run comparison** again.")
        st.session_state[RUNNING] = False
    if run:
        st.session_state[RUNNING] = True
        with user_errors():
            result = compared(config[0], config[1], config[2], ds, n_jobs)
            st.session_state[LAST] = (config, result)
        st.session_state[RUNNING] = False


def _overview(result) -> None:
    """What was compared, the notes and failures, the ROC (synthetic data) and the runtimes."""
    splits = result.settings.n_repeats
    st.markdown(f"**{md_escape(result.dataset)}**, classes {md_escape(', '.join(result.classes))}; methods "
                f"{', '.join(result.labels)}; {result.settings.n_bootstrap} bootstrap resamples; "
                f"{'one train/test split' if splits == 1 else f'{splits} train/test splits'}.")
    m1, m2, m3 = st.columns(3)
    m1.metric("Training / held-out rows", f"{result.n_train:,} / {result.n_test:,}")
    m2.metric("Features", f"{result.n_features:,}")
    m3.metric("Run time", f"{result.seconds:.1f} s")
    for note in list(result.notes) + [n for r in result.runs for n in r.notes]:
        st.caption(f"Note: {md_escape(note)}")
    for label, message in result.failures.items():
        st.warning(f"{label} could not run: {md_escape(message)}")
    if result.truth is not None:  # does not depend on k: drawn outside the fragment
        st.subheader("ROC against the known truth")
        show_figure(st, roc_curves(result.roc(), result.auc()), key="compare_roc")
        st.caption(EXPLANATIONS["roc"])
    st.subheader("Runtime")
    st.dataframe(readable(result.runtime()), hide_index=True, key="compare_runtime")
    st.caption(EXPLANATIONS["runtime"] + " The first call of each method runs untimed on a few rows before "
               "the timed fit (compiling or loading its numba kernels); its time is listed separately.")


#: the summary's, runtime and differences tables' columns as a reader names them
COLUMN_NAMES = {
    "method": "Method", "k": "k", "fit_seconds": "Fit time (s)",
    "warmup_seconds": "First call, untimed warm-up incl. compilation (s)",
    "bootstrap_median_seconds": "Bootstrap fit time, median (s)",
    "bootstrap_q1_seconds": "Bootstrap fit time, 25% (s)", "bootstrap_q3_seconds": "Bootstrap fit time, 75% (s)",
    "bootstrap_fits": "Bootstrap fits", "fit_cpu_seconds": "Fit CPU time (s)",
    "bootstrap_median_cpu_seconds": "Bootstrap fit CPU time, median (s)",
    "bootstrap_q1_cpu_seconds": "Bootstrap fit CPU time, 25% (s)",
    "bootstrap_q3_cpu_seconds": "Bootstrap fit CPU time, 75% (s)",
    "total_seconds": "All its fits: time (s)", "total_cpu_seconds": "All its fits: CPU time (s)",
    "selected_by_method": "Selected by the method itself",
    "parameters": "Parameters", "notes": "Notes", "grid_k": "k of the accuracy grid point",
    "accuracy_at_grid_k": "Held-out accuracy there", "accuracy_low": "Accuracy: low", "accuracy_high": "Accuracy: high",
    "reference": "Reference", "difference": "Difference from the reference", "difference_low": "Difference: low",
    "difference_high": "Difference: high", "verdict": "Verdict", "kuncheva_at_k": "Stability at k (Kuncheva)",
    "kuncheva_low": "Kuncheva: low", "kuncheva_high": "Kuncheva: high", "auc": "AUC (truth known)",
    "nogueira_at_k": "Stability at k (Nogueira)", "nogueira_low": "Nogueira: low", "nogueira_high": "Nogueira: high",
    "stability_verdict": "Stability test", "kuncheva": "Kuncheva", "nogueira": "Nogueira Φ",
    "stability_difference": "Φ − Φ of the reference", "stability_difference_low": "Φ difference: low",
    "stability_difference_high": "Φ difference: high", "stability_p": "p (paired test)",
    "stability_p_holm": "p, Holm-adjusted", "ties_at_cut": "Fits tied at the cut",
    "low": "Low", "high": "High", "level": "Interval level",
}


#: the summary's columns that fit a 1280 px screen beside the sidebar, shown first
FIRST = ("method", "k", "accuracy_at_grid_k", "difference", "verdict", "kuncheva_at_k", "stability_verdict", "grid_k")


def first_columns(table):
    """The summary with the columns a reader looks at first (:data:`FIRST`) in front."""
    front = [c for c in FIRST if c in table.columns]
    return table[front + [c for c in table.columns if c not in front]]


def readable(table):
    """The table with its columns named for a reader (the CSV downloads keep the short names)."""
    return table.rename(columns=COLUMN_NAMES)



#: the URL parameter holding the top-k size k (the top-k explorable's position)
K_PARAM = "compare_k"


def default_k(result) -> int:
    """The k the page starts at without one in the URL: 10, or the largest k."""
    return nearest_step(result, min(10, result.k_range()[1]))


def page_k(result) -> int:
    """The top-k size of the page: the URL's (the explorable's last release), else
    :func:`default_k`; the explorable's step nearest it, so that its figure and the tables agree."""
    try:
        return nearest_step(result, int(url_value(K_PARAM) or default_k(result)))
    except ValueError:
        return default_k(result)


def top_k_views(result, last_config) -> None:
    """The top-k explorable, whose slider is the page's one k control, and below it everything
    else that depends on k (:func:`at_k`)."""
    st.subheader("Overlap and stability at every k")
    show_explorable(st, k_explorable(result, last_config, page_k(result)), key="compare_k_explorable",
                    param=K_PARAM, fallback=str(default_k(result)), bridge=False)
    at_k(result, last_config)


@st.fragment
def at_k(result, last_config) -> None:
    """The tables, the curves' marker, the relevance heatmaps and the downloads at the explorable's
    k, and the reference picker. A fragment: a release of the explorable's slider (reported by the
    bridge mounted here) reruns only this, so the figure, drawn outside, is not sent again."""
    explorable_bridge(st, chart="compare_k_explorable", param=K_PARAM, fallback=str(default_k(result)))
    k = page_k(result)
    sentence, picker = st.columns([3, 1], vertical_alignment="bottom")
    reference = picker.selectbox("Reference method", result.labels, key="compare_reference", bind="query-params",
                                 help="Every other method's held-out accuracy is compared with this one's, "
                                      "on the same rows.")
    figures = comparison_figures(result, k, reference)
    sentence.markdown(f"**{md_escape(result.resolved_at(k, reference))}**")
    st.dataframe(readable(first_columns(result.summary(k, reference))), hide_index=True, key="compare_summary",
                 placeholder=NO_NUMBER)
    st.caption("The slider above sets k for the figure, these tables, the curves' marker and the downloads. "
               + EXPLANATIONS["jaccard"] + " " + (EXPLANATIONS["stability"] if "stability" in figures else
                                                  "Stability needs at least two bootstrap resamples."))
    rule = result.resolution_rule(reference)
    st.caption(f"{rule + ' ' if rule else ''}{result.interval_note()} No k is picked for a method: the k with the "
               "highest accuracy on these held-out rows would report an optimistic number.")

    st.subheader("Held-out accuracy")
    show_figure(st, figures["accuracy"], key="compare_accuracy")
    st.caption(EXPLANATIONS["accuracy"])
    _differences(result, k, reference, figures)
    _stability(result, k, reference, figures)

    if "relevance" in figures:
        st.subheader("Relevance heatmaps")
        show_figure(st, figures["relevance"], key="compare_relevance")
        st.caption(EXPLANATIONS["relevance"])

    archive, summary_csv, report = downloads(last_config, k, reference, result)
    d1, d2, d3 = st.columns(3)
    d1.download_button("All tables (CSV, zip)", archive, file_name="comparison_tables.zip",
                       mime="application/zip", key="compare_zip")
    d2.download_button("Summary (CSV)", summary_csv, file_name="comparison_summary.csv", mime="text/csv",
                       key="compare_csv")
    d3.download_button("Report (HTML, self-contained)", report, file_name="comparison_report.html",
                       mime="text/html", key="compare_html")


@st.cache_data(show_spinner=False, max_entries=8)
def k_explorable(_result, config, k: int) -> dict:
    """Overlap and stability of the top-k sets at every k (an explorable), starting at ``k``."""
    return top_k_explorable(_result, k).to_plotly_json()


def _differences(result, k: int, reference: str, figures) -> None:
    """The paired differences from the reference: their figure over k and their table at k."""
    st.subheader(f"Paired differences from {md_escape(reference)}")
    if "differences" not in figures:
        st.info("Choose two or more methods to compare them with each other.")
        return
    show_figure(st, figures["differences"], key="compare_differences")
    st.caption(EXPLANATIONS["differences"])
    st.dataframe(readable(differences_at(result, k, reference)), hide_index=True, key="compare_differences_table")


def _stability(result, k: int, reference: str, figures) -> None:
    """Nogueira's paired test of equal stability against the reference at k: its figure and the
    stability table (both estimates with their intervals, the test)."""
    if "stability" not in figures:
        return
    st.subheader(f"Stability against {md_escape(reference)} at k = {k}")
    if "stability_difference" in figures:
        show_figure(st, figures["stability_difference"], key="compare_stability_difference")
        st.caption(EXPLANATIONS["stability_difference"])
    st.dataframe(readable(stability_at(result, k, reference)), hide_index=True, key="compare_stability_table",
                 placeholder=NO_NUMBER)
