"""Running sgc-vs-ifs: per task, the development splits, the selections (IFS, SGC, SGC-LA, the count
cutoff) and their MAP models, decoding both ways, the timings, and the raw counts every reported
number is computed from; the report is written after every task (:mod:`fsengine.reproduce.gain.render`)."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from fsengine import stats
from fsengine.csv_export import to_csv
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.methods.gain.study import (
    PRIOR_VARIANCE_GRID,
    TIMING_REPEATS,
    decoded_scores,
    evaluate_with_counts,
    refit_checkpoint,
    run_comparison,
    selection_cpu_seconds,
    timing_table,
)
from fsengine.parallel import available_cores, backend_for
from fsengine.progress import scaled
from fsengine.reproduce.gain.data import counts_frame, model_key
from fsengine.reproduce.gain.development import development_split, seeded_splits_in_background
from fsengine.reproduce.gain.figures import write_figures
from fsengine.reproduce.gain.plan import (
    BOOTSTRAP,
    FULL_DECODER_POINTS,
    FULL_TASKS,
    QUICK,
    QUICK_DECODER_POINTS,
    SPLIT_SEEDS,
    TASK_LABEL,
    model_name,
)
from fsengine.reproduce.gain.render import write_report
from fsengine.reproduce.gain.report import intro_lines, task_lines
from fsengine.reproduce.gain.statistics import f1, result_rows


def run(out_dir: Path, quick: bool, progress, *, n_jobs: int | None = None) -> Path:
    """Write figures, CSVs of raw counts, ``results.json`` and ``report.md`` to ``out_dir``; quick =
    Base-NP on 300 sentences, 60 features.

    ``n_jobs`` > 1 (or -1, every core): the seeded development splits run on ``n_jobs - 1`` spawned
    local processes beside the primary split and the comparison (same results as one process;
    the comparison's own selections, timing repeat 0, then share the machine with them). The parts
    are not tasks of :mod:`fsengine.parallel`: no Dask scheduler, no kept task results."""
    backend_for(n_jobs)  # a wrong n_jobs fails before any work
    split_workers = max((available_cores() if n_jobs == -1 else (n_jobs or 1)) - 1, 0)
    pools: list[ProcessPoolExecutor] = []
    try:
        return _run(Path(out_dir), quick, progress, split_workers, pools)
    finally:  # an error or Ctrl-C here does not wait for the splits still running
        for pool in pools:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)


def _run(out_dir: Path, quick: bool, progress, split_workers: int, pools: list) -> Path:
    started = (time.perf_counter(), time.process_time())
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = {"np": QUICK} if quick else FULL_TASKS
    points = {"np": QUICK_DECODER_POINTS} if quick else FULL_DECODER_POINTS
    rows, inputs = [], {"data": "CoNLL-2000 (WSJ 15-18 train, 20 test; conll2000 corpus of NLTK)", "tasks": {},
                        "bootstrap": dict(BOOTSTRAP, unit="section-20 sentences"), "raw_counts": []}
    names: dict[str, dict[str, str]] = {}
    all_splits: list[dict] = []
    lines = intro_lines(quick)
    n_tasks = len(tasks)
    for t_index, (task, cfg) in enumerate(tasks.items()):
        cfg = dict(cfg)
        n_sentences = cfg.pop("n_sentences")
        task_points = points.get(task, ())
        label = "Base-NP" if task == "np" else "chunking"

        def sub(fraction, message, t_index=t_index, task=task):
            progress((t_index + fraction) / n_tasks, f"{TASK_LABEL[task]}: {message}")

        background = (seeded_splits_in_background(task, n_sentences, cfg, task_points, split_workers)
                      if task_points and split_workers else None)
        if background is not None:
            pools.append(background[0])
        sub(0.0, "choosing the prior variance and the model on held-out training sentences")
        primary = development_split(task, n_sentences, cfg, task_points, None, scaled(sub, 0.0, 0.15))
        sub(0.15, "loading and featurising")
        ds = load_conll2000_maxent(task=task, n_sentences=n_sentences)
        comp = run_comparison(ds, cutoff=2, prior_variance=primary.prior.variance,
                              progress=scaled(sub, 0.15, 0.5), **cfg)
        files = write_figures(comp, out_dir, task)
        sub(0.5, "decoding both ways")
        dec_rows = decoded_scores(ds, comp, task_points)
        variance = primary.prior.variance
        dec = {(r["method"], r["n_features"], r["decoder"]): r["counts"] for r in dec_rows}
        counts = {model_key(m, k, d, variance): c for (m, k, d), c in dec.items()}
        counts.update({model_key(*key, "greedy", variance): c for key, c in comp.counts.items()
                       if isinstance(key, tuple)})
        if "all features" in comp.counts:
            counts[model_key("all features", comp.all_features["n_features"], "greedy", variance)] = \
                comp.counts["all features"]
        splits = []
        if task_points:
            seeds = (None, *SPLIT_SEEDS)
            for i, seed in enumerate(seeds):
                lo, hi = (0.55 + 0.25 * (i - 1) / len(SPLIT_SEEDS), 0.55 + 0.25 * i / len(SPLIT_SEEDS))
                if seed is None:
                    s = primary
                elif background is not None:
                    sub(lo, f"split {i}: waiting for its process")
                    s = background[1][seed].result()
                else:
                    s = development_split(task, n_sentences, cfg, task_points, seed,
                                          scaled(sub, lo, hi, f"split {i}: "))
                m = s.model
                key = model_key(m.method, m.n_features, m.decoder, s.prior.variance)
                if key not in counts:  # another variance: the same selection, re-fitted with it
                    model = refit_checkpoint(ds, comp, m.method, m.n_features, s.prior.variance)
                    counts[key] = evaluate_with_counts(ds, model, m.decoder)[1]
                e = f1(counts[key])
                dev_f1 = float(m.table[(m.table["method"] == m.method) & (m.table["n_features"] == m.n_features)
                                       & (m.table["decoder"] == m.decoder)]["f1"].iloc[0])
                splits.append({"split": s.name, "seed": -1 if seed is None else seed, "dev_sentences": s.n_dev,
                               "prior_variance": s.prior.variance, "method": m.method, "n_features": m.n_features,
                               "decoder": m.decoder, "dev_f1": dev_f1, "test_f1": e.value, "test_low": e.low,
                               "test_high": e.high, "counts_key": key})
            if background is not None:
                background[0].shutdown()
            to_csv(pd.DataFrame(splits), out_dir / f"{task}_development_splits.csv", index=False, float_format="%.6f")
            inputs["raw_counts"].append(f"{task}_development_splits.csv")
            all_splits = splits
        sub(0.8, "timing the selections")
        stages = min(len(t) for m, t in comp.traces().items() if m != "Count cutoff")
        extra = selection_cpu_seconds(ds, stages=stages, methods=("IFS", "SGC", "SGC-LA"), repeats=TIMING_REPEATS - 1,
                                      lookahead=cfg["lookahead"], cutoff=2, progress=scaled(sub, 0.8, 0.98))
        timings = timing_table(comp, extra, stages)
        to_csv(timings, out_dir / f"{task}_timings.csv", index=False, float_format="%.9g")
        to_csv(counts_frame(counts), out_dir / f"{task}_sentence_counts.csv", index=False)
        inputs["raw_counts"] += [f"{task}_timings.csv", f"{task}_sentence_counts.csv"]
        rows += result_rows(label, comp, timings, dec, primary.prior, primary if task_points else None, splits)
        if dec:
            best = max(dec, key=lambda key: stats.f1_from_counts(dec[key].sum(axis=0)))
            names[label] = {"best": f"{model_name(*best)}, the best of {len(dec)} decoded models",
                            "chosen": model_name(primary.model.method, primary.model.n_features, primary.model.decoder)}
        inputs["tasks"][task] = {"training_sentences": int(ds.provenance.counts["train_sentences"]),
                                 "development_sentences": primary.n_dev,
                                 "prior_variance_grid": list(PRIOR_VARIANCE_GRID),
                                 "prior_variance": variance,
                                 **({"decoded_model_chosen": names[label]["chosen"],
                                     "development_split_seeds": list(SPLIT_SEEDS)} if dec else {}),
                                 "timing_repeats": TIMING_REPEATS, "timed_stages": int(stages),
                                 "development_split_processes": int(split_workers) if background else 0,
                                 "training_tokens": int(comp.n_train), "candidate_pairs": int(comp.n_candidates),
                                 **{k: v for k, v in cfg.items() if k != "extra_checkpoints"}}
        lines += task_lines(task, ds, comp, cfg, primary, timings, dec, splits, files)
        write_report(out_dir, quick, lines, rows, inputs, names, all_splits, started)  # after every task
        del ds, comp
    progress(1.0, "done")
    return out_dir / "report.md"
