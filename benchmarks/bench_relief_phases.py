"""Where a Relief fit's time goes: wall and CPU seconds of every numba kernel the model calls
(:mod:`fsengine.methods.relief.model`), timed from Python inside one fit of ReliefF (k = 10) and
MultiSURF on notMNIST B vs D (2,000 x 784), the best of ``--repeats`` warm fits by wall; "rest" is
the fit minus its kernels (validation, numpy, Python). Prints the run's tables (section "Relief
family (issue 34)" of benchmarks/RESULTS.md); ``--json`` prints one JSON line instead, and
``--table FILE`` turns the lines of several runs (e.g. two code versions, one and two threads) into
one table per method.

    PYTHONPATH=. FSENGINE_DATA=../shared/data python benchmarks/bench_relief_phases.py --label after \
        --threads 2 --json >> runs.jsonl
    python benchmarks/bench_relief_phases.py --table runs.jsonl
"""

from __future__ import annotations

import argparse
import collections
import inspect
import json
import re
import sys
import time
from pathlib import Path

SPEC = "notmnist:letters=BD,n_per_class=1000"


def profile(label: str, threads: int, repeats: int) -> dict:
    import numba

    from fsengine.data import load_dataset
    from fsengine.methods.relief import kernels, model
    from fsengine.selectors import MultiSURFSelector, ReliefFSelector

    numba.set_num_threads(threads)
    ds = load_dataset(SPEC)
    spent = collections.defaultdict(lambda: [0.0, 0.0])

    def timed(name, fn):
        def call(*args, **kwargs):
            w0, c0 = time.perf_counter(), time.process_time()
            out = fn(*args, **kwargs)
            spent[name][0] += time.perf_counter() - w0
            spent[name][1] += time.process_time() - c0
            return out
        return call

    for name in sorted(set(re.findall(r"kernels\.(\w+)\(", inspect.getsource(model)))):
        setattr(kernels, name, timed(name, getattr(kernels, name)))
    out = {"label": label, "threads": threads, "load_before": Path("/proc/loadavg").read_text().split()[:3]}
    for method, make in (("ReliefF", lambda: ReliefFSelector(n_neighbors=10)), ("MultiSURF", MultiSURFSelector)):
        make().fit(ds.X, ds.y)
        best = None
        for _ in range(repeats):
            spent.clear()
            w0, c0 = time.perf_counter(), time.process_time()
            make().fit(ds.X, ds.y)
            fit = (time.perf_counter() - w0, time.process_time() - c0)
            if best is None or fit[0] < best[0][0]:
                best = (fit, {k: tuple(v) for k, v in spent.items()})
        out[method] = {"fit": best[0], "phases": best[1]}
    out["load_after"] = Path("/proc/loadavg").read_text().split()[:3]
    return out


def table(runs: list[dict]) -> str:
    """One table per method: a row per kernel (largest first), a column per run, wall / CPU."""
    lines = []
    for method in ("ReliefF", "MultiSURF"):
        names = []
        for r in runs:
            for k in sorted(r[method]["phases"], key=lambda k: -r[method]["phases"][k][1]):
                names += [] if k in names else [k]
        head = "| phase | " + " | ".join(f"{r['label']}, {r['threads']} thr: wall / CPU [s]" for r in runs) + " |"
        lines += [f"{method}:", "", head, "|" + "---|" * (len(runs) + 1),
                  "| **whole fit** | " + " | ".join(f"**{r[method]['fit'][0]:.3f} / {r[method]['fit'][1]:.3f}**"
                                                   for r in runs) + " |"]
        for k in names:
            cells = [f"{r[method]['phases'][k][0]:.3f} / {r[method]['phases'][k][1]:.3f}"
                     if k in r[method]["phases"] else "-" for r in runs]
            lines.append(f"| `{k}` | " + " | ".join(cells) + " |")
        rest = [f"{r[method]['fit'][0] - sum(v[0] for v in r[method]['phases'].values()):.3f} / "
                f"{r[method]['fit'][1] - sum(v[1] for v in r[method]['phases'].values()):.3f}" for r in runs]
        lines += ["| rest (validation, numpy, Python) | " + " | ".join(rest) + " |", ""]
    lines.append("Load average (1, 5, 15 min) before / after each run: " + "; ".join(
        f"{r['label']}, {r['threads']} thr: {' '.join(r['load_before'])} / {' '.join(r['load_after'])}" for r in runs))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label", default="this code")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="one timed fit per method")
    parser.add_argument("--json", action="store_true", help="print the run as one JSON line")
    parser.add_argument("--table", help="a file of JSON lines from earlier runs: print their tables")
    args = parser.parse_args(argv)
    if args.table:
        print(table([json.loads(line) for line in Path(args.table).read_text().splitlines() if line.startswith("{")]))
        return 0
    run = profile(args.label, args.threads, 1 if args.quick else args.repeats)
    print(json.dumps(run) if args.json else "## Relief family (issue 34): phases\n\n" + table([run]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
