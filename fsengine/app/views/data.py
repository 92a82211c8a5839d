"""Data: samples, class balance, feature statistics and provenance of the chosen dataset, and the downloads."""

import streamlit as st

from fsengine.app.compute import computed_once, dataset_token, progress_bar
from fsengine.app.display import figure_columns, show_figure
from fsengine.app.errors import user_errors
from fsengine.app.picker import current_dataset, current_selection
from fsengine.app.safe_text import md_escape
from fsengine.data.fetch import SOURCES, FetchError, fetch, is_present
from fsengine.data.summary import (
    balance_note,
    class_labels,
    class_means,
    feature_table,
    head_table,
    relevance_preview,
    sample_texts,
)
from fsengine.plots import data as plots

FETCH_DONE = "data_fetch_done"
#: provenance notes listed as text; more go into a table
MAX_NOTES = 30


def render() -> None:
    """Draw the page (called by the navigation on every rerun)."""
    st.title("Data")
    st.markdown(
        "Look at the data before selecting from it. The samples show what each class looks like; the "
        "class means (and, for two classes, their difference) show where the classes differ on average: "
        "those are the features a good selector should find. The **Fisher score** previews relevance one "
        "feature at a time, as the ratio of between-class to within-class scatter:"
    )
    st.latex(r"S_j = \frac{\sum_c n_c\,(\mu_{cj} - \mu_j)^2}{\sum_c n_c\,\sigma_{cj}^2}")
    st.markdown(
        "What to look for: high-scoring features often come in correlated groups (neighbouring pixels, "
        "words that co-occur). A one-feature ranking takes the whole group; the multivariate methods on "
        "the other pages take one member and move on. Constant features (score 0, e.g. border pixels) "
        "can never be selected."
    )
    key, params = current_selection()
    ds = current_dataset()
    token = dataset_token(key, params, ds)
    table, scores, score_name, means = statistics(token, ds)
    classes = class_labels(ds)

    cols = st.columns(5)
    cols[0].metric("Samples", f"{ds.n_samples:,}")
    cols[1].metric("Features", f"{ds.n_features:,}")
    cols[2].metric("Classes", len(classes) if classes else "regression")
    cols[3].metric("Storage", "sparse" if ds.is_sparse else "dense")
    cols[4].metric("Nonzero share", f"{float(table['nonzero share'].mean()):.1%}")
    _samples(ds, classes)
    _balance(ds, classes)
    _features(ds, classes, table, scores, score_name, means)
    _provenance(ds)
    _downloads()
    _lecture_pack(ds, token)


@st.cache_data(max_entries=8, show_spinner="Computing feature statistics ...")
def statistics(token, _ds):
    """(feature table, relevance preview scores, its name, class means or None) of one dataset."""
    table = feature_table(_ds)
    scores, score_name = relevance_preview(_ds)
    means = class_means(_ds.X, _ds.y)[1] if _ds.task == "classification" else None
    return table, scores, score_name, means


def _samples(ds, classes) -> None:
    st.header("Samples")
    if ds.image_shape is not None and classes:
        c1, c2 = st.columns(2)
        per_class = c1.slider("Images per class", 4, 20, 12, key="data_per_class")
        seed = c2.number_input("Sample seed", min_value=0, value=0, step=1, key="data_sample_seed")
        show_figure(st, plots.image_grid(ds.dense_X(), ds.y, ds.image_shape, classes, per_class, int(seed)),
                    key="data_image_grid")
        st.caption("Each row is one class; ink is dark. Pixels are scaled to [0, 1].")
    elif ds.texts is not None:
        c1, c2 = st.columns([2, 1])
        chosen = c1.selectbox("Class", classes or ["all"], key="data_text_class")
        n_texts = c2.slider("Documents", 3, 30, 8, key="data_text_n")
        st.dataframe(sample_texts(ds, chosen, n_texts), hide_index=True)
    else:
        st.dataframe(head_table(ds), hide_index=True)
        if ds.n_features > 30:
            st.caption(f"First 30 of {ds.n_features} features.")


def _balance(ds, classes) -> None:
    st.header("Class balance" if classes else "Target distribution")
    chart_col, text_col = figure_columns([3, 2], vertical_alignment="center")
    if classes:
        show_figure(chart_col, plots.class_balance(ds.class_counts()), key="data_balance")
        text_col.markdown(balance_note(ds.class_counts().values()))
    else:
        show_figure(chart_col, plots.target_histogram(ds.y), key="data_target_hist")
        text_col.markdown("A regression target: features are previewed by their absolute correlation with it.")


def _features(ds, classes, table, scores, score_name, means) -> None:
    st.header("Features")
    if ds.image_shape is not None and means is not None:
        show_figure(st, plots.class_mean_images(means, ds.image_shape, classes), key="data_class_means")
    if ds.texts is not None and means is not None and ds.is_sparse:
        top_words = st.slider("Words per class", 5, 30, 12, key="data_top_words")
        show_figure(st, plots.word_frequencies(ds.feature_names, means, classes, top_words), key="data_words")
        st.caption("Words whose share of documents differs most between the classes.")
    top_n = st.slider("Top features", 5, 50, 20, key="data_top_n")
    left, right = figure_columns(2) if ds.image_shape is not None else (None, st.container())
    if left is not None:
        show_figure(left, plots.feature_map(scores, ds.image_shape, score_name), key="data_feature_map")
        left.caption(f"{score_name} of every pixel: bright pixels separate the classes on their own.")
    show_figure(right, plots.top_features(ds.feature_names, scores, score_name, top_n), key="data_top_features")
    with st.expander("All feature statistics"):
        st.dataframe(table, hide_index=True)


def _provenance(ds) -> None:
    st.header("Provenance")
    st.markdown(f"**Source:** {md_escape(ds.provenance.source, inline=True)}  \n"
                f"**Licence:** {md_escape(ds.provenance.licence, inline=True)}")
    st.dataframe({"count": list(ds.provenance.counts), "value": list(ds.provenance.counts.values())},
                 hide_index=True)
    notes = ds.provenance.notes
    if notes:  # user-supplied names inside: escaped; a long list (wide uploads) as a table
        st.markdown("\n".join(f"- {md_escape(note, inline=True)}" for note in notes[:MAX_NOTES]))
    if len(notes) > MAX_NOTES:
        st.caption(f"All {len(notes):,} notes:")
        st.dataframe({"note": list(notes)}, hide_index=True)


def _downloads() -> None:
    st.header("Downloads")
    st.markdown("Public datasets, verified by sha256 and stored under `datasets/` "
                "(also `python -m fsengine datasets fetch NAME`).")
    if st.session_state.get(FETCH_DONE):
        st.success(st.session_state.pop(FETCH_DONE))
    for source in SOURCES.values():
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.markdown(f"**{source.name}**: {source.description} ({source.size / 1e6:.1f} MB, {source.licence})")
        if is_present(source.name):
            c2.markdown(":green[present]")
        elif c2.button("Download", key=f"data_fetch_{source.name}"):
            try:
                with progress_bar(f"Downloading {source.name} ...") as report:
                    paths = fetch(source.name, progress=report)
            except FetchError as exc:
                st.error(str(exc))
            else:
                st.session_state[FETCH_DONE] = f"{source.name} stored at {', '.join(map(str, paths))}."
                st.rerun()


def _lecture_pack(ds, token) -> None:
    """The offline lecture pack of this dataset as a zip (built by :mod:`fsengine.lecture`, as
    ``fsengine lecture`` writes it), once per dataset for the server."""
    st.header("Lecture pack")
    st.markdown("Every method's explorable figures for this dataset as HTML pages with plotly.js beside them: "
                "unzipped, they open from a USB stick or a lecture-hall PC with no Python, no server and no "
                "network. The command line writes the same folder: `fsengine lecture --data SPEC --out DIR`.")
    if st.session_state.get("data_lecture_for") != token and not st.button("Build the lecture pack",
                                                                           key="data_lecture_build"):
        return
    from fsengine.lecture import lecture_pages, pack_zip

    with user_errors():
        archive = computed_once("lecture_pack", token, lambda report: pack_zip(lecture_pages(ds, progress=report)),
                                text="Fitting every method for the lecture pack ...", max_entries=2)
    st.session_state["data_lecture_for"] = token
    st.download_button(f"Download the lecture pack (zip, {len(archive) / 1e6:.1f} MB)", archive,
                       file_name="lecture-pack.zip", mime="application/zip", key="data_lecture_zip")
