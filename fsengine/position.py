"""A position on a path grid: the row index and the grid value together, so that a slider's value
reaches every figure and table as one object and is never converted back and forth.

Paths are indexed by a positive parameter (Lambda/Lambda* of the BIA, C of the L1 path, a stage,
a threshold); positions on log-spaced grids are found on a log scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def nearest_index(grid, value: float, *, log: bool = True) -> int:
    """Index of the grid value nearest to ``value`` (on a log scale when ``log``; ties: first).

    >>> nearest_index([10.0, 1.0, 0.1], 0.8)
    1
    """
    grid = np.asarray(grid, dtype=np.float64)
    if grid.size == 0:
        raise ValueError("the grid is empty")
    if log:
        if value <= 0 or np.any(grid <= 0):
            raise ValueError("a log-scale position needs a positive value and a positive grid")
        distance = np.abs(np.log(grid / value))
    else:
        distance = np.abs(grid - value)
    return int(np.argmin(distance))


@dataclass(frozen=True)
class Position:
    """Row ``index`` of a path grid and the grid's ``value`` there.

    Examples
    --------
    >>> Position.nearest([10.0, 1.0, 0.1], 0.8)
    Position(index=1, value=1.0)
    """

    index: int
    value: float

    @classmethod
    def nearest(cls, grid, value: float, *, log: bool = True) -> Position:
        """The grid position nearest to ``value`` (see :func:`nearest_index`)."""
        i = nearest_index(grid, value, log=log)
        return cls(i, float(np.asarray(grid, dtype=np.float64)[i]))

    def row_of(self, grid) -> int:
        """``index``, checked to be the row of ``grid`` whose value is ``value`` (a position made
        on another grid is a ValueError, never a silently wrong row).

        >>> Position(1, 1.0).row_of([10.0, 1.0, 0.1])
        1
        """
        grid = np.asarray(grid, dtype=np.float64)
        if not 0 <= self.index < grid.size or grid[self.index] != self.value:
            raise ValueError(f"{self} is not a position on this grid; make it with Position.nearest(grid, value)")
        return self.index

    @classmethod
    def at(cls, grid, index: int) -> Position:
        """The position of row ``index`` of ``grid``."""
        return cls(int(index), float(np.asarray(grid, dtype=np.float64)[index]))
