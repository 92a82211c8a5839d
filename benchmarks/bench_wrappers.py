"""The wrappers against their reference implementations, in one run (results: ``## Wrappers`` in
benchmarks/RESULTS.md).

On the training part a comparison gives a method (75% of notMNIST B vs D, 750 x 784 pixels; 75% of
the movie reviews, 1,500 x 4,752 sparse word-presence tags), one BLAS thread, CPU seconds of the
process (``time.process_time``; the machine is shared, so wall-clock seconds also measure the
others) and wall seconds, median of ``--repeats``:

* Boruta: ``BorutaSelector`` at its registry defaults against ``boruta.BorutaPy`` with the same
  forest (``RandomForestClassifier(n_estimators, max_depth, n_jobs=1)``) and the same number of
  iterations (BorutaPy's ``max_iter`` is one more than the iterations it runs). Their shadows and
  forests draw different random numbers, so the confirmed sets are printed, not required equal.
* SFS: ``SequentialForwardSelector`` at its registry defaults against scikit-learn's
  ``SequentialFeatureSelector`` with the same model (``make_pipeline(StandardScaler(), model)``),
  folds and scoring on the same ANOVA F pre-screened candidates; the selected sets must be equal.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_wrappers.py [--repeats 3]
        [--boruta-forest | --boruta-profile | --ours-only]

``--boruta-forest`` is an A/B in one process of one Boruta fit at its defaults with each iteration's
forest grown by ``RandomForestClassifier.fit`` (the package before issue 32's Boruta work) and by
scikit-learn's tree builder without the forest's per-tree overhead (``forest_importances``, now),
in interleaved repeats, with the digest of each answer (they must be equal: the same trees). On
sparse data a third arm hands the tree builder each iteration's forest matrix dense (float32,
Fortran-ordered, within ``fsengine.methods.adapt.MAX_DENSE_BYTES``): scikit-learn's dense splitter
against its sparse one. ``--boruta-profile`` splits one Boruta fit's CPU time into its phases (the
shadows, the forest matrix, the forests' importances, the test, the rest).

``--ours-only`` times this package's two selectors alone and prints a digest of what each selected
(SFS: the order of its additions; Boruta: a hash of every iteration's importances and the decisions),
for an A/B between two versions of the package: run this script with PYTHONPATH at each, and compare
the CPU seconds and the digests (issue 32, item 3: the same answers, faster).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from fsengine.data import load_dataset
from fsengine.selectors import BorutaSelector, SequentialForwardSelector


def clocked(fn, repeats: int):
    """(median CPU seconds, median wall seconds, last result) of ``repeats`` calls."""
    cpu, wall, out = [], [], None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), out


def training_part(key: str, **params):
    ds = load_dataset(key, **params)
    rows = np.sort(np.random.default_rng(0).permutation(ds.n_samples)[: int(0.75 * ds.n_samples)])
    return ds.X[rows], ds.y[rows]


CASES = (("notMNIST B vs D", "notmnist", {"letters": "BD"}), ("movie reviews", "movie_reviews", {}))


def ours_only(repeats: int) -> None:
    """CPU and wall seconds of one fit of each selector at its registry defaults, with a digest of
    its answer (module docstring)."""
    import fsengine

    print(f"fsengine from {os.path.dirname(fsengine.__file__)}")
    print("| data | method | CPU [s] | wall [s] | answer digest |")
    print("|---|---|---|---|---|")
    for title, key, params in CASES:
        X, y = training_part(key, **params)
        with threadpool_limits(1):
            BorutaSelector(max_iter=2).fit(X, y)  # numba's warm-up, untimed
            SequentialForwardSelector(n_features_to_select=2, n_candidates=3).fit(X, y)
            cpu, wall, fitted = clocked(lambda: BorutaSelector().fit(X, y), repeats)
            digest = boruta_digest(fitted)
            print(f"| {title} | Boruta | {cpu:.3f} | {wall:.3f} | importances and decisions sha1 {digest}, "
                  f"{int(fitted.support_.sum())} confirmed |", flush=True)
            cpu, wall, fitted = clocked(lambda: SequentialForwardSelector().fit(X, y), repeats)
            print(f"| {title} | SFS | {cpu:.3f} | {wall:.3f} | "
                  f"order {fitted.order_[:fitted.n_features_to_select].tolist()} |", flush=True)


class PublicForestBoruta(BorutaSelector):
    """Boruta with each iteration's forest fitted by ``RandomForestClassifier.fit`` (the before of
    ``--boruta-forest``)."""

    def importances(self, X, y, seed):
        from fsengine.methods.wrappers.forest import reference_importances  # here: --ours-only runs on older versions

        return reference_importances(X, y, n_estimators=self.n_estimators, max_depth=self.max_depth,
                                     random_state=seed)


class DenseForestBoruta(BorutaSelector):
    """Boruta with each iteration's sparse forest matrix handed to the tree builder dense (float32,
    Fortran-ordered) when it fits ``fsengine.methods.adapt.MAX_DENSE_BYTES``: the third arm of
    ``--boruta-forest`` on sparse data (scikit-learn's dense splitter against its sparse one)."""

    def importances(self, X, y, seed):
        from fsengine.methods.adapt import MAX_DENSE_BYTES
        from fsengine.methods.wrappers.forest import forest_importances

        if hasattr(X, "toarray") and X.shape[0] * X.shape[1] * 4 <= MAX_DENSE_BYTES:
            X = np.asfortranarray(X.toarray())
        return forest_importances(X, y, n_estimators=self.n_estimators, max_depth=self.max_depth, random_state=seed)


def boruta_digest(fitted) -> str:
    return hashlib.sha1(np.ascontiguousarray(fitted.importance_history_).tobytes()
                        + fitted.decision_.astype(str).tobytes()).hexdigest()[:12]


def boruta_forest(repeats: int) -> None:
    """A/B in one run: one Boruta fit with the public forest and with the tree builder, interleaved
    (module docstring); CPU seconds, median of ``repeats`` each."""
    print("| data | n x p | public forest CPU [s] | tree builder CPU [s] | before / after | wall before, after [s] "
          "| digests (equal?) | sparse handed over dense: CPU [s], after / it, digest |")
    print("|---|---|---|---|---|---|---|---|")
    for title, key, params in CASES:
        X, y = training_part(key, **params)
        with threadpool_limits(1):
            BorutaSelector(max_iter=2).fit(X, y)  # numba's warm-up, untimed
            timings = {PublicForestBoruta: [], BorutaSelector: []}
            if hasattr(X, "toarray"):
                timings[DenseForestBoruta] = []
            digests = {}
            for _ in range(repeats):
                for selector in timings:
                    cpu, wall, fitted = clocked(lambda: selector().fit(X, y), 1)
                    timings[selector].append((cpu, wall))
                    digests[selector] = boruta_digest(fitted)
        cpu = {selector: statistics.median(c for c, _ in t) for selector, t in timings.items()}
        wall = {selector: statistics.median(w for _, w in t) for selector, t in timings.items()}
        a, b = digests[PublicForestBoruta], digests[BorutaSelector]
        dense = (f"{cpu[DenseForestBoruta]:.3f}, {cpu[BorutaSelector] / cpu[DenseForestBoruta]:.2f}x, "
                 f"{digests[DenseForestBoruta]}" if DenseForestBoruta in cpu else "(dense data)")
        print(f"| {title} | {X.shape[0]:,} x {X.shape[1]:,} | {cpu[PublicForestBoruta]:.3f} "
              f"| {cpu[BorutaSelector]:.3f} | {cpu[PublicForestBoruta] / cpu[BorutaSelector]:.2f}x "
              f"| {wall[PublicForestBoruta]:.3f}, {wall[BorutaSelector]:.3f} | {a}, {b} ({a == b}) | {dense} |",
              flush=True)


def boruta_profile(repeats: int) -> None:
    """Where one Boruta fit at its defaults spends its CPU time: the shadows, the forest matrix, the
    forests' importances, the test, and the rest (the loop and the records), summed over the
    iterations, mean of ``repeats`` fits (the phases are wrapped with CPU clocks)."""
    from collections import Counter

    import fsengine.methods.wrappers.boruta as module

    spent = Counter()

    def clock(name, fn):
        def clocked_fn(*args, **kwargs):
            start = time.process_time()
            out = fn(*args, **kwargs)
            spent[name] += time.process_time() - start
            return out
        return clocked_fn

    class Profiled(BorutaSelector):
        importances = clock("forests' importances", BorutaSelector.importances)

    originals = {name: getattr(module, name) for name in ("shadow_columns", "forest_matrix", "decide")}
    print("| data | n x p | iterations | CPU [s] per fit | " + " | ".join([*originals, "forests' importances", "rest"])
          + " |")
    print("|---" * (len(originals) + 6) + "|")
    try:
        for name, fn in originals.items():
            setattr(module, name, clock(name, fn))
        for title, key, params in CASES:
            X, y = training_part(key, **params)
            with threadpool_limits(1):
                Profiled(max_iter=2).fit(X, y)  # numba's warm-up, untimed
                spent.clear()
                start = time.process_time()
                for _ in range(repeats):
                    fitted = Profiled().fit(X, y)
                total = (time.process_time() - start) / repeats
            parts = [spent[name] / repeats for name in [*originals, "forests' importances"]]
            cells = " | ".join(f"{v:.3f} ({v / total:.0%})" for v in [*parts, total - sum(parts)])
            print(f"| {title} | {X.shape[0]:,} x {X.shape[1]:,} | {fitted.n_iter_} | {total:.3f} | {cells} |",
                  flush=True)
    finally:
        for name, fn in originals.items():
            setattr(module, name, fn)


def main() -> None:
    from boruta import BorutaPy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ours-only", action="store_true", help="time our selectors alone, with digests")
    parser.add_argument("--boruta-forest", action="store_true",
                        help="A/B: Boruta with the public forest against the tree builder, interleaved")
    parser.add_argument("--boruta-profile", action="store_true",
                        help="where one Boruta fit spends its CPU time, phase by phase")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    if args.boruta_forest or args.boruta_profile:
        (boruta_forest if args.boruta_forest else boruta_profile)(args.repeats)
        print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        return
    if args.ours_only:
        ours_only(args.repeats)
        print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        return
    print("| data | n x p | method | ours CPU [s] | reference CPU [s] | reference / ours (CPU) | ours wall [s] "
          "| reference wall [s] | selections |")
    print("|---|---|---|---|---|---|---|---|---|")
    for title, key, params in CASES:
        X, y = training_part(key, **params)
        size = f"{X.shape[0]:,} x {X.shape[1]:,}"
        with threadpool_limits(1):
            ours = BorutaSelector()
            cpu, wall, fitted = clocked(lambda: BorutaSelector().fit(X, y), args.repeats)
            reference = BorutaPy(RandomForestClassifier(max_depth=ours.max_depth, n_jobs=1),
                                 n_estimators=ours.n_estimators, max_iter=ours.max_iter + 1, random_state=0)
            dense = X.toarray() if hasattr(X, "toarray") else X  # BorutaPy takes dense arrays only
            ref_cpu, ref_wall, ref = clocked(lambda: reference.set_params(random_state=0).fit(dense, y), args.repeats)
            agree = (f"ours {int(fitted.support_.sum())} confirmed ({int((fitted.decision_ == 'tentative').sum())} "
                     f"tentative), BorutaPy {int(ref.support_.sum())} ({int(ref.support_weak_.sum())} weak); "
                     f"{int((fitted.support_ & ref.support_).sum())} in both")
            print(f"| {title} | {size} | Boruta | {cpu:.2f} | {ref_cpu:.2f} | {ref_cpu / cpu:.2f}x | {wall:.2f} "
                  f"| {ref_wall:.2f} | {agree} |", flush=True)

            sfs = SequentialForwardSelector()
            cpu, wall, fitted = clocked(lambda: SequentialForwardSelector().fit(X, y), args.repeats)
            cand = fitted.candidates_
            Xc = X[:, cand].toarray() if hasattr(X, "toarray") else X[:, cand]
            reference = SequentialFeatureSelector(make_pipeline(StandardScaler(), sfs.model()),
                                                  n_features_to_select=sfs.n_features_to_select, scoring=sfs.scoring,
                                                  cv=sfs.folds())
            ref_cpu, ref_wall, ref = clocked(lambda: reference.fit(Xc, y), args.repeats)
            same = set(cand[ref.get_support()].tolist()) == set(fitted.order_[: sfs.n_features_to_select].tolist())
            print(f"| {title} | {size} | SFS ({len(cand)} candidates) | {cpu:.2f} | {ref_cpu:.2f} | "
                  f"{ref_cpu / cpu:.2f}x | {wall:.2f} | {ref_wall:.2f} | same selected set: {same} |", flush=True)
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
