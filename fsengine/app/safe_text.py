"""User-supplied text (column names, file names, values, messages quoting them) shown inside
Streamlit markdown (``st.markdown``, ``st.error``, ``st.warning``, captions) without being
interpreted: a column named ``[click me](https://example.invalid)`` or ``![px](http://host/p.png)``
must show those characters, not become a live link or an image the browser fetches.

CommonMark lets every ASCII punctuation character be escaped with a backslash; escaping each one
that markdown gives a meaning disarms links, images, code spans, emphasis, headings, lists, tables,
HTML and entities, autolinks (``https\\://``, ``www\\.``, ``a\\@b``), Streamlit's ``:red[...]``
directives, ``:emoji:`` codes and ``$...$`` LaTeX alike (commas, quotes, ``;``, ``?``, ``%`` stay as
they are: they mean nothing outside those constructs).

Escapes do not stop GFM's *autolink literals*: remark-gfm turns ``https://...``, ``www.`` and
``name@host`` into links after parsing, in the text itself. A zero-width space goes into each of
them (``https\u200b://``, ``www\u200b.``, ``\u200b@``): the text looks the same, but is no link (a
browser test checks the rendered page for links and image requests).
"""

from __future__ import annotations

import re

#: ASCII punctuation with a meaning in CommonMark, GFM or Streamlit's markdown
SPECIAL = "\\`*_{}[]()<>#+-.!|~$:/@&=^"
_ESCAPES = str.maketrans({c: "\\" + c for c in SPECIAL})
#: the starts of GFM autolink literals (protocols, www., e-mail addresses)
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)|(?=@)")
ZERO_WIDTH_SPACE = "\u200b"


def md_escape(text, *, inline: bool = False) -> str:
    """``text`` (any object, via ``str``) safe to embed in Streamlit markdown; ``inline=True`` also
    folds line breaks into spaces (for list items and sentences)."""
    out = _AUTOLINK.sub(ZERO_WIDTH_SPACE, str(text)).translate(_ESCAPES)
    return " ".join(out.splitlines()) if inline else out.replace("\n", "  \n")
