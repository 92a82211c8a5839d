"""Warm starts: a fit that starts from an earlier fit of the same method on related rows.

A selector (or model) that can warm start says so by ``_warm_starts`` (True, a class attribute or
a property of its parameters); after
``fit`` it holds ``warm_state_`` (picklable: what a later fit may start from), and its ``fit``
takes ``warm_start=WarmStart(state, rows)``, where ``rows[k]`` is the row of the earlier fit's X
that row k of the new X is (bootstrap indices; -1: a row the earlier fit did not see, as in the
training part of another train/test split; None: the same rows). A warm start may only
change how many iterations a fit takes: the iteration and the stopping rule are the cold fit's,
and each method tests that its warm fits end where its cold fits do, to the method's stopping
rule. Where that does not hold, the method does not declare ``_warm_starts``.

The comparison (:mod:`fsengine.compare.runner`) fits the bootstrap resamples of such a method,
and its fits on further train/test splits (``n_repeats >= 2``), from its fit on the first
training part; :func:`fsengine.methods.run.fit_method` passes the start on
when the adapted columns are those of the earlier fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class WarmStart:
    """Where a fit may start: ``state`` (an earlier fit's ``warm_state_``), ``rows`` (for each row of
    the new X, the row of the earlier fit's X it repeats, -1 for a row that fit did not see; None:
    the same rows) and ``columns`` (the
    original columns the earlier fit saw, set by :func:`fsengine.methods.run.fit_method`; None:
    not checked)."""

    state: Any
    rows: np.ndarray | None = None
    columns: np.ndarray | None = None

    def for_rows(self, rows) -> WarmStart:
        """The same start for new X made of the earlier fit's ``rows`` (a bootstrap resample; -1 for
        a row it did not see)."""
        return WarmStart(self.state, None if rows is None else np.asarray(rows, dtype=np.intp), self.columns)


def can_warm_start(estimator) -> bool:
    """Whether the estimator instance declares that its ``fit`` takes ``warm_start`` with its
    parameters (``_warm_starts`` may be a property: the RTM warm starts without ARD only)."""
    return getattr(estimator, "_warm_starts", False) is True
