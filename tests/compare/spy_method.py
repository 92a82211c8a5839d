"""A method that watches the progress of the comparison running it (tests/compare/test_progress.py).

:data:`LOG` is this process's record, in order, of what the comparison's progress callback heard
(``("message", text)``, appended by the test's callback) and of every fit of a spy
(``("fit", label, rows)`` when ``_fit`` starts, ``("end", label)`` when it returns). A spy's fit
reports three steps of its own, ``sleep`` seconds each."""

import time
from functools import partial
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval

from fsengine.base import BaseFeatureSelector
from fsengine.methods.registry import MethodSpec

LOG: list[tuple] = []


class SpySelector(BaseFeatureSelector):
    _parameter_constraints = {"label": [str], "sleep": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, *, label="Spy", sleep=0.0):
        self.label = label
        self.sleep = sleep

    def _fit(self, X, y):
        LOG.append(("fit", self.label, X.shape[0]))
        for k in range(1, 4):
            self._progress((k - 1) / 3, f"step {k} of 3")
            time.sleep(self.sleep)
        self.scores_ = np.asarray(np.abs(X).sum(axis=0), dtype=np.float64).ravel()
        self._rank_and_support(np.ones(X.shape[1], dtype=bool))
        self.trace_ = pd.DataFrame({"step": [1, 2, 3]})
        LOG.append(("end", self.label))


def spy(label: str, sleep: float = 0.0) -> MethodSpec:
    """A method spec whose selector is a spy named ``label``."""
    return MethodSpec(label.lower().replace(" ", "_"), label, "a spy", partial(SpySelector, label=label, sleep=sleep))
