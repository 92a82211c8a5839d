"""The BIA path of a :class:`~fsengine.data.Dataset`, and what the page and the reproduction say
about it (shared by ``app/views/bia.py`` and ``reproduce/bia.py``).

:func:`run_bia_path` fits :class:`~fsengine.methods.bia.selector.BIASelector` and keeps its path
in a :class:`BIAPathResult`. A place on the path is a :class:`~fsengine.position.Position` (row
index and Lambda/Lambda* together): :meth:`BIAPathResult.position` makes one from a slider's
value, and every table, figure and caption takes that object.

Constant features cannot be standardised. They raise an error naming them unless the caller
excludes them explicitly (``exclude_constant=True``); excluded features are listed in the result
and carry NaN posteriors in :meth:`BIAPathResult.full_scores`, never a silent 0.5 or 0.

The captions are computed here from the numbers they state (:func:`paths_caption`,
:func:`pixels_caption`, :meth:`ScreeningComparison.caption`), so the page only shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsengine import ranking
from fsengine.data import Dataset
from fsengine.methods.bia import baselines
from fsengine.methods.bia.model import DEFAULT_MAX_MEMORY_MB, DEFAULT_STEP, DEFAULT_STEPS
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.bia.validation import pick_features
from fsengine.position import Position, nearest_index
from fsengine.progress import Progress
from fsengine.validation import constant_columns

#: a path step whose magnetizations (m in [-1, 1]) miss the mean-field equations by more than
#: this is not converged (on the converged part of the paper's paths the residual stays below 0.04)
RESIDUAL_TOL = 0.1
#: largest n x p for which correlation screening is compared (it needs a dense copy of X)
MAX_SCREENING_CELLS = 20_000_000
#: the exact check may draw its features from this many highest posteriors at Lambda*
CHECK_POOL = 40


@dataclass
class BIAPathResult:
    """The fitted path of one dataset; ``path`` columns are the analysed features only
    (``features``: their columns in the dataset; ``excluded``: the constant ones left out)."""

    path: pd.DataFrame
    trace: pd.DataFrame
    features: np.ndarray
    excluded: np.ndarray
    n_features_total: int
    lambda_star: float
    rms_correlation: float
    n_samples: int
    family: str

    def position(self, lambda_ratio: float) -> Position:
        """The path row nearest ``lambda_ratio`` (on a log scale) and its Lambda/Lambda*."""
        return Position.nearest(self.path.index, lambda_ratio)

    def scores_at(self, position: Position) -> np.ndarray:
        """Posteriors of the analysed features at ``position``."""
        return self.path.iloc[position.row_of(self.path.index)].to_numpy()

    def full_scores(self, position: Position) -> np.ndarray:
        """Posteriors of all original features at ``position`` (NaN where excluded)."""
        out = np.full(self.n_features_total, np.nan)
        out[self.features] = self.scores_at(position)
        return out

    def full_path(self) -> pd.DataFrame:
        """The path over all original features (columns ``0..p-1``; NaN where excluded)."""
        out = np.full((len(self.path), self.n_features_total), np.nan)
        out[:, self.features] = self.path.to_numpy()
        return pd.DataFrame(out, index=self.path.index, columns=range(self.n_features_total))

    def top_features(self, position: Position, k: int) -> np.ndarray:
        """Dataset columns of the ``k`` highest posteriors at ``position``, best first."""
        return self.features[ranking.top_k(self.scores_at(position), k)]

    @property
    def converged(self) -> np.ndarray:
        """Per path row: False from the first step (largest Lambda first) whose fixed-point residual
        exceeds :data:`RESIDUAL_TOL` on, down to the smallest Lambda: there the recursion oscillates
        and the posteriors are not a solution of the mean-field equations."""
        jumps = self.trace["fixed_point_residual"].to_numpy() > RESIDUAL_TOL
        ratios = self.trace["lambda_ratio"].to_numpy()
        if not jumps.any():
            return np.ones(ratios.size, dtype=bool)
        return ratios > ratios[jumps].max()

    @property
    def convergence_limit(self) -> float | None:
        """The largest Lambda/Lambda* at which the mean field has not converged (None: converged
        on the whole path)."""
        ok = self.converged
        return None if ok.all() else float(self.path.index.to_numpy()[~ok].max())

    def slider_positions(self, n: int = 60) -> list[Position]:
        """About ``n`` path positions evenly spaced on a log scale, by ascending Lambda/Lambda*, with
        the one nearest 1.0 included (the path itself is linear in eps = 1/Lambda)."""
        grid = self.path.index.to_numpy()
        targets = np.geomspace(grid.min(), grid.max(), n)
        rows = {nearest_index(grid, t) for t in targets} | {nearest_index(grid, 1.0)}
        return sorted((Position.at(grid, i) for i in rows), key=lambda pos: pos.value)

    def slider_ratios(self, n: int = 60) -> list[float]:
        """The Lambda/Lambda* values of :meth:`slider_positions` (a slider's options)."""
        return [pos.value for pos in self.slider_positions(n)]


def run_bia_path(ds: Dataset, family: str = "logistic", *, n_steps: int = DEFAULT_STEPS,
                 step: float = DEFAULT_STEP, exclude_constant: bool = False,
                 max_memory_mb: float = DEFAULT_MAX_MEMORY_MB, progress: Progress | None = None) -> BIAPathResult:
    """Fit :class:`BIASelector` on ``ds`` and keep its path (posteriors vs Lambda/Lambda*);
    ``progress(fraction, message)`` follows the fit."""
    constant = constant_columns(ds.X) if exclude_constant else np.array([], dtype=np.intp)
    keep = np.setdiff1d(np.arange(ds.n_features), constant)
    if keep.size == 0:
        raise ValueError("Every feature is constant; there is nothing to select.")
    X = ds.X[:, keep] if constant.size else ds.X
    names = [ds.feature_names[j] for j in keep]
    sel = BIASelector(family=family, n_steps=n_steps, step=step, max_memory_mb=max_memory_mb)
    sel.fit(pd.DataFrame(X, columns=names) if not ds.is_sparse else X, ds.y, progress=progress)
    path = sel.path_
    if ds.is_sparse:
        path.columns = names
    return BIAPathResult(path=path, trace=sel.trace_, features=keep, excluded=constant,
                         n_features_total=ds.n_features, lambda_star=sel.lambda_star_,
                         rms_correlation=sel.rms_correlation_, n_samples=ds.n_samples, family=family)


def sample_rows(y, per_class: int = 3, seed: int = 0) -> np.ndarray:
    """``per_class`` random row indices of each class (class order as in ``np.unique``)."""
    rng = np.random.default_rng(seed)
    rows = [np.sort(rng.choice(np.flatnonzero(y == c), size=min(per_class, int(np.sum(y == c))),
                               replace=False)) for c in np.unique(y)]
    return np.concatenate(rows)


def sample_images(ds: Dataset, per_class: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Fig. 2C's sample images: ``(images (k, p) dense, labels (k,), class names)``, ``per_class``
    rows of each class drawn by :func:`sample_rows`."""
    rows = sample_rows(ds.y, per_class=per_class, seed=seed)
    images = ds.X[rows].toarray() if ds.is_sparse else ds.X[rows]
    return images, ds.y[rows], ds.target_names or [str(c) for c in np.unique(ds.y)]


def constant_features(ds: Dataset, shown: int = 15) -> tuple[int, str]:
    """How many features of ``ds`` are constant, and the names of the first ``shown`` of them
    (``"a, b, c ..."``)."""
    constant = constant_columns(ds.X)
    names = ", ".join(ds.feature_names[j] for j in constant[:shown]) + (" ..." if constant.size > shown else "")
    return int(constant.size), names


def check_features(ds: Dataset, result: BIAPathResult, n_features: int, seed: int, *,
                   from_top: bool) -> tuple[int, ...]:
    """The exact check's features: ``n_features`` drawn (``seed``) from every analysed feature, or
    from the :data:`CHECK_POOL` highest posteriors at Lambda* when ``from_top``."""
    pool = result.top_features(result.position(1.0), CHECK_POOL) if from_top else result.features
    return tuple(int(j) for j in pick_features(ds.X, min(n_features, pool.size), seed, candidates=pool))


# --- what the page says -------------------------------------------------------------------------

def ratio_labels(ratios) -> dict[float, str]:
    """Slider labels (and URL values) for the ratios: 3 significant digits, more where needed to
    keep every label distinct.

    >>> ratio_labels([1.0, 1.0005, 20.0])
    {1.0: '1', 1.0005: '1.0005', 20.0: '20'}
    """
    for digits in range(3, 10):
        labels = {r: f"{r:.{digits}g}" for r in ratios}
        if len(set(labels.values())) == len(labels):
            return labels
    return {r: repr(r) for r in ratios}


def value_spread(low: float, high: float) -> str:
    """``'0.498 to 0.503'``: as many decimals as it takes for the two ends to differ (2 to 4).

    >>> value_spread(0.4981, 0.5032), value_spread(0.2, 0.7)
    ('0.498 to 0.503', '0.20 to 0.70')
    """
    for digits in (2, 3, 4):
        if f"{low:.{digits}f}" != f"{high:.{digits}f}":
            break
    return f"{low:.{digits}f} to {high:.{digits}f}"


def paths_caption(result: BIAPathResult, quantity: str, family: str) -> str:
    """What the path figure shows, from its numbers: the spread at the largest Lambda and where
    the mean field stops converging."""
    x = result.path.index.to_numpy()
    first = result.path.iloc[int(np.argmax(x))].to_numpy()
    if quantity == "magnetization":
        first, neutral = 2 * first - 1, "0"
    else:
        neutral = "½"
    text = (f"What to look for: at the largest Λ/Λ* = {x.max():.3g} the prior dominates and every "
            f"{quantity} lies within {value_spread(first.min(), first.max())} (the prior alone gives {neutral}); "
            "as Λ decreases the informative features rise first (red lines: the top features at Λ*, red dots: "
            "those at the slider's Λ/Λ*; "
            "grey band: where the other features lie). In the orange region (Λ < Λ*) the expansion behind "
            "the Ising model no longer converges.")
    limit = result.convergence_limit
    if limit is not None:
        text += (f" Below Λ/Λ* = {limit:.3g} the mean-field recursion itself does not converge (the "
                 "magnetizations flip between two states from one step to the next); those steps are not drawn.")
    if family == "poisson":
        text += " For the Poisson family the breakdown begins near mean(y)·Λ* when mean(y) > 1."
    return text


def discriminative_features(ds: Dataset) -> np.ndarray:
    """Bool per feature: the quarter of features whose two class means differ most; ``ds`` has two
    classes."""
    X = ds.dense_X()
    classes = np.unique(ds.y)
    diff = np.abs(X[ds.y == classes[0]].mean(axis=0) - X[ds.y == classes[1]].mean(axis=0))
    return diff >= np.quantile(diff, 0.75)


def discriminative_share(ds: Dataset, top) -> float:
    """Share of the features ``top`` among the quarter of features whose two class means differ
    most (chance: 0.25); ``ds`` has two classes."""
    top = np.asarray(top, dtype=np.intp)
    return float(discriminative_features(ds)[top].mean()) if top.size else 0.0


def two_class_names(ds: Dataset) -> list[str] | None:
    """The names of the two classes of ``ds`` (None unless it has exactly two)."""
    classes = np.unique(ds.y)
    if ds.task != "classification" or classes.size != 2:
        return None
    return list(ds.target_names or [str(c) for c in classes])


def pixels_caption(ds: Dataset, top, position: Position) -> str | None:
    """Where the top pixels at ``position`` lie, measured by :func:`discriminative_share` (None
    unless ``ds`` has exactly two classes)."""
    classes = np.unique(ds.y)
    if ds.task != "classification" or classes.size != 2:
        return None
    share = discriminative_share(ds, top)
    names = ds.target_names or [str(c) for c in classes]
    return (f"Red squares mark the top {len(top)} pixels at Λ/Λ* = {position.value:.3g}: {share:.0%} of them lie in "
            f"the quarter of pixels where the mean images of {names[0]} and {names[1]} differ most (chance: 25%).")


# --- the BIA against correlation screening --------------------------------------------------------

@dataclass
class ScreeningComparison:
    """The BIA's top ``top_k`` against correlation screening along the path
    (:func:`fsengine.methods.bia.baselines.path_agreement`), and its row nearest Lambda*."""

    agreement: pd.DataFrame
    departure: float | None
    top_k: int
    overlap_at_star: float
    spearman_at_star: float

    def caption(self) -> str:
        """The comparison in words."""
        k = self.top_k
        return (f"Here: at Λ = Λ* the BIA's top {k} shares **{self.overlap_at_star:.0%}** of its features with "
                f"the top {k} by |corr(x, y)| (Spearman {self.spearman_at_star:.4f} between posteriors and b²). "
                + (f"The two first differ at Λ/Λ* = **{self.departure:.3g}**" if self.departure is not None else
                   "They never differ on this path")
                + ": above that the BIA adds nothing to screening; below it the couplings decide. "
                "The recorded notMNIST report (`reproduce bia-notmnist`) also compares the L1 entry order and "
                "logistic |coef| and their top-k accuracy.")


def screening_skipped(result: BIAPathResult) -> str | None:
    """Why the screening comparison is skipped (a dense copy of X above :data:`MAX_SCREENING_CELLS`
    cells), or None when it runs."""
    n, p = result.n_samples, int(result.features.size)
    if n * p <= MAX_SCREENING_CELLS:
        return None
    return f"Skipped for {n:,} x {p:,} features (more than {MAX_SCREENING_CELLS:,} cells)."


def screening_comparison(ds: Dataset, result: BIAPathResult, top_k: int, n_positions: int = 25) -> ScreeningComparison:
    """The BIA's top ``top_k`` against the top ``top_k`` by |corr(x, y)| at ``n_positions`` path
    positions (:meth:`BIAPathResult.slider_positions`)."""
    X = ds.X[:, result.features]
    X = X.toarray() if hasattr(X, "toarray") else X
    screening = baselines.correlation_scores(X, ds.y)
    agreement = baselines.path_agreement(result.path, {baselines.SCREENING: screening}, top_k,
                                         result.slider_ratios(n_positions))
    star = agreement.iloc[nearest_index(agreement.lambda_ratio, 1.0)]
    return ScreeningComparison(agreement=agreement, departure=baselines.departure_ratio(agreement), top_k=top_k,
                               overlap_at_star=float(star[f"overlap with {baselines.SCREENING}"]),
                               spearman_at_star=float(star["Spearman with screening"]))
