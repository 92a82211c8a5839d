"""The slides' experiments, shared by the page, the reproduction target and the benchmark.

* Synthetic ROC: tags and classes from the RTM itself (:mod:`fsengine.data.synthetic.rtm`); each
  method scores every tag and the ROC curve compares the scores with the known relevant set.
  RTM scores are log Bayes factors against theta_j = 0.5; baselines are marginal mutual
  information (scikit-learn's ``mutual_info_classif`` on the binary tags) and the L1-logistic
  path (a tag's score is how early it enters along a grid of C, ties by |coefficient|).
* Sentiment: word-presence tags (vocabulary at a minimum document frequency, rebuilt on every
  training fold) and stratified k-fold test accuracy for the RTM and four baselines on the same
  folds (:data:`BASELINES`: Bernoulli and multinomial Naive Bayes, L2- and L1-regularised
  logistic regression with C by inner 3-fold CV on the training fold), a sensitivity grid of the
  prior strength and damping (:class:`Grid`) and refits of fits that stopped at the sweep cap
  (:func:`cv_study`); accuracies and fold-paired differences with the corrected resampled t
  interval (:func:`accuracy_estimate`, :func:`accuracy_difference`).
* The page: a picked dataset reduced to two classes, binarised and split
  (:func:`page_split`); every chosen training method on it (:func:`page_fit`), the baselines
  (:func:`page_baselines`) and the numbers its captions and tables show.

Progress: every function that trains takes ``progress(fraction, message)``
(:mod:`fsengine.progress`); the sweeps of each RTM fit report through it (on the serial backend
of :func:`fsengine.parallel.map_tasks`, within each task), and a callback that raises
:class:`~fsengine.progress.StopRequested` stops the computation.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import mutual_info_classif
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from fsengine import config, records, stats
from fsengine.csv_export import read_csv
from fsengine.data import corpora
from fsengine.data.dataset import Dataset
from fsengine.data.features import word_presence_tags
from fsengine.data.synthetic.rtm import make_rtm
from fsengine.data.transforms import binarize_features, split, two_classes
from fsengine.methods.classic.l1_path import entry_scores
from fsengine.methods.rtm.ep import QUADRATURE
from fsengine.methods.rtm.evidence import top_tags
from fsengine.methods.rtm.fit import METHOD_LABELS, METHODS, RTMFit, RTMSettings, fit_rtm, fit_rtm_and_continue
from fsengine.methods.rtm.model import predict_positive, tags_from
from fsengine.parallel import map_tasks
from fsengine.progress import Progress, report_to, scaled
from fsengine.selection_metrics import roc_auc, roc_curve

#: display label of each RTM training method (matches fsengine.plots.style.METHOD_COLORS)
RTM_LABELS = {m: f"RTM {METHOD_LABELS[m]}" for m in METHODS}
#: every training method with the fixed prior, then each with ARD: (method, ard) pairs, the unit of
#: work of the reproduction (a variant is data, so a scheduler can hand pairs out as tasks)
VARIANTS = tuple((m, False) for m in METHODS) + tuple((m, True) for m in METHODS)
MI_LABEL, L1_LABEL, NB_LABEL = "MI", "L1", "BernoulliNB"
MNB_LABEL, L2_LABEL = "MultinomialNB", "L2 logistic"

#: the slides' test accuracies ("Sentiment analysis"); the datasets are not named there
SLIDES_ACCURACY = pd.DataFrame(
    {"Dataset 1": [0.9708, 0.9659, 0.9683], "Dataset 2": [0.7523, 0.7294, 0.7398]},
    index=["RTM Power EP", "RTM EM", "RTM EP"],
)
def rtm_label(method: str, ard: bool = False) -> str:
    """Display label of an RTM variant: ``RTM Power EP`` or ``RTM Power EP + ARD``."""
    return RTM_LABELS[method] + (" + ARD" if ard else "")


def as_variant(item, settings: RTMSettings) -> tuple[str, bool]:
    """A (method, ard) pair from a method name (ARD as in ``settings``) or a pair."""
    return (item, settings.ard) if isinstance(item, str) else (item[0], bool(item[1]))


def _quiet_fit(tags, y01, settings: RTMSettings, progress: Progress | None = None) -> RTMFit:
    """:func:`fit_rtm` without its ConvergenceWarning (the callers record ``converged``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit_rtm(tags, y01, settings, progress=progress)


def l1_path_scores(X, y, Cs=None) -> np.ndarray:
    """Relevance from the L1-logistic path on the binary tags: earlier entry = more relevant
    (:func:`fsengine.methods.classic.l1_path.entry_scores` on C in 10^-2.5 .. 10, 15 values)."""
    return entry_scores(X, y, np.logspace(-2.5, 1.0, 15) if Cs is None else Cs)


def mutual_information_scores(X, y) -> np.ndarray:
    """Marginal mutual information I(x_j; c) of each binary tag with the class."""
    return mutual_info_classif(X, y, discrete_features=True)


@dataclass
class RocResult:
    """AUC per seed and method, the ROC curves and RTM traces of the first seed, and how every
    RTM fit ended (``fits``: one row per seed and RTM method, see :func:`fit_outcome`)."""

    auc: pd.DataFrame
    curves: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    traces: dict[str, pd.DataFrame] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    fits: pd.DataFrame = field(default_factory=pd.DataFrame)

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation of the AUC over seeds, best first."""
        out = pd.DataFrame({"mean AUC": self.auc.mean(), "sd": self.auc.std(ddof=0)})
        return out.sort_values("mean AUC", ascending=False)


def fit_outcome(fit) -> dict:
    """How an RTM fit ended: converged, sweeps, factors skipped in the last sweep (undefined
    tilted distributions) and the final evidence estimate (EM: its lower bound)."""
    last = fit.trace.iloc[-1]
    return {"converged": bool(fit.converged), "sweeps": fit.n_iter, "skipped": int(last.n_skipped),
            "log_evidence": float(last.log_evidence)}


def relevance_scores(X, y, settings: RTMSettings, methods=METHODS, baselines=True, *,
                     progress: Progress | None = None) -> tuple[dict, dict, dict, dict]:
    """Scores per method label, RTM traces per label, seconds per label and the RTM fits'
    outcomes per label (:func:`fit_outcome`). ``methods``: method names or (method, ard) pairs;
    ``progress`` hears every sweep of every fit (each fit one equal share)."""
    tags = tags_from(X)
    y01 = np.asarray(y, dtype=np.float64)
    scores, traces, seconds, outcomes = {}, {}, {}, {}
    methods = list(methods)
    for k, item in enumerate(methods):
        m, ard = as_variant(item, settings)
        label = rtm_label(m, ard)
        t0 = time.perf_counter()
        fit = _quiet_fit(tags, y01, replace(settings, method=m, ard=ard),
                         scaled(progress, k / len(methods), (k + 1) / len(methods)))
        seconds[label] = time.perf_counter() - t0
        scores[label] = fit.relevance()
        traces[label] = fit.trace
        outcomes[label] = fit_outcome(fit)
    if baselines:
        for label, fn in ((MI_LABEL, mutual_information_scores), (L1_LABEL, l1_path_scores)):
            t0 = time.perf_counter()
            scores[label] = fn(X, y)
            seconds[label] = time.perf_counter() - t0
    return scores, traces, seconds, outcomes


def roc_curves(truth, scores: dict[str, np.ndarray]) -> tuple[dict, dict]:
    """ROC curves (fpr, tpr) and AUC of each method's scores against the true relevant set."""
    curves = {label: roc_curve(truth, s)[:2] for label, s in scores.items()}
    auc = {label: roc_auc(truth, s) for label, s in scores.items()}
    return curves, auc


def _seed_task(setup: dict, seed: int, *, progress: Progress | None = None) -> tuple:
    """One seed of :func:`synthetic_roc` (a task): data, every method's scores, ROC curves, AUC."""
    ds = make_rtm(setup["n_samples"], setup["n_tags"], setup["n_relevant"], tag_rate=setup["tag_rate"], seed=seed)
    scores, traces, secs, outcomes = relevance_scores(ds.X, ds.y, setup["settings"], setup["methods"],
                                                      progress=progress)
    curves, auc = roc_curves(ds.truth, scores)
    return curves, auc, traces, secs, outcomes


def synthetic_roc(seeds=(0, 1, 2, 3, 4), *, n_samples=800, n_tags=400, n_relevant=30,
                  tag_rate=0.05, settings: RTMSettings | None = None, methods=METHODS,
                  progress: Progress | None = None, n_jobs: int | None = None, scheduler=None) -> RocResult:
    """ROC of tag relevance against the truth on data from the RTM, for several seeds
    (``settings``: default :class:`RTMSettings` when None). Each seed is a task
    (:func:`fsengine.parallel.map_tasks`: ``n_jobs`` local processes or a Dask ``scheduler``);
    the seed fixes its data, so the AUC table is the same whatever runs it."""
    settings = settings if settings is not None else RTMSettings()
    setup = dict(n_samples=n_samples, n_tags=n_tags, n_relevant=n_relevant, tag_rate=tag_rate, settings=settings,
                 methods=methods)
    outputs = map_tasks(_seed_task, list(seeds), shared=setup, names=[f"synthetic seed {s}" for s in seeds],
                        progress=progress, n_jobs=n_jobs, scheduler=scheduler, task_progress=True)
    rows, fits, seconds = [], [], {}
    for seed, (_, auc, _, secs, outcomes) in zip(seeds, outputs):
        rows.append(auc)
        fits += [{"seed": seed, "method": label, **outcome} for label, outcome in outcomes.items()]
        for label, s in secs.items():
            seconds[label] = seconds.get(label, 0.0) + s / len(seeds)
    curves, _, traces, _, _ = outputs[0]
    auc = pd.DataFrame(rows, index=pd.Index(list(seeds), name="seed"))
    return RocResult(auc=auc, curves=curves, traces=traces, seconds=seconds, fits=pd.DataFrame(fits))


@dataclass(frozen=True)
class Corpus:
    """How one sentiment corpus is read and tagged, and the RTM settings it needs."""

    key: str
    label: str
    reader: Callable[[], corpora.LabelledTexts]
    min_df: int
    settings: RTMSettings


#: Long reviews (about 300 distinct words each) need a strong prior and inner damping for the
#: eta = -1 cavities to stay defined and the updates to settle (alpha0 = 5 left 1,300 of 1,600
#: factors undefined; alpha0 = 20 oscillated); the Power EP evidence rises from -2,750 (alpha0 =
#: 20) to -1,250 (alpha0 = 50) on the first training fold.
CORPORA = {
    "movie_reviews": Corpus("movie_reviews", "Movie reviews", corpora.read_movie_reviews, 5,
                            RTMSettings(alpha0=50.0, inner_damping=0.8, max_iter=1000)),
    "sentence_polarity": Corpus("sentence_polarity", "Sentence polarity",
                                corpora.read_sentence_polarity, 2, RTMSettings(alpha0=5.0, max_iter=1000)),
    "subjectivity": Corpus("subjectivity", "Subjectivity", corpora.read_subjectivity, 2,
                           RTMSettings(alpha0=5.0, max_iter=1000)),
}


#: C grid of the logistic baselines (chosen by inner 3-fold CV on each training fold)
L1_CS = (0.1, 0.3, 1.0, 3.0)
L2_CS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)


def _logistic(penalty_l1: float, Cs) -> LogisticRegressionCV:
    return LogisticRegressionCV(Cs=list(Cs), l1_ratios=(penalty_l1,), cv=3, solver="liblinear", scoring="accuracy",
                                use_legacy_attributes=False, max_iter=1000, random_state=0)


def _l1_accuracy(Xtr, ytr, Xte, yte) -> float:
    return float(_logistic(1.0, L1_CS).fit(Xtr, ytr).score(Xte, yte))


#: the baselines beside the RTM, each fitted on the same folds (fold-paired with the RTM):
#: label -> a factory of an unfitted scikit-learn classifier (on the same word-presence tags)
BASELINES: dict[str, Callable[[], object]] = {
    NB_LABEL: lambda: BernoulliNB(alpha=1.0),
    MNB_LABEL: lambda: MultinomialNB(alpha=1.0),
    L2_LABEL: lambda: _logistic(0.0, L2_CS),
    L1_LABEL: lambda: _logistic(1.0, L1_CS),
}
#: a protocol fit that stops at its corpus' sweep cap without converging is fitted once more with
#: this many times the cap (reported beside the protocol's number, never in its place)
CAP_RERUN_FACTOR = 5
#: methods whose sweeps the (outer) damping acts on; EM has no damping
DAMPED_METHODS = ("power_ep", "ep")


@dataclass(frozen=True)
class FitSpec:
    """One RTM fit of a cross-validation study: method, ARD, and the settings that differ from the
    corpus' (None: the corpus' value). ``role`` ``"cv"``: the protocol's fit (refit with
    :data:`CAP_RERUN_FACTOR` times the cap when it stops at the cap); ``"sensitivity"``: a cell
    of the sensitivity grid."""

    method: str
    ard: bool = False
    alpha0: float | None = None
    damping: float | None = None
    role: str = "cv"

    def settings(self, base: RTMSettings) -> RTMSettings:
        return replace(base, method=self.method, ard=self.ard,
                       alpha0=base.alpha0 if self.alpha0 is None else float(self.alpha0),
                       damping=base.damping if self.damping is None else float(self.damping))


@dataclass(frozen=True)
class Grid:
    """A sensitivity grid: the fixed-prior ``methods`` at every ``alpha0`` x ``damping`` value
    (methods without damping, EM, at every ``alpha0`` only). The corpus' own setting is one cell
    and is not fitted twice."""

    methods: tuple[str, ...]
    alpha0: tuple[float, ...]
    damping: tuple[float, ...]

    def specs(self, base: RTMSettings) -> list[FitSpec]:
        out = []
        for method in self.methods:
            dampings = self.damping if method in DAMPED_METHODS else (base.damping,)
            for a in self.alpha0:
                for d in dampings:
                    if (float(a), float(d)) != (base.alpha0, base.damping):
                        out.append(FitSpec(method, False, float(a), float(d), "sensitivity"))
        return out


@dataclass(frozen=True)
class _Fold:
    """One cross-validation fold: word-presence tags of its training and test documents."""

    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray
    row: dict


#: how expensive a task is, most first (tasks are handed out in this order so that two workers
#: are not left waiting on one long fit at the end; rows come back in the serial order)
_COST_RANK = {("ep", True): 0, ("ep", False): 1, ("power_ep", True): 2, ("power_ep", False): 3,
              ("em", True): 4, ("em", False): 5}


def _scored_row(f: _Fold, fit: RTMFit, role: str, seconds: float) -> dict:
    """The row of one RTM fit on fold ``f``: its test accuracy and how training ended."""
    settings = fit.settings
    test = tags_from(f.X_test)
    p1 = predict_positive(test.indptr, test.indices, fit.A, fit.B, QUADRATURE)
    correct = int(np.count_nonzero((p1 > 0.5) == (f.y_test == 1)))
    return {**f.row, "method": rtm_label(settings.method, settings.ard), "role": role,
            "alpha0": float(settings.alpha0), "damping": float(settings.damping), "max_iter": int(settings.max_iter),
            "n_correct": correct, "accuracy": correct / f.y_test.size, "seconds": seconds, **fit_outcome(fit)}


def _rtm_rows(f: _Fold, settings: RTMSettings, role: str, cap_factor: int | None,
              progress: Progress | None) -> list[dict]:
    """The fit's row and, for a protocol fit (``role`` "cv", ``cap_factor`` set) that stops at the
    cap without converging, the row of that fit continued to ``cap_factor`` times the cap (role
    "cap rerun": the fit a restart with the higher cap gives, :func:`fit_rtm_and_continue`).
    Seconds: the capped fit's sweeps, and the whole continued fit's."""
    t0 = time.perf_counter()
    tags, y01 = tags_from(f.X_train), f.y_train.astype(np.float64)
    if role != "cv" or not cap_factor:
        fit = _quiet_fit(tags, y01, settings, progress)
        return [_scored_row(f, fit, role, time.perf_counter() - t0)]
    capped, continued = fit_rtm_and_continue(tags, y01, settings, continue_to=settings.max_iter * int(cap_factor),
                                             progress=progress)
    rows = [_scored_row(f, capped, role, float(capped.trace["seconds"].sum()))]
    if continued is not None:
        rows.append(_scored_row(f, continued, "cap rerun", time.perf_counter() - t0))
    return rows


def _fold_task(shared: tuple, task: tuple[int, FitSpec | None], *,
               progress: Progress | None = None) -> list[dict]:
    """Rows of one (fold, fit) task of :func:`cv_study`; spec None: the baselines. A protocol fit
    that stops at the cap without converging is followed by its continuation to a higher cap (role
    ``"cap rerun"``) in the same task."""
    folds, settings, cap_factor = shared
    number, spec = task
    f = folds[number]
    if spec is None:
        rows = []
        for label, make in BASELINES.items():
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model = make().fit(f.X_train, f.y_train)
            correct = int(np.count_nonzero(model.predict(f.X_test) == f.y_test))
            rows.append({**f.row, "method": label, "role": "cv", "alpha0": np.nan, "damping": np.nan,
                         "max_iter": np.nan, "n_correct": correct, "accuracy": correct / f.y_test.size,
                         "seconds": time.perf_counter() - t0, "converged": True, "sweeps": np.nan,
                         "skipped": np.nan, "log_evidence": np.nan})
        return rows
    return _rtm_rows(f, spec.settings(settings), spec.role, cap_factor, progress)


@dataclass
class CVResult:
    """A cross-validation study of one corpus: ``folds`` has one row per (fold, method) of the
    protocol (RTM variants and baselines; ``n_correct`` of ``n_test``), ``reruns`` the protocol
    fits that stopped at the sweep cap, fitted again with a higher cap, and ``sensitivity`` one
    row per (fold, grid cell, method), the corpus' own setting included."""

    folds: pd.DataFrame
    reruns: pd.DataFrame
    sensitivity: pd.DataFrame


def _folds(key: str, folds: int, max_docs: int | None, seed: int) -> list[_Fold]:
    corpus = CORPORA[key]
    data = corpus.reader()
    texts = np.array(data.texts, dtype=object)
    y = np.asarray(data.labels)
    if max_docs is not None and max_docs < y.size:
        keep, _ = train_test_split(np.arange(y.size), train_size=max_docs, stratify=y, random_state=seed)
        keep = np.sort(keep)
        texts, y = texts[keep], y[keep]
    out = []
    for number, (tr, te) in enumerate(StratifiedKFold(folds, shuffle=True, random_state=seed).split(texts, y)):
        Xtr, vocab = word_presence_tags(texts[tr], min_df=corpus.min_df)
        Xte, _ = word_presence_tags(texts[te], vocabulary=vocab)
        out.append(_Fold(Xtr, y[tr], Xte, y[te], {"fold": number, "n_docs": y.size, "n_tags": len(vocab),
                                                   "n_train": tr.size, "n_test": te.size}))
    return out


def cv_study(key: str, *, folds: int = 5, methods=METHODS, max_docs: int | None = None,
             settings: RTMSettings | None = None, seed: int = 0, grid: Grid | None = None,
             cap_factor: int | None = CAP_RERUN_FACTOR, progress: Progress | None = None,
             n_jobs: int | None = None, scheduler=None) -> CVResult:
    """Stratified k-fold test accuracy on a sentiment corpus for the RTM variants (``methods``:
    method names or (method, ard) pairs) and the :data:`BASELINES`, all on the same folds; the
    fixed-prior ``grid`` of settings on the same folds; every protocol fit that stops at the
    sweep cap fitted again with ``cap_factor`` times the cap (None or 0: not). ``max_docs``
    subsamples (stratified, seeded) for quick runs.

    The tags of every fold are built here; each (fold, fit) pair, and each fold's baselines, is
    then a task (:func:`fsengine.parallel.map_tasks`: ``n_jobs`` local processes or a Dask
    ``scheduler``), handed out longest first, with rows in the serial order whatever runs them."""
    corpus = CORPORA[key]
    settings = settings or corpus.settings
    fold_data = _folds(key, folds, max_docs, seed)
    specs = [FitSpec(*as_variant(m, settings)) for m in methods]
    grid_specs = grid.specs(settings) if grid is not None else []
    serial = [(n, spec) for n in range(folds) for spec in [*specs, None]]
    serial += [(n, spec) for spec in grid_specs for n in range(folds)]

    def cost(task):
        n, spec = task
        if spec is None:
            return (9, n)
        return (_COST_RANK[(spec.method, spec.ard)] + (6 if spec.role == "sensitivity" else 0), n)

    order = sorted(range(len(serial)), key=lambda i: cost(serial[i]))

    def name(task):
        n, spec = task
        what = "baselines" if spec is None else rtm_label(spec.method, spec.ard)
        if spec is not None and spec.role == "sensitivity":
            what += f" (alpha0 {spec.alpha0:g}, damping {spec.damping:g})"
        return f"{corpus.label}: fold {n + 1}/{folds}, {what}"

    out = map_tasks(_fold_task, [serial[i] for i in order], shared=(tuple(fold_data), settings, cap_factor),
                    names=[name(serial[i]) for i in order], progress=progress, n_jobs=n_jobs,
                    scheduler=scheduler, task_progress=True)
    by_serial = [None] * len(serial)
    for i, rows in zip(order, out):
        by_serial[i] = rows
    rows = pd.DataFrame([row for task_rows in by_serial for row in task_rows])
    protocol = rows[rows.role == "cv"].reset_index(drop=True)
    reruns = rows[rows.role == "cap rerun"].reset_index(drop=True)
    sensitivity = rows[rows.role == "sensitivity"]
    if grid is not None:
        own = [rtm_label(m) for m in grid.methods]
        default = protocol[protocol.method.isin(own)]
        sensitivity = pd.concat([default, sensitivity]).sort_values(["method", "alpha0", "damping", "fold"],
                                                                    kind="stable")
    sensitivity = sensitivity.reset_index(drop=True)
    if not sensitivity.empty:  # EM has no damping: its cells hold for every damping value
        sensitivity.loc[~sensitivity.method.isin([rtm_label(m) for m in DAMPED_METHODS]), "damping"] = np.nan
    return CVResult(protocol, reruns, sensitivity)


def cv_accuracy(key: str, *, folds: int = 5, methods=METHODS, max_docs: int | None = None,
                settings: RTMSettings | None = None, seed: int = 0,
                progress: Progress | None = None, n_jobs: int | None = None, scheduler=None) -> pd.DataFrame:
    """The protocol rows of :func:`cv_study` (one per fold and method: RTM variants and
    baselines), without a grid or cap reruns."""
    return cv_study(key, folds=folds, methods=methods, max_docs=max_docs, settings=settings, seed=seed,
                    cap_factor=None, progress=progress, n_jobs=n_jobs, scheduler=scheduler).folds


def train_test_ratio(df: pd.DataFrame) -> float:
    """n_test / n_train of a k-fold study's rows (mean over its folds): the correction of the
    resampled t interval (Nadeau & Bengio) for folds that share training rows."""
    per_fold = df.drop_duplicates("fold")
    return float(per_fold.n_test.mean() / per_fold.n_train.mean())


def accuracy_estimate(df: pd.DataFrame, method: str, level: float = stats.LEVEL) -> stats.Estimate:
    """Mean fold accuracy of ``method`` with its corrected resampled t interval over the folds."""
    acc = df[df.method == method].sort_values("fold").accuracy.to_numpy()
    return stats.t_interval(acc, level, test_train_ratio=train_test_ratio(df), what="folds")


def accuracy_difference(df: pd.DataFrame, first: str, second: str, level: float = stats.LEVEL) -> stats.Estimate:
    """Mean fold-paired accuracy difference ``first - second`` with its corrected resampled t
    interval (the same folds for both)."""
    a = df[df.method == first].set_index("fold").accuracy.sort_index()
    b = df[df.method == second].set_index("fold").accuracy.sort_index()
    if not a.index.equals(b.index):
        raise ValueError(f"{first} and {second} were not scored on the same folds")
    return stats.paired_t_interval(a.to_numpy(), b.to_numpy(), level, test_train_ratio=train_test_ratio(df),
                                   what="folds")


def accuracy_table(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean CV accuracy with its corrected resampled t interval per method (rows) and corpus
    (columns ``LABEL``, ``LABEL low``, ``LABEL high``)."""
    cols = {}
    for key, df in results.items():
        label = CORPORA[key].label
        est = {m: accuracy_estimate(df, m) for m in df.method.unique()}
        cols[label] = pd.Series({m: e.value for m, e in est.items()})
        cols[label + " low"] = pd.Series({m: e.low for m, e in est.items()})
        cols[label + " high"] = pd.Series({m: e.high for m, e in est.items()})
    return pd.DataFrame(cols)


def fit_and_score(X_train, y_train, X_test, y_test, settings: RTMSettings, method: str, *,
                  progress: Progress | None = None):
    """Train one RTM method on a split; returns (fit, test accuracy, seconds). Labels are 0/1;
    ``progress`` hears every sweep."""
    t0 = time.perf_counter()
    fit = _quiet_fit(tags_from(X_train), np.asarray(y_train, dtype=np.float64), replace(settings, method=method),
                     progress)
    seconds = time.perf_counter() - t0
    test = tags_from(X_test)
    p1 = predict_positive(test.indptr, test.indices, fit.A, fit.B, QUADRATURE)
    return fit, float(np.mean((p1 > 0.5) == (np.asarray(y_test) == 1))), seconds


def baseline_accuracy(X_train, y_train, X_test, y_test) -> dict[str, float]:
    """Held-out accuracy of Bernoulli Naive Bayes and L1-logistic regression (C by inner CV)."""
    return {NB_LABEL: float(BernoulliNB().fit(X_train, y_train).score(X_test, y_test)),
            L1_LABEL: _l1_accuracy(X_train, y_train, X_test, y_test)}


def recorded_accuracy(path: Path | None = None) -> pd.DataFrame | None:
    """The recorded ``rtm-roc`` run's mean CV accuracy per method (rows) and corpus (columns), each
    cell a :class:`fsengine.stats.Estimate` with the run's interval, read from its ``results.json``
    (``path``; None if absent). The protocol's rows only (not the refits of cap-stopped fits)."""
    rows = recorded_rows(path)
    if rows is None:
        return None
    cells: dict[str, dict[str, stats.Estimate]] = {}
    for quantity, r in rows.items():
        parts = quantity.split(", ")
        if parts[0] == "accuracy" and len(parts) == 3 and r["interval"] is not None:
            cells.setdefault(parts[2], {})[parts[1]] = stats.Estimate(r["ours"], *r["interval"], r["level"],
                                                                      r["method"])
    return pd.DataFrame(cells) if cells else None


def recorded_rows(path: Path | None = None) -> dict[str, dict] | None:
    """The rows of the recorded ``rtm-roc`` run's ``results.json`` by quantity (None if absent):
    what the page cites from the committed run, read from the file, never typed."""
    path = path or config.results_dir() / "rtm-roc" / records.FILENAME
    if not Path(path).is_file():
        return None
    return {r["quantity"]: r for r in records.read(path)["rows"]}


def recorded_synthetic_auc(path: Path | None = None) -> pd.DataFrame | None:
    """AUC per seed (rows) and method (columns) from a recorded reproduction run (None if absent)."""
    path = path or config.results_dir() / "rtm-roc" / "synthetic_auc.csv"
    if not Path(path).is_file():
        return None
    return read_csv(path, index_col=0)


# --- the page ----------------------------------------------------------------------------------

#: the page's held-out split: a quarter of the objects, stratified, seed 0
PAGE_TEST_SIZE = 0.25


def tag_counts(ds: Dataset) -> tuple[int, float]:
    """(tags that are on, average tags per object) of a binary dataset: what the page reports and
    what the "auto" prior strength and inner damping follow (:func:`~.fit.suggested_settings`)."""
    on = int(ds.X.nnz) if ds.is_sparse else int(np.asarray(ds.X).sum())
    return on, on / max(ds.n_samples, 1)


def page_split(ds: Dataset, classes: tuple) -> tuple[Dataset, Dataset]:
    """The picked dataset (catalogue or upload) reduced to the chosen class pair, binarised and
    split (train, test): :data:`PAGE_TEST_SIZE` held out, stratified, seed 0."""
    if len(ds.classes) > 2:
        ds = two_classes(ds, *classes)
    return split(binarize_features(ds), test_size=PAGE_TEST_SIZE, seed=0)


@dataclass(frozen=True)
class PageFit:
    """One training method on the page's split: its trace and verdict, every tag's relevance
    (log Bayes factor) and posterior mean, the tags the model keeps, held-out accuracy on
    ``n_test`` objects, training seconds and the 25 most relevant tags (:func:`~.evidence.top_tags`)."""

    trace: pd.DataFrame
    converged: bool
    message: str
    relevance: np.ndarray
    theta: np.ndarray
    n_active: int
    accuracy: float
    n_test: int
    seconds: float
    top: pd.DataFrame


#: most relevant tags a page fit keeps for its table and figure
PAGE_TOP_TAGS = 25


def page_fit(train: Dataset, test: Dataset, settings: RTMSettings, method: str, *,
             progress: Progress | None = None) -> PageFit:
    """Train ``method`` on ``train`` with ``settings`` and score it on ``test`` (the page's unit
    of work; ``progress`` hears every sweep)."""
    fit, acc, secs = fit_and_score(train.X, train.y, test.X, test.y, settings, method, progress=progress)
    return PageFit(trace=fit.trace, converged=fit.converged, message=fit.message, relevance=fit.relevance(),
                   theta=fit.theta_mean, n_active=int(fit.active().sum()), accuracy=acc, n_test=int(test.n_samples),
                   seconds=secs,
                   top=top_tags(fit.A, fit.B, fit.alpha, train.feature_names, k=PAGE_TOP_TAGS))


def page_baselines(train: Dataset, test: Dataset, *,
                   progress: Progress | None = None) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Held-out accuracy of the baselines (:func:`baseline_accuracy`) and their tag scores (MI,
    L1 path) on the page's split."""
    report = report_to(progress)
    report(0.0, "Naive Bayes and L1-logistic accuracy")
    acc = baseline_accuracy(train.X, train.y, test.X, test.y)
    report(0.5, "mutual information and L1-path scores")
    scores = {MI_LABEL: mutual_information_scores(train.X, train.y), L1_LABEL: l1_path_scores(train.X, train.y)}
    report(1.0, "baselines done")
    return acc, scores


def threshold_counts(relevance: np.ndarray, truth: np.ndarray | None, threshold: float) -> dict[str, int]:
    """How many tags have a log Bayes factor above ``threshold`` (``above``) and, when the truly
    relevant tags are known, how many of those are relevant (``relevant_above`` of ``relevant``)
    and how many are not (``irrelevant_above``).

    >>> threshold_counts(np.array([2.0, -1.0, 0.5]), np.array([True, True, False]), 0.0)
    {'above': 2, 'relevant_above': 1, 'relevant': 2, 'irrelevant_above': 1}
    """
    chosen = np.asarray(relevance) > threshold
    counts = {"above": int(chosen.sum())}
    if truth is not None:
        truth = np.asarray(truth, dtype=bool)
        counts.update(relevant_above=int((chosen & truth).sum()), relevant=int(truth.sum()),
                      irrelevant_above=int((chosen & ~truth).sum()))
    return counts


def convergence_table(fits: dict[str, PageFit]) -> pd.DataFrame:
    """One row per method label: sweeps, converged, seconds (rounded to 0.01) and the final log
    evidence estimate (EM: its lower bound)."""
    # rows from a list of dicts keep the methods' and the columns' order on every pandas version
    return pd.DataFrame([{"sweeps": len(f.trace), "converged": f.converged, "seconds": round(f.seconds, 2),
                          "final log evidence": f.trace["log_evidence"].iloc[-1]} for f in fits.values()],
                        index=list(fits))


def page_accuracy(fits: dict[str, PageFit], baselines: dict[str, float]) -> pd.DataFrame:
    """Held-out accuracy per method, RTM methods first, then the baselines (column ``test
    accuracy``), with its 95% Wilson interval (``low``, ``high``) on the split's test objects
    (:func:`fsengine.stats.wilson_interval`; every method is scored on the same objects)."""
    n_test = next(iter(fits.values())).n_test
    accuracy = {**{label: f.accuracy for label, f in fits.items()}, **baselines}
    rows = {label: stats.wilson_interval(round(a * n_test), n_test) for label, a in accuracy.items()}
    return pd.DataFrame({"test accuracy": accuracy, "low": {k: e.low for k, e in rows.items()},
                         "high": {k: e.high for k, e in rows.items()}})


def page_roc(truth: np.ndarray, fits: dict[str, PageFit], baseline_scores: dict[str, np.ndarray]) -> tuple[dict, dict]:
    """ROC curves and AUC (:func:`roc_curves`) of every RTM method's relevance and the baselines'
    scores against the known relevant tags."""
    return roc_curves(truth, {**{label: f.relevance for label, f in fits.items()}, **baseline_scores})
