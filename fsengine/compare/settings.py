"""Settings of a comparison (:mod:`fsengine.compare.runner`), kept apart from the runner so that the
command line can show their defaults without importing it."""

from __future__ import annotations

from dataclasses import dataclass

#: the most repeated splits a comparison accepts (each costs one more fit of every method)
MAX_REPEATS = 50
#: the most bootstrap resamples (each refits every method; their row indices are drawn at once)
MAX_BOOTSTRAP = 1000
#: seeds are numpy/scikit-learn seeds: 0 .. 2**32 - 1
MAX_SEED = 2**32 - 1


@dataclass(frozen=True)
class CompareSettings:
    """test_size: held-out share; n_bootstrap: resamples for stability (0: none, else >= 2);
    max_k: largest k of the accuracy grid and of the top-k sets kept; seed: split, resamples and
    random baseline; classes: an optional class pair (display names); n_repeats: train/test
    splits the held-out accuracy is measured on. With 1 (the default) its intervals come from a
    bootstrap over the held-out rows (the training rows stay fixed); with 2 or more every method
    is also fitted on each further split (seeds ``seed + 1, ...``) and the intervals are
    corrected resampled t intervals over the splits, which include the training-split variability
    (at n_repeats times the fits of the accuracy curves). warm_start: a method that can
    (:mod:`fsengine.warm_start`, the RTM without ARD) fits its bootstrap resamples and its
    further splits' training parts from its fit on the first training part, in fewer
    iterations; each such fit stops by the method's own rule, as far from its fixed point as a
    cold fit does, but from the full fit's side, so top-k sets at a near-tie and the stability
    built on them can differ from cold fits' (benchmarks/RESULTS.md, RTM). False: every fit from
    scratch, as before issue 32 (the toolbox reproduction's protocol).

    Examples
    --------
    >>> from fsengine.compare import CompareSettings
    >>> settings = CompareSettings(max_k=20, n_bootstrap=10, n_repeats=3)
    >>> settings.test_size, settings.seed
    (0.25, 0)
    >>> CompareSettings(n_bootstrap=1)
    Traceback (most recent call last):
    ...
    ValueError: n_bootstrap=1: stability needs 0 (off) or at least 2 resamples (at most 1,000)
    """

    test_size: float = 0.25
    n_bootstrap: int = 5
    max_k: int = 50
    seed: int = 0
    classes: tuple[str, str] | None = None
    n_repeats: int = 1
    warm_start: bool = True

    def __post_init__(self):
        if not 0.05 <= self.test_size <= 0.8:
            raise ValueError(f"test_size={self.test_size}: choose a held-out share between 0.05 and 0.8")
        if self.n_bootstrap == 1 or not 0 <= self.n_bootstrap <= MAX_BOOTSTRAP:
            raise ValueError(f"n_bootstrap={self.n_bootstrap}: stability needs 0 (off) or at least 2 resamples "
                             f"(at most {MAX_BOOTSTRAP:,})")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed={self.seed}: choose a seed between 0 and {MAX_SEED:,}")
        if self.max_k < 1:
            raise ValueError(f"max_k={self.max_k}: must be at least 1")
        if not 1 <= self.n_repeats <= MAX_REPEATS:
            raise ValueError(f"n_repeats={self.n_repeats}: choose 1 (one split, bootstrap over the held-out rows) "
                             f"up to {MAX_REPEATS} repeated splits")
