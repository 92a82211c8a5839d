"""A ``tqdm.auto`` progress bar for the engine's ``progress(fraction, message)`` callbacks.

Long computations report through a callback (selectors' ``fit(..., progress=)``,
:func:`fsengine.compare.run_comparison`); pages pass a Streamlit bar and the command line its own
(:mod:`fsengine.commands.progress`). In Jupyter, :class:`TqdmProgress` draws the callback as a
notebook bar (a text bar elsewhere)::

    with TqdmProgress("MDL") as report:
        MDLSelector().fit(X, y, progress=report)
"""

from __future__ import annotations

#: bar resolution: a fraction is shown in steps of 1/STEPS
STEPS = 1000


class TqdmProgress:
    """Callable ``(fraction, message)`` that moves a ``tqdm.auto`` bar to ``fraction`` of its
    length and shows ``message`` after it; a context manager that closes the bar.

    Fractions outside [0, 1] are clipped; a fraction below the current one moves the bar back
    (the engine's callbacks only move forward, but a restarted stage must not freeze the bar).
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
