"""Anderson-accelerated sweeps (:mod:`fsengine.methods.rtm.anderson`): the mixer solves a linear
fixed-point problem (against its closed form), and the accelerated Power EP, EP and EM fits reach
the plain damped iteration's fixed point, on synthetic and real tags, and stop at the default
tolerance no farther from it than the plain iteration does."""

from dataclasses import replace

import numpy as np
import pytest

from fsengine.data import load_dataset
from fsengine.data.synthetic.rtm import make_rtm
from fsengine.data.transforms import binarize_features
from fsengine.methods.rtm import RTMSettings, fit_rtm, suggested_settings, tags_from
from fsengine.methods.rtm.anderson import _BLOCK, AndersonMixer, _combine, _record
from tests.conftest import require_real

#: run to this tolerance on the change per sweep, a fit is at its fixed point to ~1e-8
TIGHT = 1e-10
PLAIN = 0  # anderson_memory of the plain damped sweeps


def _linear_map(n=40, seed=0):
    """x -> M x + b with M's spectrum the RTM sweeps' worst case: a slowly turning pair of
    eigenvalues of modulus 0.995 beside fast real ones."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    D = np.diag(rng.uniform(-0.5, 0.8, n))
    angle = 2 * np.pi / 75
    D[:2, :2] = 0.995 * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    M = Q @ D @ Q.T
    b = rng.normal(size=n)
    return M, b, np.linalg.solve(np.eye(n) - M, b)


def _iterate(M, b, mixer, tol=1e-10, max_iter=5000):
    x = np.zeros(b.size)
    for it in range(1, max_iter + 1):
        fx = M @ x + b
        if np.abs(fx - x).max() < tol:
            return fx, it
        x = fx if mixer is None else mixer.propose(x, fx).copy()
    return x, max_iter


def test_the_mixer_finds_a_linear_maps_fixed_point_in_far_fewer_steps():
    M, b, exact = _linear_map()
    plain, plain_steps = _iterate(M, b, None)
    mixed, mixed_steps = _iterate(M, b, AndersonMixer(b.size))
    np.testing.assert_allclose(plain, exact, atol=1e-7)
    np.testing.assert_allclose(mixed, exact, atol=1e-9)
    assert mixed_steps * 10 < plain_steps


def test_the_mixer_restarts_when_the_residual_grows():
    mixer = AndersonMixer(3, memory=2)
    out = mixer.propose(np.zeros(3), np.ones(3))
    assert np.array_equal(out, np.ones(3))  # no history: the plain step
    mixer.propose(np.ones(3), np.full(3, 1.5))
    assert mixer.filled == 1 and mixer.restarts == 0
    out = mixer.propose(np.ones(3), np.full(3, 10.0))  # a residual 18 times the smallest
    assert mixer.restarts == 1 and mixer.filled == 0 and np.array_equal(out, np.full(3, 10.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_one_pass_bookkeeping_equals_numpy(dtype):
    """_record's differences and dot products and _combine's step against numpy, over a state that
    ends in a partial block (float32 history: the products of the rounded rows, summed in float64)."""
    rng = np.random.default_rng(3)
    n, memory, k, used = 3 * _BLOCK + 17, 4, 2, 3
    start, output, last_residual, last_output = (rng.normal(size=n) for _ in range(4))
    d_residual, d_output = rng.normal(size=(memory, n)).astype(dtype), rng.normal(size=(memory, n)).astype(dtype)
    column, rhs = np.full(memory, np.nan), np.full(memory, np.nan)
    g = output - start
    expected_dr, expected_do = (g - last_residual).astype(dtype), (output - last_output).astype(dtype)
    old_residual = last_residual.copy()
    size = _record(start, output, last_residual, last_output, d_residual, d_output, k, used, True, column, rhs)
    assert size == pytest.approx(np.linalg.norm(g), rel=1e-12)
    np.testing.assert_array_equal(d_residual[k], expected_dr)
    np.testing.assert_array_equal(d_output[k], expected_do)
    np.testing.assert_array_equal(last_residual, g)
    np.testing.assert_array_equal(last_output, output)
    rows = d_residual[:used].astype(np.float64)
    np.testing.assert_allclose(column[:used], rows @ rows[k], rtol=1e-12)
    np.testing.assert_allclose(rhs[:used], rows @ g, rtol=1e-12)
    assert not np.allclose(old_residual, g)
    gamma = rng.normal(size=used)
    out, copy = np.empty(n), np.empty(n)
    _combine(output, gamma, d_output[:used], out, copy)
    np.testing.assert_allclose(out, output - gamma @ d_output[:used].astype(np.float64), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(copy, out)
    in_place = output.copy()
    _combine(in_place, gamma, d_output[:used], in_place, copy)  # the fit's use: the step overwrites the output
    np.testing.assert_array_equal(in_place, out)


@pytest.fixture(scope="module")
def synthetic():
    ds = make_rtm(n_samples=300, n_tags=60, n_relevant=8, tag_rate=0.1, seed=1)
    return tags_from(ds.X), ds.y.astype(float), RTMSettings()


@pytest.fixture(scope="module")
def pixels():
    """A small real subset: binarised notMNIST B vs D, 30 images a letter, the registry's settings."""
    ds = require_real(load_dataset, "notmnist:letters=BD,n_per_class=30")
    tags = tags_from(binarize_features(ds).X, None)
    y01 = (ds.y == np.unique(ds.y)[1]).astype(float)
    return tags, y01, suggested_settings(tags.nnz / tags.n_objects)


CASES = ["synthetic", "pixels"]
#: EP integrates every site numerically (the slow one)
METHOD_PARAMS = [pytest.param("ep", marks=pytest.mark.slow), "power_ep", "em"]


@pytest.fixture(scope="module")
def fits(request):
    """``fit(case, method, tight, memory)``: the fit of a case's tags, at tol TIGHT or the default,
    with the plain sweeps (memory PLAIN) or the default Anderson step; each computed once."""
    done = {}

    def fit(case, method, tight, memory=None):
        key = (case, method, tight, memory)
        if key not in done:
            tags, y, settings = request.getfixturevalue(case)
            s = replace(settings, method=method, max_iter=20_000 if tight else 5_000)
            s = replace(s, tol=TIGHT) if tight else s
            done[key] = fit_rtm(tags, y, s if memory is None else replace(s, anderson_memory=memory))
        return done[key]

    return fit


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("method", METHOD_PARAMS)
def test_the_accelerated_sweeps_reach_the_plain_iterations_fixed_point(fits, case, method):
    plain, fast = fits(case, method, True, PLAIN), fits(case, method, True)
    assert plain.converged and fast.converged
    assert not plain.trace.extrapolated.any() and fast.trace.extrapolated.any()
    np.testing.assert_allclose(fast.theta_mean, plain.theta_mean, rtol=0, atol=1e-7)
    np.testing.assert_allclose(fast.A, plain.A, rtol=1e-6)
    assert fast.n_iter < plain.n_iter


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("method", METHOD_PARAMS)
def test_at_the_default_tolerance_the_accelerated_fit_stops_no_farther_from_the_fixed_point(fits, case, method):
    """The stopping rule (change per sweep below tol) is the same; the accelerated fit must end at
    least as close to the plain iteration's fixed point as the plain one does, in fewer sweeps."""
    fixed = fits(case, method, True, PLAIN).theta_mean
    plain, fast = fits(case, method, False, PLAIN), fits(case, method, False)
    assert plain.converged and fast.converged
    assert fast.trace.max_change.iloc[-1] < fast.settings.tol
    assert np.abs(fast.theta_mean - fixed).max() <= np.abs(plain.theta_mean - fixed).max()
    assert fast.n_iter <= plain.n_iter


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 60 sweeps: any state will do
@pytest.mark.parametrize("method", ["power_ep", "em"])
def test_ard_fits_run_the_plain_sweeps(synthetic, method):
    """The ARD's step halving depends on the path, so ARD fits keep the plain sweeps: the same fit
    whatever anderson_memory says."""
    tags, y, settings = synthetic
    s = replace(settings, method=method, ard=True, max_iter=60)
    default, plain = fit_rtm(tags, y, s), fit_rtm(tags, y, replace(s, anderson_memory=PLAIN))
    assert not default.trace.extrapolated.any()
    assert np.array_equal(default.A, plain.A) and np.array_equal(default.alpha, plain.alpha)


def test_a_negative_memory_is_refused():
    with pytest.raises(ValueError, match="anderson_memory"):
        RTMSettings(anderson_memory=-1)


def test_a_huge_memory_is_refused_before_any_allocation():
    """A declared memory of 10^9 residuals (834 GiB of history on notMNIST) is an error, not a MemoryError."""
    from fsengine.methods.rtm.anderson import MAX_MEMORY
    from fsengine.selectors import RTMSelector

    with pytest.raises(ValueError, match=f"up to {MAX_MEMORY} residuals"):
        RTMSettings(anderson_memory=10**9)
    X = np.random.default_rng(0).integers(0, 2, (40, 5))
    with pytest.raises(ValueError, match="anderson_memory"):
        RTMSelector(anderson_memory=MAX_MEMORY + 1).fit(X, X[:, 0])
    assert RTMSettings(anderson_memory=MAX_MEMORY).anderson_memory == MAX_MEMORY
