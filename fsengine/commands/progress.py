"""A dependency-free terminal progress bar for long command-line runs (writes to stderr)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """``update(fraction, message)`` redraws one line; silent when stderr is not a terminal except
    for a line every 10%."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label, self.stream, self.width = label, stream or sys.stderr, width
        self._last_decile = -1
        self._start = time.perf_counter()

    def update(self, fraction: float, message: str = "") -> None:
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.stream.isatty():
            self.stream.write("\n")
        return False
