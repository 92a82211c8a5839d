"""The BIA model (fsengine.methods.bia.model) against exact references: Ising enumeration,
closed-form linear evidence, Laplace evidence; and its mean-field path against a plain numpy
recursion.

Every reference is independent code (fsengine.references); the errors are printed (``-s``) so the
numbers can be read off a test run.
"""

import itertools

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import multivariate_normal

from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.glm import prior_mean_expansion
from fsengine.methods.bia import kernels as bia_kernels
from fsengine.methods.bia import memory
from fsengine.methods.bia.model import (
    DEFAULT_STEPS,
    PATH_REPORTS,
    build_bia_model,
    model_from_expansion,
    solve_mean_field,
)
from fsengine.methods.registry import method_defaults
from fsengine.progress import StopRequested
from fsengine.references.ising_exact import exact_magnetizations
from fsengine.references.laplace_evidence import laplace_inclusion_probabilities, laplace_log_evidence
from fsengine.references.linear_evidence import linear_inclusion_probabilities, linear_log_evidence
from fsengine.references.subsets import subset_masks

RATIOS = np.array([1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0])  # a decade of Lambda/Lambda* above 1


def _random_ising(p, rng):
    h = rng.uniform(-0.6, 0.6, p)
    J = rng.normal(0.0, 1.0 / np.sqrt(p), (p, p))
    J = np.triu(J, 1)
    return h, J + J.T


# --- the references themselves ---------------------------------------------------------------

def test_ising_enumeration_matches_brute_force_sum():
    rng = np.random.default_rng(0)
    h, J = _random_ising(5, rng)
    states = np.array(list(itertools.product([-1.0, 1.0], repeat=5)))
    energy = states @ h + 0.5 * np.einsum("si,ij,sj->s", states, J, states)
    w = np.exp(energy)
    m, log_z = exact_magnetizations(h, J)
    np.testing.assert_allclose(m, w @ states / w.sum(), atol=1e-12)
    assert log_z == pytest.approx(np.log(w.sum()), abs=1e-12)
    with pytest.raises(ValueError, match="p <= 20"):
        exact_magnetizations(np.zeros(21), np.zeros((21, 21)))


def test_linear_closed_form_matches_gaussian_marginal_likelihood():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    y = X[:, 0] - 0.5 * X[:, 2] + rng.normal(size=30)
    lambdas = [20.0, 300.0]
    masks, log_ev = linear_log_evidence(X, y, lambdas)
    Z = (X - X.mean(0)) / X.std(0)
    yc = y - y.mean()
    s2 = yc.var()
    null = multivariate_normal(np.zeros(30), s2 * np.eye(30)).logpdf(yc)
    for t in (1, 6, 15):
        Zs = Z[:, masks[t]]
        for li, lam in enumerate(lambdas):
            cov = s2 * np.eye(30) + Zs @ Zs.T / lam  # y = Z theta + noise, theta ~ N(0, I/lam)
            ref = multivariate_normal(np.zeros(30), cov).logpdf(yc) - null
            assert log_ev[li, t] == pytest.approx(ref, abs=1e-9)


def test_laplace_reference_matches_quadrature_for_one_feature():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(200, 1))
    y = (rng.random(200) < 1 / (1 + np.exp(-0.7 * x[:, 0]))).astype(float)
    z = (x[:, 0] - x[:, 0].mean()) / x[:, 0].std()
    t0 = np.log(y.mean() / (1 - y.mean()))

    def loglik(t):
        eta = t0 + z * t
        return np.sum(y * eta - np.logaddexp(0, eta))

    for lam in (300.0, 3000.0):
        exact = np.log(quad(lambda t: np.exp(loglik(t) - loglik(0) - lam * t * t / 2)
                            * np.sqrt(lam / (2 * np.pi)), -1, 1, points=[0], limit=200)[0])
        _, log_ev = laplace_log_evidence(x, y, "logistic", [lam])
        assert log_ev[0, 1] == pytest.approx(exact, abs=2e-4 * max(1.0, abs(exact)))


# --- the derivation: indicator substitution is exact for the O(eps^2) evidence ----------------

@pytest.mark.parametrize("family", ["linear", "logistic", "poisson"])
def test_ising_energy_equals_second_order_evidence_for_every_subset(family):
    """Eq. (8) evaluated directly from traces over each subset vs the Ising energy of its spins."""
    ds = make_sparse_glm(family, n=120, p=6, k=2, rho=0.4, seed=3)
    exp = prior_mean_expansion(family, ds.X, ds.y)
    H, b = exp.hessian(), exp.b
    model = build_bia_model(ds.X, ds.y, family, lambda_ref_ratio=2.0, coupling_dtype="float64")
    for ratio in (0.7, 3.0):
        eps = 1.0 / (ratio * model.lambda_star)
        diffs = []
        for mask in subset_masks(6):
            Hs, bs = H[np.ix_(mask, mask)], b[mask]
            eq8 = eps / 2 * (np.trace(Hs) + bs @ bs) + eps**2 / 2 * (0.5 * np.sum(Hs**2) + bs @ Hs @ bs)
            diffs.append(eq8 - model.log_odds(np.where(mask, 1.0, -1.0), ratio))
        assert np.ptp(diffs) < 1e-12 * max(1.0, np.abs(diffs).max())


# --- mean field vs exact Ising marginals as couplings weaken ----------------------------------

def test_mean_field_approaches_exact_marginals_as_couplings_weaken():
    rng = np.random.default_rng(4)
    p = 16
    h, J = _random_ising(p, rng)
    errors = []
    for gamma in (1.0, 0.5, 0.25, 0.125, 0.0625):
        exact, _ = exact_magnetizations(h, gamma * J)
        mf = solve_mean_field(h, J, scale=gamma, tol=1e-13)
        assert mf.converged
        errors.append(np.abs(mf.m - exact).max())
    print("\nmean field vs exact Ising (p=16), max |m_mf - m_exact| at J x gamma:",
          {g: round(float(e), 6) for g, e in zip((1.0, 0.5, 0.25, 0.125, 0.0625), errors)})
    assert all(a > b for a, b in zip(errors, errors[1:]))
    # naive mean field is exact to first order in J: the error falls like gamma^2
    assert errors[-1] / errors[-2] < 0.3
    assert errors[-1] < 0.01 * errors[0]


# --- BIA posterior vs exact posterior (linear, closed form) -----------------------------------

@pytest.fixture(scope="module")
def linear_case():
    ds = make_sparse_glm("linear", n=150, p=12, k=3, rho=0.4, signal=0.6, seed=5)
    model = build_bia_model(ds.X, ds.y, "linear")
    exact = linear_inclusion_probabilities(ds.X, ds.y, RATIOS * model.lambda_star)
    bia = np.array([model.solve(r).posterior for r in RATIOS])
    return ds, model, exact, bia


def test_bia_converges_to_exact_linear_posterior(linear_case):
    _, _, exact, bia = linear_case
    abs_err = np.abs(bia - exact).max(axis=1)
    rel_err = abs_err / np.abs(exact - 0.5).max(axis=1)
    print("\nlinear, Lambda/Lambda*:", RATIOS.tolist())
    print("  max |p_bia - p_exact|:", np.round(abs_err, 6).tolist())
    print("  relative to max |p_exact - 1/2|:", np.round(rel_err, 5).tolist())
    assert np.all(np.diff(abs_err) < 0) and np.all(np.diff(rel_err) < 0)
    assert rel_err[-1] < 0.01 and rel_err[-1] < rel_err[0] / 20


def test_ranking_at_ten_lambda_star_matches_exact_for_relevant_features(linear_case):
    ds, _, exact, bia = linear_case
    at10 = RATIOS.tolist().index(10.0)
    rank_bia = np.argsort(-bia[at10], kind="stable")
    rank_exact = np.argsort(-exact[at10], kind="stable")
    k = int(ds.truth.sum())
    # the exact posterior puts the truly relevant features on top; the BIA agrees, in order
    assert set(rank_exact[:k]) == set(np.flatnonzero(ds.truth))
    assert rank_bia[:k].tolist() == rank_exact[:k].tolist()
    relevant = np.flatnonzero(ds.truth)
    assert [int(np.flatnonzero(rank_bia == j)[0]) for j in relevant] == \
        [int(np.flatnonzero(rank_exact == j)[0]) for j in relevant]


# --- BIA vs Laplace evidence (logistic) ---------------------------------------------------------

def test_bia_converges_to_laplace_posterior_for_logistic():
    ds = make_sparse_glm("logistic", n=300, p=7, k=2, rho=0.4, signal=1.0, seed=6)
    model = build_bia_model(ds.X, ds.y, "logistic")
    ratios = np.array([1.0, 2.0, 5.0, 10.0])
    ref = laplace_inclusion_probabilities(ds.X, ds.y, "logistic", ratios * model.lambda_star)
    bia = np.array([model.solve(r).posterior for r in ratios])
    abs_err = np.abs(bia - ref).max(axis=1)
    rel_err = abs_err / np.abs(ref - 0.5).max(axis=1)
    print("\nlogistic vs Laplace, Lambda/Lambda*:", ratios.tolist(),
          "max |dp|:", np.round(abs_err, 6).tolist(), "relative:", np.round(rel_err, 5).tolist())
    assert np.all(np.diff(abs_err) < 0) and np.all(np.diff(rel_err) < 0)
    assert rel_err[-1] < 0.01
    assert np.argsort(-bia[-1]).tolist() == np.argsort(-ref[-1]).tolist()


# --- the mean-field path: blocks, progress, stop ---------------------------------------------------

@pytest.fixture(scope="module")
def logistic_model():
    ds = make_sparse_glm("logistic", n=200, p=9, k=3, rho=0.4, seed=8)
    return build_bia_model(ds.X, ds.y, "logistic")


def test_path_follows_the_recursion_and_blocks_change_nothing(logistic_model):
    """The path run in blocks (for progress) equals one kernel call bit for bit, and a plain numpy
    recursion m_k = tanh(eps_k alpha + eps_k^2 beta + (eps_k/eps_ref)^2 J m_{k-1}) to 1e-12."""
    model = logistic_model
    n_steps = 137  # not a multiple of the block size
    path = model.path(0.05, n_steps)
    np.testing.assert_allclose(path.lambda_ratio, 1.0 / (0.05 * np.arange(1, n_steps + 1)), rtol=1e-15)
    whole, whole_dm = bia_kernels.mean_field_path(model.alpha, model.beta, model.couplings, model.epsilon_ref,
                                                  path.epsilon, np.zeros(model.p))
    assert np.array_equal(path.m, whole) and np.array_equal(path.max_dm, whole_dm)
    # the reference in float64 throughout (numpy 1.x's value-based casting would make a scalar times
    # the float32 couplings float32)
    J64, m, rows = model.couplings.astype(np.float64), np.zeros(model.p), []
    for eps in 1.0 / (path.lambda_ratio * model.lambda_star):
        m = np.tanh(eps * model.alpha + eps**2 * model.beta + (eps / model.epsilon_ref) ** 2 * (J64 @ m))
        rows.append(m)
    np.testing.assert_allclose(path.m, np.array(rows), atol=1e-12)
    np.testing.assert_allclose(path.max_dm, np.abs(np.diff(np.vstack([np.zeros(model.p), rows]), axis=0)).max(axis=1),
                               atol=1e-12)
    # the fixed-point residual of every row at its own Lambda, from the products the path computes
    residual = [np.abs(m - np.tanh(eps * model.alpha + eps**2 * model.beta
                                   + (eps / model.epsilon_ref) ** 2 * (J64 @ m))).max()
                for m, eps in zip(rows, path.epsilon)]
    np.testing.assert_allclose(path.residual, residual, rtol=0, atol=1e-12)


def test_path_reports_progress_and_a_stop_request_propagates(logistic_model):
    seen = []
    logistic_model.path(0.05, 200, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert len(seen) == PATH_REPORTS and fractions[-1] == 1.0
    assert all(0 < a < b <= 1 for a, b in zip(fractions, fractions[1:]))
    assert seen[0][1] == "path step 4 of 200 (Λ/Λ* = 5)"

    def stop(fraction, message):
        if fraction > 0.5:
            raise StopRequested

    with pytest.raises(StopRequested):
        logistic_model.path(0.05, 200, progress=stop)
    assert len(logistic_model.path(0.05, 3, progress=lambda f, m: seen.append(f)).m) == 3  # fewer steps than reports


def test_default_steps_are_the_registry_default():
    assert DEFAULT_STEPS == method_defaults("bia")["n_steps"] == 200


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("p", [1, 2, 3, 4, 5, 7, 8, 13, 130])
def test_matvec_reads_only_the_upper_triangle_and_equals_numpy(p, dtype):
    """The path's product J m (four rows at a time, each J_ij with i < j used for out_i and out_j)
    against numpy's J @ m in float64 to 1e-12, for p below, at and off multiples of four, float64
    and float32 couplings; nan below the diagonal and on it changes nothing (never read)."""
    rng = np.random.default_rng(p)
    _, J = _random_ising(p, rng)
    J = J.astype(dtype)
    m = rng.uniform(-1.0, 1.0, p)
    out = np.full(p, np.nan)
    bia_kernels.matvec(J, m, out)
    np.testing.assert_allclose(out, J.astype(np.float64) @ m, rtol=1e-12, atol=1e-14)
    poisoned = J.copy()
    poisoned[np.tril_indices(p)] = np.nan
    again = np.empty(p)
    bia_kernels.matvec(poisoned, m, again)
    assert np.array_equal(out, again)


# --- wide problems: couplings in blocks, float32 where float64 would not fit -------------------------

@pytest.fixture(scope="module")
def wide():
    """p = 1,300 > 2 blocks of the Gram (the last one partial), n = 150 rows."""
    ds = make_sparse_glm("logistic", n=150, p=1300, k=8, rho=0.5, seed=4)
    return ds.X, ds.y


@pytest.mark.parametrize("sparse", [False, True])
def test_couplings_built_in_blocks_equal_those_of_the_whole_gram(wide, sparse):
    """The blocked build (float64 couplings) against the whole standardised Gram turned into
    couplings in place (model_from_expansion, the path of chunked data): the same fields,
    couplings, rms correlation and Lambda*, to round-off; the couplings exactly symmetric."""
    import scipy.sparse as sp

    X, y = wide
    X = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0)) if sparse else X
    blocked = build_bia_model(X, y, "logistic", coupling_dtype="float64")
    whole = model_from_expansion(prior_mean_expansion("logistic", X, y))
    assert blocked.couplings.dtype == np.float64 and np.array_equal(blocked.couplings, blocked.couplings.T)
    np.testing.assert_allclose(blocked.alpha, whole.alpha, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(blocked.beta, whole.beta, rtol=1e-11)
    np.testing.assert_allclose(blocked.couplings, whole.couplings, rtol=1e-10,
                               atol=1e-15 * np.abs(whole.couplings).max())
    assert blocked.rms_correlation == pytest.approx(whole.rms_correlation, rel=1e-12)
    assert blocked.lambda_star == pytest.approx(whole.lambda_star, rel=1e-12)


def test_sparse_couplings_from_pairs_of_non_zeros_equal_the_dense_blocks():
    """Word-presence-like 0/1 data (p = 700: a full and a partial block), as CSR with unsorted
    indices and as a dense array: the couplings built column by column from the pairs of
    non-zeros equal the dense BLAS blocks' to 1e-12 (the Gram entries are exact counts), and so do
    alpha, the rms correlation and Lambda* (beta, a sum of both signs, to 1e-10); the couplings
    exactly symmetric, also as float32 (the default)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(11)
    n, p = 120, 700
    y = rng.integers(0, 2, n)
    X = (rng.random((n, p)) < rng.uniform(0.02, 0.3, p)).astype(float)
    X[:, :20] = np.where(rng.random((n, 20)) < 0.7, y[:, None], X[:, :20])
    X[0], X[1] = 1.0, 0.0  # no constant column
    Xs = sp.csr_matrix(X)
    for t in range(n):  # reverse each row's column indices: the kernel must not rely on sorted input
        lo, hi = Xs.indptr[t], Xs.indptr[t + 1]
        Xs.indices[lo:hi], Xs.data[lo:hi] = Xs.indices[lo:hi][::-1].copy(), Xs.data[lo:hi][::-1].copy()
    Xs.has_sorted_indices = False
    sparse, dense = (build_bia_model(data, y, "logistic", coupling_dtype="float64") for data in (Xs, X))
    assert np.array_equal(sparse.couplings, sparse.couplings.T) and not np.diag(sparse.couplings).any()
    scale = np.abs(dense.couplings).max()
    np.testing.assert_allclose(sparse.couplings, dense.couplings, rtol=1e-12, atol=1e-14 * scale)
    np.testing.assert_allclose(sparse.alpha, dense.alpha, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sparse.beta, dense.beta, rtol=1e-10)  # sums of both signs: cancellation
    assert sparse.rms_correlation == pytest.approx(dense.rms_correlation, rel=1e-12)
    assert sparse.lambda_star == pytest.approx(dense.lambda_star, rel=1e-12)
    # float32 couplings (the default): the same couplings rounded to float32
    # (below float32's smallest normal, 1e-38, to its absolute spacing there)
    sparse32 = build_bia_model(Xs, y, "logistic")
    assert sparse32.couplings.dtype == np.float32 and np.array_equal(sparse32.couplings, sparse32.couplings.T)
    np.testing.assert_allclose(sparse32.couplings, sparse.couplings, rtol=2**-23, atol=2.0**-149)


def _float32_budget(n, p, n_steps=DEFAULT_STEPS):
    """A budget (MB) that float32 couplings fit and float64 couplings do not."""
    low, high = (memory.fit_bytes(n, p, n_steps, size) / memory.MB for size in (4, 8))
    return 0.5 * (low + high)


def test_float32_couplings_keep_the_float64_posteriors(wide):
    """Where float64 couplings would not fit the budget they are float32 (a coupling rounded to
    float32, the sums in float64): along the whole path and at the self-consistent solution the
    magnetizations agree with float64 couplings to 1e-6 (here: 1e-12), and the selector's
    posteriors and ranking with them."""
    from fsengine.selectors import BIASelector

    X, y = wide
    n, p = X.shape
    budget = _float32_budget(n, p)
    wide64 = build_bia_model(X, y, "logistic", coupling_dtype="float64")
    wide32 = build_bia_model(X, y, "logistic", max_memory_mb=budget)
    assert wide32.couplings.dtype == np.float32 and wide64.couplings.dtype == np.float64
    np.testing.assert_allclose(wide32.couplings, wide64.couplings, rtol=2**-23, atol=0)
    path32, path64 = wide32.path(), wide64.path()
    gap = np.abs(path32.m - path64.m).max()
    print(f"float32 vs float64 couplings, p = {p}: largest magnetization difference on the path {gap:.1e}")
    assert gap < 1e-6
    np.testing.assert_allclose(path32.residual, path64.residual, rtol=0, atol=1e-6)
    sel32 = BIASelector().fit(X, y)
    sel64 = BIASelector(coupling_dtype="float64").fit(X, y)
    assert sel32.couplings_.dtype == np.float32
    np.testing.assert_allclose(sel32.magnetization_, sel64.magnetization_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(sel32.scores_, sel64.scores_, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(sel32.order_[:50], sel64.order_[:50])


def test_the_memory_budget_sets_the_feature_cap():
    """fit_bytes counts the couplings, the standardised copy and a Gram block of a dense X (a column
    for a sparse X) and the path; the cap is the largest p within the budget at the couplings' type
    (float32 by default), then a refusal naming the cap. The issue's gene-expression table
    (n = 200, p = 20,000) fits the default 2,048 MB."""
    n, budget = 200, memory.DEFAULT_MAX_MEMORY_MB
    for itemsize, dense in itertools.product((8, 4), (True, False)):
        cap = memory.max_features(n, budget, DEFAULT_STEPS, itemsize, dense=dense)
        assert memory.fit_bytes(n, cap, DEFAULT_STEPS, itemsize, dense=dense) <= budget * memory.MB
        assert memory.fit_bytes(n, cap + 1, DEFAULT_STEPS, itemsize, dense=dense) > budget * memory.MB
    cap64, cap32 = (memory.max_features(n, budget, DEFAULT_STEPS, size) for size in (8, 4))
    assert memory.coupling_itemsize(n, cap64, budget, DEFAULT_STEPS) == 4
    assert memory.coupling_itemsize(n, cap64, budget, DEFAULT_STEPS, dtype="float64") == 8
    assert memory.coupling_itemsize(n, 20_000, budget, DEFAULT_STEPS) == 4 < 20_000 <= cap32
    assert memory.fit_bytes(n, 20_000, DEFAULT_STEPS, 4) == 4 * 20_000**2 + 8 * 20_000 * (200 + 512 + 3 * 200)
    # a sparse X is not copied and its couplings take one Gram column at a time
    assert memory.fit_bytes(n, 20_000, DEFAULT_STEPS, 4, dense=False) == 4 * 20_000**2 + 8 * 20_000 * (1 + 3 * 200)
    with pytest.raises(memory.CouplingMemoryError, match=rf"At most {cap32:,} features fit with 200 samples;"):
        memory.coupling_itemsize(n, cap32 + 1, budget, DEFAULT_STEPS)
    with pytest.raises(memory.CouplingMemoryError, match=rf"At most {cap64:,} features fit with 200 samples "
                                                         rf"\({cap32:,} with float32 couplings, the default\)"):
        memory.coupling_itemsize(n, cap64 + 1, budget, DEFAULT_STEPS, dtype="float64")
