"""The IFS / SGC / SGC look-ahead / count-cutoff comparison of Zhou et al. (2003), Figs. 3-5.

Runs each selection method on one maxent dataset, then re-trains a MAP model on the first k
selected pairs for several k and scores it on the test data (Fig. 5), next to the model with all
candidate pairs. Chunking data are decoded left to right with the predicted previous tags and
scored with conlleval; tagging by token accuracy; plain classification (the planted task) by
accuracy and macro precision/recall/F1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.metrics import precision_recall_fscore_support

from fsengine import stats
from fsengine.data.dataset import Dataset
from fsengine.data.maxent_tasks import sentences_of
from fsengine.maxent import MaxentData, MaxentModel, chunk_scores, fit_map, sentence_counts
from fsengine.methods.gain.model import SelectionResult, select_features
from fsengine.progress import Progress, report_to, scaled

#: display name -> select_features keyword arguments (look-ahead filled in by the caller)
METHOD_NAMES = ("IFS", "SGC", "SGC-LA", "Count cutoff")

#: gradient tolerance of the evaluation fits per training instance (scikit-learn's default: 1e-6
#: on the mean loss plus its L2 term, see :func:`fsengine.maxent.fit_map`)
FIT_TOL = 1e-6
#: Gaussian prior variances tried on a development split (:func:`choose_prior_variance`)
PRIOR_VARIANCE_GRID = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


def evaluate(ds: Dataset, model: MaxentModel, decoder: str = "greedy") -> dict:
    """Test-set scores of a maxent model on a dataset from :mod:`fsengine.data.maxent_tasks` or
    :mod:`fsengine.data.synthetic.maxent`: precision, recall, f1 (percent) and accuracy (percent).
    Sequence data are decoded with ``decoder`` (``greedy`` or ``viterbi``)."""
    return evaluate_with_counts(ds, model, decoder)[0]


def evaluate_with_counts(ds: Dataset, model: MaxentModel, decoder: str = "greedy") -> tuple[dict, np.ndarray | None]:
    """:func:`evaluate` and, for chunking, the per-sentence (TP, FP, FN) chunk counts behind it
    (:func:`fsengine.maxent.sentence_counts`, an int array (n_sentences, 3); None for tagging and
    plain classification)."""
    extras = ds.extras
    if "featurizer" in extras:
        return _sequence_scores(extras, model, decoder)
    if "test_X" in extras:
        y_true = np.asarray(extras["test_y"])
        y_pred = model.predict(extras["test_X"])
        p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average="macro", zero_division=0)
        return {"precision": 100 * p, "recall": 100 * r, "f1": 100 * f,
                "accuracy": 100 * float(np.mean(y_true == y_pred))}, None
    raise ValueError(f"{ds.name} has no test data to evaluate on (needs a maxent task dataset)")


def _sequence_scores(extras: dict, model: MaxentModel, decoder: str) -> tuple[dict, np.ndarray | None]:
    feat, test = extras["featurizer"], extras["test"]
    pred = feat.decode(model, test, decoder=decoder)
    if extras.get("task") == "chunking":
        gold = sentences_of(test, np.where(test.y >= 0, test.y, 0), feat.labels_)
        gold = [[g if y >= 0 else "O" for g, y in zip(s, test.y[st:st + n])]
                for s, st, n in zip(gold, test.starts, test.lengths)]
        guessed = sentences_of(test, pred, feat.labels_)
        return chunk_scores(gold, guessed).as_dict(), sentence_counts(gold, guessed)
    acc = 100.0 * float(np.mean(pred == test.y))
    return {"precision": acc, "recall": acc, "f1": acc, "accuracy": acc}, None


def checkpoints(budget: int, n: int = 8, first: int = 10) -> list[int]:
    """About ``n`` feature counts, log-spaced from ``first`` to ``budget`` (both included); none
    for ``n = 0``."""
    if n == 0:
        return []
    if budget <= first:
        return [budget]
    pts = np.unique(np.round(np.geomspace(first, budget, n)).astype(int))
    return [int(k) for k in pts]


class WorkRatios(NamedTuple):
    """IFS's work relative to SGC's over the first ``stages`` stages both ran."""

    stages: int
    computations: float  # IFS / SGC gain computations, stage 0 included (Fig. 3)
    time: float          # IFS / SGC cumulative selection seconds at the last of those stages (Fig. 4)


@dataclass
class Comparison:
    """Selections per method, the Fig. 5 curves and the all-features reference."""

    dataset: str
    n_train: int
    n_candidates: int
    selections: dict[str, SelectionResult]
    curves: pd.DataFrame          # method, n_features, precision, recall, f1, accuracy, seconds_fit
    all_features: dict            # scores of the model with every candidate pair
    labels: tuple = ()            # class names indexed by class id
    settings: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)  # (method, k) -> the MAP model behind that row of curves
    #: (method, k) -> per-sentence (TP, FP, FN) of that row of curves (greedy; chunking only), and
    #: "all features" -> those of the all-features model
    counts: dict = field(default_factory=dict)
    _f1_memo: dict = field(default_factory=dict, repr=False, compare=False)

    def f1_estimates(self, *, n_resamples: int = stats.N_BOOTSTRAP, level: float = stats.LEVEL,
                     seed: int = 0) -> dict[tuple[str, int], stats.Estimate]:
        """(method, k) -> the F1 of that point of :attr:`curves` with its percentile bootstrap
        interval over the test sentences (:func:`fsengine.stats.f1_interval`; ``seed``: the same
        resamples for every point), for the points with per-sentence counts (chunking only).
        Computed once per settings."""
        key = (int(n_resamples), float(level), int(seed))
        if key not in self._f1_memo:
            self._f1_memo[key] = {
                (m, int(k)): stats.f1_interval(self.counts[(m, int(k))], n_resamples=n_resamples, level=level,
                                               seed=seed)
                for m, k in zip(self.curves["method"], self.curves["n_features"]) if (m, int(k)) in self.counts}
        return self._f1_memo[key]

    def f1_intervals(self, *, n_resamples: int = stats.N_BOOTSTRAP, level: float = stats.LEVEL,
                     seed: int = 0) -> pd.DataFrame:
        """:meth:`f1_estimates` as a frame (columns method, n_features, f1, low, high; empty without
        per-sentence counts); its ``attrs`` hold the level and the method of the intervals."""
        estimates = self.f1_estimates(n_resamples=n_resamples, level=level, seed=seed)
        frame = pd.DataFrame([(m, k, e.value, e.low, e.high) for (m, k), e in estimates.items()],
                             columns=["method", "n_features", "f1", "low", "high"])
        frame.attrs.update(level=level, method=next(iter(estimates.values())).method if estimates else "")
        return frame

    def traces(self) -> dict[str, pd.DataFrame]:
        """The selection trace of every method (what the figures of :mod:`fsengine.plots.gain` take)."""
        return {m: sel.trace for m, sel in self.selections.items()}

    def work_ratios(self) -> WorkRatios | None:
        """IFS / SGC gain computations and selection time over the stages both ran (the page's
        headline of Figs. 3-4); None unless IFS ran and SGC ran more than one stage."""
        traces = self.traces()
        if "IFS" not in traces or "SGC" not in traces or len(traces["SGC"]) < 2 or not len(traces["IFS"]):
            return None
        ifs, sgc = traces["IFS"], traces["SGC"]
        k = min(len(ifs), len(sgc))
        computations = ifs["gain_computations"].iloc[:k].sum() / max(sgc["gain_computations"].iloc[:k].sum(), 1)
        seconds = ifs["seconds"].iloc[k - 1] / max(sgc["seconds"].iloc[k - 1], 1e-9)
        return WorkRatios(k, float(computations), float(seconds))

    @property
    def common_stages(self) -> int:
        """Stages every method ran (0 without selections)."""
        return min((len(sel.trace) for sel in self.selections.values()), default=0)

    def stage_table(self, stage: int) -> pd.DataFrame:
        """One row per method at ``stage`` (1-based, at most :attr:`common_stages`): the pair it
        added there, that pair's gain G, and its gain computations and seconds up to that stage."""
        if not 1 <= stage <= self.common_stages:
            raise ValueError(f"stage must be in 1..{self.common_stages}, got {stage}")
        rows = []
        for method, sel in self.selections.items():
            done = sel.trace.iloc[:stage]
            last = self.selected_table(method).iloc[stage - 1]
            rows.append({"Method": method, "Feature added": f"{last['predicate']} → {last['class']}",
                         "Gain of that feature": float(done["gain"].iloc[-1]),
                         "Gains computed up to this stage": int(done["gain_computations"].sum()),
                         "Seconds up to this stage": float(done["seconds"].iloc[-1])})
        return pd.DataFrame(rows)

    def selected_table(self, method: str) -> pd.DataFrame:
        """The selected features of one method, stage by stage, with class names."""
        t = self.selections[method].trace
        names = np.asarray(self.labels if self.labels else [str(c) for c in range(t["class"].max() + 1)],
                           dtype=object)
        return pd.DataFrame({
            "stage": t["stage"] + 1, "predicate": t["predicate_name"],
            "class": names[t["class"].to_numpy().astype(int)] if len(t) else [],
            "gain G": t["gain"], "alpha": t["alpha"], "gain computations": t["gain_computations"],
            "seconds": t["seconds"]})

    def overlap(self) -> pd.DataFrame:
        """|A & B| / |A| for the selected pair sets of every two methods (common length)."""
        names = list(self.selections)
        k = min(len(s.trace) for s in self.selections.values()) if names else 0
        sets = {m: set(self.selections[m].selected[:k].tolist()) for m in names}
        mat = [[len(sets[a] & sets[b]) / k if k else np.nan for b in names] for a in names]
        return pd.DataFrame(mat, index=names, columns=names)


def _select_kwargs(name: str, lookahead: int) -> dict:
    return {"IFS": {"method": "ifs"}, "SGC": {"method": "sgc"},
            "SGC-LA": {"method": "sgc", "lookahead": lookahead},
            "Count cutoff": {"method": "count"}}[name]


def run_comparison(ds: Dataset, *, budget: int = 300, methods=METHOD_NAMES, lookahead: int = 500,
                   cutoff: int = 2, prior_variance: float = 1.0, ifs_budget: int | None = None,
                   n_checkpoints: int = 8, extra_checkpoints=(), with_all_features: bool = True,
                   progress: Progress | None = None) -> Comparison:
    """Select up to ``budget`` pairs with each method (IFS: ``ifs_budget``, default ``budget``),
    then evaluate MAP models (Gaussian prior variance ``prior_variance``) on the first k pairs at
    ``n_checkpoints`` log-spaced k (plus ``extra_checkpoints``, e.g. the paper's 1,160; with
    ``n_checkpoints=0`` only those).

    ``progress(fraction, message)`` is called after every selection stage and evaluation. A
    comparison cut short is no result: :class:`~fsengine.progress.StopRequested` raised by it
    propagates (the selections it interrupts keep their pairs, but the comparison is not made)."""
    unknown = [m for m in methods if m not in METHOD_NAMES]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {', '.join(METHOD_NAMES)}")
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    progress = report_to(progress)
    data = _maxent_data(ds)
    n_cand = int(data.candidate_pairs(cutoff)[0].size)
    names = list(ds.feature_names)
    budgets = {m: (ifs_budget or budget) if m == "IFS" else budget for m in methods}
    total_work = sum(budgets.values()) * 2 + (budget if with_all_features else 0)
    done = 0
    selections = {}
    for m in methods:
        selecting = scaled(progress, done / total_work, (done + budgets[m]) / total_work, f"{m}: ")
        selections[m] = select_features(data, cutoff=cutoff, n_features=budgets[m], predicate_names=names,
                                        progress=selecting, **_select_kwargs(m, lookahead)).propagate_stop()
        done += budgets[m]
    tol = FIT_TOL * data.n
    rows, models, counts = [], {}, {}
    for m in methods:
        sel = selections[m]
        prev_pairs, prev_w = 0, np.zeros(0)
        n_sel = len(sel.trace)
        ks = sorted(set(checkpoints(n_sel, n_checkpoints)) | {k for k in extra_checkpoints if k <= n_sel})
        for k in ks:
            pred, cls = sel.selected_pairs(k)
            start = time.perf_counter()
            w0 = np.concatenate([prev_w, np.zeros(k - prev_pairs)])
            fit = fit_map(data, pred, cls, prior_variance=prior_variance, w0=w0, tol=tol)
            scores, counts[(m, k)] = evaluate_with_counts(ds, fit.model)
            rows.append({"method": m, "n_features": k, **_pick(scores),
                         "seconds_fit": time.perf_counter() - start})
            models[(m, k)] = fit.model
            prev_pairs, prev_w = k, fit.model.weights
            done += budgets[m] / len(ks)
            progress(min(1.0, done / total_work), f"{m}: evaluated {k} features")
    all_scores = {}
    if with_all_features:
        progress(min(1.0, done / total_work), f"training the all-features model ({n_cand:,} pairs)")
        pred, cls = data.candidate_pairs(cutoff)
        fit = fit_map(data, pred, cls, prior_variance=prior_variance, tol=tol)
        scores, counts["all features"] = evaluate_with_counts(ds, fit.model)
        all_scores = {**_pick(scores), "n_features": n_cand}
    progress(1.0, "done")
    curves = pd.DataFrame(rows, columns=["method", "n_features", *SCORE_KEYS, "seconds_fit"])
    settings = dict(budget=budget, ifs_budget=ifs_budget or budget, lookahead=lookahead,
                    cutoff=cutoff, prior_variance=prior_variance, methods=list(methods))
    return Comparison(ds.name, data.n, n_cand, selections, curves, all_scores,
                      tuple(ds.target_names), settings, models, {k: v for k, v in counts.items() if v is not None})


SCORE_KEYS = ("precision", "recall", "f1", "accuracy")


def _pick(scores: dict) -> dict:
    return {k: float(scores[k]) for k in SCORE_KEYS}


def _maxent_data(ds: Dataset) -> MaxentData:
    y_idx = np.asarray(ds.y)
    return MaxentData(ds.X, y_idx, n_classes=max(len(ds.target_names), int(y_idx.max()) + 1))


def decoder_scores(ds: Dataset, comp: Comparison, method: str, k: int, decoders=("greedy", "viterbi")) -> dict:
    """Scores under each decoder of the MAP model behind ``comp``'s row (``method``, ``k``) of the
    Fig. 5 curves (``k`` must be one of its checkpoints, e.g. via ``extra_checkpoints``):
    ``{decoder: {precision, recall, f1, accuracy, counts}}`` (``counts``: the per-sentence TP / FP /
    FN, or None). The greedy scores are that row's."""
    model = comp.models.get((method, k))
    if model is None:
        fitted = sorted(n for m, n in comp.models if m == method)
        raise ValueError(f"no MAP model of {method} with {k} features in this comparison; fitted sizes: "
                         f"{fitted or 'none'} (pass {k} in extra_checkpoints to run_comparison)")
    out = {}
    for d in decoders:
        scores, counts = evaluate_with_counts(ds, model, d)
        out[d] = {**_pick(scores), "counts": counts}
    return out


def decoded_scores(ds: Dataset, comp: Comparison, points, decoders=("greedy", "viterbi")) -> list[dict]:
    """:func:`decoder_scores` at every (method, k) of ``points`` that ``comp`` has fitted, as rows
    ``{method, n_features, decoder, precision, recall, f1, accuracy, counts}``."""
    rows = []
    for method, k in points:
        if (method, k) in comp.models:
            for decoder, sc in decoder_scores(ds, comp, method, k, decoders).items():
                rows.append({"method": method, "n_features": k, "decoder": decoder, **sc})
    return rows


def refit_checkpoint(ds: Dataset, comp: Comparison, method: str, k: int, prior_variance: float) -> MaxentModel:
    """The MAP model on ``method``'s first ``k`` selected pairs of ``comp`` with another prior
    variance (warm-started from the comparison's model at that size when it has one): for a choice
    made on another development split that picked another variance. The selections themselves do
    not depend on the variance."""
    sel = comp.selections.get(method)
    if sel is None or len(sel.trace) < k:
        raise ValueError(f"{method} did not select {k} pairs in this comparison")
    data = _maxent_data(ds)
    pred, cls = sel.selected_pairs(k)
    start = comp.models.get((method, k))
    return fit_map(data, pred, cls, prior_variance=prior_variance, tol=FIT_TOL * data.n,
                   w0=None if start is None else start.weights).model


def selection_cpu_seconds(ds: Dataset, *, stages: int, methods=("IFS", "SGC", "SGC-LA"), repeats: int = 5,
                          lookahead: int = 500, cutoff: int = 2, progress: Progress | None = None) -> pd.DataFrame:
    """Repeated timings of the selections alone: each repeat runs every method of ``methods`` (in
    that order) for ``stages`` stages. Rows: repeat, method, stages, cpu_seconds (CPU time of this
    process, ``time.process_time``, after stage 0 up to the last stage, :func:`stage_work`),
    gain_computations (after stage 0; the same in every repeat)."""
    progress = report_to(progress)
    data = _maxent_data(ds)
    rows = []
    for r in range(repeats):
        for i, m in enumerate(methods):
            progress((r * len(methods) + i) / (repeats * len(methods)), f"timing repeat {r + 1} of {repeats}: {m}")
            t = select_features(data, cutoff=cutoff, n_features=stages, **_select_kwargs(m, lookahead)).trace
            rows.append({"repeat": r, "method": m, **stage_work(t, stages)})
    progress(1.0, "timings done")
    return pd.DataFrame(rows, columns=["repeat", "method", "stages", "cpu_seconds", "gain_computations"])


def stage_work(trace: pd.DataFrame, stages: int) -> dict:
    """Work of a selection over its first ``stages`` stages after stage 0 (the closed-form stage-0
    gains are the part every method shares, which Zhou et al. exclude): CPU seconds and gain
    computations."""
    k = min(int(stages), len(trace))
    if k < 2:
        raise ValueError(f"timing needs at least 2 stages, the trace has {len(trace)}")
    return {"stages": k, "cpu_seconds": float(trace["cpu_seconds"].iloc[k - 1] - trace["cpu_seconds"].iloc[0]),
            "gain_computations": int(trace["gain_computations"].iloc[1:k].sum())}


def timing_table(comp: Comparison, extra: pd.DataFrame, stages: int) -> pd.DataFrame:
    """The comparison's own selections as repeat 0 and the extra timings after them: rows repeat,
    method, stages, cpu_seconds, gain_computations (after stage 0, up to ``stages``)."""
    rows = [{"repeat": 0, "method": m, **stage_work(t, stages)} for m, t in comp.traces().items()
            if m != "Count cutoff"]
    extra = extra.assign(repeat=extra["repeat"] + 1)
    return pd.concat([pd.DataFrame(rows), extra], ignore_index=True)[list(extra.columns)]


def cpu_ratios(timings: pd.DataFrame, method: str) -> np.ndarray:
    """IFS / ``method`` CPU seconds, per repeat (the two timed in the same repeat)."""
    t = timings.pivot(index="repeat", columns="method", values="cpu_seconds")
    return (t["IFS"] / t[method]).to_numpy()


#: what Zhou et al. timed (Section 4, Fig. 4): not the chunking task of the page and the lessons
PAPER_TIMED = ("a grammatical-relation task from WSJ sections 02-22 (a little over 600,000 instances, 86 tags) "
               "with 191,098 candidate features after a count cutoff of 5")
#: the speed-up they report there
PAPER_SPEEDUP = "SGC from more than 100 times to thousands of times faster than IFS in time (Fig. 4)"

#: repeats of the IFS and SGC selections behind a CPU-time ratio (the comparison's own the first)
TIMING_REPEATS = 5


def repeated_time_ratio(ds: Dataset, comp: Comparison, *, repeats: int = TIMING_REPEATS, lookahead: int = 500,
                        cutoff: int = 2, progress: Progress | None = None) -> stats.Estimate | None:
    """IFS / SGC selection CPU time over the stages both ran in ``comp``, as the median and
    interquartile range of ``repeats`` timings (the comparison's own selections, then
    ``repeats - 1`` more of each, :func:`selection_cpu_seconds`): one timing moves with the
    machine's load, the ratio of gain computations does not. None unless IFS and SGC both ran two
    stages or more."""
    traces = comp.traces()
    if "IFS" not in traces or "SGC" not in traces:
        return None
    stages = min(len(traces["IFS"]), len(traces["SGC"]))
    if stages < 2:
        return None
    extra = selection_cpu_seconds(ds, stages=stages, methods=("IFS", "SGC"), repeats=repeats - 1, lookahead=lookahead,
                                  cutoff=cutoff, progress=progress)
    timings = timing_table(comp, extra, stages)
    return stats.median_iqr(cpu_ratios(timings, "SGC"), what="repeats of both selections (CPU time)")


@dataclass
class ModelChoice:
    """The decoded model chosen on a development split and the scores behind the choice."""

    method: str
    n_features: int
    decoder: str
    table: pd.DataFrame           # method, n_features, decoder, precision, recall, f1, accuracy (development)

    def matches(self, row: dict) -> bool:
        return (row["method"], row["n_features"], row["decoder"]) == (self.method, self.n_features, self.decoder)


def choose_decoded_model(dev_ds: Dataset, points, *, prior_variance: float, lookahead: int = 500, cutoff: int = 2,
                         decoders=("greedy", "viterbi"), progress: Progress | None = None) -> ModelChoice:
    """Which (method, k, decoder) to report, chosen without the test data.

    ``dev_ds`` is a development split (see :func:`choose_prior_variance`). Every method of ``points``
    selects pairs on its training part, the MAP models (``prior_variance``) on the first k pairs
    are decoded with each decoder on the held-out training sentences, and the highest F1 wins
    (on ties: fewer features, then the order of ``decoders``, then of ``points``)."""
    points = [(m, int(k)) for m, k in points]
    if not points:
        raise ValueError("points must name at least one (method, number of features)")
    methods = tuple(dict.fromkeys(m for m, _ in points))
    budget = max(k for _, k in points)
    comp = run_comparison(dev_ds, budget=budget, ifs_budget=budget, methods=methods, lookahead=lookahead,
                          cutoff=cutoff, prior_variance=prior_variance, n_checkpoints=0,
                          extra_checkpoints=sorted({k for _, k in points}), with_all_features=False,
                          progress=progress)
    rows = [{k: v for k, v in r.items() if k != "counts"} for r in decoded_scores(dev_ds, comp, points, decoders)]
    if not rows:
        raise ValueError(f"no method selected enough pairs on the development split for {points}")
    order = {p: i for i, p in enumerate(points)}
    best = min(rows, key=lambda r: (-r["f1"], r["n_features"], decoders.index(r["decoder"]),
                                    order[(r["method"], r["n_features"])]))
    return ModelChoice(best["method"], best["n_features"], best["decoder"], pd.DataFrame(rows))


@dataclass
class PriorChoice:
    """The prior variance chosen on a development split and the scores behind the choice."""

    variance: float
    table: pd.DataFrame           # prior_variance, precision, recall, f1, accuracy (development split)
    method: str
    n_features: int
    decoder: str


def choose_prior_variance(dev_ds: Dataset, *, n_features: int, method: str = "SGC", lookahead: int = 500,
                          cutoff: int = 2, grid=PRIOR_VARIANCE_GRID, decoder: str = "greedy",
                          progress: Progress | None = None) -> PriorChoice:
    """The Gaussian prior variance of the MAP models (Eq. 2), chosen without the test data.

    ``dev_ds`` is a development split (training part and held-out *training* sentences, e.g.
    :func:`fsengine.data.maxent_tasks.load_conll2000_maxent` with ``dev_fraction``): ``method``
    selects ``n_features`` pairs on its training part, a MAP model on them is fitted for every
    variance of ``grid`` (ascending, each warm-started from the previous one) and scored on the
    held-out sentences with ``decoder``. The variance with the highest F1 wins (the smallest one
    on ties)."""
    if method not in METHOD_NAMES or method == "Count cutoff":
        raise ValueError(f"method must be one of IFS, SGC, SGC-LA, got {method!r}")
    grid = sorted(float(v) for v in grid)
    if not grid or grid[0] <= 0:
        raise ValueError(f"grid must hold positive prior variances, got {grid}")
    progress = report_to(progress)
    data = _maxent_data(dev_ds)
    sel = select_features(data, cutoff=cutoff, n_features=n_features, predicate_names=list(dev_ds.feature_names),
                          **_select_kwargs(method, lookahead))
    pred, cls = sel.selected_pairs(len(sel.trace))
    rows, w = [], None
    for i, v in enumerate(grid):
        progress(i / len(grid), f"prior variance {v:g} on the development split")
        fit = fit_map(data, pred, cls, prior_variance=v, w0=w, tol=FIT_TOL * data.n)
        w = fit.model.weights
        rows.append({"prior_variance": v, **_pick(evaluate(dev_ds, fit.model, decoder))})
    progress(1.0, "prior variance chosen")
    table = pd.DataFrame(rows)
    best = float(table.loc[table["f1"].idxmax(), "prior_variance"])  # idxmax: first (smallest) on ties
    return PriorChoice(best, table, method, len(sel.trace), decoder)
