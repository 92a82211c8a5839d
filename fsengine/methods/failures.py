"""A method's failure as one line: the one place where calls into a method (fsengine's selectors and
the user's own classes alike) are wrapped, so that ``fsengine select``, ``fsengine compare`` and
whatever else fits methods report a failure the same way.

* Control flow passes untouched: interrupts, Streamlit's stop and rerun (``BaseException``) and
  :class:`fsengine.progress.StopRequested`.
* A ``ValueError`` raised by an fsengine selector is already a one-line user error (too many
  features, values beyond 1e100) and passes as it is.
* Anything else, and anything a user's own class raises (a ``RuntimeError``, a ``TypeError``, a
  ``ValueError``, even ``sys.exit``), becomes a :class:`MethodError` naming the method: a
  ``ValueError``, which the command line prints as one line (exit 2) and a comparison records as
  the method's failure while the others go on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from fsengine.progress import StopRequested


class MethodError(ValueError):
    """Method ``label`` failed; ``reason`` is the one-line cause (:func:`failure_message`)."""

    def __init__(self, label: str, reason: str, doing: str = "failed"):
        super().__init__(f"{label} {doing}: {reason}")
        self.label = label
        self.reason = reason


def failure_message(exc: BaseException) -> str:
    """One line for a failed fit: a :class:`MethodError`'s reason, a ValueError's own message, else
    the error's type and text.

    >>> failure_message(FloatingPointError("overflow in   the solver"))
    'FloatingPointError: overflow in the solver'
    >>> failure_message(SystemExit(2))
    'SystemExit: it called sys.exit(2)'
    """
    if isinstance(exc, MethodError):
        return exc.reason
    if isinstance(exc, SystemExit):
        return f"SystemExit: it called sys.exit({exc.code!r})"
    text = " ".join(str(exc).split())
    return text if isinstance(exc, ValueError) and text else f"{type(exc).__name__}: {text}".rstrip(": ")


@contextlib.contextmanager
def method_calls(label: str, *, own: bool = True, doing: str = "failed") -> Iterator[None]:
    """Run calls into method ``label`` (building, fitting, reading its results); turn its failures
    into a :class:`MethodError` ("LABEL DOING: reason") as the module docstring says. ``own``: the
    method is one of fsengine's selectors (its ValueErrors are user errors already), not a user's
    class."""
    try:
        yield
    except (StopRequested, MethodError):
        raise
    except ValueError as exc:
        if own:
            raise
        raise MethodError(label, failure_message(exc), doing) from exc
    except (Exception, SystemExit) as exc:
        raise MethodError(label, failure_message(exc), doing) from exc
