"""JSON that every reader takes. JSON (RFC 8259) has no NaN or Infinity; Python's ``json`` writes
them as bare ``NaN`` / ``Infinity`` unless told not to, and strict readers (browsers' ``JSON.parse``,
``jq``, most languages) then refuse the whole file. Every JSON file fsengine writes goes through
:func:`json_text`: a number that is not finite is written ``null`` (no number), and anything else
that would not be valid JSON is an error here, not in the reader."""

from __future__ import annotations

import json
import math
from numbers import Integral, Real
from typing import Any


def finite_or_none(value) -> float | None:
    """``float(value)``, or None when it is NaN or infinite.

    >>> finite_or_none(2), finite_or_none(float("nan")), finite_or_none(float("-inf"))
    (2.0, None, None)
    """
    value = float(value)
    return value if math.isfinite(value) else None


def plain(obj: Any) -> Any:
    """``obj`` with every non-finite float (Python or numpy, in dicts, lists and tuples) as None."""
    if isinstance(obj, dict):
        return {key: plain(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain(value) for value in obj]
    if isinstance(obj, Real) and not isinstance(obj, Integral):  # float, numpy's floats
        return finite_or_none(obj)
    return obj


def json_text(obj: Any, **options) -> str:
    """``json.dumps(obj, **options)`` with non-finite numbers as ``null`` and ``allow_nan=False``
    (anything else that is no JSON number raises ValueError).

    >>> json_text({"score": float("nan"), "top": [1.5, float("inf")]})
    '{"score": null, "top": [1.5, null]}'
    """
    return json.dumps(plain(obj), allow_nan=False, **options)
