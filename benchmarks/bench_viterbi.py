"""Greedy vs Viterbi decoding of the SGC Base-NP models at the paper's sizes (RESULTS.md ``## Viterbi``).

    FSENGINE_DATA=/work/shared/data PYTHONPATH=. python benchmarks/bench_viterbi.py [--quick]

CoNLL-2000 Base-NP as in ``reproduce sgc-vs-ifs`` (24 templates, candidate pairs seen at least
twice, MAP with prior variance 1): SGC selects 1,160 pairs; the MAP models on the first 1,000 and
1,160 pairs are decoded greedily and exactly (Viterbi over the last two tags) and scored with
conlleval on section 20, with the seconds of each decoder. The same numbers are part of the full
``reproduce sgc-vs-ifs`` report; this script gets them without the IFS run and the other
methods. ``--quick``: first 300 training sentences, 60 and 100 pairs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.maxent import MaxentData, fit_map
from fsengine.methods.gain.model import select_features
from fsengine.methods.gain.study import FIT_TOL, evaluate


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    sizes = (60, 100) if args.quick else (1000, 1160)
    ds = load_conll2000_maxent(task="np", n_sentences=300 if args.quick else 0)
    y = np.asarray(ds.y)
    data = MaxentData(ds.X, y, n_classes=len(ds.target_names))
    sel = select_features(data, "sgc", n_features=max(sizes), cutoff=2)
    print(f"{data.n:,} training tokens; SGC selected {len(sel.trace):,} pairs")
    print("| method | features | decoder | precision | recall | F1 | decode seconds |")
    print("|---|---|---|---|---|---|---|")
    for k in sizes:
        pred, cls = sel.selected_pairs(k)
        fit = fit_map(data, pred, cls, prior_variance=1.0, tol=FIT_TOL * data.n)
        for decoder in ("greedy", "viterbi"):
            t0 = time.perf_counter()
            s = evaluate(ds, fit.model, decoder)
            sec = time.perf_counter() - t0
            print(f"| SGC | {k:,} | {decoder} | {s['precision']:.2f} | {s['recall']:.2f} | {s['f1']:.2f} | {sec:.1f} |",
                  flush=True)


if __name__ == "__main__":
    main()
