"""What the "Bayes-factor selection" page shows, computed outside Streamlit.

* :func:`heldout_task`: any dataset as (training rows, held-out rows): a sequence-labelling task's
  own test sentences (token accuracy with gold previous tags, no decoding), a synthetic task's test
  split, otherwise a stratified split; optional training / held-out subsets keep the page
  interactive.
* :func:`run_bayes_factor`: APPROXBFFS on the task (:mod:`fsengine.methods.bayes_factor.model`).
* :func:`prefix_curve` / :func:`gain_selector_curves`: accuracy against the number of selected
  pairs for IFS and SGC (Zhou et al.; the engine behind ``IFSSelector`` / ``SGCSelector``, with its
  per-stage callback for the progress bar), each prefix re-fitted by the same MAP
  (same prior, same unpenalised bias) as Bayes-factor selection, so only the order differs.
* :func:`sign_comparison`: what the sign of the Occam factor in Eq. (12) changes.
* :func:`stop_summary`, :func:`accuracy_curves`, :func:`checkable_rounds`: the numbers the page
  shows around a run (the view computes none itself).
* :func:`run_scored`, :func:`summarise`, :func:`recommend`: the reproduction's runs scored per
  sentence on section 20 and on a development split, and the page's default chosen on the
  development split; :func:`page_default`: the page reads that choice from the
  recorded run (:func:`recorded_recommendation`), the paper's configuration without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import config, stats
from fsengine.data.dataset import Dataset
from fsengine.data.transforms import split
from fsengine.maxent import MaxentData, MaxentState, fit_map
from fsengine.methods.bayes_factor.evidence import full_laplace_margins
from fsengine.methods.bayes_factor.model import (
    BayesFactorRun,
    add_bias_column,
    approx_bayes_factor_selection,
    bias_features,
    misclassified_proposals,
    score_candidates,
)
from fsengine.methods.gain.model import select_features
from fsengine.methods.gain.study import checkpoints
from fsengine.progress import scaled

Progress = Callable[[float, str], None]
#: the maxent gain selectors compared (engine of ``IFSSelector`` / ``SGCSelector``)
GAIN_METHODS = {"IFS": "ifs", "SGC": "sgc"}
#: L-BFGS gradient tolerance of the page's MAP fits
PAGE_MAP_TOL = 1e-5
#: (sign, model prior) of the recommendation, cheapest first: the multiplicity prior stops early
CONFIGS = (("laplace", "multiplicity"), ("printed", "multiplicity"), ("printed", "uniform"),
           ("laplace", "uniform"))
#: the paper's configuration (Laplace sign, uniform prior of Eq. 13): the page's default when no
#: recorded ``reproduce bayes-factor`` run holds a recommendation chosen on a development split
PAPER_CONFIG = ("laplace", "uniform")
LABEL = {"laplace": "Laplace sign", "printed": "printed sign", "uniform": "uniform prior",
         "multiplicity": "multiplicity prior"}
#: the quantity of the results row that records whether a configuration is the recommendation
RECOMMENDED = "recommended (page default), {}"
#: words every recommendation row's verdict carries: the choice was made on the development split
CHOSEN_ON_DEVELOPMENT = "chosen on the development split"
#: development accuracies closer than this count as equal when recommending (0.05 points)
TIE = 0.0005


@dataclass(frozen=True)
class HeldOutTask:
    """Training and held-out rows of one dataset, labels as class indices 0..Y-1."""

    X: object
    y: np.ndarray
    X_val: object
    y_val: np.ndarray
    predicate_names: tuple[str, ...]
    class_names: tuple[str, ...]
    image_shape: tuple[int, int] | None
    description: str
    #: sentence of each held-out row (sequence tasks; None otherwise): the bootstrap's units
    val_units: np.ndarray | None = None
    #: development rows (held-out *training* sentences, ``extras["dev"]``), their labels and sentences
    X_dev: object = None
    y_dev: np.ndarray | None = None
    dev_units: np.ndarray | None = None

    @property
    def n_classes(self) -> int:
        return len(self.class_names)


def _first(X, y, n):
    return (X, y) if not n or n >= X.shape[0] else (X[:n], y[:n])


def _encoded_rows(encoded, lookup: dict[int, int]):
    """(X, y, sentence of each row) of encoded sentences, tags mapped to the training classes;
    rows whose tag never occurs in training are removed (their number is returned last)."""
    y = np.array([lookup.get(int(t), -1) for t in encoded.y], dtype=np.int64)
    units = np.repeat(np.arange(encoded.lengths.size), encoded.lengths)
    known = y >= 0
    return encoded.X[known], y[known], units[known], int((~known).sum())


def heldout_task(ds: Dataset, *, n_train: int = 0, n_heldout: int = 0, seed: int = 0) -> HeldOutTask:
    """Split ``ds`` for the page; ``n_train`` / ``n_heldout`` (0 = all) keep the first rows.

    Sequence tasks (``extras["test"]``, CoNLL-2000 / treebank) use their test sentences, rows
    whose tag never occurs in training are removed from the held-out part and counted in the
    description, and each held-out row keeps its sentence (``val_units``); a development split in
    ``extras["dev"]`` (:func:`fsengine.data.maxent_tasks.load_conll2000_maxent` with ``keep_test``)
    becomes ``X_dev`` / ``y_dev`` / ``dev_units``. Synthetic tasks (``extras["test_X"]``) use their
    test split; anything else a stratified 25% split (seeded).
    """
    if ds.task != "classification":
        raise ValueError(f"{ds.name} is a regression dataset; Bayes-factor selection needs class "
                         "labels (pick a classification or sequence-labelling dataset)")
    classes, y_all = np.unique(ds.y, return_inverse=True)
    if ds.target_names and np.issubdtype(classes.dtype, np.integer):
        names = tuple(ds.target_names[int(c)] if 0 <= int(c) < len(ds.target_names) else str(c)
                      for c in classes)
    else:
        names = tuple(str(c) for c in classes)
    if classes.size < 2:
        raise ValueError(f"{ds.name} holds a single class; Bayes-factor selection needs two or more")
    extras = ds.extras or {}
    units = dev = None
    if "test" in extras and hasattr(extras["test"], "X"):
        # tag ids index ds.target_names; map them onto the classes present in training
        lookup = {int(c): k for k, c in enumerate(classes)}
        X_val, y_val, units, unseen = _encoded_rows(extras["test"], lookup)
        how = (f"held-out: the task's test sentences ({y_val.size + unseen:,} tokens, gold previous tags"
               + (f"; {unseen:,} tokens with a tag unseen in training removed" if unseen else "") + ")")
        if extras.get("dev") is not None:
            dev = _encoded_rows(extras["dev"], lookup)[:3]
            how += f"; development: {dev[1].size:,} tokens of held-out training sentences"
        X, y = ds.X, y_all
    elif "test_X" in extras:
        lookup = {c: k for k, c in enumerate(classes.tolist())}
        y_val = np.array([lookup.get(t, -1) for t in np.asarray(extras["test_y"]).tolist()])
        if np.any(y_val < 0):
            raise ValueError(f"{ds.name}: the test split holds classes absent from training")
        X, y, X_val = ds.X, y_all, extras["test_X"]
        how = f"held-out: the dataset's own test split ({y_val.size:,} rows)"
    else:
        relabelled = Dataset(X=ds.X, y=y_all, feature_names=ds.feature_names,
                             provenance=ds.provenance, name=ds.name)
        train, test = split(relabelled, test_size=0.25, seed=seed)
        X, y, X_val, y_val = train.X, train.y, test.X, test.y
        how = f"held-out: a stratified 25% split (seed {seed}, {y_val.size:,} rows)"
    X, y = _first(X, y, n_train)
    X_val, y_val = _first(X_val, y_val, n_heldout)
    if units is not None:
        units = units[:y_val.shape[0]]
    if np.unique(y).size < 2:
        raise ValueError(f"the first {n_train} training rows hold a single class; use more rows")
    desc = f"{X.shape[0]:,} training rows, {X_val.shape[0]:,} held-out rows; {how}"
    return HeldOutTask(X, np.asarray(y, dtype=np.int64), X_val, np.asarray(y_val, dtype=np.int64),
                       tuple(map(str, ds.feature_names)), names, ds.image_shape, desc, units,
                       *(dev if dev is not None else (None, None, None)))


def pair_name(task: HeldOutTask, j: int, c: int) -> str:
    return f"{task.predicate_names[j]} => {task.class_names[c]}"


def run_bayes_factor(task: HeldOutTask, *, per_round: int = 10, prior_variance: float = 1.0,
                     sign: str = "laplace", model_prior: str = "uniform",
                     max_pairs: int | None = None, rounds_past_stop: int | None = 0,
                     progress: Progress | None = None, on_fit=None) -> BayesFactorRun:
    """APPROXBFFS on the task's training rows, held-out accuracy per round. ``model_prior``:
    ``"uniform"`` (Eq. 13) or ``"multiplicity"``; ``max_pairs``: a cap on the selected pairs;
    ``rounds_past_stop``: rounds traced after the automatic stop (forced additions, for the
    accuracy curve beyond it; None: up to ``max_pairs``); ``progress(fraction, message)`` after every
    round (a :class:`~fsengine.progress.StopRequested` it raises ends the run with the pairs so far);
    ``on_fit(round, model)`` after every round's MAP fit (see
    :func:`~fsengine.methods.bayes_factor.model.approx_bayes_factor_selection`)."""
    if model_prior not in ("uniform", "multiplicity"):
        raise ValueError(f"model_prior must be 'uniform' or 'multiplicity', got {model_prior!r}")
    return approx_bayes_factor_selection(
        task.X, task.y, n_classes=task.n_classes, per_round=per_round,
        prior_variance=prior_variance, sign=sign,
        log_prior_odds=0.0 if model_prior == "uniform" else "multiplicity",
        max_pairs=max_pairs, rounds_past_stop=rounds_past_stop, X_val=task.X_val,
        y_val=task.y_val, map_tol=PAGE_MAP_TOL,
        names=lambda j, c: pair_name(task, j, c), progress=progress, on_fit=on_fit)


def unit_counts(correct: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Per unit (sentence, in order of first appearance of its id): (correct rows, rows), an int
    array (n_units, 2): the units of the sentence-level bootstrap of a token accuracy
    (:func:`fsengine.stats.ratio_from_counts`)."""
    _, inverse = np.unique(np.asarray(units), return_inverse=True)
    return np.stack([np.bincount(inverse, weights=np.asarray(correct, dtype=np.float64)),
                     np.bincount(inverse)], axis=1).astype(np.int64)


@dataclass(frozen=True)
class ScoredRun:
    """A Bayes-factor run with each round's model scored per sentence: ``test[r]`` and ``dev[r]``
    are the :func:`unit_counts` of round r's model on the held-out (section-20) and development
    sentences (``dev`` None without a development split)."""

    run: BayesFactorRun
    test: np.ndarray
    dev: np.ndarray | None

    def accuracy(self, part: str, index: int) -> float:
        """Token accuracy of the model of trace row ``index`` on ``part`` ("test" or "dev")."""
        c = getattr(self, part)[index]
        return float(c[:, 0].sum() / c[:, 1].sum())


def run_scored(task: HeldOutTask, **kwargs) -> ScoredRun:
    """:func:`run_bayes_factor` (same keywords), every round's model scored per unit on the
    held-out and the development rows: per sentence on a sequence task (``val_units``), per row
    otherwise (independent rows are their own units)."""
    units = task.val_units if task.val_units is not None else np.arange(task.y_val.size)
    sets = {"test": (add_bias_column(task.X_val), task.y_val, units)}
    if task.X_dev is not None:
        sets["dev"] = (add_bias_column(task.X_dev), task.y_dev, task.dev_units)
    per: dict[str, list] = {k: [] for k in sets}

    def on_fit(rnd, model):
        for k, (Xb, y, units) in sets.items():
            per[k].append(unit_counts(model.predict(Xb) == y, units))

    run = run_bayes_factor(task, on_fit=on_fit, **kwargs)
    return ScoredRun(run, np.stack(per["test"]), np.stack(per["dev"]) if "dev" in per else None)


def summarise(scored: ScoredRun) -> dict:
    """Where a run stopped (pairs, rounds, whether by itself, why, seconds), its train, development
    and section-20 accuracy there, and the round with the best development accuracy along the
    whole traced path (the first on ties) with its pairs and section-20 accuracy."""
    run = scored.run
    tr = run.trace
    stop = int(tr.index[tr["n_selected"] == run.n_at_stop][0])
    out = {"pairs_at_stop": int(run.n_at_stop), "stopped": run.stop_round is not None,
           "rounds": int(tr.at[stop, "round"]) + 1, "stop_reason": run.stop_reason, "stop_index": stop,
           "train_at_stop": float(tr.at[stop, "train_accuracy"]), "test_at_stop": scored.accuracy("test", stop),
           "seconds": float(tr.at[stop, "seconds"]), "traced_rounds": len(tr)}
    if scored.dev is not None:
        dev = scored.dev[:, :, 0].sum(axis=1) / scored.dev[:, :, 1].sum(axis=1)
        best = int(np.argmax(dev))
        out.update(dev_at_stop=float(dev[stop]), dev_best_index=best, pairs_at_dev_best=int(tr.at[best, "n_selected"]),
                   dev_best=float(dev[best]), test_at_dev_best=scored.accuracy("test", best))
    return out


def recommend(summaries: dict[tuple[str, str], dict]) -> tuple[str, str]:
    """The configuration to use by default, chosen on the development split (held-out training
    sentences, never the test section): among those that stopped by themselves (all, if none did),
    the highest development accuracy at the stop; within :data:`TIE` of it, the fewest pairs (then
    the order of :data:`CONFIGS`)."""
    pool = {k: v for k, v in summaries.items() if v["stopped"]} or summaries
    best = max(v["dev_at_stop"] for v in pool.values())
    tied = [k for k, v in pool.items() if v["dev_at_stop"] >= best - TIE]
    order = {c: i for i, c in enumerate(CONFIGS)}
    return min(tied, key=lambda k: (pool[k]["pairs_at_stop"], order.get(k, len(order))))


def config_label(sign: str, prior: str) -> str:
    """``"Laplace sign, multiplicity prior"``: a configuration as the reproduction's rows name it."""
    return f"{LABEL[sign]}, {LABEL[prior]}"


def recorded_recommendation(results_json: Path | None = None) -> tuple[str, str] | None:
    """The (sign, model prior) that the recorded ``reproduce bayes-factor`` run recommends
    (``results.json`` in :func:`fsengine.config.results_dir` unless given): the configuration whose
    ``recommended (page default)`` row is 1 and whose verdict says it was chosen on the development
    split. None when there is no such record (no run, or a run that chose otherwise)."""
    import json

    path = results_json or config.results_dir() / "bayes-factor" / "results.json"
    try:
        rows = {r["quantity"]: r for r in json.loads(path.read_text(encoding="utf-8"))["rows"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    chosen = [c for c in CONFIGS if (r := rows.get(RECOMMENDED.format(config_label(*c)))) is not None
              and r.get("ours") == 1 and CHOSEN_ON_DEVELOPMENT in str(r.get("verdict", ""))]
    return chosen[0] if len(chosen) == 1 else None


def recorded_stops(results_json: Path | None = None) -> list[dict] | None:
    """What the recorded ``reproduce bayes-factor`` run says about stopping (``results.json`` in
    :func:`fsengine.config.results_dir` unless given), per configuration: ``configuration`` (its
    name), ``stopped`` (by itself), ``pairs`` at the stop (the cap when it never stopped) and
    ``difference``, the section-20 accuracy at the stop minus that of the development-best round
    with its interval (an :class:`~fsengine.stats.Estimate`) and ``verdict``. None without a record."""
    import json

    path = results_json or config.results_dir() / "bayes-factor" / "results.json"
    try:
        rows = {r["quantity"]: r for r in json.loads(path.read_text(encoding="utf-8"))["rows"]}
        out = []
        for c in CONFIGS:
            name = config_label(*c)
            d = rows[f"section-20 accuracy, the stop - the development-best round, {name}"]
            out.append({"configuration": name, "stopped": rows[f"stopped by itself, {name}"]["ours"] == 1,
                        "pairs": int(rows[f"pairs at the stop, {name}"]["ours"]), "verdict": d["verdict"],
                        "difference": stats.Estimate(d["ours"], *d["interval"], d["level"], d["method"])})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return out


def page_default(results_json: Path | None = None) -> tuple[str, str, bool]:
    """The page's default (sign, model prior) and whether it is the recorded recommendation
    (:func:`recorded_recommendation`, chosen on a development split of the training sentences,
    never on section 20); without one, the paper's configuration (:data:`PAPER_CONFIG`) and False."""
    chosen = recorded_recommendation(results_json)
    return (*chosen, True) if chosen is not None else (*PAPER_CONFIG, False)


def prefix_curve(task: HeldOutTask, predicates, classes, sizes, *, prior_variance: float = 1.0,
                 counts_out: dict | None = None) -> pd.DataFrame:
    """Train and held-out accuracy of the MAP model (unpenalised bias + the first k pairs, prior
    variance ``prior_variance``) for each k in ``sizes`` (warm-started from the previous k).
    ``counts_out`` (a dict, sequence tasks): filled with k -> the held-out :func:`unit_counts`."""
    Xb = add_bias_column(task.X)
    Xv = add_bias_column(task.X_val)
    data = MaxentData(Xb, task.y, task.n_classes)
    bp, bc, bv = bias_features(Xb.shape[1] - 1, task.n_classes)
    predicates, classes = np.asarray(predicates, np.int64), np.asarray(classes, np.int64)
    rows, w_prev, k_prev = [], np.zeros(bp.size), 0
    for k in sorted(set(int(s) for s in sizes if 0 <= s <= predicates.size)):
        pred = np.r_[bp, predicates[:k]]
        cls = np.r_[bc, classes[:k]]
        var = np.r_[bv, np.full(k, prior_variance)]
        fit = fit_map(data, pred, cls, prior_variance=var, tol=PAGE_MAP_TOL,
                      w0=np.r_[w_prev, np.zeros(k - k_prev)])
        correct = fit.model.predict(Xv) == task.y_val
        rows.append({"n_features": k,
                     "train_accuracy": float(np.mean(fit.model.predict(Xb) == task.y)),
                     "heldout_accuracy": float(np.mean(correct))})
        if counts_out is not None and task.val_units is not None:
            counts_out[k] = unit_counts(correct, task.val_units)
        w_prev, k_prev = fit.model.weights, k
    return pd.DataFrame(rows, columns=["n_features", "train_accuracy", "heldout_accuracy"])


def gain_selector_curves(task: HeldOutTask, budget: int, *, methods=("IFS", "SGC"),
                         prior_variance: float = 1.0, extra_sizes=(), n_points: int = 8,
                         progress: Progress | None = None, counts_out: dict | None = None) -> pd.DataFrame:
    """IFS / SGC (maxent selectors, candidates seen at least once) up to ``budget`` pairs, then
    :func:`prefix_curve` at about ``n_points`` log-spaced sizes (plus ``extra_sizes``).
    ``counts_out`` (a dict, sequence tasks): filled with (method, k) -> the held-out
    :func:`unit_counts`."""
    unknown = [m for m in methods if m not in GAIN_METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {', '.join(GAIN_METHODS)}")
    data = MaxentData(task.X, task.y, task.n_classes)
    frames = []
    for i, name in enumerate(methods):
        tick = scaled(progress, i / len(methods), (i + 0.8) / len(methods), f"{name}: ")
        sel = select_features(data, GAIN_METHODS[name], n_features=int(budget), progress=tick).propagate_stop()
        pred, cls = sel.selected_pairs()
        n = pred.size
        if progress is not None:
            progress((i + 0.8) / len(methods), f"{name}: re-fitting prefixes")
        sizes = set(checkpoints(max(n, 1), n_points, first=min(5, max(n, 1))))
        sizes |= {int(s) for s in extra_sizes if s <= n} | {0}
        mine = {} if counts_out is not None else None
        curve = prefix_curve(task, pred, cls, sizes, prior_variance=prior_variance, counts_out=mine)
        if mine:
            counts_out.update({(name, k): c for k, c in mine.items()})
        curve.insert(0, "method", name)
        curve["seconds_select"] = float(sel.trace["seconds"].iloc[-1]) if n else 0.0
        frames.append(curve)
    if progress is not None:
        progress(1.0, "done")
    return pd.concat(frames, ignore_index=True)


def bayes_factor_curve(run: BayesFactorRun) -> pd.DataFrame:
    """Accuracy of each round's MAP model against its number of pairs (from the trace)."""
    tr = run.trace
    return pd.DataFrame({"n_features": tr["n_selected"], "train_accuracy": tr["train_accuracy"],
                         "heldout_accuracy": tr["heldout_accuracy"], "round": tr["round"]})


def comparison_budget(run: BayesFactorRun) -> int:
    """How many pairs IFS and SGC select next to ``run``: as many as its last round held (at
    least 10)."""
    return max(int(run.trace["n_selected"].max()), 10)


def accuracy_curves(run: BayesFactorRun, others: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`bayes_factor_curve` as method "Bayes factor", followed by ``others`` (the
    :func:`gain_selector_curves` of IFS / SGC) when given: the data of the accuracy figure."""
    curves = bayes_factor_curve(run).assign(method="Bayes factor")
    return curves if others is None else pd.concat([curves, others], ignore_index=True)


@dataclass(frozen=True)
class StopSummary:
    """Where a run stopped by itself (or ended): pairs, rounds (MAP fits), held-out accuracy and
    seconds at that point; ``traced_past`` when rounds after the automatic stop were traced;
    ``heldout``: the held-out accuracy there with its 95% interval (:func:`heldout_at_stop`), when
    the run's rounds were scored per unit (:func:`run_scored`)."""

    pairs: int
    rounds: int
    heldout_accuracy: float
    seconds: float
    traced_past: bool
    heldout: stats.Estimate | None = None


def stop_summary(run: BayesFactorRun, scored: ScoredRun | None = None, task: HeldOutTask | None = None
                 ) -> StopSummary:
    """The page's headline numbers of ``run`` at its automatic stop (:func:`at_stop_row`); with
    ``scored`` (and its ``task``) the held-out accuracy there gets its interval."""
    row = at_stop_row(run)
    return StopSummary(int(run.n_at_stop), int(row["round"]) + 1, float(row["heldout_accuracy"]),
                       float(row["seconds"]),
                       run.stop_round is not None and len(run.trace) - 1 > run.stop_round,
                       None if scored is None else heldout_at_stop(task, scored))


def heldout_at_stop(task: HeldOutTask, scored: ScoredRun) -> stats.Estimate:
    """The held-out accuracy of the model at the automatic stop with its 95% interval: on a
    sequence task the sentence-level bootstrap (the tokens of a sentence are not independent, the
    sentences are), otherwise Wilson's interval over the independent held-out rows."""
    tr = scored.run.trace
    counts = scored.test[int(tr.index[tr["n_selected"] == scored.run.n_at_stop][0])]
    if task.val_units is None:
        return stats.wilson_interval(int(counts[:, 0].sum()), int(counts[:, 1].sum()))
    return stats.bootstrap_interval(counts, stats.ratio_from_counts, unit="sentences")


def checkable_rounds(run: BayesFactorRun) -> list[int]:
    """Rounds whose proposals the exact check can score: every round up to the automatic stop
    (all rounds when it never fired)."""
    return [int(r) for r in run.trace["round"] if run.stop_round is None or r <= run.stop_round]


def selected_table(task: HeldOutTask, run: BayesFactorRun, n: int | None = None) -> pd.DataFrame:
    """The selected pairs with their Bayes factors (up to the automatic stop unless ``n``)."""
    k = run.n_at_stop if n is None else n
    final = dict(zip(zip(run.model.predicates.tolist(), run.model.classes.tolist()),
                     run.model.weights.tolist()))
    return pd.DataFrame({
        "order": np.arange(1, k + 1), "round": run.round[:k],
        "predicate": [task.predicate_names[j] for j in run.predicates[:k]],
        "class": [task.class_names[c] for c in run.classes[:k]],
        "beta_g - beta_0": run.margin[:k], "beta_g": run.beta[:k], "mu_g": run.mu[:k],
        "MAP weight": [final.get((int(j), int(c)), np.nan)
                       for j, c in zip(run.predicates[:k], run.classes[:k])],
    })


@dataclass(frozen=True)
class SignComparison:
    """Selected pairs under the two signs of Eq. (12) (each up to its own stopping point)."""

    summary: pd.DataFrame   # one row per sign: selected, stop round, stop reason, accuracies
    only_laplace: list[str]
    both: list[str]
    only_printed: list[str]


def at_stop_row(run: BayesFactorRun) -> pd.Series:
    """The trace row of the round that starts with the ``n_at_stop`` pairs of the automatic stop
    (the last round when the run never stopped by itself)."""
    tr = run.trace
    return tr.loc[tr["n_selected"] == run.n_at_stop].iloc[0]


def sign_comparison(task: HeldOutTask, laplace: BayesFactorRun, printed: BayesFactorRun
                    ) -> SignComparison:
    rows = []
    sets = {}
    for label, run in (("Laplace: -1/2 log a_g", laplace), ("printed: +1/2 log a_g", printed)):
        row = at_stop_row(run)
        rows.append({"sign": label, "pairs selected": run.n_at_stop,
                     "automatic stop (β₀ wins)": f"round {run.stop_round}" if run.stop_round is not None
                     else f"none in {int(run.trace['round'].max()) + 1} rounds",
                     "why it stopped": run.stop_reason,
                     "train accuracy": row["train_accuracy"],
                     "held-out accuracy": row["heldout_accuracy"]})
        sets[label] = [pair_name(task, j, c) for j, c in zip(run.predicates[:run.n_at_stop],
                                                             run.classes[:run.n_at_stop])]
    a, b = sets.values()
    return SignComparison(pd.DataFrame(rows), [p for p in a if p not in set(b)],
                          [p for p in a if p in set(b)], [p for p in b if p not in set(a)])


@dataclass(frozen=True)
class PixelPairs:
    """Image data: the class means of the training images and the selected pairs' pixels."""

    class_means: np.ndarray     # (Y, rows, cols)
    rows: np.ndarray
    cols: np.ndarray
    classes: np.ndarray
    order: np.ndarray           # 1-based selection order


def selected_pixels(task: HeldOutTask, run: BayesFactorRun) -> PixelPairs | None:
    """Pixels of the pairs selected up to the stop, for image data (None otherwise)."""
    if task.image_shape is None:
        return None
    X = task.X.toarray() if hasattr(task.X, "toarray") else np.asarray(task.X)
    means = np.stack([X[task.y == c].mean(axis=0) if np.any(task.y == c) else np.zeros(X.shape[1])
                      for c in range(task.n_classes)]).reshape((task.n_classes,) + task.image_shape)
    k = run.n_at_stop
    rows, cols = np.divmod(run.predicates[:k], task.image_shape[1])
    return PixelPairs(means, rows, cols, run.classes[:k], np.arange(1, k + 1))


#: largest model (pairs + bias) for which the page computes full Laplace evidences (dense Hessian)
MAX_CHECK_FEATURES = 800


def approximation_check(task: HeldOutTask, run: BayesFactorRun, round_: int, *,
                        n_candidates: int = 6, prior_variance: float = 1.0,
                        progress: Progress | None = None) -> pd.DataFrame:
    """For the model of round ``round_`` (its first pairs, MAP with the bias), the top
    ``n_candidates`` proposals by mean-field margin, each scored three ways
    (:func:`fsengine.methods.bayes_factor.evidence.full_laplace_margins`); model priors are left out
    (they shift all three equally)."""
    rows = run.trace.loc[run.trace["round"] == round_, "n_selected"]
    if rows.empty:
        raise ValueError(f"round {round_} is not in this run (0..{int(run.trace['round'].max())})")
    k = int(rows.iloc[0])
    if k + task.n_classes > MAX_CHECK_FEATURES:
        raise ValueError(f"round {round_} has {k} pairs; the exact check builds a dense Hessian and "
                         f"is limited to {MAX_CHECK_FEATURES - task.n_classes} pairs: pick an "
                         "earlier round")
    ap, ac = run.predicates[:k], run.classes[:k]
    Xb = add_bias_column(task.X)
    data = MaxentData(Xb, task.y, task.n_classes)
    bp, bc, bv = bias_features(Xb.shape[1] - 1, task.n_classes)
    pred, cls = np.r_[bp, ap], np.r_[bc, ac]
    fit = fit_map(data, pred, cls, prior_variance=np.r_[bv, np.full(k, prior_variance)],
                  tol=PAGE_MAP_TOL)
    state = MaxentState.from_weights(data, pred, cls, fit.model.weights)
    cand_p, cand_c = misclassified_proposals(data, state.predict(), pred * task.n_classes + cls,
                                             Xb.shape[1] - 1)
    if cand_p.size == 0:
        raise ValueError(f"no proposals in round {round_}: no training row is misclassified")
    margin = score_candidates(state, cand_p, cand_c, prior_variance).margin
    top = np.argsort(-margin, kind="stable")[:n_candidates]
    out = full_laplace_margins(task.X, task.y, task.n_classes, ap, ac, cand_p[top], cand_c[top],
                               prior_variance=prior_variance, progress=progress)
    out.insert(1, "pair", [pair_name(task, j, c) for j, c in zip(cand_p[top], cand_c[top])])
    return out


def largest_difference(check: pd.DataFrame) -> float:
    """max |mean field - full Laplace| (nats) over the candidates of :func:`approximation_check`."""
    return float(check["difference"].abs().max())


#: a sparse dataset with more rows than this opens the page on a subset (CoNLL-2000, treebank)
LARGE_ROWS = 20000


def starts_on_subset(ds: Dataset) -> bool:
    """Whether the page's widgets start on a training / held-out subset and a smaller cap."""
    return bool(ds.is_sparse and ds.n_samples > LARGE_ROWS)
