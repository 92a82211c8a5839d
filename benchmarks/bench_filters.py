"""Benchmarks of the filter families of issue 34 (results: ``## Filters`` in benchmarks/RESULTS.md).

One section per family, one command line:

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_filters.py [--quick] [--only information]

``--quick`` runs smaller inputs (a few minutes); ``--only`` takes a comma-separated list of
sections (default: all). A section is a function registered with :func:`section` that returns the
markdown lines of its table; the machine's load average is printed before and after the run.

Sections
--------
information
    The information-theoretic family (:mod:`fsengine.methods.information`): mRMR, JMI, CMIM, DISR,
    CIFE, ICAP (20 features each) and FCBF (until it stops) on notMNIST B vs D (2,000 x 784 pixels)
    and on the movie reviews as word presence (2,000 x 49,443, sparse). Ours: the selector's whole
    fit from X (validation, discretisation, selection, trace), best of five after a warm-up, wall
    and CPU seconds (all of it runs on one thread; the ratios use CPU seconds, which other jobs on
    a shared machine disturb far less). skfeature-chappers: the function a user calls
    (``mode="index"``, ``n_selected_features``), given our discretised states as the dense int
    matrix it takes (its time excludes the discretisation), timed once. On the text table it runs
    on a random sample of columns and is scaled to all columns (its cost per step is linear in the
    number of columns; for FCBF the linear scaling is a lower bound). Also: this project's mRMR
    before it moved onto the family's kernel (``tests/methods/information/legacy_mrmr.py``).
relief
    The Relief family (:mod:`fsengine.methods.relief`): ReliefF (k = 10) and MultiSURF against
    fast-select (the fastest peer, numba) and skrebate (the reference), on notMNIST B vs D and the
    movie reviews (sparse word presence): :func:`bench_relief.relief_rows`, whose docstring says
    what is timed. Here both packages run on one numba thread and the ratios use CPU seconds, as
    the information section's do; ``benchmarks/bench_relief.py`` alone also times two threads
    and the first fit in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from fsengine.data import load_dataset

SECTIONS: dict[str, Callable[[argparse.Namespace], list[str]]] = {}


def section(name: str):
    """Register a family's benchmark under ``name`` (``--only name``)."""
    def register(fn):
        SECTIONS[name] = fn
        return fn
    return register


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def best_of(fn, repeat: int = 5) -> tuple[float, float, object]:
    """Best wall seconds and best CPU seconds of this process over ``repeat`` calls, and the last
    result. Everything timed here runs on one thread, so CPU seconds are the work done, far less
    disturbed than wall seconds when other jobs share the cores; the ratios use them."""
    wall, cpu, out = [], [], None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu), out


# ---------------------------------------------------------------------------- information family

def _information_data(quick: bool):
    nm = load_dataset("notmnist", letters="BD", n_per_class=150 if quick else 1000)
    text = load_dataset("movie_reviews", min_df=20 if quick else 1)
    return [("notMNIST B vs D", nm.X, nm.y, None), ("movie reviews, word presence", text.X, text.y,
                                                    100 if quick else 200)]


@section("information")
def information(args) -> list[str]:
    from skfeature.function.information_theoretical_based import CIFE, CMIM, DISR, FCBF, ICAP, JMI, MRMR

    from fsengine.methods.information.discretise import discretise
    from fsengine.selectors import (
        CIFESelector,
        CMIMSelector,
        DISRSelector,
        FCBFSelector,
        ICAPSelector,
        JMISelector,
        MRMRSelector,
    )
    from tests.methods.information.legacy_mrmr import legacy_fit

    m = 10 if args.quick else 20
    members = [("mRMR", MRMRSelector, MRMR.mrmr), ("JMI", JMISelector, JMI.jmi), ("CMIM", CMIMSelector, CMIM.cmim),
               ("DISR", DISRSelector, DISR.disr), ("CIFE", CIFESelector, CIFE.cife),
               ("ICAP", ICAPSelector, ICAP.icap), ("FCBF", FCBFSelector, FCBF.fcbf)]
    lines = ["| data | n x p | method | selected | ours, wall [s] | ours, CPU [s] | ours, CPU per selected feature "
             "[ms] | per feature / our mRMR's | skfeature-chappers, CPU [s] | chappers / ours (CPU) | "
             "same selection |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for title, X, y, sample in _information_data(args.quick):
        n, p = X.shape
        shape = f"{n:,} x {p:,}"
        rng = np.random.default_rng(0)
        columns = np.sort(rng.choice(p, sample, replace=False)) if sample else np.arange(p)
        states = discretise(X[:, columns]).dense().T.astype(np.int64)  # the peer's input: dense int states
        scale = p / columns.size
        per_feature_mrmr = None
        for name, cls, peer in members:
            greedy = cls is not FCBFSelector
            params = {"max_features": m} if greedy else {}
            cls(**params).fit(X[:40], np.arange(40) % 2)  # compile outside the timing
            wall, cpu, fitted = best_of(lambda: cls(**params).fit(X, y))
            chosen = m if greedy else int(fitted.support_.sum())
            per = cpu / max(chosen, 1)
            per_feature_mrmr = per if name == "mRMR" else per_feature_mrmr
            kwargs = {"n_selected_features": m} if greedy else {}
            _, peer_cpu, theirs = best_of(lambda: np.asarray(peer(states, y, mode="index", **kwargs)), repeat=1)
            peer_cpu *= scale
            same = "-"
            if sample is None and name == "CMIM":  # the member whose definition the peer shares
                same = "yes" if theirs.tolist() == fitted.order_[:m].tolist() else "NO"
            lines.append(f"| {title} | {shape} | {name} | {chosen} | {wall:.3f} | {cpu:.3f} | {1000 * per:.1f} | "
                         f"{per / per_feature_mrmr:.2f} | {peer_cpu:,.1f}"
                         f"{f' (on {columns.size:,} columns, x {scale:.1f})' if sample else ''} | "
                         f"{peer_cpu / cpu:,.0f}x | {same} |")
            print(lines[-1], flush=True)
        wall, cpu, _ = best_of(lambda: legacy_fit(X, y, max_features=m), repeat=1 if sample else 5)
        lines.append(f"| {title} | {shape} | mRMR before the move (legacy) | {m} | {wall:.3f} | {cpu:.3f} | "
                     f"{1000 * cpu / m:.1f} | {cpu / m / per_feature_mrmr:.2f} | - | - | - |")
        print(lines[-1], flush=True)
    return lines


# ---------------------------------------------------------------------------------- Relief family

@section("relief")
def relief(args) -> list[str]:
    from bench_relief import markdown, relief_rows

    rows = relief_rows(quick=args.quick, repeats=1 if args.quick else 3, cold=False, threads=1)
    return markdown(rows).splitlines()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (a few minutes)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default: all of {', '.join(SECTIONS)})")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    print(f"load before: {load()}  (cores: {os.cpu_count()})", flush=True)
    tables = {name: SECTIONS[name](args) for name in chosen}
    print(f"load after: {load()}", flush=True)
    for name, lines in tables.items():
        print(f"\n### {name}{' (--quick)' if args.quick else ''}\n")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
