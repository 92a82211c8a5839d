"""The one progress protocol of the engine, and the bars that draw it.

Every long computation (a selector's ``fit(X, y, progress=...)``, a core loop, a study, a
comparison, a reproduction) reports through one callable::

    progress(fraction: float, message: str) -> None

``fraction`` runs from 0 to 1 (it may repeat a value or, when a stage restarts, step back);
``message`` says what is being done, in words (``"3 of 30 features"``).

Who says what
-------------
A selector reports in its own words and never names itself (``"Power EP sweep 120 of at most 300"``,
``"feature 400 of 784"``): whoever runs it puts the method's label and the fit in front.
``fsengine select`` writes ``"MDL: 3 of 30 features"``; a comparison or a benchmark runs every fit
as a named task of :func:`fsengine.parallel.map_tasks`, which announces the task when it starts
(``"RTM: bootstrap fit 3 of 5"``) and passes the selector's reports on behind its name
(``"RTM: bootstrap fit 3 of 5, Power EP sweep 120 of at most 300"``), from worker processes too
(:mod:`fsengine.task_progress`). A selector reports often enough that the bar moves at least
every second or two of work on the catalogue's larger datasets: once per round, sweep, tree,
resample, path point or block of candidates, whichever comes first (CONTRIBUTING.md, "Progress").

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


#: seconds after which a captured (non-terminal) bar writes its current state again
HEARTBEAT = 5.0
#: seconds a message must stand on a captured bar to be written when the next one replaces it
STOOD = 1.0


def subject(message: str) -> str:
    """What a message is about: the part before its first ``": "`` (the method's label in
    ``"RTM: bootstrap fit 3 of 5, Power EP sweep 120"``), else the whole message."""
    return message.split(": ", 1)[0]


class TerminalProgress:
    """A dependency-free progress bar on stderr for the command line: ``(fraction, message)``
    redraws one line. When stderr is not a terminal (a log), it writes a line when the bar passes
    a tenth, when a message names a new subject (a method's first message, :func:`subject`), when
    a message that stood for :data:`STOOD` seconds or more is replaced (written then, with the time
    it appeared) and at least every :data:`HEARTBEAT` seconds: the log names every method in turn
    and shows every state the bar held for a second or more."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label, self.stream, self.width = label, stream or sys.stderr, width
        self._last_decile = -1
        self._start = time.perf_counter()
        self._subjects: set[str] = set()
        self._last_written = float("-inf")
        self._shown: tuple[float, float, str] | None = None  # (elapsed, fraction, message) not yet written

    def _line(self, elapsed: float, fraction: float, message: str) -> str:
        filled = int(round(fraction * self.width))
        return f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {elapsed:6.1f}s {message}"

    def __call__(self, fraction: float, message: str = "") -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        elapsed = time.perf_counter() - self._start
        if self.stream.isatty():
            self.stream.write("\r" + self._line(elapsed, fraction, message)[:150].ljust(150))
            self.stream.flush()
            return
        if self._shown is not None and elapsed - self._shown[0] >= STOOD:
            self._write(*self._shown)
        new_subject = subject(message) not in self._subjects
        self._subjects.add(subject(message))
        self._shown = (elapsed, fraction, message)
        if int(fraction * 10) != self._last_decile or new_subject or elapsed - self._last_written >= HEARTBEAT:
            self._last_decile = int(fraction * 10)
            self._write(elapsed, fraction, message)

    def _write(self, elapsed: float, fraction: float, message: str) -> None:
        self.stream.write(self._line(elapsed, fraction, message) + "\n")
        self.stream.flush()
        self._last_written, self._shown = elapsed, None

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
