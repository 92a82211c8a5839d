"""KL projection onto a Beta distribution: match E[log theta] and E[log(1 - theta)].

The slides (Molchanov et al., "Power EP update for the RTM") project the tilted distribution
onto ``Beta(A~, B~)`` by solving the digamma system

    psi(A~) - psi(A~ + B~) = c1,     psi(B~) - psi(A~ + B~) = c2,

"with 3-5 iterations of Newton's method [Minka, Estimating a Dirichlet distribution]". The
system is the gradient of the convex function log B(A, B) - c1 A - c2 B, so its Jacobian

    J = [[psi'(A) - psi'(S), -psi'(S)], [-psi'(S), psi'(B) - psi'(S)]],   S = A + B,

is positive definite and the Newton direction always lowers the residual norm.

Precision: a site of a tag seen in thousands of objects moves a Beta with A, B ~ 10^4 by O(1).
Solving for the new totals and subtracting loses those digits, so we solve for the *change*
(u, v) = (A~ - A, B~ - B) against the change of the targets, r = c - (psi(A) - psi(S), psi(B) -
psi(S)), with the cancellation-free ``digamma_diff``:

    psi(A + u) - psi(A) - [psi(S + u + v) - psi(S)] = r1,   (same with B, v) = r2.

Start: the better (smaller residual) of no change and a caller-supplied guess (the mean/variance
matched Beta, Minka's recommended initialisation); steps are halved to keep A + u, B + v > 0 and
to lower the residual; iteration stops at relative residual 1e-12 or when the residual stops
falling.
"""

from __future__ import annotations

from numba import njit

from fsengine.methods.rtm.special import (
    ASYMPTOTIC_FROM,
    LOG1P_SERIES_MAX,
    digamma_diff,
    log1p_series,
    psi_tail_inv,
    tetragamma_inv,
    trigamma,
    trigamma_inv,
)

RELATIVE_TOL = 1e-12
MAX_NEWTON = 30
MAX_HALVINGS = 40
#: relative residual below which Newton is in its quadratic phase
NEAR = 1e-6


@njit(cache=True)
def _residual(A, B, S, u, v, r1, r2):
    ds = digamma_diff(S, u + v)
    return digamma_diff(A, u) - ds - r1, digamma_diff(B, v) - ds - r2


@njit(cache=True)
def solve_beta_change(A, B, r1, r2, u0, v0):
    """Change (u, v) of Beta(A, B) whose log-moments move by (r1, r2); returns (u, v, iters, res).

    ``res`` is |F1| + |F2| at the returned point; ``iters`` Newton steps were taken.
    """
    S = A + B
    scale = abs(r1) + abs(r2)
    if scale == 0.0:
        return 0.0, 0.0, 0, 0.0
    tol = RELATIVE_TOL * scale
    u, v = 0.0, 0.0
    f1, f2 = -r1, -r2
    res = scale
    if A + u0 > 0.0 and B + v0 > 0.0:
        g1, g2 = _residual(A, B, S, u0, v0, r1, r2)
        if abs(g1) + abs(g2) < res:
            u, v, f1, f2, res = u0, v0, g1, g2, abs(g1) + abs(g2)
    iters = 0
    while iters < MAX_NEWTON and res > tol:
        ts = trigamma(S + u + v)
        j11 = trigamma(A + u) - ts
        j22 = trigamma(B + v) - ts
        det = j11 * j22 - ts * ts
        du = -(j22 * f1 + ts * f2) / det
        dv = -(ts * f1 + j11 * f2) / det
        step = 1.0
        accepted = False
        # near the solution a failed full step means working precision: no line search then
        halvings = MAX_HALVINGS if res > NEAR * scale else 1
        for _ in range(halvings):
            un, vn = u + step * du, v + step * dv
            if A + un > 0.0 and B + vn > 0.0:
                g1, g2 = _residual(A, B, S, un, vn, r1, r2)
                if abs(g1) + abs(g2) < res:
                    u, v, f1, f2, res = un, vn, g1, g2, abs(g1) + abs(g2)
                    accepted = True
                    break
            step *= 0.5
        iters += 1
        if not accepted:  # the residual stopped falling: we are at working precision
            break
    return u, v, iters, res


@njit(cache=True, inline="always", error_model="numpy")
def moment_matched_change(A, B, mean, second):
    """Change to the Beta with the given mean and second moment (Minka's initialisation); no change
    when they belong to no Beta. Branch-free, so that lane loops vectorise."""
    var = second - mean * mean
    k = mean * (1.0 - mean) / var - 1.0
    ok = (var > 0.0) & (mean > 0.0) & (mean < 1.0) & (k > 0.0)
    return (mean * k - A if ok else 0.0), ((1.0 - mean) * k - B if ok else 0.0)


# --- the same solve for many problems at once (SIMD lanes) ---------------------------------------

#: problems solved together by :func:`solve_beta_changes` (a compile-time constant: the fields of the
#: work buffer sit LANES apart, so LLVM can prove them disjoint and turn the loops into SIMD loops)
LANES = 64
#: fields of the work buffer, each LANES long: the inputs (cavity A, B, log-moment changes R1, R2,
#: starting guess U0, V0), what depends on the cavity only (inverses, psi tails and the first two
#: derivatives of the tails for tiny moves, tolerance) and the iteration's state (change U, V,
#: residuals F1, F2 and RES, inverses at the current point, FLAG: 0 iterating, 1 done, 2 left to
#: the scalar solver)
(A_, B_, R1, R2, U0, V0, INV_A, INV_B, INV_S, TAIL_A, TAIL_B, TAIL_S, D1_A, D1_B, D1_S, D2_A, D2_B, D2_S,
 TOL, U, V, F1, F2, RES, CUR_A, CUR_B, CUR_S, FLAG) = range(28)
WORK_SIZE = 28 * LANES
#: lockstep Newton rounds before the lanes still iterating go to the scalar solver
LANE_ROUNDS = 3


@njit(cache=True, inline="always", error_model="numpy")
def _tail_move(x, tail_x, d1_x, d2_x, d, inv_y):
    """T(x + d) - T(x), T = psi - log, for x, x + d >= 10 (inv_y = 1/(x + d)); for |d| < 1e-6 x,
    where the difference would cancel, the Taylor series d T'(x) + d^2 T''(x) / 2 (the rule of
    :func:`~fsengine.methods.rtm.special.digamma_diff`; d1_x = T'(x), d2_x = T''(x))."""
    taylor = d * (d1_x + 0.5 * d * d2_x)
    plain = psi_tail_inv(inv_y) - tail_x
    return taylor if abs(d) < 1e-6 * x else plain


@njit(cache=True, inline="always", error_model="numpy")
def _lane_residual(work, q, A, B, S, u, v, r1, r2):
    """(F1, F2, usable, 1/(A+u), 1/(B+v), 1/(S+u+v)) of the system in the module docstring at the
    change (u, v), branch-free: psi(A + u) - psi(A) - [psi(S + w) - psi(S)] = log1p(z1) + tail
    moves, z1 = (u B - v A) / (A (S + w)) (the two log1p terms joined), likewise z2 = -(u B - v A) /
    (B (S + w)). ``usable``: every point >= 10 and |z| <= 1/10 (else the lane goes to the scalar
    solver). The cavity's terms are read from lane q of ``work``."""
    L = LANES
    w = u + v
    ja = 1.0 / (A + u)
    jb = 1.0 / (B + v)
    js = 1.0 / (S + w)
    num = (u * B - v * A) * js
    z1 = num * work[INV_A * L + q]
    z2 = -num * work[INV_B * L + q]
    tail_s_move = _tail_move(S, work[TAIL_S * L + q], work[D1_S * L + q], work[D2_S * L + q], w, js)
    f1 = (log1p_series(z1) + _tail_move(A, work[TAIL_A * L + q], work[D1_A * L + q], work[D2_A * L + q], u, ja)
          - tail_s_move - r1)
    f2 = (log1p_series(z2) + _tail_move(B, work[TAIL_B * L + q], work[D1_B * L + q], work[D2_B * L + q], v, jb)
          - tail_s_move - r2)
    usable = ((A + u >= ASYMPTOTIC_FROM) & (B + v >= ASYMPTOTIC_FROM) & (abs(z1) <= LOG1P_SERIES_MAX)
              & (abs(z2) <= LOG1P_SERIES_MAX))
    return f1, f2, usable, ja, jb, js


@njit(cache=True, error_model="numpy")
def solve_beta_changes(work, k):
    """:func:`solve_beta_change` for the k <= LANES problems in ``work`` (fields ``A_``, ``B_``,
    ``R1``, ``R2``, ``U0``, ``V0`` of lanes 0..k-1); the changes come back in fields ``U``, ``V``.

    The same iteration, run in lockstep over the lanes without branches so that it vectorises:
    the start is the better of no change and the guess, then full Newton steps, each accepted when
    it lowers the residual; a lane stops at the relative tolerance, or, once near the solution,
    when a full step no longer lowers the residual (working precision). The residual of a lane is
    evaluated in the asymptotic region (every Beta parameter >= 10; :func:`_lane_residual`); a
    lane outside it, one that needs a line search, or one still iterating after
    :data:`LANE_ROUNDS` rounds is solved by :func:`solve_beta_change` itself. Both evaluate the
    same equations, so the answers agree to the tolerance (tested against it and scipy).
    """
    L = LANES
    for q in range(k):
        A, B, r1, r2, u0, v0 = work[A_ * L + q], work[B_ * L + q], work[R1 * L + q], work[R2 * L + q], \
            work[U0 * L + q], work[V0 * L + q]
        S = A + B
        inv_a, inv_b, inv_s = 1.0 / A, 1.0 / B, 1.0 / S
        work[INV_A * L + q], work[INV_B * L + q], work[INV_S * L + q] = inv_a, inv_b, inv_s
        work[TAIL_A * L + q], work[TAIL_B * L + q], work[TAIL_S * L + q] = \
            psi_tail_inv(inv_a), psi_tail_inv(inv_b), psi_tail_inv(inv_s)
        # T' = psi' - 1/x and T'' = psi'' + 1/x^2 at the cavity, for the tiny moves of _tail_move
        work[D1_A * L + q] = trigamma_inv(inv_a) - inv_a
        work[D1_B * L + q] = trigamma_inv(inv_b) - inv_b
        work[D1_S * L + q] = trigamma_inv(inv_s) - inv_s
        work[D2_A * L + q] = tetragamma_inv(inv_a) + inv_a * inv_a
        work[D2_B * L + q] = tetragamma_inv(inv_b) + inv_b * inv_b
        work[D2_S * L + q] = tetragamma_inv(inv_s) + inv_s * inv_s
        scale = abs(r1) + abs(r2)
        work[TOL * L + q] = RELATIVE_TOL * scale
        g1, g2, usable, ja, jb, js = _lane_residual(work, q, A, B, S, u0, v0, r1, r2)
        better = abs(g1) + abs(g2) < scale
        work[U * L + q] = u0 if better else 0.0
        work[V * L + q] = v0 if better else 0.0
        work[F1 * L + q] = g1 if better else -r1
        work[F2 * L + q] = g2 if better else -r2
        work[RES * L + q] = abs(g1) + abs(g2) if better else scale
        work[CUR_A * L + q] = ja if better else inv_a
        work[CUR_B * L + q] = jb if better else inv_b
        work[CUR_S * L + q] = js if better else inv_s
        in_region = (A >= ASYMPTOTIC_FROM) & (B >= ASYMPTOTIC_FROM) & usable
        iterating = 0.0 if in_region else 2.0
        work[FLAG * L + q] = 1.0 if scale == 0.0 else iterating
    for _ in range(LANE_ROUNDS):
        n_iterating = 0
        for q in range(k):
            A, B, r1, r2 = work[A_ * L + q], work[B_ * L + q], work[R1 * L + q], work[R2 * L + q]
            S = A + B
            u, v, f1, f2, res, flag = work[U * L + q], work[V * L + q], work[F1 * L + q], work[F2 * L + q], \
                work[RES * L + q], work[FLAG * L + q]
            active = (flag == 0.0) & (res > work[TOL * L + q])
            t_s = trigamma_inv(work[CUR_S * L + q])
            j11 = trigamma_inv(work[CUR_A * L + q]) - t_s
            j22 = trigamma_inv(work[CUR_B * L + q]) - t_s
            det = j11 * j22 - t_s * t_s
            un = u - (j22 * f1 + t_s * f2) / det
            vn = v - (t_s * f1 + j11 * f2) / det
            g1, g2, usable, ja, jb, js = _lane_residual(work, q, A, B, S, un, vn, r1, r2)
            new_res = abs(g1) + abs(g2)
            accept = active & usable & (new_res < res)
            work[U * L + q] = un if accept else u
            work[V * L + q] = vn if accept else v
            work[F1 * L + q] = g1 if accept else f1
            work[F2 * L + q] = g2 if accept else f2
            work[RES * L + q] = new_res if accept else res
            work[CUR_A * L + q] = ja if accept else work[CUR_A * L + q]
            work[CUR_B * L + q] = jb if accept else work[CUR_B * L + q]
            work[CUR_S * L + q] = js if accept else work[CUR_S * L + q]
            # a full step that did not lower the residual: at working precision when already near
            # the solution (done, as in solve_beta_change), else a line search (scalar solver)
            stalled = 1.0 if (res <= NEAR * (abs(r1) + abs(r2))) & usable else 2.0
            work[FLAG * L + q] = flag if (not active) | accept else stalled
            n_iterating += accept & (new_res > work[TOL * L + q])
        if n_iterating == 0:
            break
    for q in range(k):
        flag = work[FLAG * L + q]
        if flag == 2.0 or (flag == 0.0 and work[RES * L + q] > work[TOL * L + q]):
            u, v, _, _ = solve_beta_change(work[A_ * L + q], work[B_ * L + q], work[R1 * L + q], work[R2 * L + q],
                                           work[U0 * L + q], work[V0 * L + q])
            work[U * L + q] = u
            work[V * L + q] = v
