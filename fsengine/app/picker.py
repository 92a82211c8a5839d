"""The shared dataset picker (rendered once in ``app.py``'s sidebar, read by every page).

Besides the catalogue it offers "Upload a file": a CSV/TSV (plain or compressed), Parquet file with
a chosen target column, or an svmlight/libsvm file with its own labels, validated by
:mod:`fsengine.data.upload`; the resulting dataset lives in ``st.session_state`` so every page sees it.
"""

from __future__ import annotations

import streamlit as st

from fsengine import config
from fsengine.app.errors import log, user_errors
from fsengine.app.guard import require_shell
from fsengine.app.links import link_choice
from fsengine.app.safe_text import md_escape
from fsengine.app.widgets import param_widget
from fsengine.data import Dataset, dataset_specs, get_spec, load_dataset
from fsengine.data.catalogue import DatasetSpec

KEY = "dataset_key"
PARAMS = "dataset_params"
DEFAULT_KEY = "notmnist"
UPLOAD_KEY = "upload"
#: session-state slots of the upload: the validated Dataset (or None) and the last error
UPLOADED = "uploaded_dataset"
UPLOAD_ERROR = "upload_error"
_UPLOAD_MEMO = "_upload_memo"
#: excluded columns listed in the sidebar (a 100k-column upload would flood it)
MAX_LISTED = 30


def load_cached(key: str, params: dict, *, background=None) -> Dataset:
    """Load a catalogue dataset once per (key, params) for the whole server (treat the result as
    read-only), with a bar while it loads (``background``: no bar, for the server-start
    preparation). The uploaded dataset is per session: use :func:`current_dataset` for it."""
    from fsengine.app.compute import computed_once

    if key == UPLOAD_KEY:
        raise ValueError("The uploaded dataset is not in the catalogue; use current_dataset().")
    frozen = tuple(sorted(params.items()))
    return computed_once("dataset", (key, frozen), lambda report: load_dataset(key, **dict(frozen)),
                         text="Loading the dataset ...", max_entries=8, background=background)


def default_selection() -> tuple[str, dict]:
    """The dataset a first visitor sees: :func:`default_key` with its catalogue defaults."""
    key = default_key()
    return key, get_spec(key).defaults()


def available_specs() -> list[DatasetSpec]:
    return [s for s in dataset_specs() if s.available()]


def default_key() -> str:
    """Real notMNIST when present, else the generated letters, else digits."""
    keys = [s.key for s in available_specs()]
    for k in (DEFAULT_KEY, "letters", "digits"):
        if k in keys:
            return k
    return keys[0]


def _upload_widgets(container) -> dict:
    """File, target column and options; validates and stores the dataset in the session."""
    from fsengine.data.upload import (  # pandas, when needed
        TASKS,
        UPLOAD_TYPES,
        dataset_from_table,
        file_format,
        read_table,
    )

    try:
        limit_mb = config.max_upload_bytes() / (1024 * 1024)
    except ValueError as exc:  # FSENGINE_MAX_UPLOAD_MB set to something that is not a number
        st.session_state[UPLOADED] = None
        st.session_state[UPLOAD_ERROR] = str(exc)
        container.error(md_escape(exc))
        return {}
    uploaded = container.file_uploader(
        "Data file", type=list(UPLOAD_TYPES), key="upload_file",
        help=f"A table (.csv, .tsv, .txt, also compressed as .gz, .bz2, .xz or .zip; .parquet): one row per sample, "
             "one column per feature, plus a target column. Or an svmlight/libsvm file (.svm, .libsvm) with its "
             f"own labels. Limit {limit_mb:g} MB, also for a compressed table's content (FSENGINE_MAX_UPLOAD_MB; "
             "Streamlit's own server.maxUploadSize caps it too).")
    if uploaded is None:
        st.session_state[UPLOADED] = None
        st.session_state[UPLOAD_ERROR] = None
        return {}
    try:
        if file_format(uploaded.name)[0] == "svmlight":
            return _svmlight_upload(container, uploaded, TASKS)
        memo = st.session_state.get(_UPLOAD_MEMO)
        if memo is None or memo[0] != uploaded.file_id:
            memo = (uploaded.file_id, read_table(uploaded.getvalue(), uploaded.name))
            st.session_state[_UPLOAD_MEMO] = memo
        table = memo[1]
    except Exception as exc:  # any failure of the reader is this upload's error, never the server's
        _upload_failed(container, uploaded.name, exc)
        return {"file": uploaded.name}
    columns = [str(c) for c in table.columns]
    target = container.selectbox("Target column", columns, index=len(columns) - 1, key="upload_target",
                                 help="The column to predict; every other column is a candidate feature.")
    task = container.selectbox("Task", TASKS, key="upload_task",
                               help="auto: text targets and up to 20 integer values are classes")
    drop_text = container.checkbox("Exclude non-numeric columns", value=True, key="upload_drop_text")
    drop_const = container.checkbox("Exclude constant columns", value=True, key="upload_drop_const")
    options = {"file": uploaded.name, "file_id": uploaded.file_id, "target": target, "task": task,
               "exclude_non_numeric": drop_text, "exclude_constant": drop_const}
    try:
        ds = dataset_from_table(table, target, name=uploaded.name, task=task,
                                exclude_non_numeric=drop_text, exclude_constant=drop_const)
    except Exception as exc:
        _upload_failed(container, uploaded.name, exc, forget=False)
        return options
    _keep_upload(container, ds)
    return options


def _svmlight_upload(container, uploaded, tasks) -> dict:
    """An svmlight/libsvm file: its labels are the target, so only the task is asked for."""
    from fsengine.data.upload import load_svmlight

    task = container.selectbox("Task", tasks, key="upload_task",
                               help="auto: up to 20 whole-number labels are classes")
    options = {"file": uploaded.name, "file_id": uploaded.file_id, "task": task}
    try:
        memo = st.session_state.get(_UPLOAD_MEMO)
        if memo is None or memo[0] != (uploaded.file_id, task):
            memo = ((uploaded.file_id, task), load_svmlight(uploaded.getvalue(), uploaded.name, task=task))
            st.session_state[_UPLOAD_MEMO] = memo
        ds = memo[1]
    except Exception as exc:  # any failure of the reader is this upload's error, never the server's
        _upload_failed(container, uploaded.name, exc)
        return options
    container.caption("svmlight file: the labels are the target; features are sparse.")
    _keep_upload(container, ds)
    return options


def _upload_failed(container, name: str, exc: Exception, *, forget: bool = True) -> None:
    """Show why the upload ``name`` cannot be used, in one line, and keep no dataset. An
    :class:`~fsengine.data.upload.UploadError` says it itself; anything else the reader raised (a
    bug, memory running out) is logged with its traceback on the server and named by its type."""
    from fsengine.data.upload import UploadError

    if isinstance(exc, UploadError):
        message = str(exc)
    else:
        log.exception("reading the upload %r failed", name)
        message = f"{name} could not be read ({type(exc).__name__}: {' '.join(str(exc).split())[:300]})".rstrip()
    if forget:
        st.session_state[_UPLOAD_MEMO] = None
    st.session_state[UPLOADED] = None
    st.session_state[UPLOAD_ERROR] = message
    container.error(md_escape(message))


def _keep_upload(container, ds) -> None:
    """Store the validated upload for every page and list what was left out."""
    st.session_state[UPLOADED] = ds
    st.session_state[UPLOAD_ERROR] = None
    excluded = ds.extras["excluded_columns"]
    container.caption(f"{ds.n_samples:,} rows, {ds.n_features} features, {ds.task}.")
    if excluded:
        shown = [f"- {md_escape(c, inline=True)}: {md_escape(why, inline=True)}"
                 for c, why in list(excluded.items())[:MAX_LISTED]]
        container.warning("Excluded columns:\n" + "\n".join(shown)
                          + (f"\n\n... and {len(excluded) - MAX_LISTED:,} more (listed on the Data page)."
                             if len(excluded) > MAX_LISTED else ""))


def dataset_picker(container=None) -> tuple[str, dict]:
    """Render the picker; store and return the chosen (key, params)."""
    container = container or st.sidebar
    specs = available_specs()
    keys = [s.key for s in specs] + [UPLOAD_KEY]
    labels = {s.key: s.label for s in specs}  # short: the sidebar cuts long labels; the caption has the rest
    labels[UPLOAD_KEY] = "Upload a file (CSV, Parquet, svmlight)"
    # a link names the dataset by its label (what the widget writes) or its catalogue key (?picker_key=digits)
    if link_choice("picker_key", keys, labels.get) is None and st.session_state.get("picker_key") not in keys:
        st.session_state["picker_key"] = default_key()
    key = container.selectbox("Dataset", keys, format_func=labels.get, key="picker_key", bind="query-params",
                              help="Shared by every page.")
    if key == UPLOAD_KEY:
        params = _upload_widgets(container)
    else:
        spec = get_spec(key)
        container.caption(f"**{spec.group}: {spec.label}.** {spec.description}")
        params = {p.name: param_widget(p, f"ds_{spec.key}_{p.name}", container, bind="query-params")
                  for p in spec.params}
    missing = [s for s in dataset_specs() if not s.available()]
    if missing:
        container.caption("Not found here: " + ", ".join(s.label for s in missing)
                          + ". Download them on the Data page or with `python -m fsengine datasets fetch NAME`.")
    st.session_state[KEY] = key
    st.session_state[PARAMS] = params
    return key, params


def current_selection() -> tuple[str, dict]:
    """The picker's (key, params); defaults when the picker has not run (e.g. page-level tests)."""
    require_shell()  # safety net for pages that forget to call it first
    key = st.session_state.get(KEY) or default_key()
    params = st.session_state.get(PARAMS)
    if params is None or st.session_state.get(KEY) is None:
        params = get_spec(key).defaults()
    return key, dict(params)


def current_dataset() -> Dataset:
    """The picked dataset (cached; the upload from the session). Shows an ``st.error`` (or, with
    no file yet, an ``st.info``) and stops the page when there is nothing usable."""
    key, params = current_selection()
    if key == UPLOAD_KEY:
        ds = st.session_state.get(UPLOADED)
        if ds is None:
            error = st.session_state.get(UPLOAD_ERROR)
            if error:
                st.error(f"The uploaded file cannot be used: {md_escape(error)}")
            else:
                st.info("Choose a CSV or Parquet file (plain or compressed, e.g. .csv.gz) or an svmlight file in the "
                        "sidebar (Dataset: upload) to explore your own data.")
            st.stop()
        return ds
    with user_errors():
        return load_cached(key, params)
