"""Reproduce target ``mdl-curve``: MDL feature-subset selection with Naive Bayes (Jaakkola,
MIT 6.867 lecture 12, Eq. 10-15) on real data, next to the mutual-information ranking (Eq. 2).

The lecture gives no numbers; it makes three claims:

1. the first feature MDL includes is the same as the first by mutual information. With one
   feature and maximum-likelihood estimates DL-data = n (H(Y) - I(X; Y)), so this is an identity,
   not a result: it is tested (``tests/methods/classic/test_mdl.py``), not reported;
2. sequential selection of the conditional description length gives features more useful for
   classification than ranking them individually by mutual information: judged on held-out rows by
   paired intervals (MDL order minus MI ranking) of the accuracy at the MDL size and at the
   largest size explored, and of the log-loss averaged over every size explored;
3. DL(J) = DL-data + DL-model has a minimum that fixes the number of features (an interior
   minimum on the training data: an exact check).

For each dataset the features are binarised (the rule is stated), split 70/30 (stratified,
seed 0), MDL and MI run on the training part, and Naive Bayes classifiers with the first k
features of each ordering are scored on the held-out part (scikit-learn's ``BernoulliNB`` with
Laplace smoothing alpha = 1, so that unseen feature values cannot give log 0). Every size compared
is fixed without the held-out rows (the MDL size is the training DL's minimum). Intervals: Wilson
for one held-out accuracy, the paired percentile bootstrap over held-out rows (the same resamples
for both orderings) for differences and mean log-losses. The nine claim-2 comparisons are what the
report's verdict reads as one, so they are one family, judged by Holm's step-down procedure: each
interval at the level Holm tests it at, from 20,000 paired resamples (at 99.44% that leaves 56 per
tail). ``<slug>_held_out_rows.csv`` keeps the per-row correctness and log-loss they are computed
from (at the MDL size, the largest size and the sizes of the report's table),
``<slug>_held_out_by_k.csv`` the counts per size, ``<slug>_mdl_trace.csv`` the description lengths
per size, and ``run.json`` the data sets' sizes; the report and ``results.json`` are rendered from
these files alone (:func:`render`, :func:`rerender`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.naive_bayes import BernoulliNB

from fsengine.csv_export import read_csv, to_csv
from fsengine.data import Dataset, Provenance, load_dataset
from fsengine.data.corpora import read_movie_reviews
from fsengine.data.features import word_presence_tags
from fsengine.data.transforms import binarize_features, split
from fsengine.formatting import percent
from fsengine.plots.classic import mdl_curve, prefix_comparison
from fsengine.reproduce import results as results_file
from fsengine.selectors import MDLSelector, MutualInfoSelector
from fsengine.stats import (
    N_BOOTSTRAP,
    Estimate,
    bootstrap_interval,
    holm_family,
    paired_bootstrap_interval,
    paired_bootstrap_replicates,
    wilson_interval,
)

PAPER = "Jaakkola, MIT 6.867 Machine Learning, lecture 12 (Fall 2006)"
#: seed of every bootstrap (one set of resamples per dataset: all differences are paired)
BOOTSTRAP_SEED = 0
#: resamples of the judged family's paired bootstrap (Holm's levels reach 1 - 0.05/9)
FAMILY_RESAMPLES = 20_000
#: what the judged family is called in the intervals' method text and the report
CLAIM2_FAMILY = "claim-2 comparisons"
MDL, MI = "MDL order", "MI ranking"
#: choices in this target's history that were made after seeing held-out results (the report prints them)
CHOICES_AFTER_SEEING = (
    "The former claim-2 rule (the MDL order has the lower held-out log-loss for at least half of the sizes k) "
    "was written after the held-out tables of the first full run had been read. It is replaced by paired "
    "intervals at sizes fixed without the held-out rows (the MDL size and the largest size explored), but the "
    "held-out log-loss averaged over the sizes explored, one of the three comparisons, was chosen with those "
    "tables in view.",
    "The datasets, the binarisation, the 70/30 split (seed 0), the classifier and the largest sizes explored "
    "are those of the first recorded run; whether any of them was changed after a held-out result had been "
    "seen is not recorded.",
    "The nine claim-2 comparisons were each judged at 95% until issue 31, after their results had been read: "
    "the verdict counts them as one, so they are now one family judged by Holm's step-down procedure (and the "
    "paired bootstrap has 20,000 resamples, enough for Holm's levels). The change follows from how the verdict "
    "reads them, not from which verdicts it gives.",
)


@dataclass(frozen=True)
class Case:
    title: str
    slug: str
    load: Callable[[], Dataset]
    max_features: int


def movie_reviews(min_df: int) -> Dataset:
    reviews = read_movie_reviews()
    X, vocabulary = word_presence_tags(reviews.texts, min_df=min_df)
    return Dataset(X=X, y=np.asarray(reviews.labels, dtype=np.int64), feature_names=vocabulary,
                   target_names=reviews.label_names, name="movie_reviews",
                   provenance=Provenance(reviews.source, reviews.licence,
                                         notes=(f"word presence, words in >= {min_df} reviews",)))


def cases(quick: bool) -> list[Case]:
    return [
        Case("notMNIST B vs D (pixels x > 0.5)", "notmnist_bd",
             lambda: load_dataset("notmnist", letters="BD", n_per_class=200 if quick else 1000),
             15 if quick else 40),
        Case("Digits 8x8, ten classes (pixels x > 0.5)", "digits",
             lambda: load_dataset("digits"), 15 if quick else 40),
        Case("Movie reviews, word presence", "movie_reviews",
             lambda: movie_reviews(min_df=20 if quick else 2), 10 if quick else 40),
    ]


@dataclass(frozen=True)
class HeldOut:
    """Per held-out row and size k = 1..m: whether Naive Bayes on the first k features predicts the
    row's class (``correct``) and its log-loss ``-log P(y_t | x_t)`` (``loss``), shape (n_test, m)."""

    correct: np.ndarray
    loss: np.ndarray

    def curve(self) -> pd.DataFrame:
        """Per k: held-out accuracy, correct count and mean log-loss."""
        return pd.DataFrame({"k": np.arange(1, self.correct.shape[1] + 1),
                             "n_correct": self.correct.sum(axis=0).astype(int),
                             "accuracy": self.correct.mean(axis=0), "log_loss": self.loss.mean(axis=0)})


def held_out_scores(train: Dataset, test: Dataset, order: np.ndarray) -> HeldOut:
    """Laplace-smoothed Bernoulli Naive Bayes on the first k features of ``order``, k = 1..len(order),
    scored on every held-out row (log-probabilities from ``predict_log_proba``, unclipped)."""
    n = test.n_samples
    correct, loss = np.zeros((n, order.size), dtype=bool), np.zeros((n, order.size))
    for k in range(1, order.size + 1):
        cols = order[:k]
        nb = BernoulliNB(alpha=1.0, binarize=None).fit(train.X[:, cols], train.y)
        log_proba = nb.predict_log_proba(test.X[:, cols])
        truth = np.searchsorted(nb.classes_, test.y)
        correct[:, k - 1] = log_proba.argmax(axis=1) == truth
        loss[:, k - 1] = -log_proba[np.arange(n), truth]
    return HeldOut(correct, loss)


def _mean(totals, n):
    return totals[..., 0] / n


def accuracy_estimate(correct: np.ndarray) -> Estimate:
    """One held-out accuracy with Wilson's interval."""
    return wilson_interval(int(np.sum(correct)), int(correct.size))


def paired_difference(a: np.ndarray, b: np.ndarray) -> Estimate:
    """mean(a) - mean(b) over the same held-out rows, paired percentile bootstrap over the rows."""
    n = a.size
    return paired_bootstrap_interval(np.asarray(a, float)[:, None], np.asarray(b, float)[:, None],
                                     lambda t: _mean(t, n), seed=BOOTSTRAP_SEED, unit="held-out rows")


def mean_estimate(values: np.ndarray) -> Estimate:
    """A mean over held-out rows (a log-loss) with its percentile bootstrap interval over the rows."""
    n = values.size
    return bootstrap_interval(np.asarray(values, float)[:, None], lambda t: _mean(t, n), seed=BOOTSTRAP_SEED,
                              unit="held-out rows")


def table_sizes(best: int, m: int) -> list[int]:
    """The sizes of the report's per-dataset table: a few small ones, the MDL size, 10, 20 and the largest."""
    return sorted({1, 2, 3, 5, best, 10, 20, m} & set(range(1, m + 1)))


def run_case(case: Case, out_dir: Path) -> dict:
    """One dataset: MDL and MI on the training part, Naive Bayes on their first k features scored on
    the held-out part; writes the figures and the raw files, returns what ``run.json`` keeps of it."""
    ds = binarize_features(case.load())
    train, test = split(ds, test_size=0.3, seed=0)
    mdl = MDLSelector(max_features=case.max_features).fit(train.X, train.y)
    mi = MutualInfoSelector().fit(train.X, train.y)
    sequence = mdl.order_[: len(mdl.trace_) - 1]  # the forward sequence: the sizes 1..m explored
    m = sequence.size
    held = {MDL: held_out_scores(train, test, sequence), MI: held_out_scores(train, test, mi.order_[:m])}
    best = int(mdl.best_size_)
    at = max(best, 1) - 1  # column of the MDL size (the first feature when the minimum is the empty model)
    columns = {"row": np.arange(test.n_samples), "y": test.y,
               "mdl_correct_at_mdl_size": held[MDL].correct[:, at].astype(int),
               "mi_correct_at_mdl_size": held[MI].correct[:, at].astype(int),
               "mdl_correct_at_largest_size": held[MDL].correct[:, -1].astype(int),
               "mi_correct_at_largest_size": held[MI].correct[:, -1].astype(int),
               "mdl_mean_log_loss": held[MDL].loss.mean(axis=1),
               "mi_mean_log_loss": held[MI].loss.mean(axis=1)}
    for k in table_sizes(best, m):
        for prefix, name in (("mdl", MDL), ("mi", MI)):
            columns[f"{prefix}_correct_at_{k}"] = held[name].correct[:, k - 1].astype(int)
            columns[f"{prefix}_log_loss_at_{k}"] = held[name].loss[:, k - 1]
    to_csv(pd.DataFrame(columns), out_dir / f"{case.slug}_held_out_rows.csv", index=False, float_format="%.17g")
    curves = {name: h.curve() for name, h in held.items()}
    by_k = curves[MDL][["k"]].assign(
        mdl_feature=[train.feature_names[j] for j in sequence], mdl_n_correct=curves[MDL]["n_correct"],
        mi_feature=[train.feature_names[j] for j in mi.order_[:m]], mi_n_correct=curves[MI]["n_correct"],
        n_held_out=test.n_samples, mdl_log_loss=curves[MDL]["log_loss"], mi_log_loss=curves[MI]["log_loss"])
    to_csv(by_k, out_dir / f"{case.slug}_held_out_by_k.csv", index=False, float_format="%.10g")
    to_csv(mdl.trace_[["size", "feature", "dl_data", "dl_model", "dl_total"]], out_dir / f"{case.slug}_mdl_trace.csv",
           index=False, float_format="%.17g")
    curve = mdl_curve(mdl.trace_, mdl.best_size_)
    curve.update_layout(title=f"MDL curve: {case.title}")
    results_file.write_figure(curve, out_dir / f"{case.slug}_mdl_curve.html")
    comparison = prefix_comparison(
        curves[MDL]["k"], {MDL: curves[MDL]["accuracy"], MI: curves[MI]["accuracy"]},
        chosen_size=mdl.best_size_, ylabel="held-out accuracy",
        title=f"Naive Bayes on the first k features: {case.title}")
    results_file.write_figure(comparison, out_dir / f"{case.slug}_mdl_vs_mi.html")
    return {"title": case.title, "slug": case.slug, "max_features": case.max_features, "best": best,
            "d": int(train.n_features), "train": int(train.n_samples), "held_out": int(test.n_samples),
            "classes": int(len(np.unique(train.y))), "notes": list(ds.provenance.notes)}


@dataclass(frozen=True)
class Record:
    """One dataset of a run, back from its files: ``info`` (``run.json``), the held-out rows, the
    counts per size and the description lengths per size."""

    info: dict
    rows: pd.DataFrame
    by_k: pd.DataFrame
    trace: pd.DataFrame

    @property
    def title(self) -> str:
        return self.info["title"]

    @property
    def m(self) -> int:
        return len(self.by_k)


def read_records(out_dir: Path) -> tuple[bool, list[Record]]:
    """The ``quick`` flag and every dataset of the run in ``out_dir``, back from its files."""
    out_dir = Path(out_dir)
    facts = results_file.read_run_facts(out_dir)

    def read(info, name):
        return read_csv(out_dir / f"{info['slug']}_{name}.csv")

    return facts["quick"], [Record(info, read(info, "held_out_rows"), read(info, "held_out_by_k"),
                                   read(info, "mdl_trace")) for info in facts["datasets"]]


#: the three claim-2 comparisons of a dataset: (key, quantity, (first, second) columns of the rows)
CLAIM2 = (("accuracy_at_mdl_size", "claim 2, held-out accuracy at the MDL size, {mdl} minus {mi}",
           ("mdl_correct_at_mdl_size", "mi_correct_at_mdl_size")),
          ("accuracy_at_largest_size", "claim 2, held-out accuracy at the largest size explored, {mdl} minus {mi}",
           ("mdl_correct_at_largest_size", "mi_correct_at_largest_size")),
          ("mean_log_loss", "claim 2, held-out log-loss averaged over the sizes explored, {mi} minus {mdl}",
           ("mi_mean_log_loss", "mdl_mean_log_loss")))


def claim2_family(records: list[Record]) -> dict[tuple[str, str], Estimate]:
    """(dataset slug, comparison key) -> its paired difference (MDL order minus MI ranking; log-loss
    MI minus MDL, so that positive favours MDL), the nine judged as one family by Holm's step-down
    procedure (paired bootstrap over held-out rows, :data:`FAMILY_RESAMPLES`)."""
    keys, tests = [], []
    for r in records:
        n = len(r.rows)
        for key, _, (a, b) in CLAIM2:
            reps = paired_bootstrap_replicates(r.rows[[a]].to_numpy(float), r.rows[[b]].to_numpy(float),
                                               lambda t, n=n: _mean(t, n), n_resamples=FAMILY_RESAMPLES,
                                               seed=BOOTSTRAP_SEED, unit="held-out rows")
            keys.append((r.info["slug"], key))
            tests.append((reps.pvalue(), reps.interval))
    return dict(zip(keys, holm_family(tests, family=CLAIM2_FAMILY)))


def result_rows(records: list[Record]) -> list[results_file.Row]:
    """Claims 2 and 3 per dataset (claim 1 is an identity): held-out accuracies with Wilson
    intervals, the paired differences judged resolved / not resolved as one family (Holm), and the
    interior minimum of DL."""
    family = claim2_family(records)
    rows = []
    for r in records:
        title, best = r.title, int(r.info["best"])
        rows += [
            results_file.recorded(f"held-out accuracy at the MDL size, {MDL}, {title}",
                                  accuracy_estimate(r.rows["mdl_correct_at_mdl_size"].to_numpy())),
            results_file.recorded(f"held-out accuracy at the MDL size, {MI}, {title}",
                                  accuracy_estimate(r.rows["mi_correct_at_mdl_size"].to_numpy())),
            *[results_file.ordering(f"{quantity.format(mdl=MDL, mi=MI)}, {title}", family[(r.info["slug"], key)],
                                    MDL, MI) for key, quantity, _ in CLAIM2],
            results_file.Row(f"claim 3, MDL size (minimum of DL), {title}", None, float(best),
                             verdict=results_file.judge(0 < best < r.m, "0 < ours < features explored (an interior "
                                                                         "minimum of the training DL, exact)")),
        ]
    return rows


def _fmt_case(r: Record, judged: dict[str, results_file.Row]) -> list[str]:
    trace, by_k, rows = r.trace, r.by_k, r.rows
    best, m = int(r.info["best"]), r.m
    mdl_names, mi_names = list(by_k["mdl_feature"]), list(by_k["mi_feature"])
    acc_mdl = accuracy_estimate(rows["mdl_correct_at_mdl_size"].to_numpy())
    acc_mi = accuracy_estimate(rows["mi_correct_at_mdl_size"].to_numpy())
    lines = [
        f"## {r.title}",
        "",
        f"{r.info['train']:,} training / {r.info['held_out']:,} held-out samples, d = {r.info['d']:,} binary features, "
        f"{r.info['classes']} classes. {'; '.join(r.info['notes'])}.",
        "",
        f"- **Chosen size** (minimum of DL, sizes 0..{m} explored): |J| = **{best}**, "
        f"DL = {trace['dl_total'].iloc[best]:.1f} nats (empty model {trace['dl_total'].iloc[0]:.1f}; "
        f"DL-data {trace['dl_data'].iloc[best]:.1f} + DL-model {trace['dl_model'].iloc[best]:.1f}).",
        "- **Chosen features** in order: "
        f"{', '.join(f'`{name}`' for name in mdl_names[:best]) or 'none'}.",
        f"- First feature (claim 1, an identity): `{mdl_names[0]}` for both orderings.",
        f"- **Claim 2** (sequential conditional selection beats individual MI ranking for "
        f"classification): the MDL order and the MI ranking share "
        f"{len(set(mdl_names[:best]) & set(mi_names[:best]))} of their first {best} features. "
        f"Held-out accuracy at the MDL size: MDL order {acc_mdl.format(3)}, MI ranking "
        f"{acc_mi.format(3)} (Wilson); MDL minus MI {_judged(judged['accuracy_at_mdl_size'])}; at "
        f"the largest size ({m}) {_judged(judged['accuracy_at_largest_size'])}; held-out log-loss "
        f"averaged over k = 1..{m}, MI minus MDL, {_judged(judged['mean_log_loss'])} nats (paired "
        "bootstrap over held-out rows, at Holm's levels). Held-out Naive Bayes scores of the first k features "
        "(accuracy: Wilson; log-loss: bootstrap; differences: paired bootstrap; 95% each, descriptive, not judged):",
        "",
        "| k | MDL order: accuracy | MI ranking: accuracy | MDL − MI: accuracy | MDL order: log-loss | "
        "MI ranking: log-loss | MI − MDL: log-loss |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in table_sizes(best, m):
        mark = " (MDL size)" if k == best else ""
        a_ok, b_ok = rows[f"mdl_correct_at_{k}"].to_numpy(), rows[f"mi_correct_at_{k}"].to_numpy()
        a_loss, b_loss = rows[f"mdl_log_loss_at_{k}"].to_numpy(), rows[f"mi_log_loss_at_{k}"].to_numpy()
        lines.append(
            f"| {k}{mark} | {accuracy_estimate(a_ok).format(3)} | {accuracy_estimate(b_ok).format(3)} | "
            f"{paired_difference(a_ok, b_ok).format(3)} | {mean_estimate(a_loss).format(3)} | "
            f"{mean_estimate(b_loss).format(3)} | {paired_difference(b_loss, a_loss).format(3)} |")
    lines += [
        "",
        f"- **Claim 3** (DL has an interior minimum): DL-data falls from {trace['dl_data'].iloc[0]:.1f} "
        f"to {trace['dl_data'].iloc[-1]:.1f} nats while DL-model rises by about "
        f"{np.diff(trace['dl_model']).mean():.1f} nats per feature; "
        + ("the minimum is interior." if 0 < best < m else "the minimum is at the edge of the explored range."),
        "",
        f"Figures: [`{r.info['slug']}_mdl_curve.html`]({r.info['slug']}_mdl_curve.html), "
        f"[`{r.info['slug']}_mdl_vs_mi.html`]({r.info['slug']}_mdl_vs_mi.html). Raw counts: "
        f"`{r.info['slug']}_held_out_rows.csv`, `{r.info['slug']}_held_out_by_k.csv`, "
        f"`{r.info['slug']}_mdl_trace.csv`.",
        "",
    ]
    return lines


def _judged(row: results_file.Row) -> str:
    """A judged difference as the report prints it: ``0.041 [0.002, 0.080] at 99.44%``."""
    return f"{row.estimate.format(3)} at {percent(row.level)}"


def _judged_rows(rows: list[results_file.Row], record: Record) -> dict[str, results_file.Row]:
    by = {row.quantity: row for row in rows}
    return {key: by[f"{quantity.format(mdl=MDL, mi=MI)}, {record.title}"] for key, quantity, _ in CLAIM2}


def run(out_dir: Path, quick: bool, progress: Callable[[float, str], None]) -> Path:
    """Run every case and write the figures and raw files into ``out_dir``, then render the report
    and ``results.json`` from them; returns the report."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    datasets = []
    todo = cases(quick)
    for i, case in enumerate(todo):
        progress(i / len(todo), case.title)
        datasets.append(run_case(case, out_dir))
    results_file.write_run_facts(out_dir, {"quick": bool(quick), "datasets": datasets})
    progress(1.0, "writing report")
    return render(out_dir)


def render(out_dir: Path) -> Path:
    """``results.json`` and ``report.md`` from the run's files in ``out_dir`` (module docstring)."""
    out_dir = Path(out_dir)
    quick, records = read_records(out_dir)
    rows = result_rows(records)
    lines = [
        "# MDL curve (Jaakkola, lecture 12, Eq. 10-15)",
        "",
        f"Source: {PAPER}. Command: `python -m fsengine reproduce mdl-curve{' --quick' if quick else ''}`.",
        "",
    ]
    claim2 = [r for r in rows if r.quantity.startswith("claim 2")]
    claim3 = [r for r in rows if r.quantity.startswith("claim 3")]
    resolved_for = sum(results_file.outcome(r.verdict) == "resolved" and f"{MDL} > {MI}" in r.verdict for r in claim2)
    resolved_against = sum(results_file.outcome(r.verdict) == "resolved" and f"{MI} > {MDL}" in r.verdict
                           for r in claim2)
    interior = sum(results_file.outcome(r.verdict) == "holds" for r in claim3)
    lines += [
        "**Verdict (computed; rules in `results.json` and the table at the end).** Claim 2 is judged by "
        f"{len(claim2)} paired held-out comparisons ({len(claim2) // len(records)} per dataset), one family judged "
        f"by Holm's step-down procedure at 95% family-wise: {resolved_for} resolved in favour of the MDL order, "
        f"{resolved_against} in favour of the MI ranking, {len(claim2) - resolved_for - resolved_against} not "
        f"resolved. Claim 3 (an interior minimum of DL) holds on {interior} of {len(claim3)} datasets. Claim 1 is an "
        "identity and is not judged.",
        "",
        f"**Multiplicity.** One family is judged: the {len(claim2)} claim-2 comparisons, by Holm's step-down "
        "procedure (each interval at the level Holm tests it at). The held-out accuracies are recorded with their "
        "95% Wilson intervals and no verdict; the per-size tables below are descriptive, each interval at 95% on its "
        "own; claim 3 is an exact check on the training data.",
        "",
        "**Choices made after seeing held-out results** (this target's history): " + " ".join(CHOICES_AFTER_SEEING),
        "",
        "The lecture has no figure or table for MDL; it states that (1) the first feature MDL includes "
        "is the mutual-information winner, (2) sequential selection by the conditional description "
        "length yields features more useful for classification than the MI ranking, and (3) "
        "DL(J) = DL-data(J) + DL-model(|J|) fixes the number of features. DL-model = log*|J| + "
        "log C(d, |J|) + log(n+1) + |J| (log(n_1+1) + log(n_-1+1)) (for K > 2 classes the count terms "
        "are log C(n+K-1, K-1) and |J| sum_y log(n_y+1)). All lengths in nats.",
        "",
        "Claim 1 is not a result: with one feature and the maximum-likelihood tables, DL-data = "
        "n (H(Y) − I(X; Y)), so the feature with the smallest DL-data is the one with the largest mutual "
        "information, always (`tests/methods/classic/test_mdl.py` checks the identity).",
        "",
        "Claim 2 is judged on the held-out rows at sizes fixed without them: the MDL size (the minimum of "
        "the training DL) and the largest size explored, and by the held-out log-loss averaged over every "
        "size explored. Each comparison is the paired percentile bootstrap over held-out rows "
        f"({FAMILY_RESAMPLES:,} resamples, seed {BOOTSTRAP_SEED}, the same resamples for both orderings): resolved "
        "when its interval excludes 0, at the level Holm's step-down procedure tests it at within the family of "
        f"all {len(claim2)} (the table gives each level).",
        "",
        "| data | d | classes | MDL size | held-out accuracy at the MDL size: MDL − MI | at the largest size: "
        "MDL − MI | mean held-out log-loss: MI − MDL (nats) |",
        "|---|---:|---:|---:|---|---|---|",
    ]
    for r in records:
        j = _judged_rows(rows, r)
        lines.append(f"| {r.title} | {r.info['d']:,} | {r.info['classes']} | {r.info['best']} | "
                     f"{_judged(j['accuracy_at_mdl_size'])} | {_judged(j['accuracy_at_largest_size'])} | "
                     f"{_judged(j['mean_log_loss'])} |")
    lines.append("")
    for r in records:
        lines += _fmt_case(r, _judged_rows(rows, r))
    lines += ["## Headline numbers (`results.json`)", "", *results_file.markdown(rows), ""]
    results_file.write(out_dir, "mdl-curve", quick, {
        "datasets": {r.info["slug"]: {"title": r.title, "d": r.info["d"], "train": r.info["train"],
                                      "held_out": r.info["held_out"], "max_features": r.info["max_features"]}
                     for r in records},
        "split": "70/30 stratified, seed 0", "classifier": "BernoulliNB(alpha=1)",
        "bootstrap": {"resamples": N_BOOTSTRAP, "seed": BOOTSTRAP_SEED, "unit": "held-out rows",
                      "family_resamples": FAMILY_RESAMPLES}}, rows)
    report = out_dir / "report.md"
    report.write_text("\n".join(lines))
    return report


#: a finished run's record with this code's statistics and words, from its raw files (a run renders its own
#: record the same way, so a run's outputs come back byte for byte)
rerender = render


def headline(out_dir: Path) -> str:
    """The record's headline on the results page: the committed full run, formatted from its ``results.json``."""
    data = results_file.read(Path(out_dir) / results_file.FILENAME)
    rows = {r["quantity"]: results_file.Row(**r) for r in data["rows"]}
    titles = [d["title"] for d in data["inputs"]["datasets"].values()]
    claim2 = [r for q, r in rows.items() if q.startswith("claim 2")]

    def listed(quantity):
        return ", ".join(f"{t} {rows[f'{quantity}, {t}'].estimate.format(3)}" for t in titles)

    for_mdl = sum(results_file.outcome(r.verdict) == "resolved" and f"{MDL} > {MI}" in r.verdict for r in claim2)
    against = sum(results_file.outcome(r.verdict) == "resolved" and f"{MI} > {MDL}" in r.verdict for r in claim2)
    return (f"Committed full run, MDL order minus MI ranking on the held-out 30% (paired bootstrap over held-out "
            f"rows; the {len(claim2)} comparisons judged as one family by Holm's step-down procedure, each interval "
            "at its Holm level): accuracy at the MDL size, "
            + listed(CLAIM2[0][1].format(mdl=MDL, mi=MI)) + "; held-out log-loss averaged over the sizes explored, "
            "MI minus MDL (nats), " + listed(CLAIM2[2][1].format(mdl=MDL, mi=MI))
            + f": {for_mdl} of {len(claim2)} comparisons resolved for the MDL order, {against} against.")
