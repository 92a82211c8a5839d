"""Run the BIA path on a :class:`~fsengine.data.Dataset` (shared by the page and the reproduction).

Constant features cannot be standardised. They raise an error naming them unless the caller
excludes them explicitly (``exclude_constant=True``); excluded features are listed in the result
and carry NaN posteriors in :meth:`BIAPathResult.full_scores`, never a silent 0.5 or 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsengine.data import Dataset
from fsengine.methods.bia.model import DEFAULT_MAX_MEMORY_MB, DEFAULT_STEP, DEFAULT_STEPS
from fsengine.methods.bia.selector import BIASelector
from fsengine.validation import constant_columns

#: a path step whose magnetizations (m in [-1, 1]) miss the mean-field equations by more than
#: this is not converged (on the converged part of the paper's paths the residual stays below 0.04)
RESIDUAL_TOL = 0.1


@dataclass
class BIAPathResult:
    """The fitted path of one dataset; ``path`` columns are the analysed features only."""

    path: pd.DataFrame
    trace: pd.DataFrame
    features: np.ndarray
    excluded: np.ndarray
    n_features_total: int
    lambda_star: float
    rms_correlation: float
    n_samples: int
    family: str

    def scores_at(self, position: int) -> np.ndarray:
        """Posteriors of the analysed features at path row ``position``."""
        return self.path.iloc[position].to_numpy()

    def full_scores(self, position: int) -> np.ndarray:
        """Posteriors of all original features at path row ``position`` (NaN where excluded)."""
        out = np.full(self.n_features_total, np.nan)
        out[self.features] = self.scores_at(position)
        return out

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

    def slider_ratios(self, n: int = 60) -> list[float]:
        """About ``n`` path values of Lambda/Lambda*, evenly spaced on a log scale, ascending, with
        1.0 included when it lies on the path (the path itself is linear in eps = 1/Lambda)."""
        grid = self.path.index.to_numpy()
        targets = np.geomspace(grid.min(), grid.max(), n)
        picks = {self.nearest_position(t) for t in targets} | {self.nearest_position(1.0)}
        return sorted(float(grid[i]) for i in picks)

    def nearest_position(self, lambda_ratio: float) -> int:
        """Row of the path closest to ``lambda_ratio`` on a log scale."""
        return int(np.argmin(np.abs(np.log(self.path.index.to_numpy() / lambda_ratio))))


def run_bia_path(ds: Dataset, family: str = "logistic", *, n_steps: int = DEFAULT_STEPS,
                 step: float = DEFAULT_STEP, exclude_constant: bool = False,
                 max_memory_mb: float = DEFAULT_MAX_MEMORY_MB) -> BIAPathResult:
    """Fit :class:`BIASelector` on ``ds`` and keep its path (posteriors vs Lambda/Lambda*)."""
    constant = constant_columns(ds.X) if exclude_constant else np.array([], dtype=np.intp)
    keep = np.setdiff1d(np.arange(ds.n_features), constant)
    if keep.size == 0:
        raise ValueError("Every feature is constant; there is nothing to select.")
    X = ds.X[:, keep] if constant.size else ds.X
    names = [ds.feature_names[j] for j in keep]
    sel = BIASelector(family=family, n_steps=n_steps, step=step, max_memory_mb=max_memory_mb)
    sel.fit(pd.DataFrame(X, columns=names) if not ds.is_sparse else X, ds.y)
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
