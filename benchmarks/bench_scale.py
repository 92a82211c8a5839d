"""Scale-out benchmarks (results: ``## Scale-out`` in benchmarks/RESULTS.md).

1. ``compare`` with 4 methods (bia, mi, l1, boosting) x 20 bootstrap resamples on notMNIST B/D:
   serial, ``n_jobs=2`` (joblib processes) and a 2-worker ``LocalCluster`` (loopback). Wall time
   of ``run_comparison`` with the workers already started (their start-up is timed apart), the
   speed-up over serial, a check that every table is identical, and the per-task costs (mean fit
   seconds per method) from which README "Scaling out" estimates a 16-worker cluster.
2. MI and BIA on a lazily generated dask.array of 2,000,000 rows x 784 float32 columns (6.3 GB;
   uniform pixels, label = x_0 + x_1 > 1): time and peak resident memory, each in a fresh process.

The machine's load average is printed next to every timing: on a shared machine the speed-up is
only meaningful when the load is below the core count.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_scale.py [--quick] [--part compare|chunked]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

METHODS = ["bia", "mi", "l1", "boosting"]
DATA = "notmnist:letters=BD"


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _same_tables(a, b, k: int) -> bool:
    import pandas as pd

    ta, tb = a.tables(k), b.tables(k)
    for name in ta:
        x, y = (t.drop(columns=[c for c in t if "seconds" in c]) for t in (ta[name], tb[name]))
        try:
            pd.testing.assert_frame_equal(x, y, check_exact=True)
        except AssertionError:
            return False
    return True


def bench_compare(quick: bool, repeats: int) -> None:
    import statistics

    import distributed
    from joblib import Parallel, delayed

    from fsengine.compare.runner import CompareSettings, run_comparison
    from fsengine.data import load_dataset
    from fsengine.parallel import _import

    resamples = 4 if quick else 20
    ds = load_dataset(DATA if not quick else "notmnist:letters=BD,n_per_class=300")
    settings = CompareSettings(n_bootstrap=resamples, max_k=50, seed=0)
    print(f"compare {','.join(METHODS)} x {resamples} resamples on {ds.name}: {ds.n_samples} rows x {ds.n_features} "
          f"features, {len(METHODS) * (1 + resamples)} fit tasks, {os.cpu_count()} cores, "
          f"median of {repeats} runs per backend")
    # every process loads the compiled kernels once before the timed runs: a small comparison
    small, warm = load_dataset("notmnist:letters=BD,n_per_class=60"), CompareSettings(n_bootstrap=2, max_k=5)
    runs, wall = {}, {}

    def timed(name: str, **where) -> None:
        seconds = []
        for _ in range(repeats):
            before = load()
            t0 = time.perf_counter()
            runs[name] = run_comparison(ds, METHODS, settings, **where)
            seconds.append(time.perf_counter() - t0)
            print(f"    {name}: {seconds[-1]:.1f} s  (before: {before}; after: {load()})", flush=True)
        wall[name] = statistics.median(seconds)
        same = "" if name == "serial" else f", identical tables: {_same_tables(runs['serial'], runs[name], 20)}"
        print(f"  {name:24s} {wall[name]:7.1f} s  speed-up {wall['serial'] / wall[name]:4.2f}x{same}", flush=True)

    run_comparison(small, METHODS, warm)
    timed("serial")
    # each parallel backend exists only while it is timed: idle workers of another backend would
    # take CPU (heartbeats) from the one measured
    t0 = time.perf_counter()
    Parallel(n_jobs=2)(delayed(_import)(("fsengine.compare.runner",)) for _ in range(4))
    print(f"  joblib: 2 workers started and the engine imported in {time.perf_counter() - t0:.1f} s  ({load()})")
    run_comparison(small, METHODS, warm, n_jobs=2)
    timed("n_jobs=2", n_jobs=2)
    from joblib.externals.loky import get_reusable_executor
    get_reusable_executor().shutdown(wait=True)
    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            client.run(_import, ("fsengine.compare.runner",))
        print(f"  LocalCluster: 2 workers started in {time.perf_counter() - t0:.1f} s  ({load()})")
        run_comparison(small, METHODS, warm, scheduler=cluster.scheduler_address)
        timed("LocalCluster 2 workers", scheduler=cluster.scheduler_address)
    runtime = runs["serial"].runtime()
    print("  per-task cost (serial run): " + ", ".join(
        f"{r.method} fit {r.fit_seconds:.2f} s, bootstrap median {r.bootstrap_median_seconds:.2f} s"
        for r in runtime.itertuples()))


CHUNKED = """
import json, resource, sys, time
import dask, dask.array as da, numpy as np
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.classic.selector import MutualInfoSelector
rows, block, which = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
X = da.random.RandomState(0).random_sample((rows, 784), chunks=(block, 784)).astype(np.float32)
y = (X[:, 0] + X[:, 1] > 1).astype(np.int8)
selector = MutualInfoSelector(binarize=0.5) if which == "mi" else BIASelector(n_steps=50)
t0 = time.perf_counter()
selector.fit(X, y)
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "gb": X.nbytes / 1e9, "top": selector.order_[:2].tolist()}))
"""


def bench_chunked(quick: bool) -> None:
    rows, block = (200_000, 25_000) if quick else (2_000_000, 25_000)
    print(f"dask.array {rows:,} rows x 784 float32 ({rows * 784 * 4 / 1e9:.1f} GB), lazily generated, blocks of "
          f"{block:,} rows, dask's threaded scheduler ({os.cpu_count()} cores)")
    for which in ("mi", "bia"):
        before = load()
        out = subprocess.run([sys.executable, "-c", CHUNKED, str(rows), str(block), which], capture_output=True,
                             text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  {which.upper():4s} {r['seconds']:7.1f} s  peak resident {r['peak_mb']:,.0f} MB for {r['gb']:.1f} GB "
              f"of data; top features {r['top']} (the label is x_0 + x_1 > 1)  (before: {before}; after: {load()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--part", choices=["compare", "chunked"], help="run one part only")
    parser.add_argument("--repeats", type=int, default=None,
                        help="timed runs per backend, the median is reported (default 3; 1 with --quick)")
    args = parser.parse_args()
    if args.part in (None, "compare"):
        bench_compare(args.quick, args.repeats or (1 if args.quick else 3))
    if args.part in (None, "chunked"):
        bench_chunked(args.quick)


if __name__ == "__main__":
    main()
