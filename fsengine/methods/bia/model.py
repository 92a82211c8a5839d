r"""Bayesian Ising Approximation (Fisher & Mehta): feature relevance as Ising magnetizations.

Derivation (the one implemented and tested here)
------------------------------------------------
Model. ``n`` rows, ``p`` standardised features ``z_j``, a GLM log-likelihood ``L(theta)``
(:mod:`fsengine.glm`) with the intercept fixed at its matched value ``theta0-bar`` (Eq. 17) and a
Gaussian prior ``theta_j ~ N(0, 1/Lambda)`` on every *included* feature (Eq. 16; any prior of the
form of Eq. 3 gives the same result with ``Lambda = lambda f''``). The evidence of the subset
``S`` (Eq. 2, 4), relative to the empty model, is

    p(y|S) / p(y|{}) = Lambda^{M/2} (2 pi)^{-M/2} int d theta_S exp(L(theta_S) - L(0) - Lambda |theta_S|^2 / 2).

Saddle point for strong priors. Expanding ``L`` to second order around the prior mean,
``L(theta) - L(0) ~ b'theta + theta' H theta / 2`` with ``b``, ``H`` the gradient and Hessian at
``theta-bar`` restricted to ``S`` (Eq. 6, 7; closed forms Eq. 18-19, 25-28 as *sums over rows*,
i.e. extensive in ``n``), the Gaussian integral gives exactly Eq. (5):

    log p(y|S) = -1/2 log|I - eps H_S| + (eps/2) b_S' (I - eps H_S)^{-1} b_S,    eps = 1/Lambda.

Expanding to O(eps^2) with ``log|I - A| = -Tr A - Tr A^2 / 2 - ...`` and
``(I - A)^{-1} = I + A + ...`` reproduces Eq. (8):

    log p(y|S) = (eps/2) (Tr H_S + b_S'b_S) + (eps^2/2) (Tr H_S^2 / 2 + b_S' H_S b_S).

Indicator substitution. With spins ``s_i = +-1`` and ``t_i = (1 + s_i)/2`` (1 when ``i`` is in
``S``), every trace is a sum over included indices:

    log p(y|s) = sum_i t_i a_i + sum_{i,j} t_i t_j K_ij,
    a_i  = (eps/2) (H_ii + b_i^2),
    K_ij = (eps^2/2) (H_ij^2 / 2 + b_i H_ij b_j)      (all i, j, the diagonal included).

Using ``t_i t_j = (1 + s_i + s_j + s_i s_j) / 4``, ``t_i^2 = t_i`` and ``s_i^2 = 1`` and dropping
constants:

    log p(y|s) = sum_i s_i h_i + sum_{i<j} J_ij s_i s_j,
    h_i(eps)  = eps alpha_i + eps^2 beta_i,       alpha_i = (H_ii + b_i^2) / 4,
                                                   beta_i  = sum_j C_ij   (j = i included),
    J_ij(eps) = eps^2 C_ij  (i != j),              C_ij    = (H_ij^2 + 2 b_i H_ij b_j) / 8.

This is the paper's Eq. (9)-(11) with its double sum over *ordered* pairs: the paper's
``eps J_ij`` equals our ``J_ij / 2`` and ``eps (H_ii + b_i^2)/4 + 2 eps sum_j J_ij`` equals our
``h_i``. Both fields and couplings are measured in nats of log-evidence; no other factor enters.

Mean field. For ``P(s) ~ exp(h.s + sum_{i<j} J_ij s_i s_j)`` the naive mean-field equations are

    m_i = tanh(h_i + sum_{j != i} J_ij m_j),      p(s_i = 1 | y) = (1 + m_i) / 2   (Eq. 13).

The printed equation instead carries ``n^2 / (4 Lambda) (h_i + 1/2 sum_j J_ij m_j)``; that
prefactor corresponds to ``b`` and ``H`` normalised per row (Eq. 26, 28 without the ``n``) and
is not used here: with ``b`` and ``H`` as the sums of Eq. (18)-(19), the equation above is the
one that matches exact enumeration (``tests/methods/bia/test_model.py``). The feature-selection path
follows the paper's recursion in ``eps`` from ``m(0) = 0`` with step ``delta eps = 0.05/Lambda*``:

    m_i(eps + d) = tanh(h_i(eps + d) + sum_{j != i} J_ij(eps + d) m_j(eps)).

Breakdown scale. The expansions converge while ``eps ||H|| < 1``. For standardised features
``||H|| = w n lambda_max(Corr)``, and a correlation matrix whose off-diagonal entries all equal
``r`` has ``lambda_max = 1 + (p - 1) r``; with ``r`` the root-mean-square off-diagonal
correlation and ``w <= 1`` this gives the paper's scale ``Lambda* = n (1 + p r)`` (after Eq. 13).
``w = V(mean y) / phi`` is 1 for the linear family and at most 1/4 for logistic, but equals
``mean(y)`` for Poisson: with mean counts above 1 the breakdown starts near ``mean(y) Lambda*``
(Lambda* is kept as the paper defines it, and the page says so). Results for ``Lambda < Lambda*`` are outside the
approximation's range and are flagged as the breakdown region.

Storage. The only p x p array is the coupling matrix, stored at a reference ``Lambda_ref`` and
rescaled by ``(eps / eps_ref)^2`` on the fly. :func:`build_bia_model` builds it from the
standardised design :data:`~fsengine.methods.bia.memory.GRAM_BLOCK` columns of the Gram matrix
at a time (:func:`~fsengine.methods.bia.kernels.couplings_from_gram_block`; no p x p temporary,
a sparse X never densified), in float64 while the fit fits its memory budget, else in float32
(:mod:`fsengine.methods.bia.memory`: every sum over the couplings runs in float64, and the
magnetizations agree with float64 couplings to 1e-9 in the tests). A fit from row-chunked moments
turns its float64 Gram into the couplings in place (:func:`model_from_expansion`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fsengine.glm import PriorMeanExpansion, prior_mean_expansion
from fsengine.methods.bia import kernels as bia_kernels
from fsengine.methods.bia.memory import DEFAULT_COUPLING_DTYPE, GRAM_BLOCK, coupling_itemsize
from fsengine.methods.registry import method_defaults
from fsengine.progress import Progress, report_to

#: default path step in units of 1/Lambda* (the paper's 0.05)
DEFAULT_STEP = 0.05
#: default number of path steps (the method registry's ``n_steps``): Lambda/Lambda* from 20 down to 0.1
DEFAULT_STEPS = method_defaults("bia")["n_steps"]
#: default memory budget of a fit (MB; the method registry's ``max_memory_mb``)
DEFAULT_MAX_MEMORY_MB = method_defaults("bia")["max_memory_mb"]
#: a path reports its progress this many times (once per block of steps)
PATH_REPORTS = 50


def lambda_star(n: int, p: int, r: float) -> float:
    """Lambda* = n (1 + p r): the scale below which the expansion of Eq. (5) breaks down."""
    return float(n) * (1.0 + float(p) * float(r))


def posterior_from_magnetization(m):
    """Eq. (13): p(s_j = 1 | y) = (1 + m_j) / 2."""
    return 0.5 * (1.0 + np.asarray(m, dtype=np.float64))


@dataclass
class MeanFieldPath:
    """The mean-field path: ``m[k]`` at ``lambda_ratio[k]`` (decreasing, i.e. eps increasing);
    ``residual[k]`` = max_i |m_i - tanh(h_i + sum_j J_ij m_j)| of row k at its own Lambda (how far
    the recursion is from the mean-field solution there)."""

    lambda_ratio: np.ndarray
    epsilon: np.ndarray
    m: np.ndarray
    max_dm: np.ndarray
    residual: np.ndarray

    @property
    def posterior(self) -> np.ndarray:
        return posterior_from_magnetization(self.m)

    @property
    def breakdown(self) -> np.ndarray:
        """True where Lambda < Lambda* (outside the approximation's range)."""
        return self.lambda_ratio < 1.0


@dataclass
class MeanFieldSolution:
    """Self-consistent magnetizations at one Lambda."""

    lambda_ratio: float
    m: np.ndarray
    n_iter: int
    residual: float
    converged: bool

    @property
    def posterior(self) -> np.ndarray:
        return posterior_from_magnetization(self.m)


@dataclass
class BIAModel:
    """The Ising model of the posterior over feature subsets (fields and couplings vs Lambda).

    ``alpha``, ``beta``: field coefficients, ``h(eps) = eps alpha + eps^2 beta``;
    ``couplings``: ``J`` at ``Lambda_ref = lambda_ref_ratio * Lambda*`` (symmetric, zero diagonal,
    each pair counted once; float64, or float32 where the float64 couplings would not fit the
    memory budget); ``J(eps) = (eps / eps_ref)^2 couplings``.
    """

    n: int
    p: int
    family: str
    rms_correlation: float
    lambda_star: float
    lambda_ref_ratio: float
    alpha: np.ndarray
    beta: np.ndarray
    couplings: np.ndarray
    expansion: PriorMeanExpansion

    def epsilon(self, lambda_ratio) -> np.ndarray | float:
        """eps = 1 / Lambda for Lambda = lambda_ratio * Lambda*."""
        return 1.0 / (np.asarray(lambda_ratio, dtype=np.float64) * self.lambda_star)

    @property
    def epsilon_ref(self) -> float:
        return float(self.epsilon(self.lambda_ref_ratio))

    def fields(self, lambda_ratio: float) -> np.ndarray:
        """h(eps) = eps alpha + eps^2 beta."""
        eps = float(self.epsilon(lambda_ratio))
        return eps * self.alpha + eps * eps * self.beta

    def coupling_scale(self, lambda_ratio: float) -> float:
        """Factor turning the stored couplings into J at ``lambda_ratio``."""
        return (float(self.epsilon(lambda_ratio)) / self.epsilon_ref) ** 2

    def couplings_at(self, lambda_ratio: float) -> np.ndarray:
        """J at ``lambda_ratio`` (a new p x p array)."""
        return self.coupling_scale(lambda_ratio) * self.couplings

    def log_odds(self, s, lambda_ratio: float) -> float:
        """Ising energy h.s + sum_{i<j} J_ij s_i s_j (log posterior of s up to a constant)."""
        s = np.ascontiguousarray(s, dtype=np.float64)
        coupled = np.empty(self.p)
        bia_kernels.matvec(self.couplings, s, coupled)  # no float64 copy of float32 couplings
        return float(self.fields(lambda_ratio) @ s + 0.5 * self.coupling_scale(lambda_ratio) * s @ coupled)

    def path(self, step: float = DEFAULT_STEP, n_steps: int = DEFAULT_STEPS, *,
             progress: Progress | None = None) -> MeanFieldPath:
        """Mean-field path at eps_k = k * step / Lambda*, k = 1..n_steps (Lambda/Lambda* = 1/(k step)).

        ``progress(fraction, message)`` (:mod:`fsengine.progress`) hears after every block of
        about 1/:data:`PATH_REPORTS` of the steps (the blocks continue one recursion: the result
        does not depend on them). A :class:`~fsengine.progress.StopRequested` it raises propagates:
        a partial path is no result.
        """
        if not step > 0 or n_steps < 1:
            raise ValueError(f"path needs step > 0 and n_steps >= 1 (got step={step}, n_steps={n_steps})")
        report = report_to(progress)
        n_steps = int(n_steps)
        k = np.arange(1, n_steps + 1, dtype=np.float64)
        ratio = 1.0 / (k * step)
        eps = self.epsilon(ratio)
        M = np.empty((n_steps, self.p))
        max_dm = np.empty(n_steps)
        block = -(-n_steps // PATH_REPORTS)
        residual = np.empty(n_steps)
        m = np.zeros(self.p)
        for start in range(0, n_steps, block):
            end = min(start + block, n_steps)
            # each block's first product J m also gives the residual of the previous block's last row
            M[start:end], max_dm[start:end], before = bia_kernels.mean_field_path_residuals(
                self.alpha, self.beta, self.couplings, self.epsilon_ref, eps[start:end], m,
                eps[start - 1] if start else 0.0)
            residual[max(start - 1, 0):end - 1] = before[1:] if start == 0 else before
            m = M[end - 1]
            report(end / n_steps, f"path step {end} of {n_steps} (Λ/Λ* = {ratio[end - 1]:.3g})")
        residual[-1] = self.fixed_point_residual(ratio[-1:], M[-1:])[0]
        return MeanFieldPath(lambda_ratio=ratio, epsilon=eps, m=M, max_dm=max_dm, residual=residual)

    def fixed_point_residual(self, lambda_ratio, M) -> np.ndarray:
        """Per row of ``M`` (magnetizations at ``lambda_ratio``): max_i |m_i - tanh(h_i + sum_j J_ij m_j)|,
        how far the row is from solving the mean-field equations (Fisher & Mehta Eq. 13)."""
        ratio = np.atleast_1d(np.asarray(lambda_ratio, dtype=np.float64))
        M = np.ascontiguousarray(np.atleast_2d(np.asarray(M, dtype=np.float64)))
        eps = np.ascontiguousarray(self.epsilon(ratio), dtype=np.float64)
        return bia_kernels.fixed_point_residuals(self.alpha, self.beta, self.couplings, self.epsilon_ref, eps, M)

    def solve(self, lambda_ratio: float, m0=None, damping: float = 0.5, tol: float = 1e-10,
              max_iter: int = 2000) -> MeanFieldSolution:
        """Damped self-consistent mean field at one Lambda (warm start ``m0``, default zeros)."""
        return solve_mean_field(self.fields(lambda_ratio), self.couplings, m0=m0, damping=damping,
                                tol=tol, max_iter=max_iter, scale=self.coupling_scale(lambda_ratio),
                                lambda_ratio=lambda_ratio)


def solve_mean_field(h, J, *, m0=None, damping: float = 0.5, tol: float = 1e-10,
                     max_iter: int = 2000, scale: float = 1.0,
                     lambda_ratio: float = float("nan")) -> MeanFieldSolution:
    """Naive mean field for ``P(s) ~ exp(h.s + scale * sum_{i<j} J_ij s_i s_j)`` by damped iteration
    (float32 J is used as it is: the sums run in float64). ``J`` is symmetric with a zero diagonal:
    only its upper triangle, the energy's pairs i < j, is read."""
    h = np.ascontiguousarray(h, dtype=np.float64)
    J = np.asarray(J)
    J = np.ascontiguousarray(J, dtype=J.dtype if J.dtype in (np.float32, np.float64) else np.float64)
    if J.shape != (h.size, h.size):
        raise ValueError(f"J has shape {J.shape}, expected ({h.size}, {h.size})")
    if not 0 < damping <= 1:
        raise ValueError(f"damping must be in (0, 1], got {damping}")
    m0 = np.zeros(h.size) if m0 is None else np.array(m0, dtype=np.float64)
    m, n_iter, residual = bia_kernels.damped_mean_field(h, J, float(scale), m0, float(damping),
                                                        float(tol), int(max_iter))
    return MeanFieldSolution(lambda_ratio=float(lambda_ratio), m=m, n_iter=int(n_iter),
                             residual=float(residual), converged=bool(residual < tol))


def build_bia_model(X, y, family: str = "logistic", *, dispersion: float | None = None,
                    lambda_ref_ratio: float = 1.0, max_memory_mb: float = DEFAULT_MAX_MEMORY_MB,
                    n_steps: int = DEFAULT_STEPS, feature_names=None, progress: Progress | None = None,
                    coupling_dtype: str = DEFAULT_COUPLING_DTYPE) -> BIAModel:
    """Fields and couplings of the BIA for a GLM (Eq. 5-11 as derived in the module docstring).

    ``X`` raw design (dense or sparse, standardised here), ``y`` response suited to ``family``.
    The couplings are built :data:`~fsengine.methods.bia.memory.GRAM_BLOCK` columns at a time in
    float64 and stored as ``coupling_dtype`` (float32 by default: the same posteriors to 1e-9 in
    half the path's time, :mod:`fsengine.methods.bia.memory`); a
    :class:`~fsengine.methods.bia.memory.CouplingMemoryError` states the largest p when a fit of
    ``n_steps`` path steps would not fit ``max_memory_mb``. ``progress(fraction, message)``
    hears after every block.
    """
    n, p = X.shape
    if not lambda_ref_ratio > 0:
        raise ValueError(f"lambda_ref_ratio must be positive, got {lambda_ref_ratio}")
    itemsize = coupling_itemsize(n, p, max_memory_mb, n_steps, dense=not sp.issparse(X), dtype=coupling_dtype)
    exp = prior_mean_expansion(family, X, y, dispersion=dispersion, with_gram=False, feature_names=feature_names)
    J, alpha, beta, r = _couplings_in_blocks(X, exp, np.float64 if itemsize == 8 else np.float32,
                                             report_to(progress))
    lam_star = lambda_star(n, p, r)
    eps_ref = 1.0 / (lambda_ref_ratio * lam_star)
    bia_kernels.scale_inplace(J, eps_ref * eps_ref)
    return BIAModel(n=n, p=p, family=exp.family, rms_correlation=r, lambda_star=lam_star,
                    lambda_ref_ratio=float(lambda_ref_ratio), alpha=alpha, beta=beta, couplings=J, expansion=exp)


def _couplings_in_blocks(X, exp: PriorMeanExpansion, dtype, report):
    """(K, alpha, beta, r): the unscaled couplings K (p x p of ``dtype``, exactly symmetric), the
    field coefficients and the rms off-diagonal correlation, from column blocks of the
    standardised Gram G = Z'Z (rows up to each block's diagonal block: the rest is its mirror).
    Dense X: one standardised column-major copy Z and a BLAS product per block; sparse X: each
    column of X'X summed from the pairs of non-zeros into a vector, centred, scaled (as
    :func:`fsengine.glm.standardized_gram`) and turned into couplings at once
    (:func:`~fsengine.methods.bia.kernels.sparse_couplings_block`; no Gram block)."""
    n, p = X.shape
    stdz = exp.standardization
    J = np.empty((p, p), dtype=dtype)
    alpha, beta = np.zeros(p), np.zeros(p)
    if sp.issparse(X):
        Xc, Xr = sp.csc_matrix(X, dtype=np.float64), sp.csr_matrix(X, dtype=np.float64)
        if not Xr.has_sorted_indices:
            Xr = Xr.sorted_indices()
        column = np.empty(p)
    else:
        Z = np.array(X, dtype=np.float64, order="F")
        Z -= stdz.mean
        Z /= stdz.scale
    squares = 0.0
    for c0 in range(0, p, GRAM_BLOCK):
        c1 = min(p, c0 + GRAM_BLOCK)
        if sp.issparse(X):
            squares += bia_kernels.sparse_couplings_block(
                Xc.indptr, Xc.indices, Xc.data, Xr.indptr, Xr.indices, Xr.data, c0, c1, float(n), stdz.mean,
                stdz.scale, exp.b, exp.curvature, J, alpha, beta, column)
        else:
            G = np.ascontiguousarray(Z[:, :c1].T @ Z[:, c0:c1])
            squares += bia_kernels.couplings_from_gram_block(G, c0, exp.b, exp.curvature, float(n), J, alpha, beta)
        report(c1 / p, f"couplings for {c1:,} of {p:,} features")
    if sp.issparse(X):
        bia_kernels.mirror_lower(J)
    r = float(np.sqrt(2.0 * squares / (p * (p - 1.0)))) if p >= 2 else 0.0
    return J, alpha, beta, r


def model_from_expansion(exp: PriorMeanExpansion, lambda_ref_ratio: float = 1.0, *,
                         coupling_dtype: str = "float64") -> BIAModel:
    """Fields and couplings (Eq. 9-11) from the expansion at the prior mean; takes over its Gram
    (computed in float64, stored as ``coupling_dtype``: the Gram itself, or its float32 copy)."""
    if not lambda_ref_ratio > 0:
        raise ValueError(f"lambda_ref_ratio must be positive, got {lambda_ref_ratio}")
    n, p = exp.n, exp.p
    G = exp.gram
    exp.gram = None  # the Gram becomes the couplings below; do not expose it twice
    r = float(bia_kernels.rms_offdiag_correlation(G, float(n)))
    lam_star = lambda_star(n, p, r)
    eps_ref = 1.0 / (lambda_ref_ratio * lam_star)
    alpha, beta = bia_kernels.ising_from_gram_inplace(G, exp.b, exp.curvature, eps_ref)
    return BIAModel(n=n, p=p, family=exp.family, rms_correlation=r, lambda_star=lam_star,
                    lambda_ref_ratio=float(lambda_ref_ratio), alpha=alpha, beta=beta,
                    couplings=G if coupling_dtype == "float64" else G.astype(np.float32), expansion=exp)
