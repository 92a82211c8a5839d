"""Model state of the conditional maxent core: Goodman's un-normalised ``sum[i, y]`` and ``z[i]``.

:class:`MaxentState` is what incremental selection (IFS/SGC, Zhou et al. Fig. 1-2) and Bayes-factor
selection (Daume III Fig. 1) manipulate: evaluate candidate gains, add a feature (touching only the
instances where its predicate fires), read per-instance probabilities, export a
:class:`~fsengine.maxent.model.MaxentModel`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine.maxent import kernels
from fsengine.maxent.data import MaxentData
from fsengine.maxent.model import MaxentModel


@dataclass(frozen=True)
class GainResult:
    """Per candidate: optimal ``alpha``, ``gain`` h(alpha) (total log-likelihood scale, prior
    included when a precision was given), ``curvature`` -h''(alpha) (Daume's a_g + precision),
    and ``passes``, the total number of passes over candidate columns (cost accounting)."""

    alpha: np.ndarray
    gain: np.ndarray
    curvature: np.ndarray
    passes: int


def _as_index(a, n, what) -> np.ndarray:
    a = np.atleast_1d(np.asarray(a)).astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= n):
        raise ValueError(f"{what} index out of range 0..{n - 1}")
    return a


def _broadcast(value, size, what) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(value, dtype=np.float64), (size,)).copy()
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be finite")
    return arr


class MaxentState:
    """Current model p(y | x_i) = sum[i, y] / z[i] on the training instances, plus its weights.

    Create with :meth:`uniform` (no features: sum = 1, z = Y, the start of Fig. 1) or
    :meth:`from_weights` (e.g. after a MAP fit, for warm re-scoring). ``sum`` is stored
    column-major so gathering one class over a predicate's instances reads contiguous memory.
    """

    def __init__(self, data: MaxentData, sums: np.ndarray, z: np.ndarray,
                 features: dict[tuple[int, int], float]):
        self.data = data
        self.sum = sums
        self.z = z
        self._weights = features

    @classmethod
    def uniform(cls, data: MaxentData) -> MaxentState:
        sums = np.ones((data.n, data.n_classes), order="F")
        return cls(data, sums, np.full(data.n, float(data.n_classes)), {})

    @classmethod
    def from_weights(cls, data: MaxentData, predicates, classes, weights) -> MaxentState:
        model = MaxentModel(data.n_predicates, data.n_classes, predicates, classes, weights)
        proba = model.predict_proba(data.X)
        return cls(data, np.asfortranarray(proba), np.ones(data.n),
                   dict(zip(zip(model.predicates.tolist(), model.classes.tolist()),
                            model.weights.tolist())))

    def copy(self) -> MaxentState:
        return MaxentState(self.data, self.sum.copy(order="F"), self.z.copy(), dict(self._weights))

    # ----------------------------------------------------------------- reading the model
    def proba(self) -> np.ndarray:
        """(n, Y) array of p(y | x_i) on the training instances."""
        return self.sum / self.z[:, None]

    def log_likelihood(self) -> float:
        """sum_i log p(y_i | x_i) on the training data."""
        d = self.data
        return float(np.sum(np.log(self.sum[np.arange(d.n), d.y] / self.z)))

    def predict(self) -> np.ndarray:
        """Most probable class index per training instance (ties: lowest class index)."""
        return np.argmax(self.sum, axis=1)

    @property
    def n_features(self) -> int:
        return len(self._weights)

    def model(self) -> MaxentModel:
        """The active features and weights as a :class:`MaxentModel` (for new data)."""
        keys = list(self._weights)
        return MaxentModel(self.data.n_predicates, self.data.n_classes,
                           [k[0] for k in keys], [k[1] for k in keys],
                           [self._weights[k] for k in keys])

    # ----------------------------------------------------------------- gains
    def _candidates(self, predicates, classes):
        d = self.data
        pred = _as_index(predicates, d.n_predicates, "predicate")
        cls = _as_index(classes, d.n_classes, "class")
        if pred.shape != cls.shape:
            raise ValueError("predicates and classes must have the same length")
        counts = d.feature_sums()[pred, cls]
        return pred, cls, counts

    def gains(self, predicates, classes, *, prior_precision=0.0, alpha0=0.0,
              cap: float = kernels.ALPHA_CAP, tol: float = 1e-10, max_iter: int = 60) -> GainResult:
        """Optimal single weight and gain of adding each (predicate, class) pair, others fixed.

        Maximises Eq. (1) of :mod:`fsengine.maxent.kernels` (Zhou et al. G(alpha) times N, with an
        optional Gaussian prior of precision ``prior_precision`` on the new weight) by bracketed
        Newton on |alpha| <= ``cap``, starting from ``alpha0`` (warm starts save passes).
        For a pair already in the model the result is the gain of *changing* its weight by alpha.
        """
        pred, cls, counts = self._candidates(predicates, classes)
        m = pred.size
        prec = _broadcast(prior_precision, m, "prior_precision")
        if np.any(prec < 0):
            raise ValueError("prior_precision must be non-negative")
        a0 = _broadcast(alpha0, m, "alpha0")
        out_alpha, out_gain, out_curv = np.empty(m), np.empty(m), np.empty(m)
        d = self.data
        passes = kernels.gains_kernel(pred, cls, counts, a0, prec, d.col_ptr, d.col_rows, d.col_vals,
                                      self.sum, self.z, d.binary, float(cap), float(tol),
                                      int(max_iter), out_alpha, out_gain, out_curv)
        return GainResult(out_alpha, out_gain, out_curv, int(passes))

    def gain_at(self, predicates, classes, alpha, *, prior_precision=0.0) -> np.ndarray:
        """h(alpha) of Eq. (1) at the given alphas (no optimisation)."""
        pred, cls, counts = self._candidates(predicates, classes)
        out = np.empty(pred.size)
        d = self.data
        kernels.gain_at_kernel(pred, cls, counts, _broadcast(alpha, pred.size, "alpha"),
                               _broadcast(prior_precision, pred.size, "prior_precision"),
                               d.col_ptr, d.col_rows, d.col_vals, self.sum, self.z, d.binary, out)
        return out

    def evaluate_at(self, predicates, classes, alpha, *, prior_precision=0.0) -> GainResult:
        """h(alpha) of Eq. (1) and the curvature -h''(alpha) at *given* alphas (no optimisation).

        The curvature is Daume III's a_g (Eq. 11) plus ``prior_precision``; with the candidates'
        optimal alphas from :meth:`gains` on another state it gives Eq. (14)'s re-scoring of a
        candidate after other features were added.
        """
        pred, cls, _ = self._candidates(predicates, classes)
        a = _broadcast(alpha, pred.size, "alpha")
        cap = max(kernels.ALPHA_CAP, float(np.max(np.abs(a))) if a.size else 0.0)
        # zero Newton iterations: the kernel returns h and -h'' at the (uncapped) starting point
        return self.gains(pred, cls, prior_precision=prior_precision, alpha0=a, cap=cap,
                          max_iter=0)

    # ----------------------------------------------------------------- changing the model
    def add(self, predicate: int, klass: int, alpha: float) -> None:
        """Add feature (predicate, class) with weight alpha (or grow its weight by alpha): Fig. 1
        step 4, touching only the instances where the predicate fires."""
        d = self.data
        j = int(_as_index(predicate, d.n_predicates, "predicate")[0])
        c = int(_as_index(klass, d.n_classes, "class")[0])
        if not np.isfinite(alpha):
            raise ValueError(f"alpha must be finite, got {alpha}")
        kernels.apply_feature(j, c, float(alpha), d.col_ptr, d.col_rows, d.col_vals, self.sum, self.z)
        self._weights[(j, c)] = self._weights.get((j, c), 0.0) + float(alpha)
