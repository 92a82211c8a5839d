"""Settings of a comparison (:mod:`fsengine.compare.engine`), kept apart from the engine so that the
command line can show their defaults without importing it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompareSettings:
    """test_size: held-out share; n_bootstrap: resamples for stability (0: none, else >= 2);
    max_k: largest k of the accuracy grid and of the top-k sets kept; seed: split, resamples and
    random baseline; classes: an optional class pair (display names)."""

    test_size: float = 0.25
    n_bootstrap: int = 5
    max_k: int = 50
    seed: int = 0
    classes: tuple[str, str] | None = None

    def __post_init__(self):
        if not 0.05 <= self.test_size <= 0.8:
            raise ValueError(f"test_size={self.test_size}: choose a held-out share between 0.05 and 0.8")
        if self.n_bootstrap == 1 or self.n_bootstrap < 0:
            raise ValueError(f"n_bootstrap={self.n_bootstrap}: stability needs 0 (off) or at least 2 resamples")
        if self.max_k < 1:
            raise ValueError(f"max_k={self.max_k}: must be at least 1")
