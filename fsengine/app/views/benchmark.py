"""Benchmark: which selector wins where, and how sure are we. Shows a benchmark run folder (the
committed one, one the user names, or a quick run made here): the critical-difference diagram, ranks,
similarity and accuracy-time explorables, the Holm-corrected pairs, and a drill-down per dataset."""

from pathlib import Path

import streamlit as st

from fsengine.app.compute import computed_once
from fsengine.app.display import NO_NUMBER, explorable_bridge, figure_columns, show_explorable, show_figure, url_value
from fsengine.app.errors import user_errors
from fsengine.app.safe_text import md_escape
from fsengine.benchmark import record as records
from fsengine.benchmark.report import EQUATIONS, EXPLANATIONS, PROCEDURE, dataset_table, headline
from fsengine.config import cache_dir, results_dir
from fsengine.plots import benchmark as plots
from fsengine.plots.compare import accuracy_curves, jaccard_heatmap

#: the URL parameter holding the page's k (the CD diagram's slider position)
K_PARAM = "benchmark_k"
CD_KEY = "benchmark_cd"


def committed_folder() -> Path:
    """Where the committed run lives (``docs/results/benchmark`` of a checkout)."""
    return results_dir() / "benchmark"


def quick_folder() -> Path:
    """Where a quick run started from this page is written."""
    return cache_dir() / "benchmark-quick"


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    _explain()
    record = _chosen_record()
    if record is None:
        st.stop()
    _overview(record)
    k = page_k(record)
    st.subheader("Critical-difference diagram")
    show_explorable(st, cd_figure(record, k), key=CD_KEY, param=K_PARAM, fallback=record.k_labels[0], bridge=False)
    st.caption(EXPLANATIONS["cd"] + " The slider sets k for this whole page.")
    at_k(record)


def _explain() -> None:
    st.title("Benchmark across datasets")
    st.markdown("Which selector should I use, on what kind of data, and how sure are we? Every method runs on "
                "every dataset of a suite under one frozen protocol (repeated stratified outer folds; selectors "
                "fitted inside each training fold only; one classifier on the first *k* features), and the "
                "methods are then compared **over the datasets**, the way Demšar (2006) set the standard. This "
                "page shows a finished run (the sidebar's dataset is not used here): the committed one, a run "
                "folder you name, or a quick run made here.")
    with st.expander("The procedure: Friedman, Nemenyi, Wilcoxon-Holm", expanded=False):
        st.markdown(PROCEDURE + " With $N$ datasets, $k$ methods and average ranks $R_j$:")
        st.latex(EQUATIONS["friedman"])
        st.markdown("Nemenyi's critical difference, from the studentized range at infinite degrees of freedom:")
        st.latex(EQUATIONS["cd"])
        st.markdown("Holm's step-down correction of the $m$ pairwise Wilcoxon p-values, smallest first:")
        st.latex(EQUATIONS["holm"])
        st.markdown("**What to look for:** groups in the CD diagram (no pair inside a grey bar is resolved), rows "
                    "of the ranks heatmap where the overall winner loses, blocks of methods that select alike, "
                    "and the methods on the accuracy-time front. With few datasets few pairs can be resolved: "
                    "the exact signed-rank test cannot give p below $2/2^N$.")


def _chosen_record():
    """The run the page shows: a folder named here (the committed run by default), or a quick run."""
    committed = committed_folder()
    default = str(committed) if (committed / records.RUN_FILE).is_file() else ""
    folder = st.text_input("Run folder", value=default, key="benchmark_folder", bind="query-params",
                           help="A folder written by `fsengine benchmark --out DIR` or `fsengine reproduce "
                                "benchmark` (the committed run is docs/results/benchmark).")
    if st.button("Run the quick benchmark here (a few minutes)", key="benchmark_quick"):
        with user_errors():
            computed_once("benchmark_quick", "quick", _quick_run, text="Quick benchmark: starting ...",
                          max_entries=1)
            st.session_state["benchmark_use_quick"] = True
    quick = quick_folder() / records.RUN_FILE
    if not folder.strip() and st.session_state.get("benchmark_use_quick") and quick.is_file():
        folder = str(quick_folder())
    if not folder.strip():
        st.info("No committed run here yet. Name a run folder above, or run the quick benchmark "
                "(`fsengine benchmark --quick --out DIR` does the same from the command line).")
        return None
    with user_errors():
        return load(folder.strip(), _stamp(folder.strip()))


def _stamp(folder: str) -> float:
    path = Path(folder) / records.RUN_FILE
    return path.stat().st_mtime if path.is_file() else 0.0


@st.cache_resource(show_spinner="Reading the run ...", max_entries=4)
def load(folder: str, stamp: float):
    """The record of a run folder (read again when its run.json changes)."""
    return records.read(Path(folder))


def _quick_run(progress):
    from fsengine.benchmark.suite import QUICK
    from fsengine.reproduce.benchmark import QUICK_SETTINGS, run_and_write

    return run_and_write(QUICK, None, QUICK_SETTINGS, quick_folder(), quick=True,
                         command="the app's quick benchmark", progress=progress)


def _overview(record) -> None:
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Datasets", len(record.info))
    c2.metric("Methods", len(record.methods))
    c3.metric("Folds per dataset", record.settings.folds * record.settings.repeats)
    c4.metric("k grid", record.settings.k_grid)
    st.caption(f"Protocol fingerprint {record.fingerprint}; run on {md_escape(record.where)}, "
               f"{record.seconds.get('wall', 0) / 60:.1f} minutes. " + ("A quick run: CI-sized, not the benchmark."
                                                                         if record.quick else ""))
    bad = record.status[record.status["status"] != "ok"]
    if len(bad):
        with st.expander(f"Not applicable or failed: {len(bad)} dataset-method pairs", expanded=False):
            st.markdown("\n".join(f"- {md_escape(record.titles[r.dataset])}: {md_escape(r.status)}"
                                  for r in bad.itertuples()))


def page_k(record) -> str:
    """The page's k: the URL's (the CD slider's last release), else the grid's first."""
    value = url_value(K_PARAM)
    return value if value in record.k_labels else record.k_labels[0]


@st.cache_data(show_spinner=False, max_entries=8)
def cd_figure(_record, k: str, _key=None) -> dict:
    return plots.cd_explorable(_record, k).to_plotly_json()


@st.fragment
def at_k(record) -> None:
    """Everything that depends on k: the sentences, the pairs, the other explorables, the drill-down."""
    explorable_bridge(st, chart=CD_KEY, param=K_PARAM, fallback=record.k_labels[0])
    k = page_k(record)
    for line in headline(record, k)[2:]:
        if line:
            st.markdown(md_escape(line))
    pairs = record.pairs(k)
    if len(pairs):
        labels = record.labels
        shown = pairs.assign(a=pairs["a"].map(labels), b=pairs["b"].map(labels))[
            ["a", "b", "datasets", "median_difference", "pvalue", "holm_pvalue", "verdict"]]
        st.dataframe(shown.rename(columns={"a": "Method A", "b": "Method B", "datasets": "Datasets",
                                           "median_difference": "Median difference (A − B)", "pvalue": "p",
                                           "holm_pvalue": "p after Holm", "verdict": "Verdict"}),
                     hide_index=True, key="benchmark_pairs", placeholder=NO_NUMBER)
    left, right = figure_columns(2)
    with left:
        st.subheader("Ranks per dataset")
        show_figure(st, plots.ranks_explorable(record, k), key="benchmark_ranks")
        st.caption(EXPLANATIONS["ranks"])
    with right:
        st.subheader("Which methods select alike")
        show_figure(st, plots.similarity_explorable(record, k), key="benchmark_similarity")
        st.caption(EXPLANATIONS["similarity"])
    st.subheader("Accuracy against time")
    show_figure(st, plots.tradeoff_explorable(record, k), key="benchmark_tradeoff")
    st.caption(EXPLANATIONS["tradeoff"])
    drill_down(record, k)


def drill_down(record, k: str) -> None:
    """One dataset: its accuracy curves, stability and overlap at k, and its table."""
    st.subheader("One dataset")
    titles = record.titles
    slug = st.selectbox("Dataset", list(titles), format_func=lambda s: titles[s], key="benchmark_dataset")
    row = record.info.set_index("dataset").loc[slug]
    st.markdown(f"**{md_escape(titles[slug])}**: {int(row['rows']):,} rows, {int(row['features']):,} features, "
                f"{int(row['n_classes'])} classes; metric: {row['metric']}. {md_escape(str(row['why']))}")
    base, accuracy = record.all_features(slug), record.accuracy_table(slug)
    if base is not None and len(accuracy):
        show_figure(st, accuracy_curves(accuracy, all_features=float(base["value"]), majority=record.majority(slug),
                                        random_label="(none)", k=record.summary.loc[
                                            (record.summary["dataset"] == slug) & (record.summary["k_label"] == k),
                                            "k"].max() if k in record.k_labels else None,
                                        title=f"{titles[slug]}: held-out {base['metric']} against k",
                                        note="bands: 95% corrected resampled t over the outer folds"),
                    key="benchmark_accuracy")
        st.caption(EXPLANATIONS["accuracy"])
    if k not in record.summary.loc[record.summary["dataset"] == slug, "k_label"].tolist():
        st.info(f"k = {k} is not evaluated on this dataset (it has only {int(row['features'])} features).")
        return
    left, right = figure_columns(2)
    show_figure(left, plots.stability_bars(record, slug, k), key="benchmark_stability")
    left.caption(EXPLANATIONS["stability"])
    jac = record.dataset_jaccard(slug, k)
    if len(jac):
        show_figure(right, jaccard_heatmap(jac, k), key="benchmark_jaccard")
        right.caption(EXPLANATIONS["jaccard"])
    st.dataframe(dataset_table(record, slug, k), hide_index=True, key="benchmark_dataset_table")
