"""Benchmarks of the Relief family (results: ``## Relief family`` in benchmarks/RESULTS.md).

ReliefF (k = 10) and MultiSURF, ours (:mod:`fsengine.methods.relief`) against the fastest peer,
fast-select (numba, float32; ``pip install fast-select`` or ``pip install -e ".[bench]"``), and the
reference package skrebate, on notMNIST B vs D (2,000 x 784, dense) and the movie reviews (2,000 x
4,752 word-presence tags, sparse; fast-select and skrebate need it dense and get ``X.toarray()``,
whose time is not counted).

- warm: best of ``repeats`` fits after every kernel is compiled (both packages), the same
  process, both using numba's threads (2 here; ``--threads 1`` one), wall and CPU seconds (on one
  thread the CPU seconds are the work done, the measure to use on a shared machine);
- cold: the first fit in a fresh process (imports excluded, data loaded before the clock):
  fast-select compiles its kernels on every start (it does not cache them), ours load from numba's
  cache;
- skrebate on a seeded sample of ``skrebate_rows`` rows (it holds an n x n distance matrix and loops in
  Python per instance and feature: 80 s for ReliefF on the full notMNIST pair), ours timed on the
  same rows; ``--skrebate-rows 0`` uses every row.

Each row also says how far the answers are apart: max |ours - theirs| of the weights and how many
of our top 10 features are theirs (fast-select: float32, lower index first among equidistant
neighbours, all misses pooled in MultiSURF; skrebate: see tests/methods/relief/test_skrebate.py).

``relief_rows`` is the part ``bench_filters.py`` can call.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_relief.py [--quick] [--skrebate-rows N]
        [--threads N] [--no-skrebate] [--no-cold] [--agreement]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fsengine.data import load_dataset
from fsengine.selectors import MultiSURFSelector, ReliefFSelector

ROOT = Path(__file__).resolve().parent.parent
DATASETS = {"notMNIST B vs D": "notmnist:letters=BD,n_per_class=1000", "movie reviews": "movie_reviews"}
QUICK = {"notMNIST B vs D": "notmnist:letters=BD,n_per_class=250", "movie reviews": "movie_reviews:min_df=100"}
K = 10
LABELS = {"relieff": "ReliefF", "multisurf": "MultiSURF"}


def _ours(method):
    return ReliefFSelector(n_neighbors=K) if method == "relieff" else MultiSURFSelector()


def _fast_select(method, threads=-1):
    import fast_select

    if method == "relieff":
        return fast_select.ReliefF(n_neighbors=K, n_jobs=threads, backend="cpu")
    return fast_select.MultiSURF(n_jobs=threads, backend="cpu")


def _skrebate(method):
    import skrebate

    return skrebate.ReliefF(n_neighbors=K, n_jobs=1) if method == "relieff" else skrebate.MultiSURF(n_jobs=1)


def _fit_scores(make, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X, y)
    return np.asarray(model.scores_ if hasattr(model, "scores_") else model.feature_importances_, dtype=np.float64)


def timed(fn, repeats: int) -> tuple[float, float, object]:
    """Best wall seconds and best CPU seconds of this process (every thread's) over ``repeats``
    calls, and the last result. On one numba thread the CPU seconds are the work done, far less
    disturbed than wall seconds when other jobs share the cores."""
    wall, cpu, out = [], [], None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu), out


def _top_overlap(a, b, top=10) -> int:
    return len(set(np.argsort(-a, kind="stable")[:top].tolist()) & set(np.argsort(-b, kind="stable")[:top].tolist()))


_COLD = """
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
sys.path.insert(0, {bench!r})
from bench_relief import _fast_select, _ours
from fsengine.data import load_dataset
ds = load_dataset({spec!r})
X = ds.X.toarray() if {dense} and hasattr(ds.X, "toarray") else ds.X
make = {{"ours": _ours, "fast-select": _fast_select}}[{who!r}]
selector = make({method!r})
t0 = time.perf_counter()
selector.fit(X, ds.y)
print(json.dumps(time.perf_counter() - t0))
"""


def cold_seconds(who: str, method: str, spec: str, threads: int) -> float:
    """The first fit in a fresh Python process (imports and data loading before the clock)."""
    code = _COLD.format(bench=str(Path(__file__).resolve().parent), spec=spec, dense=who == "fast-select",
                        who=who, method=method)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": str(threads)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def relief_rows(*, quick: bool = False, repeats: int = 3, skrebate_rows: int | None = 500, cold: bool = True,
                threads: int | None = None, datasets: dict[str, str] | None = None) -> list[dict]:
    """One row per (data set, method): warm (and cold) seconds of ours and fast-select, skrebate and
    ours on a sample of ``skrebate_rows`` rows (0: all, None: skrebate not run), the ratios and the
    agreement. ``threads``: numba threads for both packages (default: numba's pool)."""
    import numba

    datasets = datasets or (QUICK if quick else DATASETS)
    threads = threads or numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(threads)
    tiny_X = np.random.default_rng(0).normal(size=(40, 6))
    tiny_y = np.arange(40) % 2
    rows = []
    for name, spec in datasets.items():
        ds = load_dataset(spec)
        X, y = ds.X, ds.y
        dense = X.toarray() if sp.issparse(X) else X
        for method in ("relieff", "multisurf"):
            for Xt in (tiny_X, sp.csr_matrix(tiny_X)):  # every kernel compiled (or loaded) before the clock
                _fit_scores(lambda: _ours(method), Xt, tiny_y)
            _fit_scores(lambda: _fast_select(method, threads), dense, y)  # fast-select compiles per data type
            ours_s, ours_cpu, ours = timed(lambda: _fit_scores(lambda: _ours(method), X, y), repeats)
            fast_s, fast_cpu, fast = timed(lambda: _fit_scores(lambda: _fast_select(method, threads), dense, y),
                                           repeats)
            row = {
                "data": name, "shape": f"{X.shape[0]:,} x {X.shape[1]:,}" + (" sparse" if sp.issparse(X) else ""),
                "method": LABELS[method], "threads": threads, "ours_s": ours_s, "fast_select_s": fast_s,
                "vs_fast_select": fast_s / ours_s, "ours_cpu_s": ours_cpu, "fast_select_cpu_s": fast_cpu,
                "vs_fast_select_cpu": fast_cpu / ours_cpu, "fast_select_max_diff": float(np.abs(ours - fast).max()),
                "fast_select_top10": _top_overlap(ours, fast),
            }
            if skrebate_rows is not None:
                m = X.shape[0] if skrebate_rows <= 0 else min(skrebate_rows, X.shape[0])
                sub = np.sort(np.random.default_rng(0).choice(X.shape[0], m, replace=False))  # both classes
                sub_X, sub_dense, sub_y = X[sub], dense[sub], y[sub]
                ours_sub_s, _, ours_sub = timed(lambda: _fit_scores(lambda: _ours(method), sub_X, sub_y), repeats)
                sk_s, _, sk = timed(lambda: _fit_scores(lambda: _skrebate(method), sub_dense, sub_y), 1)
                row.update(skrebate_rows=m, skrebate_discrete=int(_ours(method).fit(sub_X, sub_y).discrete_.sum()),
                           ours_on_skrebate_rows_s=ours_sub_s, skrebate_s=sk_s, vs_skrebate=sk_s / ours_sub_s,
                           skrebate_max_diff=float(np.abs(ours_sub - sk).max()),
                           skrebate_top10=_top_overlap(ours_sub, sk))
            if cold:
                row["ours_cold_s"] = cold_seconds("ours", method, spec, threads)
                row["fast_select_cold_s"] = cold_seconds("fast-select", method, spec, threads)
            rows.append(row)
            print(f"  {name}, {LABELS[method]}: ours {ours_s:.3f} s, fast-select {fast_s:.3f} s "
                  f"(load {load_average()})", file=sys.stderr, flush=True)
    return rows


def full_size_agreement(spec: str = DATASETS["notMNIST B vs D"]) -> list[str]:
    """Ours against skrebate on every row of ``spec``: as loaded, and with a 1e-9 jitter that breaks
    the exact distance ties of quantised pixels (values k / 255), so that skrebate's order among
    equidistant neighbours is never asked."""
    ds = load_dataset(spec)
    lines = []
    for jitter in (0.0, 1e-9):
        X = ds.X + np.random.default_rng(0).uniform(0, jitter, size=ds.X.shape) if jitter else ds.X
        for method in ("relieff", "multisurf"):
            ours = _ours(method).fit(X, ds.y)
            theirs_s, _, theirs = timed(lambda: _fit_scores(lambda: _skrebate(method), X, ds.y), 1)
            tied = int(ours.trace_["tied_instances"].sum()) if method == "relieff" else 0
            lines.append(f"{spec}, jitter {jitter:g}, {LABELS[method]}: max abs diff "
                         f"{np.abs(ours.scores_ - theirs).max():.1e}, same order "
                         f"{np.array_equal(ours.order_, np.argsort(-theirs, kind='stable'))}, instances with a "
                         f"shared k-th place {tied}, discrete features {int(ours.discrete_.sum())}, "
                         f"skrebate {theirs_s:.0f} s")
            print("  " + lines[-1], file=sys.stderr, flush=True)
    return lines


def markdown(rows: list[dict]) -> str:
    """The table of RESULTS.md: the peers' columns present in ``rows``."""
    cold, skrebate = "ours_cold_s" in rows[0], "skrebate_s" in rows[0]
    head = ("| data | method | threads | ours [s] | fast-select [s] | ours faster by | ours, CPU [s] "
            "| fast-select, CPU [s] | ours faster by (CPU) | max abs diff, top-10 shared |"
            + (" cold: ours / fast-select [s] |" if cold else "")
            + (" skrebate rows (discrete features) | ours [s] | skrebate [s] | ours faster by |"
               " max abs diff, top-10 shared |" if skrebate else ""))
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        line = (f"| {r['data']} ({r['shape']}) | {r['method']} | {r['threads']} | {r['ours_s']:.3f} | "
                f"{r['fast_select_s']:.3f} | {r['vs_fast_select']:.1f}x | {r['ours_cpu_s']:.3f} | "
                f"{r['fast_select_cpu_s']:.3f} | {r['vs_fast_select_cpu']:.1f}x | {r['fast_select_max_diff']:.1e}, "
                f"{r['fast_select_top10']}/10 |")
        if cold:
            line += f" {r['ours_cold_s']:.2f} / {r['fast_select_cold_s']:.2f} |"
        if skrebate:
            line += (f" {r['skrebate_rows']:,} ({r['skrebate_discrete']}) | {r['ours_on_skrebate_rows_s']:.3f} | "
                     f"{r['skrebate_s']:.1f} | {r['vs_skrebate']:,.0f}x | {r['skrebate_max_diff']:.1e}, "
                     f"{r['skrebate_top10']}/10 |")
        lines.append(line)
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller data, one repeat, no cold starts")
    parser.add_argument("--skrebate-rows", type=int, default=500, help="rows skrebate is timed on (0: all)")
    parser.add_argument("--no-skrebate", action="store_true", help="time ours against fast-select only")
    parser.add_argument("--no-cold", action="store_true", help="no first fits in fresh processes")
    parser.add_argument("--threads", type=int, default=None, help="numba threads for both packages (default: all)")
    parser.add_argument("--agreement", action="store_true",
                        help="only ours against skrebate on all 2,000 notMNIST rows (about 4 minutes)")
    args = parser.parse_args(argv)
    before = load_average()
    if args.agreement:
        print("\n".join(full_size_agreement()))
        print(f"load average before: {before}; after: {load_average()}")
        return 0
    rows = relief_rows(quick=args.quick, repeats=1 if args.quick else 3,
                       skrebate_rows=None if args.no_skrebate else args.skrebate_rows,
                       cold=not (args.quick or args.no_cold), threads=args.threads)
    print("## Relief family")
    print(f"load average (1, 5, 15 min) before: {before}; after: {load_average()}")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
