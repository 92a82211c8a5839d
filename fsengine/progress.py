"""The one progress protocol of the engine, and the bars that draw it.

Every long computation (a selector's ``fit(X, y, progress=...)``, a core loop, a study, a
comparison, a reproduction) reports through one callable::

    progress(fraction: float, message: str) -> None

``fraction`` runs from 0 to 1 (it may repeat a value or, when a stage restarts, step back);
``message`` says what is being done, in words (``"MDL: 3 of 30 features"``).

Stopping early
--------------
A callback asks the computation to stop by raising :class:`StopRequested`. Greedy loops whose
partial result is a valid answer (IFS, SGC, count cutoff, the Bayes-factor rounds, MDL forward
selection, boosting rounds) catch it, keep what they have selected so far and record
``stop_reason_ = "stop requested"``; everything else lets it propagate, so the fit ends without a
result (the estimator stays unfitted). Any other exception raised by a callback (Ctrl-C, the
Streamlit stop button) always propagates.

The bars
--------
:class:`TerminalProgress` (the command line, stderr), :class:`TqdmProgress` (notebooks) and the
app's ``fsengine.app.compute.progress_bar`` all implement the same callable.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

#: the callable every long computation reports through: ``progress(fraction, message)``
Progress = Callable[[float, str], None]


class StopRequested(Exception):
    """Raised by a progress callback to stop the computation that calls it (see the module).

    Examples
    --------
    A progress callback that stops a greedy selection after its third feature; the selector keeps
    the valid partial result and says why it stopped:

    >>> import numpy as np
    >>> from fsengine.selectors import MRMRSelector, StopRequested
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(200, 8)), rng.integers(0, 2, 200)
    >>> def stop_after_three(fraction, message):
    ...     if "selected, 3 of" in message:
    ...         raise StopRequested
    >>> sel = MRMRSelector(max_features=6).fit(X, y, progress=stop_after_three)
    >>> sel.stop_reason_
    'stop requested'
    """


def silent(fraction: float, message: str = "") -> None:
    """The callback that reports nowhere (the default of core loops)."""


def report_to(progress: Progress | None) -> Progress:
    """``progress`` itself, or :func:`silent` when it is None (so loops call it unconditionally)."""
    return silent if progress is None else progress


def scaled(progress: Progress | None, start: float, end: float, prefix: str = "") -> Progress:
    """A callback for one stage that occupies ``[start, end]`` of ``progress``: its fraction 0..1
    is mapped there, and ``prefix`` is put before its messages.

    >>> seen = []
    >>> scaled(lambda f, m: seen.append((round(f, 2), m)), 0.5, 1.0, "fold 2: ")(0.5, "sweep 3")
    >>> seen
    [(0.75, 'fold 2: sweep 3')]
    """
    report = report_to(progress)

    def stage(fraction: float, message: str = "") -> None:
        report(start + (end - start) * min(max(float(fraction), 0.0), 1.0), prefix + message)

    return stage


class TerminalProgress:
    """A dependency-free progress bar on stderr for the command line: ``(fraction, message)``
    redraws one line; when stderr is not a terminal, one line every 10%."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label, self.stream, self.width = label, stream or sys.stderr, width
        self._last_decile = -1
        self._start = time.perf_counter()

    def __call__(self, fraction: float, message: str = "") -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        elapsed = time.perf_counter() - self._start
        filled = int(round(fraction * self.width))
        line = f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {elapsed:6.1f}s {message}"
        if self.stream.isatty():
            self.stream.write("\r" + line[:150].ljust(150))
            self.stream.flush()
        elif int(fraction * 10) != self._last_decile:
            self._last_decile = int(fraction * 10)
            self.stream.write(line + "\n")

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc) -> bool:
        if self.stream.isatty():
            self.stream.write("\n")
        return False


#: tqdm bar resolution: a fraction is shown in steps of 1/STEPS
STEPS = 1000


class TqdmProgress:
    """A ``tqdm.auto`` bar for notebooks (a text bar elsewhere); a context manager that closes it::

        with TqdmProgress("MDL") as report:
            MDLSelector().fit(X, y, progress=report)

    Fractions outside [0, 1] are clipped; a fraction below the current one moves the bar back
    (a restarted stage must not freeze the bar).

    Examples
    --------
    >>> import numpy as np
    >>> from fsengine.selectors import MutualInfoSelector, TqdmProgress
    >>> X, y = np.random.default_rng(0).integers(0, 2, (100, 5)), np.arange(100) % 2
    >>> with TqdmProgress("MI", disable=True) as report:     # disable: no bar in this example's output
    ...     sel = MutualInfoSelector().fit(X, y, progress=report)
    >>> sel.scores_.shape
    (5,)
    """

    def __init__(self, desc: str = "", **tqdm_kwargs):
        try:
            from tqdm.auto import tqdm
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ImportError("TqdmProgress needs tqdm: pip install 'fsengine[notebooks]'") from exc
        options = dict(total=STEPS, desc=desc,
                       bar_format="{desc} {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}")
        options.update(tqdm_kwargs)
        self.bar = tqdm(**options)

    def __call__(self, fraction: float, message: str = "") -> None:
        target = int(round(min(max(float(fraction), 0.0), 1.0) * self.bar.total))
        if message:
            self.bar.set_postfix_str(message, refresh=False)
        if target >= self.bar.n:
            self.bar.update(target - self.bar.n)
        else:
            self.bar.n = target
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> TqdmProgress:
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False
