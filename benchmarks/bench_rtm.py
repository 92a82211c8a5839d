"""Relevance Tagging Machine: training to convergence on movie reviews, and numba vs numpy.

    FSENGINE_DATA=../shared/data python benchmarks/bench_rtm.py [--quick]

1. Movie reviews (2,000 documents, word-presence tags at min df 5): Power EP, EP and EM to
   convergence with the corpus settings of ``fsengine.methods.rtm.study.CORPORA``
   (alpha0 = 50, inner damping 0.8, damping 0.5, tol 1e-4, at most 1,000 sweeps): seconds, sweeps, converged, seconds
   per sweep and training accuracy.
2. One Power EP sweep, the numba kernel (``sites.sweep``) against the plain numpy/scipy
   reference (``reference_sweep``), on the same sites, with the largest site difference.
3. The issue's anchor: subjectivity, 6,700 training sentences (seeded, stratified), Power EP with
   the corpus's fixed prior against evidence ARD (``ard=True``): seconds, sweeps, converged,
   active tags and held-out accuracy on the other 3,300 (reference: about 6 s and 60 s).

4. Issue 32, the comparison's RTM fits (``--part targets``): on the catalogue's notMNIST B vs D
   (``notmnist:letters=BD``, 784 pixels binarised) and movie reviews (min df 20, 4,752 tags,
   sparse), the comparison's training part (75%, seed 0) and its first bootstrap resample, each
   training method (``--variants``, default Power EP, EM, Power EP + ARD, EM + ARD and EP) with
   the settings the comparison gives the RTM (registry defaults: 300 sweeps at most, "auto"
   prior and inner damping): the fit on the training part and the bootstrap fit from scratch, and
   (this checkout, without ARD) the bootstrap fit started from the first (warm start). A is the
   engine before issue 32 (``--base``, default the merge base with main, exported with ``git
   archive``), B this checkout; each side is one long-lived process, asked in turn A B A B ...,
   so the load hits both alike; wall and CPU seconds, sweeps, and the largest difference of a
   posterior mean between A and B (the same fit to round-off). The load average is printed with
   every run.
5. The memory-bound floor (``--part floor``): for every training method with and without ARD, the
   bytes a sweep touches (sites, their CSR/CSC structure, the damping and the evidence pass) over
   the bandwidth of a streaming read of 512 MB measured in the same process, against the measured
   CPU milliseconds per sweep.

6. Warm against cold at the default stopping rule (``--part warm``): notMNIST B vs D (the
   catalogue's, and the toolbox reproduction's quick 60 images per letter), the comparison's
   training part and five bootstrap resamples, Power EP and EM at the comparison's settings (300
   sweeps at most): each resample fitted cold and warm at the default tol (1e-4 on the change
   per sweep) and cold to tol 1e-9 (its fixed point); how far each default-tol fit stops from
   the fixed point (largest difference of a posterior mean), how far warm and cold are apart, how
   many of the fixed point's 50 best tags each keeps, and the stability (Kuncheva) of the top-k
   sets over the resamples for the cold fits, the warm fits and the fixed points.

7. Plain against Anderson-accelerated sweeps (``--part anderson``, issue 32): on notMNIST B vs D
   and the movie reviews (the comparison's training part and its first bootstrap resample, the
   registry's settings), Power EP, EM and EP (``--variants``), each fitted with the plain damped
   sweeps (``anderson_memory=0``) and with the default Anderson step, asked in turn in one
   process (``--repeats`` rounds, the order alternating): the fit on the training part and the
   bootstrap fit warm-started from that side's fit (the comparison's other five fits), CPU seconds
   (median over the rounds), sweeps, verdict, and the largest distance of a posterior mean from
   the fixed point (the plain sweeps run to tol 1e-9; EP's with the Anderson step to 1e-10, as
   the tests show both reach the same point to 1e-7).

``--quick`` uses 300 documents, at most 60 sweeps, a 60-document numpy sweep and 1,000
subjectivity sentences, for parts 4-5 notMNIST only with Power EP and EM, and for part 6 the
small notMNIST, two resamples and Power EP; ``--part`` runs one part. Sweep timings are the best of three runs.
Results belong under ``## Relevance Tagging Machine`` in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.model_selection import train_test_split

from fsengine.data.corpora import read_movie_reviews, read_subjectivity
from fsengine.data.features import word_presence_tags
from fsengine.methods.rtm import METHOD_LABELS, METHODS, ep, fit_rtm, sites, tags_from
from fsengine.methods.rtm.model import predict_positive
from fsengine.methods.rtm.reference_sweep import power_ep_sweep_numpy
from fsengine.methods.rtm.study import CORPORA

REPEATS = 3
ROOT = Path(__file__).resolve().parent.parent
#: the catalogue datasets of the issue's targets (the comparison's view of them)
TARGET_DATA = ("notmnist:letters=BD", "movie_reviews")
TARGET_VARIANTS = ("power_ep", "em", "power_ep+ard", "em+ard", "ep")

#: one side of part 4: prepares the training parts and first resamples, then answers one request
#: per line ("DATA VARIANT") with the fits' seconds, sweeps and posterior means (saved to a file)
TARGET_CHILD = """
import inspect, json, os, sys, time, warnings
from dataclasses import replace
import numpy as np
import fsengine
try:
    from fsengine.compare.runner import stratified_bootstrap
except ImportError:  # the engine before issue 32 split compare.engine into runner and analyses
    from fsengine.compare.engine import stratified_bootstrap
from fsengine.data import load_dataset
from fsengine.data.transforms import binarize_features, split
from fsengine.methods.adapt import restrict_classes
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.rtm import fit_rtm, suggested_settings, tags_from

warnings.simplefilter("ignore")
out_dir = sys.argv[1]
warm_ok = "start" in inspect.signature(fit_rtm).parameters
prepared = {}
for key in sys.argv[2].split(","):
    ds, _ = restrict_classes(load_dataset(key), [get_method("rtm")])
    train, _ = split(ds, test_size=0.25, seed=0)
    rows = stratified_bootstrap(train.y, 1, 0)[0]
    y01 = (train.y == np.unique(train.y)[1]).astype(float)
    X01 = binarize_features(train).X  # as the comparison adapts it (the threshold does not depend on the rows)
    full, boot = tags_from(X01, None), tags_from(X01[rows], None)
    settings = replace(suggested_settings(full.nnz / full.n_objects), max_iter=method_defaults("rtm")["max_iter"])
    prepared[key] = (full, boot, y01, y01[rows], rows, settings)
    small = tags_from(X01[:40], None)
    for m in ("power_ep", "ep", "em"):  # numba compilation or cache loading, untimed
        fit_rtm(small, y01[:40], replace(settings, method=m, max_iter=2))
print(json.dumps({"fsengine": fsengine.__file__, "warm": warm_ok}), flush=True)
for line in sys.stdin:
    key, variant = line.split()
    full, boot, y01, yb, rows, settings = prepared[key]
    method, _, ard = variant.partition("+")
    s = replace(settings, method=method, ard=bool(ard))
    answer = {}
    def timed(name, tags, y, **kw):
        t0, c0 = time.perf_counter(), time.process_time()
        fit = fit_rtm(tags, y, s, **kw)
        answer[name] = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "sweeps": fit.n_iter,
                        "converged": bool(fit.converged)}
        np.save(os.path.join(out_dir, f"{os.getpid()}_{key.replace(':', '_')}_{variant}_{name}.npy"), fit.theta_mean)
        return fit
    first = timed("full", full, y01)
    timed("boot cold", boot, yb)
    if warm_ok and not s.ard:
        timed("boot warm", boot, yb, start=first.state, rows=rows)
    answer["pid"] = os.getpid()
    print(json.dumps(answer), flush=True)
"""


def _corpus(n_docs: int | None):
    data = read_movie_reviews()
    texts, y = np.array(data.texts, dtype=object), np.asarray(data.labels)
    if n_docs is not None:
        keep = np.random.default_rng(0).permutation(y.size)[:n_docs]
        texts, y = texts[keep], y[keep]
    X, vocab = word_presence_tags(texts, min_df=CORPORA["movie_reviews"].min_df)
    return X, y, vocab


def to_convergence(X, y, max_iter: int | None) -> list[dict]:
    tags = tags_from(X)
    settings = CORPORA["movie_reviews"].settings
    if max_iter is not None:
        settings = replace(settings, max_iter=max_iter)
    rows = []
    for m in METHODS:
        t0 = time.perf_counter()
        fit = fit_rtm(tags, y.astype(float), replace(settings, method=m))
        secs = time.perf_counter() - t0
        p1 = predict_positive(tags.indptr, tags.indices, fit.A, fit.B, ep.QUADRATURE)
        rows.append({"method": METHOD_LABELS[m], "seconds": secs, "sweeps": fit.n_iter,
                     "converged": fit.converged, "s/sweep": fit.trace.seconds.mean(),
                     "train acc": float(np.mean((p1 > 0.5) == (y == 1))),
                     "last change": fit.trace.max_change.iloc[-1]})
        print(f"  {rows[-1]}", flush=True)
    return rows


def one_sweep(X, y, n_docs: int) -> dict:
    X, y = X[:n_docs], y[:n_docs]
    tags = tags_from(X)
    yi = y.astype(np.int64)
    alpha = np.full(tags.n_tags, CORPORA["movie_reviews"].settings.alpha0)
    sa, sb = sites.initial_sites(tags.indptr, y.astype(float), 0.5)
    A, B = np.empty(tags.n_tags), np.empty(tags.n_tags)
    sites.totals_from_sites(tags.indices, sa, sb, alpha, A, B)
    na, nb = np.empty_like(sa), np.empty_like(sb)
    A1, B1 = A.copy(), B.copy()
    sites.sweep(tags.indptr, tags.indices, yi, A1, B1, sa, sb, na, nb, 0.0, True, -1, ep.QUADRATURE)  # compile
    t_numba = np.inf
    for _ in range(REPEATS):  # best of REPEATS: the machine is shared
        A1, B1 = A.copy(), B.copy()
        t0 = time.perf_counter()
        sites.sweep(tags.indptr, tags.indices, yi, A1, B1, sa, sb, na, nb, 0.0, True, -1, ep.QUADRATURE)
        t_numba = min(t_numba, time.perf_counter() - t0)
    t_numpy = np.inf
    for _ in range(REPEATS):
        A2, B2 = A.copy(), B.copy()
        t0 = time.perf_counter()
        ra, rb, _ = power_ep_sweep_numpy(tags.indptr, tags.indices, yi, A2, B2, sa, sb)
        t_numpy = min(t_numpy, time.perf_counter() - t0)
    return {"documents": n_docs, "sites": tags.nnz, "numba s": t_numba, "numpy s": t_numpy,
            "speed-up": t_numpy / t_numba,
            "max site difference": float(max(np.abs(na - ra).max(), np.abs(nb - rb).max()))}


def subjectivity_anchor(n_train: int, n_test: int) -> list[dict]:
    """Power EP on subjectivity with the fixed corpus prior and with evidence ARD."""
    data = read_subjectivity()
    texts, y = np.array(data.texts, dtype=object), np.asarray(data.labels)
    train, test = train_test_split(np.arange(y.size), train_size=n_train, test_size=n_test, stratify=y,
                                   random_state=0)
    X_train, vocab = word_presence_tags(texts[train], min_df=CORPORA["subjectivity"].min_df)
    X_test, _ = word_presence_tags(texts[test], vocabulary=vocab)
    y_train, y_test = (y[train] == y.max()).astype(float), (y[test] == y.max())
    rows = []
    for label, ard in (("fixed prior", False), ("evidence ARD", True)):
        settings = replace(CORPORA["subjectivity"].settings, method="power_ep", ard=ard)
        t0 = time.perf_counter()
        fit = fit_rtm(tags_from(X_train), y_train, settings)
        secs = time.perf_counter() - t0
        test_tags = tags_from(X_test)
        p1 = predict_positive(test_tags.indptr, test_tags.indices, fit.A, fit.B, ep.QUADRATURE)
        rows.append({"prior": label, "train": train.size, "tags": len(vocab), "seconds": secs,
                     "sweeps": fit.n_iter, "converged": fit.converged,
                     "active": int(fit.trace.n_active.iloc[-1]),
                     "test acc": float(np.mean((p1 > 0.5) == y_test))})
        print(f"  {rows[-1]}", flush=True)
    return rows


def _load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


class _Side:
    """One long-lived process of part 4 on the fsengine in ``tree``."""

    def __init__(self, name: str, tree: Path, data, out_dir: str):
        self.name, self.tree = name, tree
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen([sys.executable, "-c", TARGET_CHILD, out_dir, ",".join(data)], cwd=tree, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = self.answer()
        if not self.ready["fsengine"].startswith(str(tree)):
            raise RuntimeError(f"{tree} imported fsengine from {self.ready['fsengine']}")

    def answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the side in {self.tree} failed (exit code {self.proc.wait()})")
        return json.loads(line)

    def ask(self, key: str, variant: str) -> dict:
        self.proc.stdin.write(f"{key} {variant}\n")
        self.proc.stdin.flush()
        return self.answer()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def targets(base: str, data, variants) -> None:
    """Part 4 (module docstring): A (``base``) and B (this checkout) in turn."""
    head = _git("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if _git("status", "--porcelain") else "")
    print(f"\n### The comparison's RTM fits, A = {base[:10]} (before issue 32), B = {head}\n")
    print("| data | variant | side | fit | wall s | CPU s | sweeps | converged | load before |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bench_rtm_") as tmp:
        tree = Path(tmp) / "base"
        tree.mkdir()
        archive = subprocess.run(["git", "archive", "--format=tar", base, "fsengine"], cwd=ROOT, capture_output=True,
                                 check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        sides = [_Side("A", tree, data, tmp), _Side("B", ROOT, data, tmp)]
        try:
            for key in data:
                for i, variant in enumerate(variants):
                    answers = {}
                    for side in sides if i % 2 == 0 else sides[::-1]:
                        before = _load()
                        answers[side.name] = side.ask(key, variant)
                        for fit in ("full", "boot cold", "boot warm"):
                            if fit in answers[side.name]:
                                r = answers[side.name][fit]
                                print(f"| {key} | {variant} | {side.name} | {fit} | {r['wall']:.1f} | {r['cpu']:.1f} | "
                                      f"{r['sweeps']} | {r['converged']} | {before} |", flush=True)
                    a, b = (np.load(Path(tmp) / f"{answers[n]['pid']}_{key.replace(':', '_')}_{variant}_full.npy")
                            for n in ("A", "B"))
                    ratio = answers["A"]["full"]["cpu"] / max(answers["B"]["full"]["cpu"], 1e-9)
                    print(f"| {key} | {variant} | A/B | full | | {ratio:.2f}x | | max abs difference of a posterior "
                          f"mean A vs B {np.abs(a - b).max():.1e} | |", flush=True)
        finally:
            for side in sides:
                side.close()


#: bytes a sweep touches per site: the sweep reads the index (4) and both sites (16) and writes both
#: new sites (16); the damping reads sites and new sites (32), writes the sites (16) and reads the
#: index again (4); the evidence reads the index and the sites (20). EM per site and sweep: the
#: CSR index for log U, log W before the sweep and again for the bound (8), the CSC rows twice in
#: the sweep (kappa, then the update of log U, log W; 8); the gathers hit arrays of n or d floats
#: that stay in cache.
BYTES_PER_SITE = {"power_ep": 108, "ep": 108, "em": 16}


def bandwidth(megabytes: int = 512) -> float:
    """GB/s of a streaming read (a numba sum over ``megabytes`` of float64), best of 3."""
    from numba import njit

    @njit(cache=True)
    def total(a):
        acc = 0.0
        for v in a:
            acc += v
        return acc

    a = np.ones(megabytes * 1024 * 1024 // 8)
    total(a)
    best = min(_cpu(lambda: total(a)) for _ in range(3))
    return a.nbytes / best / 1e9


def _cpu(fn) -> float:
    c0 = time.process_time()
    fn()
    return time.process_time() - c0


def floor(data, variants, sweeps: int = 30) -> None:
    """Part 5 (module docstring)."""
    from fsengine.compare.runner import stratified_bootstrap  # noqa: F401  (the runner's data path)
    from fsengine.data import load_dataset
    from fsengine.data.transforms import binarize_features, split
    from fsengine.methods.adapt import restrict_classes
    from fsengine.methods.registry import get_method
    from fsengine.methods.rtm import suggested_settings

    gbps = bandwidth()
    print(f"\n### Sweeps against the memory-bound floor ({_load()}; streaming read {gbps:.1f} GB/s)\n")
    print("| data | variant | sites | CPU ms per sweep | bytes per sweep | floor ms | gap |")
    print("|---|---|---|---|---|---|---|")
    for key in data:
        ds, _ = restrict_classes(load_dataset(key), [get_method("rtm")])
        train, _ = split(ds, test_size=0.25, seed=0)
        tags = tags_from(binarize_features(train).X, None)
        y01 = (train.y == np.unique(train.y)[1]).astype(float)
        base = replace(suggested_settings(tags.nnz / tags.n_objects), max_iter=sweeps, tol=1e-300)
        for variant in variants:
            method, _, ard = variant.partition("+")
            s = replace(base, method=method, ard=bool(ard))
            fit_rtm(tags_from(binarize_features(train).X[:40], None), y01[:40], replace(s, max_iter=2))  # compile
            n = sweeps if method != "ep" else max(3, sweeps // 10)
            cpu = _cpu(lambda: fit_rtm(tags, y01, replace(s, max_iter=n))) / n
            moved = BYTES_PER_SITE[method] * tags.nnz
            floor_s = moved / (gbps * 1e9)
            print(f"| {key} | {variant} | {tags.nnz:,} | {cpu * 1000:.1f} | {moved / 1e6:.1f} MB | "
                  f"{floor_s * 1000:.2f} | {cpu / floor_s:.0f}x |", flush=True)


#: part 6's data and the two k of its stability rows: the catalogue's notMNIST B vs D (the
#: comparison's default k range) and the toolbox reproduction's quick notMNIST (60 images per letter)
WARM_CASES = (("notmnist:letters=BD", (10, 40)), ("notmnist:letters=BD,n_per_class=60", (5, 15)))


def warm_against_cold(methods, n_resamples: int, cases=WARM_CASES) -> None:
    """Part 6 (module docstring), and the stability (Kuncheva's index of the top-k sets, mean over
    the pairs of resamples, as the comparison reports it) of the cold, warm and fixed-point fits."""
    from fsengine.compare.runner import stratified_bootstrap
    from fsengine.data import load_dataset
    from fsengine.data.transforms import binarize_features, split
    from fsengine.methods.adapt import restrict_classes
    from fsengine.methods.registry import get_method, method_defaults
    from fsengine.methods.rtm import suggested_settings
    from fsengine.ranking import order_from
    from fsengine.selection_metrics import kuncheva_stability

    for key, ks in cases:
        ds, _ = restrict_classes(load_dataset(key), [get_method("rtm")])
        train, _ = split(ds, test_size=0.25, seed=0)
        X01 = binarize_features(train).X
        y01 = (train.y == np.unique(train.y)[1]).astype(float)
        tags = tags_from(X01, None)
        print(f"\n### Warm against cold at the default stopping rule: {key}, {train.n_samples} training rows, "
              f"{n_resamples} resamples ({_load()})\n")
        print("| method | resample | sweeps cold / warm / to tol 1e-9 | cold from fixed point | warm from fixed point "
              "| warm from cold | top 50 of the fixed point kept: cold, warm |")
        print("|---|---|---|---|---|---|---|")
        stability = []
        for method in methods:
            s = replace(suggested_settings(tags.nnz / tags.n_objects), method=method,
                        max_iter=method_defaults("rtm")["max_iter"])
            full = fit_rtm(tags, y01, s)
            fits = {"cold": [], "warm": [], "fixed point": []}
            for b, rows in enumerate(stratified_bootstrap(train.y, n_resamples, 0)):
                boot = tags_from(X01[rows], None)
                cold = fit_rtm(boot, y01[rows], s)
                warm = fit_rtm(boot, y01[rows], s, start=full.state, rows=rows)
                exact = fit_rtm(boot, y01[rows], replace(s, tol=1e-9, max_iter=50_000))
                for name, fit in zip(fits, (cold, warm, exact)):
                    fits[name].append(fit)
                top = set(order_from(exact.relevance())[:50])
                kept = [len(top & set(order_from(f.relevance())[:50])) for f in (cold, warm)]
                gap = [np.abs(f.theta_mean - exact.theta_mean).max() for f in (cold, warm)]
                print(f"| {METHOD_LABELS[method]} | {b + 1} | {cold.n_iter} / {warm.n_iter} / {exact.n_iter} | "
                      f"{gap[0]:.1e} | {gap[1]:.1e} | {np.abs(warm.theta_mean - cold.theta_mean).max():.1e} | "
                      f"{kept[0]}, {kept[1]} |", flush=True)
            for k in ks:
                stability.append((METHOD_LABELS[method], k, *(
                    kuncheva_stability([order_from(f.relevance())[:k] for f in fits[name]], tags.n_tags)
                    for name in fits)))
        print("\n| method | k | stability of cold fits (300 sweeps at most) | of warm fits | of the fixed points |")
        print("|---|---|---|---|---|")
        for label, k, cold, warm, exact in stability:
            print(f"| {label} | {k} | {cold:.3f} | {warm:.3f} | {exact:.3f} |", flush=True)


def _comparison_view(key):
    """The comparison's training part of a catalogue dataset as tags, its labels, its first
    bootstrap resample's rows and the registry's settings (as part 4's children)."""
    from fsengine.compare.runner import stratified_bootstrap
    from fsengine.data import load_dataset
    from fsengine.data.transforms import binarize_features, split
    from fsengine.methods.adapt import restrict_classes
    from fsengine.methods.registry import get_method, method_defaults
    from fsengine.methods.rtm import suggested_settings

    ds, _ = restrict_classes(load_dataset(key), [get_method("rtm")])
    train, _ = split(ds, test_size=0.25, seed=0)
    rows = stratified_bootstrap(train.y, 1, 0)[0]
    X01 = binarize_features(train).X
    y01 = (train.y == np.unique(train.y)[1]).astype(float)
    tags = tags_from(X01, None)
    settings = replace(suggested_settings(tags.nnz / tags.n_objects), max_iter=method_defaults("rtm")["max_iter"])
    return tags, y01, tags_from(X01[rows], None), y01[rows], rows, settings


def anderson_against_plain(data, methods, repeats: int) -> None:
    """Part 7 (module docstring)."""
    print(f"\n### Plain against Anderson-accelerated sweeps ({_load()}, {repeats} rounds)\n")
    print("| data | method | sweeps | fit | CPU s | sweeps run | converged | from the fixed point |")
    print("|---|---|---|---|---|---|---|---|")
    sides = {"plain": 0, "Anderson": None}
    for key in data:
        tags, y01, boot, yb, rows, base = _comparison_view(key)
        for method in methods:
            s = replace(base, method=method)
            fit_rtm(tags_from(np.ones((3, 2)), None), np.array([0.0, 1.0, 1.0]), replace(s, max_iter=2))  # compile
            if method == "ep":
                fixed = [fit_rtm(t, y, replace(s, tol=1e-10, max_iter=50_000)).theta_mean for t, y in
                         ((tags, y01), (boot, yb))]
            else:
                fixed = [fit_rtm(t, y, replace(s, tol=1e-9, max_iter=50_000, anderson_memory=0)).theta_mean
                         for t, y in ((tags, y01), (boot, yb))]
            seen = {(side, fit): [] for side in sides for fit in ("full", "boot warm")}
            for r in range(repeats):
                for side in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                    memory = sides[side]
                    ss = s if memory is None else replace(s, anderson_memory=memory)
                    c0 = time.process_time()
                    full = fit_rtm(tags, y01, ss)
                    c1 = time.process_time()
                    warm = fit_rtm(boot, yb, ss, start=full.state, rows=rows)
                    c2 = time.process_time()
                    for fit, f, cpu, ref in (("full", full, c1 - c0, fixed[0]), ("boot warm", warm, c2 - c1, fixed[1])):
                        seen[side, fit].append((cpu, f.n_iter, f.converged, np.abs(f.theta_mean - ref).max()))
            cpu = {k: float(np.median([v[0] for v in vals])) for k, vals in seen.items()}
            for (side, fit), vals in seen.items():
                _, n, ok, gap = vals[-1]
                print(f"| {key} | {METHOD_LABELS[method]} | {side} | {fit} | {cpu[side, fit]:.2f} | {n} | {ok} | "
                      f"{gap:.1e} |", flush=True)
            six = {side: cpu[side, "full"] + 5 * cpu[side, "boot warm"] for side in sides}
            print(f"| {key} | {METHOD_LABELS[method]} | plain / Anderson | full, boot warm, the comparison's six fits "
                  f"(full + 5 warm) | {cpu['plain', 'full'] / cpu['Anderson', 'full']:.2f}x, "
                  f"{cpu['plain', 'boot warm'] / cpu['Anderson', 'boot warm']:.2f}x, "
                  f"{six['plain'] / six['Anderson']:.2f}x | | | |", flush=True)


def main(argv=None) -> int:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--part", choices=("all", "train", "sweep", "anchor", "targets", "floor", "warm", "anderson"),
                        default="all", help="run only the training table, the one-sweep comparison, the subjectivity "
                                            "anchor, the issue-32 targets (A/B), the memory-bound floor or warm "
                                            "against cold")
    parser.add_argument("--base", help="revision of the 'before' engine of --part targets (default: git merge-base "
                                       "HEAD main)")
    parser.add_argument("--variants", help=f"comma-separated, default {','.join(TARGET_VARIANTS)} "
                                           "(--part anderson: power_ep,em,ep, no ARD)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of --part anderson")
    args = parser.parse_args(argv)
    print(f"bench_rtm {' '.join(sys.argv[1:])}: {_load()}, {os.cpu_count()} cores", flush=True)
    data = TARGET_DATA[:1] if args.quick else TARGET_DATA
    variants = (args.variants.split(",") if args.variants
                else ("power_ep", "em") if args.quick else TARGET_VARIANTS)
    if args.part in ("all", "floor"):
        floor(data, variants)
    if args.part in ("all", "targets"):
        targets(args.base or _git("merge-base", "HEAD", "main"), data, variants)
    if args.part in ("all", "warm"):
        warm_against_cold(("power_ep",) if args.quick else ("power_ep", "em"), 2 if args.quick else 5,
                          WARM_CASES[1:] if args.quick else WARM_CASES)
    if args.part in ("all", "anderson"):
        anderson_against_plain(data, args.variants.split(",") if args.variants else
                               ("power_ep", "em") if args.quick else ("power_ep", "em", "ep"), args.repeats)
    if args.part in ("targets", "floor", "warm", "anderson"):
        return 0
    X, y, vocab = _corpus(300 if args.quick else None)
    print(f"## Relevance Tagging Machine\n\nmovie reviews: {X.shape[0]} documents, {len(vocab)} tags "
          f"(min df {CORPORA['movie_reviews'].min_df}), {X.nnz:,} sites, "
          f"{X.nnz / X.shape[0]:.0f} tags per document", flush=True)
    if args.part in ("all", "train"):
        _print_training(to_convergence(X, y, 60 if args.quick else None))
    if args.part in ("all", "sweep"):
        _print_sweep(one_sweep(X, y, 60 if args.quick else 400))
    if args.part in ("all", "anchor"):
        _print_anchor(subjectivity_anchor(1000, 500) if args.quick else subjectivity_anchor(6700, 3300))
    return 0


def _print_training(rows):
    print("\n| method | seconds | sweeps | converged | s/sweep | train acc | last max change |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['method']} | {r['seconds']:.1f} | {r['sweeps']} | {r['converged']} | {r['s/sweep']:.3f} "
              f"| {r['train acc']:.4f} | {r['last change']:.1e} |")


def _print_sweep(sweep):
    print("\n| one Power EP sweep | documents | sites | numba s | numpy s | speed-up | max site difference |")
    print("|---|---|---|---|---|---|---|")
    print(f"| movie reviews | {sweep['documents']} | {sweep['sites']:,} | {sweep['numba s']:.4f} | "
          f"{sweep['numpy s']:.2f} | {sweep['speed-up']:.0f}x | {sweep['max site difference']:.1e} |")


def _print_anchor(rows):
    print("\n| subjectivity, Power EP | training sentences | tags | seconds | sweeps | converged | active tags "
          "| held-out accuracy |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['prior']} | {r['train']:,} | {r['tags']:,} | {r['seconds']:.1f} | {r['sweeps']} | "
              f"{r['converged']} | {r['active']:,} | {r['test acc']:.4f} |")


if __name__ == "__main__":
    sys.exit(main())
