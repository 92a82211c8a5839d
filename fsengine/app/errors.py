"""Show user mistakes and failures as ``st.error`` boxes, never as tracebacks (their text escaped:
messages quote user-supplied names, :mod:`fsengine.app.safe_text`)."""

from __future__ import annotations

import contextlib
import logging

import streamlit as st

from fsengine.app.safe_text import md_escape
from fsengine.data.paths import DataNotFoundError

log = logging.getLogger("fsengine.app")

#: Exceptions that describe a problem with the user's input or environment; shown verbatim.
USER_ERRORS = (ValueError, DataNotFoundError, MemoryError, KeyError)


@contextlib.contextmanager
def user_errors(stop: bool = True):
    """Run a block; show expected errors as ``st.error`` and stop the page (no traceback).

    Unexpected exceptions are logged with their traceback on the server and shown as one line.
    """
    try:
        yield
    except st.runtime.scriptrunner.StopException:  # pragma: no cover - streamlit control flow
        raise
    except USER_ERRORS as exc:
        st.error(md_escape(str(exc).strip() or type(exc).__name__))
        if stop:
            st.stop()
    except Exception as exc:
        if type(exc).__name__ in ("StopException", "RerunException"):
            raise
        log.exception("unexpected error in page")
        st.error(md_escape(f"Something went wrong: {type(exc).__name__}: {exc}"))
        if stop:
            st.stop()
