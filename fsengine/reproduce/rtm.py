"""``reproduce rtm-roc``: the Relevance Tagging Machine slides' experiments (Molchanov,
Kondrashkin & Vetrov): the synthetic ROC of tag relevance and the sentiment accuracy table.

Full run: 5 seeds of the RTM generative model (800 objects, 400 tags, 30 relevant) and 5-fold
CV on movie reviews, sentence polarity and subjectivity. ``--quick``: one smaller synthetic seed
and 2-fold CV on 1,500 sentence-polarity snippets (under a minute).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fsengine.csv_export import to_csv
from fsengine.data.paths import DataNotFoundError
from fsengine.methods.rtm import study as rtm_study
from fsengine.methods.rtm.fit import RTMSettings
from fsengine.plots import rtm as rtm_plots
from fsengine.progress import Progress, scaled
from fsengine.reproduce import results as results_file

SYNTHETIC_FULL = dict(seeds=(0, 1, 2, 3, 4), n_samples=800, n_tags=400, n_relevant=30)
SYNTHETIC_QUICK = dict(seeds=(0,), n_samples=400, n_tags=200, n_relevant=15)
#: sentences first: the long reviews take most of the time, and the report is written after each corpus
CORPORA_FULL = {key: dict(folds=5) for key in ("sentence_polarity", "subjectivity", "movie_reviews")}
CORPORA_QUICK = {"sentence_polarity": dict(folds=2, max_docs=1500)}
#: the work is tasks of fsengine.parallel.map_tasks: ``reproduce --keep-tasks`` keeps their results
KEEPS_TASKS = True


def _md(df: pd.DataFrame, digits: int = 4) -> str:
    """A markdown table (index as first column), floats to ``digits`` decimals."""
    def cell(v):
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        return str(v)

    index_name = " / ".join(str(n) for n in df.index.names if n is not None)
    head = [index_name] + [str(c) for c in df.columns]
    rows = [[cell(i) if not isinstance(i, tuple) else " / ".join(map(str, i))] + [cell(v) for v in row]
            for i, row in zip(df.index, df.itertuples(index=False))]
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def _write(fig, path: Path) -> None:
    fig.write_html(path, include_plotlyjs="cdn", full_html=True)


def run(out_dir: Path, quick: bool, progress: Progress, *, n_jobs: int | None = None,
        scheduler=None) -> Path:
    """Seeds and (fold, (method, ard)) pairs are tasks: ``n_jobs`` local processes or a Dask ``scheduler``
    (:mod:`fsengine.parallel`); the tables do not depend on where they ran. ``progress(fraction,
    message)`` hears every finished task and, when the tasks run here, every sweep of every fit."""
    where = dict(n_jobs=n_jobs, scheduler=scheduler)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    synth = SYNTHETIC_QUICK if quick else SYNTHETIC_FULL
    roc = rtm_study.synthetic_roc(synth["seeds"], n_samples=synth["n_samples"], n_tags=synth["n_tags"],
                                  n_relevant=synth["n_relevant"], settings=RTMSettings(alpha0=5.0),
                                  methods=rtm_study.VARIANTS, progress=scaled(progress, 0.0, 0.2), **where)
    to_csv(roc.auc, out_dir / "synthetic_auc.csv")
    to_csv(roc.fits, out_dir / "synthetic_fits.csv", index=False)
    _write(rtm_plots.roc_figure(roc.curves, roc.auc.iloc[0].to_dict(),
                                title=f"Tag relevance ROC, seed {roc.auc.index[0]}"), out_dir / "roc.html")
    _write(rtm_plots.auc_figure(roc.auc, reference=rtm_study.EARLIER_RUN_AUC), out_dir / "auc.html")
    _write(rtm_plots.convergence_figure(roc.traces, tol=1e-4), out_dir / "convergence.html")

    corpora = CORPORA_QUICK if quick else CORPORA_FULL
    results, missing = {}, []
    span = 0.8 / len(corpora)
    report = out_dir / "report.md"
    for k, (key, kw) in enumerate(corpora.items()):
        try:
            results[key] = rtm_study.cv_accuracy(key, methods=rtm_study.VARIANTS,
                                                 progress=scaled(progress, 0.2 + k * span, 0.2 + (k + 1) * span),
                                                 **kw, **where)
        except DataNotFoundError as exc:
            missing.append(f"{key}: {str(exc).splitlines()[0]}")
        _write_outputs(out_dir, quick, synth, roc, results, missing)  # after every corpus (the CLI stages out_dir)
    progress(1.0, "report")
    return report


def rerender(out_dir: Path, note: str) -> Path:
    """Rewrite ``report.md``, ``results.json`` and ``accuracy.html`` of a full run from its CSVs
    (``synthetic_auc.csv``, ``synthetic_fits.csv``, ``accuracy_folds.csv``), e.g. after the report
    gained verdicts; ``note`` (which run, what it lacks) is printed under the verdict."""
    out_dir = Path(out_dir)
    roc = rtm_study.RocResult(auc=pd.read_csv(out_dir / "synthetic_auc.csv", index_col=0),
                            fits=pd.read_csv(out_dir / "synthetic_fits.csv"))
    folds = pd.read_csv(out_dir / "accuracy_folds.csv")
    results = {key: df.drop(columns="corpus").reset_index(drop=True) for key, df in folds.groupby("corpus", sort=False)}
    _write_outputs(out_dir, False, SYNTHETIC_FULL, roc, results, [], note=note)
    return out_dir / "report.md"


def _write_outputs(out_dir: Path, quick: bool, synth: dict, roc, results: dict, missing: list,
                   note: str = "") -> None:
    """Fold table, accuracy figure, ``results.json`` and ``report.md`` from what has run so far."""
    folds = pd.concat([df.assign(corpus=key) for key, df in results.items()]) if results else pd.DataFrame()
    to_csv(folds, out_dir / "accuracy_folds.csv", index=False)
    table = rtm_study.accuracy_table(results) if results else pd.DataFrame()
    if results:
        _write(rtm_plots.accuracy_figure(table[[c for c in table.columns if not c.endswith(" sd")]]),
               out_dir / "accuracy.html")
    rows = result_rows(roc.auc, table)
    results_file.write(out_dir, "rtm-roc", quick, {
        "synthetic": {**synth, "seeds": list(synth["seeds"]), "prior": "Beta(5, 5)"},
        "corpora": {k: {"label": rtm_study.CORPORA[k].label, "documents": int(df.n_docs.iloc[0]),
                        "folds": int(df.fold.nunique())} for k, df in results.items()},
        "variants": [c for c in roc.auc.columns if c.startswith("RTM")]}, rows)
    text = _report(quick, synth, roc, roc.summary(), results, folds, table, missing, rows)
    if note:
        text = text.replace("\n\nWhat differs from the slides:", f"\n\n{note}\n\nWhat differs from the slides:", 1)
    (out_dir / "report.md").write_text(text)


#: the slides' ordering, best first
SLIDES_ORDER = ("RTM Power EP", "RTM EP", "RTM EM")
#: the slides' Dataset 2 (about 0.75) is read as sentence polarity (see "What differs")
SLIDES_DATASET_2 = "Sentence polarity"
#: |ours - slides| allowed for a Dataset 2 accuracy to count as reproduced (about two fold sds)
ACCURACY_TOL = 0.02


def ordering_margin(values: pd.Series, order=SLIDES_ORDER) -> float:
    """min over consecutive pairs of ``order`` of value(better) - value(worse): > 0 iff the
    values are ordered as ``order`` says."""
    return float(min(values[a] - values[b] for a, b in zip(order, order[1:], strict=False)))


def result_rows(auc: pd.DataFrame, table: pd.DataFrame) -> list[results_file.Row]:
    """Headline rows: mean synthetic AUC per method, the slides' ordering on the synthetic AUC and
    on each corpus (fixed prior and ARD), accuracies per variant and corpus, best RTM vs BernoulliNB."""
    rows = []
    mean_auc = auc.mean()
    for label, value in mean_auc.items():
        rows.append(results_file.recorded(f"synthetic mean AUC, {label}", value,
                                          note="the slides show ROC pictures only"))
    rule = "ours > 0 (slides: Power EP > EP > EM)"
    ard_order = tuple(f"{m} + ARD" for m in SLIDES_ORDER)
    orders = (("fixed prior", SLIDES_ORDER), ("ARD", ard_order))
    for name, order in orders:
        if set(order) <= set(mean_auc.index):  # a recorded run may predate the ARD variants
            margin = ordering_margin(mean_auc, order)
            rows.append(results_file.Row(f"ordering margin, synthetic AUC, {name}", None, margin,
                                         results_file.judge(margin > 0, rule)))
    for corpus in [c for c in table.columns if not c.endswith(" sd")]:
        acc = table[corpus]
        dataset2 = corpus == SLIDES_DATASET_2
        for label, value in acc.items():
            paper = rtm_study.SLIDES_ACCURACY["Dataset 2"].get(label) if dataset2 else None
            q = f"accuracy, {label}, {corpus}"
            rows.append(results_file.within(q, value, float(paper), ACCURACY_TOL) if paper is not None
                        else results_file.recorded(q, value, note="the slides' datasets are unnamed"))
        slides2 = rtm_study.SLIDES_ACCURACY["Dataset 2"]
        for name, order in orders:
            if not set(order) <= set(acc.index):
                continue
            margin = ordering_margin(acc, order)
            rows.append(results_file.Row(f"ordering margin, accuracy, {name}, {corpus}",
                                         ordering_margin(slides2) if dataset2 and name == "fixed prior" else None,
                                         margin, results_file.judge(margin > 0, rule)))
        best_rtm = acc[[i for i in acc.index if i.startswith("RTM")]].max()
        rows.append(results_file.Row(f"best RTM minus BernoulliNB, accuracy, {corpus}", None,
                                     float(best_rtm - acc[rtm_study.NB_LABEL]),
                                     results_file.judge(best_rtm > acc[rtm_study.NB_LABEL],
                                                        "ours > 0 (an RTM variant beats Naive Bayes)")))
    return rows


def _verdict_lines(rows: list[results_file.Row]) -> list[str]:
    """The report's first lines: where the slides' ordering holds and where it fails, in words."""
    order = [r for r in rows if r.quantity.startswith("ordering margin")]
    held = [r.quantity.removeprefix("ordering margin, ") for r in order if results_file.outcome(r.verdict) == "holds"]
    failed = [r.quantity.removeprefix("ordering margin, ") for r in order if results_file.outcome(r.verdict) == "fails"]
    nb = [r.quantity.rsplit(", ", 1)[1] for r in rows
          if r.quantity.startswith("best RTM minus") and results_file.outcome(r.verdict) == "fails"]
    lines = ["**Verdict (computed from the tables below).** "
             + ("The slides' ordering Power EP > EP > EM is **not reproduced**" if failed
                else "The slides' ordering Power EP > EP > EM is reproduced")
             + (f": it fails on {'; '.join(failed)}" if failed else "")
             + (f", and holds on {'; '.join(held)}." if held and failed else "." if failed else
                f" on {'; '.join(held)}.")]
    if nb:
        lines.append("BernoulliNB beats every RTM variant in the table on " + ", ".join(nb) + ".")
    lines += ["", "What differs from the slides: their two datasets are unnamed (we read Dataset 2 as "
              "sentence polarity), their prior (fixed or ARD) is not stated (we run both), and our EP "
              "uses approximate tilted moments (details at the end).", ""]
    return lines


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
    table = _md(rtm.groupby(by).agg(**agg).rename(columns={
        "converged": f"share of {unit}s converged", "sweeps": "mean sweeps", "most_sweeps": "most sweeps",
        "skipped": "most factors skipped (last sweep)", "seconds": "mean seconds per fit"}), 2)
    failed = rtm[~rtm.converged.astype(bool)]
    if failed.empty:
        return table + ("\n\nEvery RTM fit converged (largest change of a posterior mean below 1e-4, "
                        "at most 1% of the factors skipped).")
    names = "; ".join(" ".join(str(r[c]) for c in by[:-1]) + f" {r.method}, {unit} {r[unit]} "
                      f"({int(r.sweeps)} sweeps, {int(r.skipped)} factors skipped)" for _, r in failed.iterrows())
    return table + f"\n\n**{len(failed)} of {len(rtm)} RTM fits did not converge**: {names.strip()}."


def _report(quick, synth, roc, summary, results, folds, table, missing, rows) -> str:
    lines = [
        "# rtm-roc: Relevance Tagging Machine, ROC and sentiment accuracy",
        "",
        *_verdict_lines(rows),
        "Source: Molchanov, Kondrashkin & Vetrov, *Power Expectation Propagation for the Relevance "
        "Tagging Machine* (slides, 2015): synthetic ROC for feature selection and the sentiment "
        "test-accuracy table.",
        "",
        f"Command: `python -m fsengine reproduce rtm-roc{' --quick' if quick else ''}`"
        + (" (quick: CI-sized, not the full experiment)" if quick else ""),
        "",
        "## Synthetic data: finding the relevant tags",
        "",
        f"RTM generative model (`synthetic_rtm`): {synth['n_samples']} objects, {synth['n_tags']} tags, "
        f"{synth['n_relevant']} relevant (theta_j = 0.5 +- U(0.1, 0.4)), tag rates log-uniform in "
        "[0.017, 0.15]; seeds " + ", ".join(map(str, synth["seeds"])) + ". RTM scores: log Bayes factor "
        "of theta_j against 0.5 under a fixed Beta(5, 5) prior (no ARD), damping 0.5, inner damping 0.5, sequential "
        "updates, tol 1e-4; each method also with ARD (alpha_j maximising the evidence, started at 5). "
        "Baselines: marginal mutual information and the L1-logistic path.",
        "",
        _md(summary),
        "",
        "Per seed:",
        "",
        _md(roc.auc),
        "",
        ("Mean training seconds per seed: " + ", ".join(f"{k} {v:.1f}" for k, v in roc.seconds.items()) + "."
         if roc.seconds else "Training seconds: not in the recorded CSVs (see `synthetic_fits.csv`)."),
        "",
        "Convergence of the RTM fits (per seed; `synthetic_fits.csv`):",
        "",
        _convergence_lines(roc.fits, ["method"], "seed"),
        "",
        "An earlier run of the same experiment (same model family, its own data generator) gave Power "
        "EP AUC 0.82 against 0.80 for mutual information (diamonds in `auc.html`). The slides show the "
        "ROC curves only as a picture; ours are in `roc.html` (seed 0), `auc.html` (all seeds) and "
        "`convergence.html` (traces of seed 0).",
        "",
        "## Sentiment: test accuracy",
        "",
    ]
    if results:
        lines += [
            "Word-presence tags (vocabulary rebuilt on each training fold; min df 5 for movie "
            "reviews, 2 for sentences), stratified k-fold CV (seed 0). RTM settings per corpus: "
            + "; ".join(f"{rtm_study.CORPORA[k].label}: alpha0 = {rtm_study.CORPORA[k].settings.alpha0:g}, "
                        f"inner damping {rtm_study.CORPORA[k].settings.inner_damping:g}, max "
                        f"{rtm_study.CORPORA[k].settings.max_iter} sweeps" for k in results)
            + ". Baselines: BernoulliNB (alpha = 1) and L1-logistic regression (C in {0.1, 0.3, 1, 3} by "
            "inner 3-fold CV).",
            "",
            "Ours (mean over folds, sd beside; documents per corpus: "
            + ", ".join(f"{rtm_study.CORPORA[k].label} {df.n_docs.iloc[0]:,}" for k, df in results.items()) + "):",
            "",
            _md(table),
            "",
            "The slides' table (datasets not named there):",
            "",
            _md(rtm_study.SLIDES_ACCURACY),
            "",
            "Convergence of the RTM fits (per fold; `accuracy_folds.csv`):",
            "",
            _convergence_lines(folds, ["corpus", "method"], "fold"),
            "",
            "### What differs from the slides' set-up",
            "",
            "- The slides do not name their two datasets, the tag vocabulary, the split or the "
            "hyperparameters. Dataset 2 (about 0.75) matches the level of sentence polarity; no "
            "public polarity corpus we have gives 0.97 with word presence, so Dataset 1 is probably "
            "another task (our movie-review numbers are not comparable to it).",
            "- The slides do not say whether their accuracy runs used ARD. We run every method twice: a "
            "fixed symmetric Beta prior (alpha0 per corpus, stronger for long reviews) and ARD started "
            "from the same alpha0 (rows `+ ARD`).",
            "- EP's tilted moments are approximated (one-dimensional reduction with the other tags' "
            "log-odds as a Gaussian); the slides do not say how theirs were computed.",
            "- That earlier run gave, on subjectivity, RTM 0.89 against BernoulliNB 0.90.",
        ]
    if missing:
        lines += ["", "Corpora not found (set FSENGINE_DATA): " + "; ".join(missing)]
    lines += ["", "## Headline numbers (`results.json`)", "",
              f"Dataset 2 of the slides is compared with sentence polarity (rule: |ours - slides| <= "
              f"{ACCURACY_TOL}); ordering margins are min(Power EP - EP, EP - EM).", "",
              *results_file.markdown(rows)]
    return "\n".join(lines) + "\n"
