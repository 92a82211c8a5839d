"""Data larger than memory: MI and BIA on row-chunked dask arrays give the in-memory results
(within 1e-8), in a process whose data segment is capped below the array's size; the chunked
loaders (.npy memmap, Zarr)."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.feature_selection import mutual_info_classif

from fsengine.data import open_chunked
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.classic.selector import MDLSelector, MutualInfoSelector

da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def data():
    """Correlated columns far from zero mean (the centred merge matters), uneven row blocks."""
    rng = np.random.default_rng(4)
    n, p = 3001, 24
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) * 0.3 + 5.0
    y = (X[:, 0] - X[:, 3] + rng.normal(size=n) > 0).astype(int)
    return X, y, da.from_array(X, chunks=((700, 1001, 300, 1000), (10, 14)))


@pytest.mark.parametrize("family", ["logistic", "linear", "poisson"])
def test_bia_on_a_dask_array_equals_the_in_memory_fit(data, family):
    X, y, Xd = data
    target = {"logistic": np.where(y == 1, "yes", "no"), "linear": X[:, 1] - X[:, 5], "poisson": 3 * y + 1}[family]
    # float64 couplings on both sides: the same numbers to round-off (float32, the default, adds a
    # rounding of each coupling on each side: tests/methods/bia/test_model.py bounds its effect)
    expected = BIASelector(family=family, n_steps=40, coupling_dtype="float64").fit(X, target)
    for y_given in (target, da.from_array(target, chunks=500)):
        got = BIASelector(family=family, n_steps=40, coupling_dtype="float64").fit(Xd, y_given)
        np.testing.assert_allclose(got.scores_, expected.scores_, rtol=0, atol=1e-8)
        np.testing.assert_allclose(got.path_.to_numpy(), expected.path_.to_numpy(), rtol=0, atol=1e-8)
        np.testing.assert_allclose(got.couplings_, expected.couplings_, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(got.order_, expected.order_)
        assert got.n_features_in_ == X.shape[1] and got.lambda_star_ == pytest.approx(expected.lambda_star_)
    default = BIASelector(family=family, n_steps=40).fit(Xd, target)
    assert default.couplings_.dtype == np.float32
    np.testing.assert_allclose(default.scores_, expected.scores_, rtol=0, atol=1e-6)


def test_mi_on_a_dask_array_equals_the_in_memory_fit(data):
    X, y, Xd = data
    binary = (X > 5.0).astype(np.float32)
    for Xg, kw in ((da.from_array(binary, chunks=(777, 24)), {}), (Xd, {"binarize": 5.0})):
        expected = MutualInfoSelector(**kw).fit(binary if not kw else X, y)
        got = MutualInfoSelector(**kw).fit(Xg, da.from_array(y, chunks=1000))
        np.testing.assert_allclose(got.scores_, expected.scores_, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(got.order_, expected.order_)
        assert got.binarization_ == expected.binarization_
    np.testing.assert_allclose(got.scores_, mutual_info_classif(binary, y, discrete_features=True), atol=1e-12)


def test_bad_dask_input_gets_a_clear_error(data):
    X, y, Xd = data
    with pytest.raises(ValueError, match="needs binary features .* Pass binarize=<threshold>"):
        MutualInfoSelector().fit(Xd, y)
    with pytest.raises(ValueError, match="binarize='auto' needs the column medians"):
        MutualInfoSelector(binarize="auto").fit(Xd, y)
    with pytest.raises(ValueError, match="exactly two classes, got 3"):
        BIASelector().fit(Xd, y + (X[:, 0] > 6))
    with pytest.raises(ValueError, match=r"one label per row of X \(3001\)"):
        BIASelector().fit(Xd, y[:-1])
    constant = da.concatenate([Xd, da.ones((X.shape[0], 1), chunks=(1000, 1))], axis=1)
    with pytest.raises(ValueError, match="x24"):
        BIASelector().fit(constant, y)
    with pytest.raises(TypeError, match="MDLSelector needs X in memory"):
        MDLSelector().fit(Xd, y)


def test_open_chunked_reads_npy_memmaps_and_zarr_stores(tmp_path, data):
    X, y, _ = data
    np.save(tmp_path / "X.npy", X)
    lazy = open_chunked(tmp_path / "X.npy", chunk_rows=512)
    assert lazy.chunks[0][0] == 512 and lazy.numblocks[1] == 1
    np.testing.assert_array_equal(lazy.compute(), X)
    zarr = pytest.importorskip("zarr")
    store = zarr.open_array(str(tmp_path / "X.zarr"), mode="w", shape=X.shape, chunks=(400, 10), dtype=X.dtype)
    store[:] = X
    lazy = open_chunked(tmp_path / "X.zarr")
    assert lazy.chunks[0][0] == 400 and lazy.numblocks[1] == 1
    np.testing.assert_allclose(BIASelector(n_steps=20).fit(lazy, y).scores_,
                               BIASelector(n_steps=20).fit(X, y).scores_, rtol=0, atol=1e-8)
    (tmp_path / "X.csv").write_text("1,2\n")
    with pytest.raises(ValueError, match="reads .npy files and Zarr stores"):
        open_chunked(tmp_path / "X.csv")
    with pytest.raises(FileNotFoundError, match="no such file"):
        open_chunked(tmp_path / "missing.npy")


#: run in a fresh interpreter: warm up, cap the data segment, fit on a lazily generated array larger
#: than the cap (a periodic one: every block repeats a base of BASE rows, so the statistics of the
#: whole array are known exactly from the base)
CAPPED = textwrap.dedent('''
    import json, re, resource, sys
    import dask, dask.array as da, numpy as np
    from fsengine.methods.bia.selector import BIASelector
    from fsengine.methods.classic.selector import MDLSelector, MutualInfoSelector

    dask.config.set(scheduler="synchronous")
    BASE, P, REPEAT = 1000, 40, 100              # a block is the base repeated 100 times (32 MB)
    rng = np.random.default_rng(0)
    base = rng.random((BASE, P))
    labels = (base[:, 0] + base[:, 1] - base[:, 2] + 0.3 * rng.random(BASE) > 0.9).astype(np.int8)

    def data_segment_mb():
        return int(re.search(r"VmData:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) // 1024

    def lazy(blocks):
        rows = BASE * REPEAT
        X = da.map_blocks(lambda b: np.tile(base, (REPEAT, 1)), da.zeros((blocks * rows, P), chunks=(rows, P)),
                          dtype=np.float64)
        y = da.map_blocks(lambda b: np.tile(labels, REPEAT), da.zeros(blocks * rows, chunks=rows, dtype=np.int8),
                          dtype=np.int8)
        return X, y

    X, y = lazy(2)                                # warm-up: compile and allocate what a fit needs
    MutualInfoSelector(binarize=0.5).fit(X, y)
    BIASelector(n_steps=20).fit(X, y)
    limit = (data_segment_mb() + 300) * 1024**2
    blocks = int(1.2 * limit / (BASE * REPEAT * P * 8)) + 1
    X, y = lazy(blocks)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    try:
        np.ones(X.shape)                         # the whole array does not fit: the cap works
        sys.exit("the cap did not stop a whole-array allocation")
    except MemoryError:
        pass
    mi = MutualInfoSelector(binarize=0.5).fit(X, y)
    bia = BIASelector(n_steps=20).fit(X, y)
    exp = bia.model_.expansion
    print(json.dumps({"limit": limit, "nbytes": X.nbytes, "n": int(X.shape[0]), "mi": mi.scores_.tolist(),
                      "mean": exp.standardization.mean.tolist(), "scale": exp.standardization.scale.tolist(),
                      "b_per_row": (exp.b / exp.n).tolist(), "rms": bia.rms_correlation_,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
''')


@pytest.mark.slow
def test_fits_on_an_array_larger_than_the_process_may_hold():
    run = subprocess.run([sys.executable, "-c", CAPPED], capture_output=True, text=True, timeout=600,
                         # one BLAS thread, and Arrow's system allocator: its default pool reserves 1 GB of
                         # address space the first time pandas touches it, which the cap would count
                         env={"OPENBLAS_NUM_THREADS": "1", "ARROW_DEFAULT_MEMORY_POOL": "system",
                              "PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["nbytes"] > out["limit"], out
    # the reference: statistics of the base, which every block repeats (proportions, means,
    # standard deviations, correlations and b / n do not change under exact repetition)
    rng = np.random.default_rng(0)
    base = rng.random((1000, 40))
    labels = (base[:, 0] + base[:, 1] - base[:, 2] + 0.3 * rng.random(1000) > 0.9).astype(np.int8)
    np.testing.assert_allclose(out["mi"], mutual_info_classif(base > 0.5, labels, discrete_features=True),
                               rtol=0, atol=1e-8)
    small = BIASelector(n_steps=20).fit(base, labels)
    ref = small.model_.expansion
    np.testing.assert_allclose(out["mean"], ref.standardization.mean, rtol=0, atol=1e-8)
    np.testing.assert_allclose(out["scale"], ref.standardization.scale, rtol=0, atol=1e-8)
    np.testing.assert_allclose(out["b_per_row"], ref.b / ref.n, rtol=0, atol=1e-8)
    assert out["rms"] == pytest.approx(small.rms_correlation_, abs=1e-8)
