"""Links that carry a view: the forms of a bound option widget's URL value a link may use.

A widget bound to the URL (``bind="query-params"``) writes its value into the query string, and a
fresh browser opened on that URL starts from it. For a selectbox, radio or multiselect, Streamlit
1.67 writes and reads the *formatted* option: what ``format_func`` shows (``?theme=Dark``,
``?picker_key=Digits+8x8+%28scikit-learn%29``). A link copied from the address bar therefore
reproduces the view, but the stable names a person writes by hand or finds in the documentation
(``?theme=dark``, ``?picker_key=digits``, ``?classic_view=l1``) are not options: Streamlit drops
them from the URL and the widget starts at its default, so the view is silently lost.

:func:`link_choice`, called just before such a widget, accepts those forms too: an option's
own value (a catalogue key), its label in any letter case, or a page's alias. On the run that
opens the link it rewrites the URL to the canonical form and reruns before the widget exists, so
the widget starts from the named option and the address bar shows what the app itself would
have written (and what a copy of it must carry). Streamlit seeds a bound widget from the query
string of the run, not from ``st.session_state``'s later writes, hence the rewrite and rerun.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st


def _lookup(options: Sequence, format_func: Callable[[Any], Any], aliases: Mapping[str, Any] | None) -> dict:
    """Every accepted spelling (case-folded) -> its option."""
    table: dict[str, Any] = {}
    for name, option in (aliases or {}).items():
        table[str(name).casefold()] = option
    for option in options:
        table[str(option).casefold()] = option
        table[str(format_func(option)).casefold()] = option
    return table


def link_choice(key: str, options: Sequence, format_func: Callable[[Any], Any] = str, *,
                aliases: Mapping[str, Any] | None = None, multiple: bool = False):
    """The option the URL's ``key`` names in any accepted form (a list for a ``multiple`` choice, a
    multiselect, whose URL repeats the parameter), or None when it names none.

    Call it before the bound widget ``key`` with the widget's ``options`` and ``format_func``. When
    the link names an option in a form Streamlit would not read, the URL is rewritten to the
    canonical form (the formatted option) and the script reruns at once, so the widget starts from
    it and the address bar holds what a copy must carry. Only on the run that opens the link (the
    widget has no state yet), and once per session and parameter. Unknown names are left to
    Streamlit, which drops them.
    """
    values = st.query_params.get_all(key)
    if not values:
        return None
    table = _lookup(options, format_func, aliases)
    chosen = list(dict.fromkeys(table[v.casefold()] for v in values if v.casefold() in table))
    if not chosen:
        return None
    canonical = [str(format_func(o)) for o in (chosen if multiple else chosen[-1:])]
    once = f"_link_rewritten_{key}"
    if key not in st.session_state and values != canonical and not st.session_state.get(once):
        st.session_state[once] = True
        st.query_params[key] = canonical if multiple else canonical[0]
        st.rerun()
    return chosen if multiple else chosen[-1]
