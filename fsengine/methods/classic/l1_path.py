"""L1-regularised logistic regression path over C (Jaakkola, lecture 12, Eq. 16-19).

Eq. (18) maximises  l(theta) - lambda sum_i |theta_i|  with l the conditional log-likelihood;
scikit-learn's ``LogisticRegression(l1_ratio=1)`` minimises  sum_i |theta_i| + C sum_t loss_t,
the same problem with lambda = 1/C (the intercept theta_0 is not penalised in Eq. 18; our ``cd``
solver leaves it so, while scikit-learn's solvers penalise it through a synthetic feature of
value ``intercept_scaling``, which we set to 100 so that this penalty is small:
lambda |theta_0| / 100). At the optimum every non-zero theta_k has dl/dtheta_k = lambda
sign(theta_k) and every zero one |dl/dtheta_k| <= lambda (Eq. 19): a feature enters the model
when its likelihood slope reaches lambda.

The path starts at ``sklearn.svm.l1_min_c`` (for centred features the largest lambda at which
every coefficient is zero) and increases C on a log grid. Solvers:

``cd`` (default)   ours (:mod:`fsengine.methods.classic.l1_solver`): glmnet's proximal Newton
                   coordinate descent, each C warm-started from the previous one, the intercept
                   unpenalised exactly as in Eq. (18); stops when Eq. (19) holds to ``tol``
                   relative to lambda on every feature (what :func:`eq19_violation` measures).
``liblinear``      scikit-learn's coordinate descent (newGLMNET) from scratch at each C; its
                   ``tol`` is liblinear's own criterion and its intercept carries the small
                   penalty above.
``saga``           scikit-learn's, warm-started: the previous C's solution initialises the next
                   fit. Much slower on image data and, at practical tolerances, leaves small
                   unconverged coefficients non-zero (see benchmarks/RESULTS.md).

Multiclass: one-vs-rest, one binary L1 path per class (K coefficient vectors per C). A feature is
active at C when any class uses it; its path value is the signed coefficient for two classes and
the Euclidean norm over the K class coefficients otherwise.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import l1_min_c

from fsengine.methods.classic.binary import class_codes
from fsengine.methods.classic.l1_solver import binary_l1_logistic_path
from fsengine.progress import Progress, report_to

INTERCEPT_SCALING = 100.0
SOLVERS = ("cd", "liblinear", "saga")
DEFAULT_SOLVER = "cd"


@dataclass(frozen=True)
class L1Path:
    """coefs (n_Cs, K', p) and intercepts (n_Cs, K') with K' = 1 for two classes, K otherwise."""

    Cs: np.ndarray
    coefs: np.ndarray
    intercepts: np.ndarray
    classes: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray

    @property
    def values(self) -> np.ndarray:
        """(n_Cs, p): signed coefficient (two classes) or norm over classes (K > 2)."""
        if self.coefs.shape[1] == 1:
            return self.coefs[:, 0, :]
        return np.sqrt((self.coefs ** 2).sum(axis=1))

    @property
    def active(self) -> np.ndarray:
        """(n_Cs, p) boolean: feature used by some class at that C."""
        return np.any(self.coefs != 0.0, axis=1)

    def entry_step(self) -> np.ndarray:
        """Index of the first C at which each feature is active (n_Cs when it never is)."""
        active = self.active
        first = np.argmax(active, axis=0)
        return np.where(active.any(axis=0), first, active.shape[0])

    def entry_order(self) -> np.ndarray:
        """Features that ever enter, by entry step, then larger |value| at entry, then index."""
        step = self.entry_step()
        entered = np.flatnonzero(step < self.Cs.size)
        at_entry = np.abs(self.values[step[entered], entered])
        return entered[np.lexsort((entered, -at_entry, step[entered]))]

    def decision(self, X) -> np.ndarray:
        """(n_Cs, n, K') linear scores theta^T x + theta_0 at every C."""
        scores = np.stack([np.asarray(X @ c.T) for c in self.coefs])
        return scores + self.intercepts[:, None, :]

    def predict(self, X) -> np.ndarray:
        """(n_Cs, n) predicted labels at every C (sign for two classes, argmax one-vs-rest)."""
        scores = self.decision(X)
        if scores.shape[2] == 1:
            return self.classes[(scores[:, :, 0] > 0).astype(int)]
        return self.classes[np.argmax(scores, axis=2)]

    def accuracy(self, X, y) -> np.ndarray:
        """Accuracy at every C."""
        return (self.predict(X) == np.asarray(y)[None, :]).mean(axis=1)


def path_grid(X, y, n_Cs: int = 20, C_span: float = 1e3) -> np.ndarray:
    """n_Cs values of C from ``l1_min_c`` (every coefficient zero) up to ``C_span`` times it."""
    c0 = l1_min_c(X, y, loss="log", fit_intercept=False)
    return c0 * np.logspace(0.0, np.log10(C_span), n_Cs)


def l1_logistic_path(X, y, Cs, *, solver: str = DEFAULT_SOLVER, tol: float = 1e-6,
                     max_iter: int = 1000, warm_start: bool | None = None, random_state: int = 0,
                     progress: Progress | None = None) -> L1Path:
    """Fit Eq. (18) at every C in increasing order (one-vs-rest for K > 2 classes).

    ``solver="cd"`` always warm-starts (``tol``: the largest relative Eq. 19 violation accepted;
    ``max_iter``: Newton iterations per C). ``warm_start`` (saga only; default True for saga)
    starts each saga fit from the previous C's solution; scikit-learn's liblinear binding always
    starts from scratch. Both scikit-learn solvers visit the coordinates (liblinear) or samples
    (saga) in a random order: ``random_state`` fixes it, so the same data give the same path
    (unseeded, paths differed by ~1e-5 between runs at tol 1e-6); ``cd`` is deterministic.
    ``progress(fraction, message)`` is called after every fit; an exception it raises
    (:class:`~fsengine.progress.StopRequested` included) ends the path without a result.
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {', '.join(SOLVERS)}, not {solver!r}")
    if warm_start and solver != "saga":
        raise ValueError("warm_start needs solver='saga'; scikit-learn's liblinear cannot warm-start")
    warm = solver == "saga" if warm_start is None else bool(warm_start)
    Cs = np.sort(np.asarray(Cs, dtype=np.float64))
    codes, classes = class_codes(y)
    K = classes.size
    problems = [codes == 1] if K == 2 else [codes == c for c in range(K)]
    p = X.shape[1]
    coefs = np.zeros((Cs.size, len(problems), p))
    intercepts = np.zeros((Cs.size, len(problems)))
    n_iter = np.zeros((Cs.size, len(problems)), dtype=np.int64)
    converged = np.ones(Cs.size, dtype=bool)
    total = Cs.size * len(problems)
    report = report_to(progress)

    def step_done(b, i):
        report((b * Cs.size + i + 1) / total, f"path: C {i + 1} of {Cs.size}"
               + (f", class {b + 1} of {len(problems)}" if len(problems) > 1 else ""))

    for b, target in enumerate(problems):
        if solver == "cd":
            fit = binary_l1_logistic_path(X, target, Cs, tol=tol, max_iter=max_iter,
                                          on_step=lambda i, b=b: step_done(b, i))
            coefs[:, b], intercepts[:, b], n_iter[:, b] = fit.coefs, fit.intercepts, fit.n_iter
            converged &= fit.converged
            continue
        model = LogisticRegression(l1_ratio=1.0, solver=solver, tol=tol, max_iter=max_iter,
                                   warm_start=warm, random_state=random_state,
                                   intercept_scaling=INTERCEPT_SCALING)
        for i, C in enumerate(Cs):
            model.set_params(C=float(C))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                model.fit(X, target.astype(np.int64))
            if any(issubclass(w.category, ConvergenceWarning) for w in caught):
                converged[i] = False
            coefs[i, b] = model.coef_[0]
            intercepts[i, b] = model.intercept_[0]
            n_iter[i, b] = int(np.max(model.n_iter_))
            step_done(b, i)
    return L1Path(Cs, coefs, intercepts, classes, n_iter, converged)


def eq19_violation(X, target, coef, intercept, C) -> float:
    """Largest violation of the optimality condition Eq. (19) for one binary problem, relative to
    lambda = 1/C: |dl/dtheta_k - lambda sign(theta_k)| for non-zero theta_k and
    max(|dl/dtheta_k| - lambda, 0) for zero ones (0 at an exact optimum)."""
    lam = 1.0 / C
    p = 1.0 / (1.0 + np.exp(-(np.asarray(X @ coef).ravel() + intercept)))
    slope = np.asarray(X.T @ (np.asarray(target, dtype=np.float64) - p)).ravel()
    nz = coef != 0
    on = np.abs(slope[nz] - lam * np.sign(coef[nz])).max(initial=0.0)
    off = max(np.abs(slope[~nz]).max(initial=0.0) - lam, 0.0)
    return float(max(on, off) / lam)


def entry_scores(X, y, Cs, *, max_iter: int = 1000) -> np.ndarray:
    """Relevance from the L1-logistic path (two classes): the number of grid values of ``Cs``
    (log-spaced, largest last) at which the feature's coefficient is non-zero, plus
    |coef| / (1 + max |coef|) at the largest C to order features entering together. Earlier entry
    (Eq. 19: the likelihood slope reaches lambda = 1/C sooner) = higher score. liblinear, each C
    from scratch, seeded: the same scores in every process."""
    count = np.zeros(X.shape[1])
    coef = np.zeros(X.shape[1])
    for C in np.asarray(Cs, dtype=float):
        coef = LogisticRegression(l1_ratio=1.0, C=C, solver="liblinear", max_iter=max_iter,
                                  random_state=0).fit(X, y).coef_.ravel()
        count += coef != 0
    mag = np.abs(coef)
    return count + mag / (1.0 + mag.max())
