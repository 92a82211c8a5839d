"""MAP training of a conditional maxent model with a Gaussian prior (L-BFGS, numba gradient).

Objective (Daume III Eq. 8-9 without the model prior; Chen & Rosenfeld's Gaussian smoothing):

    J(w) = -sum_i log p_w(y_i | x_i) + sum_k w_k^2 / (2 sigma_k^2)                         (2)

with one prior variance sigma_k^2 per active feature (``np.inf`` = unpenalised, e.g. a bias).
With sigma^2 = C for every (predicate, class) pair on the same data, (2) is scikit-learn's
multinomial ``LogisticRegression(C=C)`` objective times 1/C, which the tests use as reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from fsengine.maxent import kernels
from fsengine.maxent.data import MaxentData
from fsengine.maxent.model import MaxentModel


@dataclass(frozen=True)
class MapFit:
    """Result of :func:`fit_map`: the model, J(w) of Eq. (2), the training log-likelihood,
    L-BFGS iterations and function evaluations, convergence flag and message."""

    model: MaxentModel
    objective: float
    log_likelihood: float
    n_iter: int
    n_evals: int
    converged: bool
    message: str


class MapObjective:
    """J(w) of Eq. (2) and its gradient for a fixed set of active (predicate, class) features.

    The data are restricted to the active predicates' columns once, so each evaluation costs
    O(nnz(X_active) * Y) in :func:`fsengine.maxent.kernels.nll_grad_kernel`.
    """

    def __init__(self, data: MaxentData, predicates, classes, prior_variance=1.0):
        self.data = data
        pred = np.asarray(predicates, dtype=np.int64).ravel()
        cls = np.asarray(classes, dtype=np.int64).ravel()
        MaxentModel(data.n_predicates, data.n_classes, pred, cls, np.zeros(pred.size))  # validates
        self.predicates, self.classes = pred, cls
        var = np.broadcast_to(np.asarray(prior_variance, dtype=np.float64), pred.shape)
        if np.any(np.isnan(var)) or np.any(var <= 0):
            raise ValueError("prior_variance must be positive (np.inf for an unpenalised weight)")
        self.precision = 1.0 / var
        self.active, self.local = np.unique(pred, return_inverse=True)
        Xa = data.X[:, self.active].tocsr()
        Xa.sort_indices()
        self._indptr = Xa.indptr.astype(np.int64)
        self._indices = Xa.indices.astype(np.int64)
        self._data = Xa.data
        self._shape = (self.active.size, data.n_classes)

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        W = np.zeros(self._shape)
        W[self.local, self.classes] = w
        G = np.zeros(self._shape)
        nll = kernels.nll_grad_kernel(self._indptr, self._indices, self._data, W, self.data.y, G)
        value = nll + 0.5 * float(np.sum(self.precision * w * w))
        grad = G[self.local, self.classes] + self.precision * w
        return value, grad

    def hessian(self, w: np.ndarray) -> np.ndarray:
        """Exact (K, K) Hessian of J(w) (Eq. 2): Daume III's A of Eq. (6) for the active features.

        For features k = (j_k, c_k): A_kl = sum_i x_{i j_k} x_{i j_l} p_i(c_k) ([c_k = c_l] - p_i(c_l))
        + [k = l] / sigma_k^2, with p_i = p_w(. | x_i). Dense, for the small models of Laplace
        evidence checks (cost O(nnz(X_active) K + K^2)).
        """
        w = np.asarray(w, dtype=np.float64).ravel()
        if w.shape != self.predicates.shape:
            raise ValueError(f"w has {w.size} values for {self.predicates.size} features")
        model = MaxentModel(self.data.n_predicates, self.data.n_classes, self.predicates,
                            self.classes, w)
        proba = model.predict_proba(self.data.X)
        F = self.data.X[:, self.predicates].tocsc()  # x_{i j_k}, one column per feature
        G = F.multiply(proba[:, self.classes]).tocsc()  # x_{i j_k} p_i(c_k)
        same_class = self.classes[:, None] == self.classes[None, :]
        A = np.where(same_class, (G.T @ F).toarray(), 0.0) - (G.T @ G).toarray()
        A[np.diag_indices_from(A)] += self.precision
        return 0.5 * (A + A.T)


def fit_map(data: MaxentData, predicates, classes, *, prior_variance=1.0, w0=None,
            tol: float = 1e-8, max_iter: int = 1000) -> MapFit:
    """Minimise Eq. (2) over the weights of the given features by L-BFGS (scipy).

    ``prior_variance``: scalar or one value per feature (``np.inf`` = no penalty).
    ``w0``: warm start (e.g. the previous round's weights with zeros for new features).
    ``tol``: L-BFGS gradient tolerance (max |dJ/dw_k|) on the scale of Eq. (2), a *sum* over
    instances; scikit-learn's ``tol`` applies to its objective, the mean loss plus
    ||w||^2 / (2 C n), which is Eq. (2) / n for C = the prior variance, i.e. to ``tol * n``
    here. The relative-reduction tolerance is 64 machine epsilons, as in scikit-learn.
    """
    objective = MapObjective(data, predicates, classes, prior_variance)
    k = objective.predicates.size
    x0 = np.zeros(k) if w0 is None else np.asarray(w0, dtype=np.float64).ravel()
    if x0.shape != (k,):
        raise ValueError(f"w0 has {x0.size} values for {k} features")
    if k == 0:
        value, _ = objective(x0)
        model = MaxentModel(data.n_predicates, data.n_classes, [], [], [])
        return MapFit(model, value, -value, 0, 1, True, "no features")
    res = minimize(objective, x0, jac=True, method="L-BFGS-B",
                   options={"maxiter": int(max_iter), "gtol": float(tol),
                            "ftol": 64 * np.finfo(float).eps,
                            "maxcor": 10, "maxls": 50})
    w = res.x
    # L-BFGS-B reports ABNORMAL when the line search stalls at machine precision; that is
    # convergence when the gradient is already negligible relative to J.
    stalled_at_optimum = np.max(np.abs(res.jac)) <= np.sqrt(np.finfo(float).eps) * max(1.0, abs(res.fun))
    converged = bool(res.success) or bool(stalled_at_optimum)
    model = MaxentModel(data.n_predicates, data.n_classes, objective.predicates, objective.classes, w)
    penalty = 0.5 * float(np.sum(objective.precision * w * w))
    return MapFit(model, float(res.fun), -(float(res.fun) - penalty), int(res.nit), int(res.nfev),
                  converged, str(res.message))
