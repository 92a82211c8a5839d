"""``reproduce rtm-roc``: the Relevance Tagging Machine slides' experiments (Molchanov,
Kondrashkin & Vetrov): the synthetic ROC of tag relevance and the sentiment accuracy table.

Full run: 10 seeds of the RTM generative model (800 objects, 400 tags, 30 relevant) and 5-fold
CV on sentence polarity, subjectivity and movie reviews: six RTM variants and four baselines on
the same folds, a grid of prior strength x damping on sentence polarity, and a refit with a
higher sweep cap of every protocol fit that stopped at the cap. ``--quick``: 5 smaller synthetic
seeds and 3-fold CV on 1,500 sentence-polarity snippets with a 2 x 2 grid (CI-sized).

Every estimate carries an interval (:mod:`fsengine.stats`): t over seeds for the synthetic AUC
(each seed draws its own data), the corrected resampled t of Nadeau & Bengio over folds for CV
accuracies (folds share training rows), and the paired versions of both for differences between
methods. The raw numbers behind them are written beside ``results.json``: ``synthetic_auc.csv``
(AUC per seed), ``accuracy_folds.csv`` (correct answers per fold and method), ``cap_reruns.csv``
and ``sensitivity_folds.csv``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import stats
from fsengine.csv_export import to_csv
from fsengine.data.paths import DataNotFoundError
from fsengine.formatting import interval_digits, markdown_table, percent
from fsengine.formatting import number as format_number
from fsengine.methods.rtm import study as rtm_study
from fsengine.methods.rtm.fit import RTMSettings
from fsengine.plots import rtm as rtm_plots
from fsengine.progress import Progress, scaled
from fsengine.reproduce import results as results_file
from fsengine.reproduce.results import write_figure

SYNTHETIC_FULL = dict(seeds=tuple(range(10)), n_samples=800, n_tags=400, n_relevant=30)
SYNTHETIC_QUICK = dict(seeds=(0, 1, 2, 3, 4), n_samples=300, n_tags=120, n_relevant=10)
#: sentences first: the long reviews take most of the time, and the report is written after each corpus
CORPORA_FULL = {key: dict(folds=5) for key in ("sentence_polarity", "subjectivity", "movie_reviews")}
CORPORA_QUICK = {"sentence_polarity": dict(folds=3, max_docs=1500)}
#: the corpus of the sensitivity grid (the one the slides' Dataset 2 is read as)
SENSITIVITY_CORPUS = "sentence_polarity"
#: the grid: Power EP and EM with the fixed prior; values fixed before the full run, round numbers
#: around the corpus' own setting (alpha0 = 5, damping 0.5), never chosen from its results
GRID_FULL = rtm_study.Grid(("power_ep", "em"), alpha0=(2.0, 5.0, 10.0, 20.0), damping=(0.3, 0.5, 0.7))
GRID_QUICK = rtm_study.Grid(("power_ep", "em"), alpha0=(2.0, 5.0), damping=(0.5, 0.7))
#: words that keep the grid's quantities apart when their numbers are masked (quick vs full test)
ALPHA0_WORDS = {2.0: "weaker prior", 5.0: "default prior", 10.0: "stronger prior", 20.0: "strongest prior"}
DAMPING_WORDS = {0.3: "less damping", 0.5: "default damping", 0.7: "more damping"}
#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
KEEPS_TASKS = True

#: the slides' ordering, best first, and its pairs (judged one by one)
SLIDES_ORDER = ("Power EP", "EP", "EM")
PAIRS = (("Power EP", "EP"), ("EP", "EM"), ("Power EP", "EM"))
PRIORS = (("fixed prior", ""), ("ARD", " + ARD"))
#: the slides' Dataset 2 (about 0.75) is read as sentence polarity (see :data:`TEST_SET_CHOICES`)
SLIDES_DATASET_2 = "Sentence polarity"
#: the row-name suffix of the numbers with the cap-stopped fits replaced by their refits
REFIT = "refit where the sweep cap was hit"


def test_set_choices() -> list[str]:
    """Design choices of this target made after results on the same test folds had been seen
    (the report prints them; settings are formatted from the code, not typed)."""
    mr, sp = rtm_study.CORPORA["movie_reviews"].settings, rtm_study.CORPORA["sentence_polarity"].settings
    return [
        "The slides' Dataset 2 is read as sentence polarity because the level of its accuracies matched "
        "ours on this corpus; the slides do not name their datasets.",
        f"The movie-review prior (alpha0 = {mr.alpha0:g}) and inner damping ({mr.inner_damping:g}) were set "
        "after earlier runs on the same five folds did not converge with weaker priors; the choice looked at "
        "convergence and the training folds' evidence, but those runs' test accuracies had been printed.",
        f"The default inner damping ({sp.inner_damping:g}) and the sentence corpora's sweep cap "
        f"({sp.max_iter:,}) were set after runs on the same folds oscillated or stopped at a lower cap "
        "(convergence on the training folds of runs whose test accuracies had been seen); so was the ARD "
        "step's rule (step halving on reversal), after 2-cycles on sentence polarity.",
    ]



def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None,
        scheduler=None) -> Path:
    """Seeds and (fold, fit) pairs are tasks: ``n_jobs`` local processes or a Dask ``scheduler``
    (:mod:`fsengine.parallel`); the tables do not depend on where they ran. ``progress(fraction,
    message)`` hears every finished task and, when the tasks run here, every sweep of every fit."""
    t0 = time.perf_counter()
    where = dict(n_jobs=n_jobs, scheduler=scheduler)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    synth = SYNTHETIC_QUICK if quick else SYNTHETIC_FULL
    roc = rtm_study.synthetic_roc(synth["seeds"], n_samples=synth["n_samples"], n_tags=synth["n_tags"],
                                  n_relevant=synth["n_relevant"], settings=RTMSettings(alpha0=5.0),
                                  methods=rtm_study.VARIANTS, progress=scaled(progress, 0.0, 0.15), **where)
    to_csv(roc.auc, out_dir / "synthetic_auc.csv")
    to_csv(roc.fits, out_dir / "synthetic_fits.csv", index=False)
    to_csv(pd.DataFrame({"method": list(roc.seconds), SECONDS_COLUMN: list(roc.seconds.values())}),
           out_dir / "synthetic_seconds.csv", index=False)
    write_figure(rtm_plots.roc_figure(roc.curves, roc.auc.iloc[0].to_dict(),
                                title=f"Tag relevance ROC, seed {roc.auc.index[0]}"), out_dir / "roc.html")
    write_figure(rtm_plots.auc_figure(roc.auc), out_dir / "auc.html")
    write_figure(rtm_plots.convergence_figure(roc.traces, tol=1e-4), out_dir / "convergence.html")

    corpora = CORPORA_QUICK if quick else CORPORA_FULL
    grid = GRID_QUICK if quick else GRID_FULL
    results, missing = {}, []
    span = 0.85 / len(corpora)
    for k, (key, kw) in enumerate(corpora.items()):
        try:
            results[key] = rtm_study.cv_study(key, methods=rtm_study.VARIANTS,
                                              grid=grid if key == SENSITIVITY_CORPUS else None,
                                              progress=scaled(progress, 0.15 + k * span, 0.15 + (k + 1) * span),
                                              **kw, **where)
        except DataNotFoundError as exc:
            missing.append(f"{key}: {str(exc).splitlines()[0]}")
        # after every corpus (the CLI stages out_dir); the last one states the run's duration
        seconds = time.perf_counter() - t0 if k == len(corpora) - 1 else None
        _write_outputs(out_dir, quick, synth, roc, results, missing, seconds=seconds,
                       processes=_processes(n_jobs, scheduler))
    progress(1.0, "report")
    return out_dir / "report.md"


def _processes(n_jobs, scheduler) -> str:
    """Where the tasks ran, and how many were read from kept results (``--keep-tasks``)."""
    from fsengine.parallel import describe
    from fsengine.task_store import reuse_note

    return describe(n_jobs, scheduler) + reuse_note()


def rerender(out_dir: Path, note: str = "") -> Path:
    """Rewrite ``report.md``, ``results.json`` and ``accuracy.html`` of a run from its CSVs
    (``synthetic_auc.csv``, ``synthetic_fits.csv``, ``synthetic_seconds.csv``, ``accuracy_folds.csv``, and when present
    ``cap_reruns.csv`` and ``sensitivity_folds.csv``) with this code's words, keeping the run's
    duration and ``quick`` flag; ``note`` (e.g. which run, what it lacks) is printed under the
    verdict. A run's own outputs come back unchanged (tested): this is how a finished run's
    report picks up later changes to the report's wording without computing again."""
    out_dir = Path(out_dir)
    roc = rtm_study.RocResult(auc=pd.read_csv(out_dir / "synthetic_auc.csv", index_col=0),
                              fits=pd.read_csv(out_dir / "synthetic_fits.csv"))
    times = pd.read_csv(out_dir / "synthetic_seconds.csv")
    roc.seconds.update(zip(times.method, times[SECONDS_COLUMN]))
    results = read_cv_results(out_dir)
    took = _DURATION.search((out_dir / "report.md").read_text()) if (out_dir / "report.md").is_file() else None
    quick = bool(json.loads((out_dir / results_file.FILENAME).read_text())["quick"])
    _write_outputs(out_dir, quick, SYNTHETIC_QUICK if quick else SYNTHETIC_FULL, roc, results, [], note=note,
                   seconds=float(took.group(1).replace(",", "")) if took else None,
                   processes=took.group(2) if took else "")
    return out_dir / "report.md"


def read_cv_results(out_dir: Path) -> dict:
    """The corpora's CV results back from a run's ``accuracy_folds.csv``, ``cap_reruns.csv`` and
    ``sensitivity_folds.csv``."""
    def read(name):
        path = Path(out_dir) / name
        return pd.read_csv(path) if path.is_file() and path.stat().st_size > 1 else pd.DataFrame(columns=["corpus"])

    folds, reruns, grid = read("accuracy_folds.csv"), read("cap_reruns.csv"), read("sensitivity_folds.csv")
    results = {}
    for key, df in folds.groupby("corpus", sort=False):
        def part(frame):
            return frame[frame.corpus == key].drop(columns="corpus").reset_index(drop=True)

        results[key] = rtm_study.CVResult(part(df), part(reruns), part(grid))
    return results


#: the column of ``synthetic_seconds.csv``: each method's training seconds, mean over seeds
SECONDS_COLUMN = "mean seconds per seed"
#: how the report states the run's duration (``rerender`` keeps it)
_DURATION = re.compile(r"this run took ([\d,]+) s wall time on ([^.]+)\.")


def _frame(results: dict, attr: str) -> pd.DataFrame:
    parts = [getattr(r, attr).assign(corpus=key) for key, r in results.items() if not getattr(r, attr).empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _write_outputs(out_dir: Path, quick: bool, synth: dict, roc, results: dict, missing: list,
                   note: str = "", seconds: float | None = None, processes: str = "") -> None:
    """CSVs of the raw numbers, accuracy figure, ``results.json`` and ``report.md`` from what has
    run so far."""
    for name, attr in (("accuracy_folds.csv", "folds"), ("cap_reruns.csv", "reruns"),
                       ("sensitivity_folds.csv", "sensitivity")):
        frame = _frame(results, attr)
        if frame.empty:
            frame = pd.DataFrame(columns=["corpus", "fold", "method", "n_test", "n_correct", "accuracy"])
        to_csv(frame, out_dir / name, index=False)
    folds = {key: r.folds for key, r in results.items()}
    table = rtm_study.accuracy_table(folds) if results else pd.DataFrame()
    if results:
        labels = [rtm_study.CORPORA[k].label for k in results]
        low = table[[f"{c} low" for c in labels]].set_axis(labels, axis=1)
        high = table[[f"{c} high" for c in labels]].set_axis(labels, axis=1)
        write_figure(rtm_plots.accuracy_figure(table[labels], low=low, high=high), out_dir / "accuracy.html")
    sections = result_rows(roc.auc, results)
    rows = [r for part in sections.values() for r in part]
    results_file.write(out_dir, "rtm-roc", quick, {
        "synthetic": {**synth, "seeds": list(synth["seeds"]), "prior": "Beta(5, 5)"},
        "corpora": {k: {"label": rtm_study.CORPORA[k].label, "documents": int(r.folds.n_docs.iloc[0]),
                        "folds": int(r.folds.fold.nunique())} for k, r in results.items()},
        "variants": [c for c in roc.auc.columns if c.startswith("RTM")],
        "baselines": list(rtm_study.BASELINES),
        "sensitivity": _grid_inputs(quick),
        "cap_rerun_factor": rtm_study.CAP_RERUN_FACTOR}, rows)
    text = _report(quick, synth, roc, results, table, missing, sections, note=note, seconds=seconds,
                   processes=processes)
    (out_dir / "report.md").write_text(text)


def _grid_inputs(quick: bool) -> dict:
    grid = GRID_QUICK if quick else GRID_FULL
    return {"corpus": SENSITIVITY_CORPUS, "methods": list(grid.methods), "alpha0": list(grid.alpha0),
            "damping": list(grid.damping)}


# --- rows ----------------------------------------------------------------------------------------

def _label(method: str, suffix: str = "") -> str:
    return f"RTM {method}{suffix}"


def _slides_value(label: str) -> float | None:
    """The slides' Dataset 2 accuracy of a fixed-prior RTM label (None for others)."""
    table = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    return float(table[label]) if label in table.index else None


def synthetic_rows(auc: pd.DataFrame) -> list[results_file.Row]:
    """Mean AUC per method (t over seeds), the slides' ordering pair by pair and every RTM variant
    against each baseline (seed-paired t)."""
    rows = [results_file.recorded(f"synthetic AUC, {label}", stats.t_interval(auc[label], what="seeds"),
                                  note="the slides show ROC pictures only") for label in auc.columns]
    for prior, suffix in PRIORS:
        for a, b in PAIRS:
            first, second = _label(a, suffix), _label(b, suffix)
            if {first, second} <= set(auc.columns):
                rows.append(results_file.ordering(
                    f"ordering, synthetic AUC, {prior}, {a} vs {b}",
                    stats.paired_t_interval(auc[first], auc[second], what="seeds"), first, second))
    for label in [c for c in auc.columns if c.startswith("RTM")]:
        for base in (rtm_study.MI_LABEL, rtm_study.L1_LABEL):
            if base in auc.columns:
                rows.append(results_file.ordering(f"synthetic AUC difference, {label} minus {base}",
                                                  stats.paired_t_interval(auc[label], auc[base], what="seeds"),
                                                  label, base))
    return rows


def _with_refits(folds: pd.DataFrame, reruns: pd.DataFrame) -> pd.DataFrame:
    """The protocol rows with every cap-stopped fit replaced by its refit (same fold, method)."""
    if reruns.empty:
        return folds
    keys = set(zip(reruns.fold, reruns.method))
    kept = folds[[(f, m) not in keys for f, m in zip(folds.fold, folds.method)]]
    return pd.concat([kept, reruns[folds.columns.intersection(reruns.columns)]], ignore_index=True)


def corpus_rows(key: str, result) -> list[results_file.Row]:
    """One corpus: accuracy per method (corrected resampled t over folds; fixed-prior RTM on the
    slides' Dataset 2 against the slides' value), the slides' ordering pair by pair, every RTM
    variant against every baseline (fold-paired), the fits that did not converge, and the same
    numbers with cap-stopped fits refitted where there were any (the protocol's orderings at 95%
    each; :func:`judge_headline_families` judges them again as one family)."""
    label = rtm_study.CORPORA[key].label
    df = result.folds
    methods = list(dict.fromkeys(df.method))
    dataset2 = label == SLIDES_DATASET_2
    rows = []
    for m in methods:
        est = rtm_study.accuracy_estimate(df, m)
        paper = _slides_value(m) if dataset2 else None
        q = f"accuracy, {m}, {label}"
        rows.append(results_file.versus(q, est, paper, what="the slides' Dataset 2 value") if paper is not None
                    else results_file.recorded(q, est, note="no value in the slides for this corpus and method"))
    rows += _orderings(df, label, dataset2)
    rtm = [m for m in methods if m.startswith("RTM")]
    for m in rtm:
        for base in rtm_study.BASELINES:
            if base in methods:
                rows.append(results_file.ordering(f"accuracy difference, {m} minus {base}, {label}",
                                                  rtm_study.accuracy_difference(df, m, base), m, base))
    rtm_fits = df[df.method.str.startswith("RTM")]
    rows.append(results_file.recorded(f"RTM fits that did not converge, {label}",
                                      float((~rtm_fits.converged.astype(bool)).sum()),
                                      note="protocol fits; the report names them"))
    if not result.reruns.empty:
        refit = _with_refits(df, result.reruns)
        for m in dict.fromkeys(result.reruns.method):
            rows.append(results_file.recorded(f"accuracy, {m}, {label}, {REFIT}", rtm_study.accuracy_estimate(refit, m),
                                              note="cap-stopped fits refitted with a higher cap"))
        rows += _orderings(refit, label, dataset2, suffix=f", {REFIT}", involving=set(result.reruns.method))
        rows.append(results_file.recorded(f"RTM fits still not converged after the refit, {label}",
                                          float((~result.reruns.converged.astype(bool)).sum()),
                                          note="refits with the higher cap"))
    return rows


def _orderings(df: pd.DataFrame, label: str, dataset2: bool, suffix: str = "",
               involving: set[str] | None = None, family: list | None = None) -> list[results_file.Row]:
    """The slides' ordering pair by pair on one corpus (only pairs with a method in ``involving``
    when given), each at 95%; with ``family`` each is also registered there as (quantity, folds,
    first, second, the slides' gap or None) to be judged again as one family."""
    rows = []
    methods = set(df.method)
    slides = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    for prior, tail in PRIORS:
        for a, b in PAIRS:
            first, second = _label(a, tail), _label(b, tail)
            if not {first, second} <= methods or (involving is not None and not {first, second} & involving):
                continue
            paper = float(slides[first] - slides[second]) if dataset2 and not tail else None
            quantity = f"ordering, accuracy, {prior}, {a} vs {b}, {label}{suffix}"
            rows.append(results_file.ordering(quantity, rtm_study.accuracy_difference(df, first, second), first,
                                              second, paper=paper))
            if family is not None:
                family.append((quantity, df, first, second, paper))
    return rows


#: the two families the report's first sentences read as one, judged by Holm's step-down procedure
ORDER_FAMILY = "pairs of the slides' ordering on accuracy"
GAP_FAMILY = "slides' gaps on their Dataset 2"


def gap_quantity(ordering_quantity: str) -> str:
    """The quantity of the row judging an ordering's difference against the slides' gap."""
    return ordering_quantity.replace("ordering, ", "gap against the slides, ", 1)


def headline_family(results: dict) -> list[tuple]:
    """The slides' ordering on accuracy over every corpus and prior (the protocol's fits): one
    (quantity, folds, first, second, the slides' gap or None) per pair."""
    family = []
    for key, r in results.items():
        label = rtm_study.CORPORA[key].label
        _orderings(r.folds, label, label == SLIDES_DATASET_2, family=family)
    return family


def holm_adjusted(family: list[tuple], gaps: bool = False) -> np.ndarray:
    """Holm-adjusted p-values of the family (``gaps``: of its tests against the slides' gaps)."""
    tests = [_fold_test(df, first, second, paper if gaps else 0.0)[0] for _, df, first, second, paper in family
             if not gaps or paper is not None]
    return stats.holm_adjust(tests)


def _fold_test(df: pd.DataFrame, first: str, second: str, null: float = 0.0):
    """The fold-paired corrected resampled t test of ``first - second = null``: its p-value and its
    interval at any level (:func:`fsengine.methods.rtm.study.accuracy_difference`)."""
    a = df[df.method == first].set_index("fold").accuracy.sort_index().to_numpy()
    b = df[df.method == second].set_index("fold").accuracy.sort_index().to_numpy()
    p = stats.t_pvalue(a - b, null=null, test_train_ratio=rtm_study.train_test_ratio(df))
    return p, lambda level: rtm_study.accuracy_difference(df, first, second, level)


def judge_headline_families(sections: dict, family: list) -> None:
    """Judge the slides' ordering on accuracy (every corpus and prior, the protocol's fits) as one
    family and the slides' gaps on their Dataset 2 as another, each by Holm's step-down procedure at
    95% family-wise: the ordering rows are replaced by their intervals at Holm's levels, and a row
    judging each difference against the slides' gap follows its ordering (in place, in ``sections``)."""
    if not family:
        return
    judged = dict(zip([q for q, *_ in family], stats.holm_family(
        [_fold_test(df, first, second) for _, df, first, second, _ in family], family=ORDER_FAMILY)))
    gaps = [(q, df, first, second, paper) for q, df, first, second, paper in family if paper is not None]
    against = dict(zip([q for q, *_ in gaps], stats.holm_family(
        [_fold_test(df, first, second, paper) for _, df, first, second, paper in gaps], family=GAP_FAMILY)))
    by_quantity = {q: (first, second, paper) for q, _, first, second, paper in family}
    for name, rows in sections.items():
        out = []
        for r in rows:
            if r.quantity not in judged:
                out.append(r)
                continue
            first, second, paper = by_quantity[r.quantity]
            out.append(results_file.ordering(r.quantity, judged[r.quantity], first, second, paper=paper))
            if r.quantity in against:
                out.append(results_file.versus(gap_quantity(r.quantity), against[r.quantity], paper,
                                               what="the slides' gap"))
        sections[name] = out


def _cell_name(alpha0: float, damping: float | None) -> str:
    text = f"alpha0 {alpha0:g} ({ALPHA0_WORDS.get(alpha0, 'other prior')})"
    if damping is not None and np.isfinite(damping):
        text += f", damping {damping:g} ({DAMPING_WORDS.get(damping, 'other damping')})"
    return text


def sensitivity_rows(key: str, grid: pd.DataFrame) -> list[results_file.Row]:
    """The grid on one corpus: each method's accuracy per cell (against the slides' value on their
    Dataset 2) and Power EP - EM per cell (EM at the same alpha0; it has no damping)."""
    if grid.empty:
        return []
    label = rtm_study.CORPORA[key].label
    dataset2 = label == SLIDES_DATASET_2
    rows = []
    cells = grid.drop_duplicates(["method", "alpha0", "damping"])[["method", "alpha0", "damping"]]
    for _, c in cells.iterrows():
        part = _cell(grid, c.method, c.alpha0, c.damping)
        est = rtm_study.accuracy_estimate(part, c.method)
        q = f"sensitivity, accuracy, {c.method}, {label}, {_cell_name(c.alpha0, c.damping)}"
        paper = _slides_value(c.method) if dataset2 else None
        rows.append(results_file.versus(q, est, paper, what="the slides' Dataset 2 value") if paper is not None
                    else results_file.recorded(q, est, note="no value in the slides for this corpus"))
    pep, em = _label("Power EP"), _label("EM")
    slides = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    for _, c in cells[cells.method == pep].iterrows():
        both = pd.concat([_cell(grid, pep, c.alpha0, c.damping), _cell(grid, em, c.alpha0, None)])
        if both.method.nunique() < 2:
            continue
        gap = float(slides[pep] - slides[em]) if dataset2 else None
        quantity = f"sensitivity, ordering, Power EP vs EM, {label}, {_cell_name(c.alpha0, c.damping)}"
        difference = rtm_study.accuracy_difference(both, pep, em)
        rows.append(results_file.ordering(quantity, difference, pep, em, paper=gap))
        if gap is not None:
            rows.append(results_file.versus(f"sensitivity, {gap_quantity(quantity.removeprefix('sensitivity, '))}",
                                            difference, gap, what="the slides' gap"))
    return rows


def _cell(grid: pd.DataFrame, method: str, alpha0: float, damping: float | None) -> pd.DataFrame:
    part = grid[(grid.method == method) & (grid.alpha0 == alpha0)]
    if damping is not None and np.isfinite(damping):
        part = part[part.damping == damping]
    return part


def result_rows(auc: pd.DataFrame, results: dict) -> dict[str, list[results_file.Row]]:
    """The rows of ``results.json`` by section: ``synthetic``, one per corpus key, ``sensitivity``."""
    sections = {"synthetic": synthetic_rows(auc)}
    for key, r in results.items():
        sections[key] = corpus_rows(key, r)
    sections["sensitivity"] = [row for key, r in results.items() for row in sensitivity_rows(key, r.sensitivity)]
    judge_headline_families(sections, headline_family(results))
    return sections


# --- report --------------------------------------------------------------------------------------

def _est(row: results_file.Row, digits: int = 4) -> str:
    """``ours [low, high]``, all with ``digits`` decimals or more where a bound needs them
    (:func:`fsengine.formatting.interval_digits`)."""
    digits = interval_digits(row.ours, *row.interval, digits=digits)
    return f"{format_number(row.ours, digits)} [{format_number(row.interval[0], digits)}, " \
           f"{format_number(row.interval[1], digits)}]"


def _resolve(n: int) -> str:
    return f"{n} resolve" + ("s" if n == 1 else "")


def _word(row: results_file.Row) -> str:
    """The verdict in a few words: ``consistent``, ``below``, ``EM > EP`` (resolved) or ``not resolved``."""
    out = results_file.outcome(row.verdict)
    if out == "resolved":
        return results_file.rule(row.verdict).split(" (", 1)[0].replace("RTM ", "")
    return out


def _rows_like(rows, prefix: str) -> list[results_file.Row]:
    return [r for r in rows if r.quantity.startswith(prefix)]


def _verdict_lines(sections: dict, results: dict) -> list[str]:
    """The report's first lines, computed from the rows: the slides' values, their gaps, the
    ordering pair by pair, the baselines, the sensitivity grid, the refits and the families."""
    rows = [r for part in sections.values() for r in part]
    lines = ["**Verdict (computed from the intervals below; 95% intervals, or the level Holm's step-down procedure "
             "tests them at within a judged family: see Multiplicity).**", ""]
    versus = [r for r in rows if r.quantity.startswith("accuracy, RTM") and r.paper is not None]
    if versus:
        lines.append(f"- **The slides' accuracies** (their Dataset 2, read as {SLIDES_DATASET_2.lower()}; fixed "
                     "prior; corrected resampled t over folds): "
                     + "; ".join(f"{r.quantity.split(', ')[1].removeprefix('RTM ')} {_est(r)} against "
                                 f"{r.paper:.4f}: {results_file.outcome(r.verdict)}" for r in versus) + ". "
                     + CIRCULAR)
    gaps = _rows_like(rows, "gap against the slides, ")
    if gaps:
        contradicted = [r for r in gaps if results_file.outcome(r.verdict) == "below"]
        lines.append(f"- **The slides' gaps** (the same reading of their Dataset 2; fold-paired corrected resampled t, "
                     f"the {len(gaps)} judged as one family by Holm's step-down procedure): "
                     + "; ".join(f"{_pair_and_where(r)[0]}: the slides {r.paper:.4f}, ours {_est(r)} at "
                                 f"{percent(r.level)}, {_gap_words(r)}" for r in gaps)
                     + f". The slides' ordering is contradicted in size on {len(contradicted)} of the {len(gaps)} "
                       "pairs (their gap lies above our whole interval)"
                     + (", holding the gap of " + ", ".join(_pair_and_where(r)[0] for r in gaps
                                                             if r not in contradicted)
                        if len(contradicted) < len(gaps) else "") + ".")
    lines += _ordering_bullet([r for r in rows if r.quantity.startswith("ordering, accuracy, ")
                               and REFIT not in r.quantity], "accuracy", "fold-paired corrected resampled t",
                              family=headline_family(results) or None)
    lines += _ordering_bullet([r for r in rows if r.quantity.startswith("ordering, synthetic AUC, ")],
                              "synthetic AUC", "seed-paired t")
    diff = _rows_like(rows, "accuracy difference, ")
    if diff:
        worse = [r for r in diff if r.interval[1] < 0]  # RTM minus baseline: the baseline is better
        better = [r for r in diff if r.interval[0] > 0]
        by_corpus = {}
        for r in worse:
            by_corpus.setdefault(r.quantity.rsplit(", ", 1)[1], []).append(r)
        lines.append(f"- **Baselines** ({', '.join(rtm_study.BASELINES)}; same folds): of {len(diff)} RTM-minus-"
                     f"baseline differences, {_resolve(len(better))} for the RTM, {len(worse)} for the baseline, "
                     f"{len(diff) - len(better) - len(worse)} are not resolved{_by_chance(diff)}. "
                     + " ".join(f"On {c.lower()}, " + _baseline_summary(rs) + "." for c, rs in by_corpus.items()))
    synth = _rows_like(rows, "synthetic AUC difference, ")
    if synth:
        res = [r for r in synth if results_file.outcome(r.verdict) == "resolved"]
        lines.append(f"- **Synthetic AUC, RTM vs MI and the L1 path** (seed-paired t): {len(res)} of {len(synth)} "
                     "differences resolved" + (": " + "; ".join(f"{_word(r)} {_est(r)}" for r in res) if res else "")
                     + _by_chance(synth) + ".")
    grid_rows = sections.get("sensitivity", [])
    if grid_rows:
        order_cells = _rows_like(grid_rows, "sensitivity, ordering")
        words = [_word(r) for r in order_cells]
        counts = {w: words.count(w) for w in dict.fromkeys(words)}
        acc = _rows_like(grid_rows, "sensitivity, accuracy")
        per_method = {}
        for r in acc:
            per_method.setdefault(r.quantity.split(", ")[2].removeprefix("RTM "), []).append(
                results_file.outcome(r.verdict))
        cell_gaps = _rows_like(grid_rows, "sensitivity, gap against the slides")
        above = [r for r in cell_gaps if results_file.outcome(r.verdict) == "below"]
        highest = max((r.interval[1] for r in cell_gaps), default=None)
        lines.append(f"- **Sensitivity** ({SLIDES_DATASET_2.lower()}, {len(order_cells)} cells of prior strength "
                     "x damping): Power EP vs EM is " + ", ".join(f"{w} in {n}" for w, n in counts.items())
                     + " of the cells; against the slides' value, "
                     + "; ".join(f"{m} is " + ", ".join(f"{w} in {o.count(w)}" for w in dict.fromkeys(o))
                                 + f" of its {len(o)} cells" for m, o in per_method.items())
                     + (f"; the slides' gap of Power EP over EM ({cell_gaps[0].paper:.4f}) lies above our interval in "
                        f"{len(above)} of the {len(cell_gaps)} cells (the highest upper bound is "
                        f"{format_number(highest)}; each at 95%, not corrected)" if cell_gaps else "") + ".")
    for key, r in results.items():
        if not r.reruns.empty:
            lines.append("- **Sweep cap** (" + rtm_study.CORPORA[key].label.lower() + "): " + _rerun_sentence(r)
                         + " " + _refit_effect(sections[key]))
    return lines + ["", *_multiplicity_lines(sections), ""]


#: why the "consistent" verdicts on the slides' Dataset 2 cannot confirm the slides
CIRCULAR = (f"These verdicts are circular: the slides' Dataset 2 was read as {SLIDES_DATASET_2.lower()} *because* "
            "the level of its accuracies matched ours, so a match in level is what chose the corpus and cannot also "
            "confirm the slides; only the orderings and gaps below test them.")


def _levels(rows) -> str:
    """The span of the levels of some rows: ``99.72%`` or ``95% to 99.72%``."""
    low, high = percent(min(r.level for r in rows)), percent(max(r.level for r in rows))
    return low if low == high else f"{low} to {high}"


def _gap_words(r: results_file.Row) -> str:
    """A gap row's verdict in words: where the slides' gap lies against our interval."""
    return {"below": "the slides' gap is above our interval", "above": "the slides' gap is below our interval",
            "consistent": "the slides' gap lies inside our interval"}[results_file.outcome(r.verdict)]


def _multiplicity_lines(sections: dict) -> list[str]:
    """Which families the record holds, which are judged as one and how, and what is left at 95% each."""
    rows = [r for part in sections.values() for r in part]

    def count(prefix, exclude=REFIT):
        return len([r for r in rows if r.quantity.startswith(prefix) and exclude not in r.quantity])

    n_order, n_gap = count("ordering, accuracy, "), count("gap against the slides, ")
    rest = [(count("ordering, synthetic AUC, "), "pairs of the slides' ordering on synthetic AUC"),
            (count("accuracy difference, "), "RTM-minus-baseline accuracy differences"),
            (count("synthetic AUC difference, "), "synthetic AUC differences from MI and the L1 path"),
            (count("sensitivity, ordering"), "Power EP vs EM orderings of the sensitivity grid"),
            (count("sensitivity, gap against the slides"), "gaps of the grid against the slides"),
            (len([r for r in rows if REFIT in r.quantity and r.quantity.startswith("ordering")]),
             "orderings with the cap-stopped fits refitted"),
            (len([r for r in rows if r.paper is not None and results_file.outcome(r.verdict)
                  in ("consistent", "above", "below") and "gap" not in r.quantity]),
             "accuracies against the slides' values")]
    return [f"**Multiplicity.** Two families are judged as one each, by Holm's step-down procedure at 95% "
            f"family-wise: the {n_order} {ORDER_FAMILY} (every corpus and prior; the report's first ordering "
            f"sentence reads them as one) and the {n_gap} {GAP_FAMILY}; each interval there is at the level Holm "
            "tests it at. Every other interval is at 95% on its own, not corrected, and says so where it is "
            "counted: " + ", ".join(f"the {n} {what}" for n, what in rest if n) + "."]


def _by_chance(rows: list[results_file.Row]) -> str:
    """The multiplicity caveat of a family of intervals, each judged alone: how many of them would
    exclude 0 by chance (two-sided, ``1 - level`` each) if no difference were real."""
    if len(rows) < 2:
        return ""
    level = rows[0].level
    return (f" (each interval at {percent(level)}, not corrected for the {len(rows)} comparisons: were none of the "
            f"differences real, about {len(rows) * (1 - level):.1f} would resolve by chance)")


def _ordering_bullet(order: list[results_file.Row], measure: str, how: str,
                     family: list[tuple] | None = None) -> list[str]:
    """One verdict line: the slides' ordering pair by pair on ``measure``. Every pair is (better,
    worse) in the slides' order, so the difference is slides-first: above 0 agrees with them. With
    ``family`` (its tests) the pairs are one family judged by Holm; the line also says what the
    intervals at 95% each would give."""
    if not order:
        return []
    agree = [r for r in order if r.interval[0] > 0]
    reverse = [r for r in order if r.interval[1] < 0]

    def listed(rs):
        return "; ".join(f"{_word(r)} ({_where(r).removeprefix(measure + ', ')}: {_est(r)})" for r in rs)

    if family is None:
        judged, caveat = "", _by_chance(order)
    else:
        judged = (f"; the {len(order)} pairs are one family, judged by Holm's step-down procedure at 95% "
                  "family-wise")
        single = [_fold_test(df, first, second)[1](stats.LEVEL) for _, df, first, second, _ in family]
        caveat = (f"; the smallest Holm-adjusted p is {min(holm_adjusted(family)):.3f}. Each at 95% on its own, "
                  f"{_resolve(sum(e.low > 0 for e in single))} the slides' way and "
                  f"{_resolve(sum(e.high < 0 for e in single))} the other way, where about "
                  f"{len(single) * (1 - stats.LEVEL):.1f} would by chance were none real")
    return [f"- **The slides' ordering Power EP > EP > EM on {measure}**, pair by pair ({how}{judged}): of "
            f"{len(order)} pair{'s' if len(order) != 1 else ''}, {_resolve(len(agree))} in the slides' direction, "
            f"{_resolve(len(reverse))} the other way and "
            f"{len(order) - len(agree) - len(reverse)} are not resolved{caveat}."
            + (f" The other way: {listed(reverse)}." if reverse else "")
            + (f" The slides' way: {listed(agree)}." if agree else "")]


def _baseline_summary(rows) -> str:
    by_base = {}
    for r in rows:
        m, base = r.quantity.split(", ")[1].split(" minus ")
        by_base.setdefault(base, []).append(m.removeprefix("RTM "))
    return "; ".join(f"{base} beats {', '.join(ms)}" for base, ms in by_base.items())


def _rerun_sentence(r) -> str:
    names = "; ".join(f"{row.method}, fold {row.fold} ({'converged' if row.converged else 'not converged'} "
                      f"in {int(row.sweeps):,} of at most {int(row.max_iter):,} sweeps; accuracy "
                      f"{_protocol_accuracy(r.folds, row):.4f} at the cap, {row.accuracy:.4f} refitted)"
                      for row in r.reruns.itertuples())
    return f"{len(r.reruns)} protocol fit(s) stopped at the cap and were refitted: {names}."


def _protocol_accuracy(folds: pd.DataFrame, row) -> float:
    return float(folds[(folds.fold == row.fold) & (folds.method == row.method)].accuracy.iloc[0])


def _refit_effect(rows) -> str:
    refit = {r.quantity.removesuffix(f", {REFIT}"): r for r in rows if r.quantity.endswith(REFIT)
             and r.quantity.startswith("ordering")}
    base = {r.quantity: r for r in rows}
    changed = [q for q, r in refit.items() if q in base and _word(base[q]) != _word(r)]
    if not refit:
        return ""
    if not changed:
        return f"No ordering verdict changes with the refits ({len(refit)} checked)."
    return "Ordering verdicts that change with the refits: " + "; ".join(
        f"{q.removeprefix('ordering, ')}: {_word(base[q])} -> {_word(refit[q])}" for q in changed) + "."


def _convergence_lines(fits: pd.DataFrame, by: list[str], unit: str) -> str:
    """Markdown table per ``by`` (ending with the method) over the RTM fits: share converged,
    sweeps, factors skipped in the last sweep (worst fit), seconds; then a sentence naming every
    fit that did not converge (``unit`` is the column that tells fits apart: seed or fold)."""
    rtm = fits[fits.method.str.startswith("RTM")]
    if rtm.empty:
        return ""
    rtm = rtm.astype({"sweeps": int, "skipped": int})  # baselines' NaN made them float
    agg = dict(converged=("converged", "mean"), sweeps=("sweeps", "mean"), most_sweeps=("sweeps", "max"),
               skipped=("skipped", "max"))
    if "seconds" in rtm:
        agg["seconds"] = ("seconds", "mean")
    table = markdown_table(rtm.groupby(by).agg(**agg).rename(columns={
        "converged": f"share of {unit}s converged", "sweeps": "mean sweeps", "most_sweeps": "most sweeps",
        "skipped": "most factors skipped (last sweep)", "seconds": "mean seconds per fit"}), 2)
    failed = rtm[~rtm.converged.astype(bool)]
    if failed.empty:
        return table + ("\n\nEvery RTM fit converged (largest change of a posterior mean below 1e-4, "
                        "at most 1% of the factors skipped).")
    names = "; ".join(" ".join(str(r[c]) for c in by[:-1]) + f" {r.method}, {unit} {r[unit]} "
                      f"({int(r.sweeps)} sweeps, {int(r.skipped)} factors skipped)" for _, r in failed.iterrows())
    return table + f"\n\n**{len(failed)} of {len(rtm)} RTM fits did not converge**: {names.strip()}."


def _estimate_table(rows, key_of) -> pd.DataFrame:
    """A table of ``value [low, high]`` cells; ``key_of(row) -> (index, column)`` or None to skip."""
    cells = {}
    for r in rows:
        key = key_of(r)
        if key is not None:
            cells.setdefault(key[1], {})[key[0]] = _est(r)
    return pd.DataFrame(cells).fillna("-")


def _pair_and_where(r: results_file.Row) -> tuple[str, str]:
    """(``A vs B``, where: ``Sentence polarity / fixed prior``) of an ordering row."""
    parts = r.quantity.split(", ")[2:]  # after "ordering" / "sensitivity, ordering" and the measure
    pair = next(p for p in parts if " vs " in p)
    return pair, " / ".join(reversed([p for p in parts if p != pair]))


def _where(r: results_file.Row) -> str:
    pair, where = _pair_and_where(r)
    measure = r.quantity.split(", ")[1]
    return f"{measure}, {where.replace(' / ', ', ')}"


def _ordering_table(rows) -> pd.DataFrame:
    cells = {}
    for r in rows:
        pair, where = _pair_and_where(r)
        cells.setdefault(f"{pair} (difference)", {})[where] = f"{_est(r)}: {_word(r)}"
    return pd.DataFrame(cells).fillna("-")


def _report(quick, synth, roc, results, table, missing, sections, *, note="", seconds=None, processes="") -> str:
    rows = [r for part in sections.values() for r in part]
    srows = sections["synthetic"]
    lines = [
        "# rtm-roc: Relevance Tagging Machine, ROC and sentiment accuracy",
        "",
        *_verdict_lines(sections, results),
        *([note, ""] if note else []),
        "**Choices made after seeing results on the same test folds** (from the project's history; nothing "
        "in this run is chosen on its test folds: the settings, the grid and the refit cap were fixed before "
        "it ran):",
        "",
        *[f"- {c}" for c in test_set_choices()],
        "",
        "What differs from the slides: their two datasets are unnamed (we read Dataset 2 as sentence polarity), "
        "their prior (fixed or ARD) is not stated (we run both), and our EP uses approximate tilted moments "
        "(details at the end).",
        "",
        "Source: Molchanov, Kondrashkin & Vetrov, *Power Expectation Propagation for the Relevance "
        "Tagging Machine* (slides, 2015): synthetic ROC for feature selection and the sentiment "
        "test-accuracy table.",
        "",
        f"Command: `python -m fsengine reproduce rtm-roc{' --quick' if quick else ''}`"
        + (" (quick: CI-sized, not the full experiment)" if quick else "")
        + (f"; this run took {seconds:,.0f} s wall time on {processes}." if seconds is not None else "."),
        "",
        "Intervals: synthetic AUC, t over seeds (each seed draws its own data) and seed-paired t for "
        "differences; CV accuracy, the corrected resampled t of Nadeau & Bengio (2003) over folds, "
        "variance (1/k + n_test/n_train) s^2 with k - 1 degrees of freedom, because folds share training "
        "rows, and its fold-paired version for differences (every method and baseline on the same folds). "
        "An ordering is *resolved* when the interval of the paired difference excludes 0 (at 95%, or at the level "
        "Holm's step-down procedure tests it at within a judged family: Multiplicity above). Raw numbers: "
        "`synthetic_auc.csv`, `accuracy_folds.csv` (correct answers per fold), `cap_reruns.csv`, "
        "`sensitivity_folds.csv`.",
        "",
        "## Synthetic data: finding the relevant tags",
        "",
        f"RTM generative model (`synthetic_rtm`): {synth['n_samples']} objects, {synth['n_tags']} tags, "
        f"{synth['n_relevant']} relevant (theta_j = 0.5 +- U(0.1, 0.4)), tag rates log-uniform in "
        "[0.017, 0.15]; seeds " + ", ".join(map(str, synth["seeds"])) + ". RTM scores: log Bayes factor "
        "of theta_j against 0.5 under a fixed Beta(5, 5) prior (no ARD), damping 0.5, inner damping 0.5, "
        "sequential updates, tol 1e-4; each method also with ARD (alpha_j maximising the evidence, started at "
        "5). Baselines: marginal mutual information and the L1-logistic path.",
        "",
        "Mean AUC over seeds [95% t interval]:",
        "",
        markdown_table(_estimate_table(_rows_like(srows, "synthetic AUC, "),
                            lambda r: (r.quantity.removeprefix("synthetic AUC, "), "AUC")).sort_values(
            "AUC", ascending=False)),
        "",
        "The slides' ordering on the AUC, pair by pair (seed-paired t):",
        "",
        markdown_table(_ordering_table(_rows_like(srows, "ordering, "))),
        "",
        "Each RTM variant minus each baseline (seed-paired t):",
        "",
        markdown_table(_estimate_table(_rows_like(srows, "synthetic AUC difference, "), lambda r: tuple(
            r.quantity.removeprefix("synthetic AUC difference, ").split(" minus ")))),
        "",
        "Per seed (`synthetic_auc.csv`):",
        "",
        markdown_table(roc.auc),
        "",
        "Mean training seconds per seed (`synthetic_seconds.csv`): "
        + ", ".join(f"{k} {v:.1f}" for k, v in roc.seconds.items()) + ".",
        "",
        "Convergence of the RTM fits (per seed; `synthetic_fits.csv`):",
        "",
        _convergence_lines(roc.fits, ["method"], "seed"),
        "",
        "The slides show the ROC curves only as a picture (no AUC); ours are in `roc.html` (seed 0), "
        "`auc.html` (all seeds, with the intervals) and `convergence.html` (traces of seed 0).",
        "",
        "## Sentiment: test accuracy",
        "",
    ]
    if results:
        order_rows = [r for r in rows if r.quantity.startswith("ordering, accuracy") and REFIT not in r.quantity]
        folds = _frame(results, "folds")
        labels = [rtm_study.CORPORA[k].label for k in results]
        acc_cells = pd.DataFrame({c: [f"{table.at[m, c]:.4f} [{table.at[m, c + ' low']:.4f}, "
                                      f"{table.at[m, c + ' high']:.4f}]" if np.isfinite(table.at[m, c]) else "-"
                                      for m in table.index] for c in labels}, index=table.index)
        lines += [
            "Word-presence tags (vocabulary rebuilt on each training fold; min df 5 for movie "
            "reviews, 2 for sentences), stratified k-fold CV (seed 0). RTM settings per corpus: "
            + "; ".join(f"{rtm_study.CORPORA[k].label}: alpha0 = {rtm_study.CORPORA[k].settings.alpha0:g}, "
                        f"damping {rtm_study.CORPORA[k].settings.damping:g}, inner damping "
                        f"{rtm_study.CORPORA[k].settings.inner_damping:g}, max "
                        f"{rtm_study.CORPORA[k].settings.max_iter:,} sweeps" for k in results)
            + ". Baselines on the same folds and tags: BernoulliNB and MultinomialNB (alpha = 1), L2-logistic "
            "regression (C in {" + ", ".join(f"{c:g}" for c in rtm_study.L2_CS) + "}) and L1-logistic "
            "regression (C in {" + ", ".join(f"{c:g}" for c in rtm_study.L1_CS) + "}), C by inner 3-fold "
            "CV on the training fold.",
            "",
            "Ours (mean over folds [95% corrected resampled t interval]; documents per corpus: "
            + ", ".join(f"{rtm_study.CORPORA[k].label} {r.folds.n_docs.iloc[0]:,} in "
                        f"{r.folds.fold.nunique()} folds" for k, r in results.items()) + "):",
            "",
            markdown_table(acc_cells),
            "",
            "The slides' table (datasets not named there):",
            "",
            markdown_table(rtm_study.SLIDES_ACCURACY),
            "",
            "The slides' ordering, pair by pair (fold-paired corrected resampled t at the level Holm's step-down "
            f"tests each pair at within the family of all {len(order_rows)} (" + _levels(order_rows) + "); `paper` in "
            "`results.json` holds the slides' Dataset 2 difference for sentence polarity; each difference against "
            "that gap is a row of its own):",
            "",
            markdown_table(_ordering_table(order_rows)),
            "",
        ]
        for key in results:
            diff = _rows_like(sections[key], "accuracy difference, ")
            if diff:
                lines += [f"{rtm_study.CORPORA[key].label}: each RTM variant minus each baseline (fold-paired):", "",
                          markdown_table(_estimate_table(diff, lambda r: tuple(
                              r.quantity.split(", ")[1].split(" minus ")))), ""]
        lines += [
            "Convergence of the RTM fits (per fold; `accuracy_folds.csv`):",
            "",
            _convergence_lines(folds, ["corpus", "method"], "fold"),
            "",
        ]
        for key, r in results.items():
            if not r.reruns.empty:
                refit_rows = [row for row in sections[key] if row.quantity.endswith(REFIT)]
                lines += [f"### Sweep cap: {rtm_study.CORPORA[key].label.lower()}", "",
                          _rerun_sentence(r) + f" The refit cap is {rtm_study.CAP_RERUN_FACTOR} times the "
                          "corpus' cap (`cap_reruns.csv`). The protocol's numbers above keep the fits at the cap; "
                          "with the refits in their place:", "",
                          *results_file.markdown(refit_rows), "", _refit_effect(sections[key]), ""]
        grid_rows = sections.get("sensitivity", [])
        if grid_rows:
            lines += _grid_section(grid_rows, results)
        lines += [
            "### What differs from the slides' set-up",
            "",
            "- The slides do not name their two datasets, the tag vocabulary, the split or the "
            "hyperparameters. We compare their Dataset 2 with sentence polarity; none of our corpora is "
            "compared with their Dataset 1.",
            "- The slides do not say whether their accuracy runs used ARD. We run every method twice: a "
            "fixed symmetric Beta prior (alpha0 per corpus, stronger for long reviews) and ARD started "
            "from the same alpha0 (rows `+ ARD`).",
            "- EP's tilted moments are approximated (one-dimensional reduction with the other tags' "
            "log-odds as a Gaussian); the slides do not say how theirs were computed.",
            "",
        ]
    if missing:
        lines += ["Corpora not found (set FSENGINE_DATA): " + "; ".join(missing), ""]
    lines += ["## Every row of `results.json`", ""]
    for name, part in sections.items():
        if part:
            title = "Synthetic" if name == "synthetic" else "Sensitivity grid" if name == "sensitivity" \
                else rtm_study.CORPORA[name].label
            lines += [f"### {title}", "", *results_file.markdown(part), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _grid_section(grid_rows, results) -> list[str]:
    grid = _frame(results, "sensitivity")
    acc = _rows_like(grid_rows, "sensitivity, accuracy")
    order = _rows_like(grid_rows, "sensitivity, ordering")

    def cell_of(q):  # "sensitivity, <measure>, <method or pair>, <corpus>, <cell>"
        return q.split(", ", 4)[-1]

    gaps = {cell_of(r.quantity): r for r in _rows_like(grid_rows, "sensitivity, gap against the slides")}

    table = {}
    for r in acc:
        method = r.quantity.split(", ")[2]
        table.setdefault(cell_of(r.quantity), {})[method] = f"{_est(r)}: {results_file.outcome(r.verdict)}"
    # EM has no damping: its cell is keyed by alpha0 alone; show it on every damping row of that alpha0
    em = {k: v for k, v in table.items() if "damping" not in k}
    rows = {}
    for r in order:
        cell = cell_of(r.quantity)
        alpha_part = cell.split(", damping")[0]
        rows[cell] = {"RTM Power EP": table.get(cell, {}).get("RTM Power EP", "-"),
                      "RTM EM": em.get(alpha_part, {}).get("RTM EM", "-"),
                      "Power EP - EM": f"{_est(r)}: {_word(r)}",
                      **({"the slides' gap": _gap_words(gaps[cell]).removeprefix("the slides' gap ")}
                         if cell in gaps else {})}
    fits = grid[grid.method.str.startswith("RTM")]
    not_conv = fits[~fits.converged.astype(bool)]
    slides = rtm_study.SLIDES_ACCURACY["Dataset 2"]
    return [
        f"### Sensitivity: prior strength and damping ({SLIDES_DATASET_2.lower()})", "",
        "Fixed-prior Power EP and EM on the same folds over alpha0 x damping (EM has no damping, so its "
        "accuracy depends on alpha0 only; inner damping and the cap as in the protocol). Verdicts against the "
        f"slides' Dataset 2 values (Power EP {slides['RTM Power EP']:.4f}, EM {slides['RTM EM']:.4f}); the "
        "difference is fold-paired (`sensitivity_folds.csv`), and judged against the slides' gap "
        f"({slides['RTM Power EP'] - slides['RTM EM']:.4f}) too; each at 95%, not corrected:", "",
        markdown_table(pd.DataFrame(rows).T),
        "",
        (f"{len(not_conv)} of {len(fits)} grid fits did not converge: " + "; ".join(
            f"{r.method} {_cell_name(r.alpha0, r.damping)}, fold {r.fold} ({int(r.sweeps):,} sweeps)"
            for r in not_conv.itertuples()) + "." if len(not_conv) else
         f"Every one of the {len(fits)} grid fits converged."),
        "",
    ]


def headline(out_dir: Path) -> str:
    """The record's headline on the results page: the recorded full run, formatted from its
    ``results.json``, its fold CSVs and report (a test checks that the page carries exactly this text)."""
    out_dir = Path(out_dir)
    data = results_file.read(out_dir / results_file.FILENAME)
    rows = [results_file.Row(**r) for r in data["rows"]]
    by = {r.quantity: r for r in rows}
    folds = sorted({c["folds"] for c in data["inputs"]["corpora"].values()})
    took = _DURATION.search((out_dir / "report.md").read_text())
    sp = SLIDES_DATASET_2
    acc = {m: by[f"accuracy, RTM {m}, {sp}"] for m in SLIDES_ORDER}
    versus = "; ".join(f"{m} {_est(r)} (slides {r.paper:.4f}: {results_file.outcome(r.verdict)})"
                       for m, r in acc.items())
    gaps = [r for r in rows if r.quantity.startswith("gap against the slides, ")]
    below = [r for r in gaps if results_file.outcome(r.verdict) == "below"]
    order = [r for r in rows if r.quantity.startswith("ordering, accuracy, ") and REFIT not in r.quantity]
    resolved = [r for r in order if results_file.outcome(r.verdict) == "resolved"]
    family = headline_family(read_cv_results(out_dir))
    single = [_fold_test(df, first, second)[1](stats.LEVEL) for _, df, first, second, _ in family]
    diffs = [r for r in rows if r.quantity.startswith("accuracy difference, ")]
    for_base = [r for r in diffs if r.interval[1] < 0]
    for_rtm = [r for r in diffs if r.interval[0] > 0]
    auc = {m: by[f"synthetic AUC, {m}"] for m in ("RTM Power EP", "MI")}
    d = by["synthetic AUC difference, RTM Power EP minus MI"]
    n_seeds = d.method.split(" over ")[1].split()[0]
    text = ("**`rtm-roc`** (recorded full run"
            + (f", {float(took.group(1).replace(',', '')) / 60:,.0f} min wall on {took.group(2)}" if took else "")
            + f"; corrected resampled t over the {'/'.join(map(str, folds))} CV folds, t over the synthetic seeds; "
            "95% intervals, or Holm's step levels within the two judged families). "
            f"{sp}, read as the slides' Dataset 2, fixed prior: {versus}. These verdicts are circular: Dataset 2 was "
            f"read as {sp.lower()} because the accuracy levels match, so a match in level cannot confirm the slides. "
            f"The slides' gaps on that reading (Holm over the {len(gaps)}): "
            + "; ".join(f"{_pair_and_where(r)[0]} {r.paper:.4f} against ours {_est(r)} ({_gap_words(r)})" for r in gaps)
            + f"; the slides' ordering is contradicted in size on {len(below)} of the {len(gaps)} pairs. "
            f"The slides' ordering pair by pair on accuracy, the {len(order)} pairs judged as one family by Holm: "
            f"{len(resolved)} resolved"
            + (" (" + "; ".join(f"{_word(r)}, {_where(r).removeprefix('accuracy, ')}" for r in resolved) + ")"
               if resolved else "")
            + f", the rest not resolved (smallest Holm-adjusted p {min(holm_adjusted(family)):.3f}; at 95% each, "
            f"{sum(e.excludes_zero() for e in single)} would resolve, where about "
            f"{len(single) * (1 - stats.LEVEL):.1f} would by chance). Against the four baselines on the same folds, "
            f"{len(for_rtm)} of {len(diffs)} RTM-minus-baseline differences resolve for the RTM and {len(for_base)} "
            f"for the baseline{_by_chance(diffs)}. "
            f"Synthetic AUC over {n_seeds} seeds: Power EP {_est(auc['RTM Power EP'])}, MI {_est(auc['MI'])}, "
            f"difference {_est(d)} ({_word(d)}).")
    return text
