"""numba kernels of the Bayesian Ising Approximation (see :mod:`fsengine.methods.bia.model` for the math).

Conventions: ``J`` is symmetric with a zero diagonal and every pair counted once in the energy
``E(s) = h.s + sum_{i<j} J_ij s_i s_j``; couplings scale as ``J(eps) = (eps / eps_ref)^2 J_ref``.
``J`` may be float64 or float32 (wide problems, :mod:`fsengine.methods.bia.memory`); every sum
over it runs in float64. Every kernel releases the interpreter while it runs (``nogil``): the app's
server-start preparation fits in a background thread of the server, which keeps answering browsers.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def rms_offdiag_correlation(G, n):
    """r = sqrt(mean_{i != j} (G_ij / n)^2) for a standardised Gram G = n Corr."""
    p = G.shape[0]
    if p < 2:
        return 0.0
    acc = 0.0
    for i in range(p):
        for j in range(p):
            if i != j:
                c = G[i, j] / n
                acc += c * c
    return np.sqrt(acc / (p * (p - 1.0)))


@njit(cache=True, nogil=True, fastmath=True)
def matvec(J, m, out):
    """out = J m for a symmetric J with a zero diagonal (every coupling matrix here), reading only
    the upper triangle: each J_ij (i < j) adds J_ij m_j to out_i and J_ij m_i to out_j. The path is
    bound by memory traffic (one pass over J a step), so reading half of J halves it.

    Rows go four at a time, in one pass over their upper parts: each loaded J_ij adds to its row's
    sum and to ``out_j``. The loop indexes slices from 0, so it vectorises with contiguous loads
    (over ``range(i1, p)`` numba's negative-index wraparound turns the loads into gathers). Sums
    run in float64 (J float64 or float32; fastmath lets them vectorise and reorders them, a change
    at round-off). A plain loop beats a call into a multi-threaded BLAS on a shared
    2-core machine for these sizes, and BLAS would sum float32 rows in float32.
    """
    p = m.size
    for i in range(p):
        out[i] = 0.0
    i0 = 0
    while i0 + 4 <= p:
        i1 = i0 + 4
        m0, m1, m2, m3 = m[i0], m[i0 + 1], m[i0 + 2], m[i0 + 3]
        s0 = J[i0, i0 + 1] * m1 + J[i0, i0 + 2] * m2 + J[i0, i0 + 3] * m3  # the 4 x 4 diagonal block
        s1 = J[i0, i0 + 1] * m0 + J[i0 + 1, i0 + 2] * m2 + J[i0 + 1, i0 + 3] * m3
        s2 = J[i0, i0 + 2] * m0 + J[i0 + 1, i0 + 2] * m1 + J[i0 + 2, i0 + 3] * m3
        s3 = J[i0, i0 + 3] * m0 + J[i0 + 1, i0 + 3] * m1 + J[i0 + 2, i0 + 3] * m2
        r0, r1, r2, r3 = J[i0, i1:], J[i0 + 1, i1:], J[i0 + 2, i1:], J[i0 + 3, i1:]
        rest, tail = m[i1:], out[i1:]
        for j in range(p - i1):
            mj = rest[j]
            a0, a1, a2, a3 = r0[j], r1[j], r2[j], r3[j]
            s0 += a0 * mj
            s1 += a1 * mj
            s2 += a2 * mj
            s3 += a3 * mj
            tail[j] += a0 * m0 + a1 * m1 + a2 * m2 + a3 * m3
        out[i0] += s0
        out[i0 + 1] += s1
        out[i0 + 2] += s2
        out[i0 + 3] += s3
        i0 = i1
    for i in range(i0, p):  # the last p mod 4 rows
        row, rest, tail = J[i, i + 1:], m[i + 1:], out[i + 1:]
        acc = 0.0
        for j in range(p - i - 1):
            acc += row[j] * rest[j]
        for j in range(p - i - 1):
            tail[j] += row[j] * m[i]
        out[i] += acc


@njit(cache=True, nogil=True)
def ising_from_gram_inplace(G, b, curvature, eps_ref):
    """Turn the Gram G (p x p) into the couplings J_ref in place; return (alpha, beta).

    With H = -curvature * G (Eq. 27-28) and K_ij = (H_ij^2 + 2 b_i H_ij b_j) / 8:
    ``alpha_i = (H_ii + b_i^2) / 4``, ``beta_i = sum_j K_ij`` (j = i included) and
    ``J_ref_ij = eps_ref^2 K_ij`` for i != j, ``J_ref_ii = 0``. One pass, no temporaries.
    """
    p = G.shape[0]
    alpha = np.empty(p)
    beta = np.zeros(p)
    e2 = eps_ref * eps_ref
    for i in range(p):
        Hii = -curvature * G[i, i]
        alpha[i] = 0.25 * (Hii + b[i] * b[i])
    for i in range(p):
        bi = b[i]
        acc = 0.0
        for j in range(p):
            Hij = -curvature * G[i, j]
            k = 0.125 * (Hij * Hij + 2.0 * bi * Hij * b[j])
            acc += k
            G[i, j] = 0.0 if i == j else e2 * k
        beta[i] = acc
    return alpha, beta


@njit(cache=True, nogil=True)
def _residual(alpha, beta, eps, scale, m, u):
    """max_i |m_i - tanh(eps alpha_i + eps^2 beta_i + scale u_i)| with u = J_ref m: how far m is
    from solving the mean-field equations at eps."""
    worst = 0.0
    for i in range(m.size):
        worst = max(worst, abs(m[i] - np.tanh(eps * alpha[i] + eps * eps * beta[i] + scale * u[i])))
    return worst


@njit(cache=True, nogil=True)
def mean_field_path_residuals(alpha, beta, J_ref, eps_ref, eps_grid, m0, eps0):
    """The recursive mean-field path (Fisher & Mehta, equation after Eq. 13), from ``m0``
    (``m(0) = 0`` at the start of the path; the last row of a previous block, at ``eps0``, to
    continue it):

    ``m(eps_k) = tanh(eps_k alpha + eps_k^2 beta + (eps_k / eps_ref)^2 J_ref m(eps_{k-1}))``.

    Returns ``M`` (n_steps, p), ``max |m(eps_k) - m(eps_{k-1})|`` per step and the fixed-point
    residual of the row before each step (:func:`_residual` of ``m0`` at ``eps0`` first, nan when
    eps0 <= 0; then of rows 0..n_steps-2), from the product J m that the step computes anyway.
    One matrix-vector product per step; a path run in blocks equals the path run at once, bit for
    bit.
    """
    n_steps = eps_grid.size
    p = alpha.size
    M = np.empty((n_steps, p))
    max_dm = np.empty(n_steps)
    before = np.empty(n_steps)
    m = m0.copy()
    u = np.empty(p)
    prev = eps0
    for k in range(n_steps):
        eps = eps_grid[k]
        scale = (eps / eps_ref) ** 2
        matvec(J_ref, m, u)
        before[k] = _residual(alpha, beta, prev, (prev / eps_ref) ** 2, m, u) if prev > 0.0 else np.nan
        dm = 0.0
        for i in range(p):
            new = np.tanh(eps * alpha[i] + eps * eps * beta[i] + scale * u[i])
            d = abs(new - m[i])
            if d > dm:
                dm = d
            M[k, i] = new
        m = M[k].copy()
        max_dm[k] = dm
        prev = eps
    return M, max_dm, before


@njit(cache=True, nogil=True)
def mean_field_path(alpha, beta, J_ref, eps_ref, eps_grid, m0):
    """:func:`mean_field_path_residuals` from ``m0`` = 0 or a block's end, without the residuals:
    returns ``M`` and the largest change per step."""
    M, max_dm, _ = mean_field_path_residuals(alpha, beta, J_ref, eps_ref, eps_grid, m0, 0.0)
    return M, max_dm


@njit(cache=True, nogil=True)
def fixed_point_residuals(alpha, beta, J_ref, eps_ref, eps, M):
    """:func:`_residual` of every row ``M[k]`` at ``eps[k]``: one matrix-vector product a row, no
    temporary beyond a vector (J_ref may be float32)."""
    out = np.empty(M.shape[0])
    u = np.empty(alpha.size)
    for k in range(M.shape[0]):
        matvec(J_ref, M[k], u)
        out[k] = _residual(alpha, beta, eps[k], (eps[k] / eps_ref) ** 2, M[k], u)
    return out


@njit(cache=True, nogil=True)
def sparse_couplings_block(col_ptr, col_rows, col_vals, row_ptr, row_cols, row_vals, c0, c1, n, mean, scale,
                           b, curvature, J, alpha, beta, g):
    """:func:`couplings_from_gram_block` for columns c0..c1-1 of a sparse X, without a Gram block:
    writes the lower triangle J[j, i], i < j, of those rows (fill the upper one with
    :func:`mirror_lower` once every block is done), alpha_j, and adds to beta; returns
    sum (G_ij / n)^2 over the pairs.

    ``col_*`` is X in CSC, ``row_*`` in CSR with sorted column indices, ``g`` a float64 buffer of
    p. Column j of X'X (rows i <= j) is summed into ``g`` over the non-zeros x_tj of column j,
    each adding x_tj times row t's entries up to j (the pairs of non-zeros in each row, no sparse
    product to assemble); then centred and scaled as :func:`fsengine.glm.standardized_gram`,
    ``G_ij = ((X'X)_ij - n mean_i mean_j) / scale_i / scale_j``, and turned into
    K_ij = (H_ij^2 + 2 b_i H_ij b_j) / 8 (H = -curvature G), each with the same operations in the
    same order as the dense blocks (for 0/1 data, whose products and counts are exact, the same
    couplings bit for bit; beta and the squares are summed in another order).
    """
    squares = 0.0
    for j in range(c0, c1):
        for i in range(j + 1):
            g[i] = 0.0
        for k in range(col_ptr[j], col_ptr[j + 1]):
            t = col_rows[k]
            v = col_vals[k]
            for q in range(row_ptr[t], row_ptr[t + 1]):
                i = row_cols[q]
                if i > j:
                    break
                g[i] += v * row_vals[q]
        bj = b[j]
        row = J[j]
        for i in range(j + 1):
            gij = ((g[i] - n * (mean[i] * mean[j])) / scale[i]) / scale[j]
            h = -curvature * gij
            k = 0.125 * (h * h + 2.0 * b[i] * h * bj)
            if i == j:
                alpha[j] = 0.25 * (h + bj * bj)
                beta[j] += k
                row[j] = 0.0
            else:
                c = gij / n
                squares += c * c
                beta[i] += k
                beta[j] += k
                row[i] = k
    return squares


@njit(cache=True, nogil=True)
def mirror_lower(J):
    """J[i, j] = J[j, i] for i < j (the upper triangle from the lower), in 64 x 64 tiles."""
    p = J.shape[0]
    T = 64
    for i0 in range(0, p, T):
        for j0 in range(i0, p, T):
            for j in range(j0, min(j0 + T, p)):
                for i in range(i0, min(i0 + T, j)):
                    J[i, j] = J[j, i]


@njit(cache=True, nogil=True)
def couplings_from_gram_block(G, c0, b, curvature, n, J, alpha, beta):
    """One column block of :func:`ising_from_gram_inplace`, for couplings built in blocks.

    ``G`` (c1, w) holds rows 0..c1-1 of columns c0..c0+w-1 of the standardised Gram, c1 = c0 + w
    (the block's rows above the diagonal block and the diagonal block). Writes the unscaled
    K_ij = (H_ij^2 + 2 b_i H_ij b_j) / 8 (H = -curvature G) of every pair i < j into J[i, j] and
    J[j, i] (exactly symmetric; scale by eps_ref^2 afterwards), zero on the diagonal, sets
    alpha_i = (H_ii + b_i^2) / 4 on the diagonal, adds each pair's K to beta_i and beta_j (K_ii to
    beta_i) and returns sum_{i<j} (G_ij / n)^2 over the block (for the rms correlation).
    """
    rows, width = G.shape
    squares = 0.0
    for i in range(rows):
        bi = b[i]
        for jj in range(width):
            j = c0 + jj
            if j < i:
                continue  # the lower half of the diagonal block: its mirror is written below
            g = G[i, jj]
            h = -curvature * g
            k = 0.125 * (h * h + 2.0 * bi * h * b[j])
            if i == j:
                alpha[i] = 0.25 * (h + bi * bi)
                beta[i] += k
                J[i, i] = 0.0
            else:
                c = g / n
                squares += c * c
                beta[i] += k
                beta[j] += k
                J[i, j] = k
                J[j, i] = k
    return squares


@njit(cache=True, nogil=True)
def scale_inplace(J, factor):
    """J *= factor, each product formed in float64 (also for float32 J)."""
    for i in range(J.shape[0]):
        for j in range(J.shape[1]):
            J[i, j] = J[i, j] * factor


@njit(cache=True, nogil=True)
def damped_mean_field(h, J, scale, m0, damping, tol, max_iter):
    """Solve ``m = tanh(h + scale * J m)`` by damped iteration ``m <- (1-d) m + d tanh(...)``.

    Returns ``(m, n_iter, residual)`` with residual = max |m - tanh(h + scale J m)| at exit.
    """
    m = m0.copy()
    p = m.size
    residual = np.inf
    it = 0
    u = np.empty(p)
    while it < max_iter:
        matvec(J, m, u)
        residual = 0.0
        for i in range(p):
            target = np.tanh(h[i] + scale * u[i])
            d = abs(target - m[i])
            if d > residual:
                residual = d
            m[i] = (1.0 - damping) * m[i] + damping * target
        it += 1
        if residual < tol:
            break
    return m, it, residual
