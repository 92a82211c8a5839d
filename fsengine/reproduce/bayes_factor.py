"""Reproduce target ``bayes-factor``: Daume III's approximate Bayes-factor feature selection
(APPROXBFFS, Fig. 1) on CoNLL-2000 Base-NP, for both model priors and both signs of the Occam
term of Eq. (12), next to IFS and SGC (Zhou et al.) at the same numbers of pairs.

The paper has no Base-NP result to compare with; what the report measures is where each variant
stops by itself and what held-out accuracy it has there, against the best held-out accuracy along
its own path. Model priors: ``uniform`` (Eq. 13: log prior odds 0, so a pair enters whenever its
Laplace gain beats 1/2 log a_g) and ``multiplicity`` (-log(F - G): the current model keeps half the
prior mass, see :func:`fsengine.methods.bayes_factor.model.multiplicity_log_odds`). Signs: ``laplace``
(-1/2 log a_g, what Eq. 7 implies) and ``printed`` (+1/2 log a_g, Eq. 12 as printed).

Held-out: the section-20 tokens (all 47,377 in the full run) with gold previous tags (token accuracy, no decoding); all
24 templates, predicate cutoff 1. Every configuration runs to its automatic stop or to a cap.
The recommended configuration (the page's default) is computed by :func:`recommend`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fsengine.csv_export import to_csv
from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.methods.bayes_factor.study import at_stop_row, gain_selector_curves, heldout_task, run_bayes_factor
from fsengine.plots.bayes_factor import accuracy_figure
from fsengine.progress import scaled
from fsengine.reproduce import results as results_file

#: (sign, model prior), cheapest first: the multiplicity prior stops early, the printed sign rarely
CONFIGS = (("laplace", "multiplicity"), ("printed", "multiplicity"), ("printed", "uniform"),
           ("laplace", "uniform"))
LABEL = {"laplace": "Laplace sign", "printed": "printed sign", "uniform": "uniform prior",
         "multiplicity": "multiplicity prior"}
QUICK = dict(n_sentences=150, n_heldout=10_000, per_round=10, caps={"uniform": 100, "multiplicity": 100},
             ifs_cap=100)
#: full: the first 300 training sentences (7,189 tokens), all 47,377 held-out tokens, caps of 600
#: pairs, so that the four configurations finish in minutes on a shared machine; on all 8,936
#: sentences one configuration (Laplace sign, uniform prior, S = 100) takes 40 minutes and stops at
#: 9,668 pairs (``benchmarks/bench_bayes_factor.py``, RESULTS.md)
FULL = dict(n_sentences=300, n_heldout=0, per_round=20, caps={"uniform": 600, "multiplicity": 600}, ifs_cap=600)
#: held-out accuracies closer than this count as equal when recommending (0.05 points)
TIE = 0.0005


def config_label(sign: str, prior: str) -> str:
    return f"{LABEL[sign]}, {LABEL[prior]}"


def summarise(run) -> dict:
    """Stop, accuracy at the stop, the held-out peak along the path, whether it stopped by itself."""
    tr = run.trace
    at_stop = at_stop_row(run)
    peak = tr.loc[tr["heldout_accuracy"].idxmax()]
    return {"pairs_at_stop": int(run.n_at_stop), "stopped": run.stop_round is not None,
            "rounds": int(at_stop["round"]) + 1, "stop_reason": run.stop_reason,
            "heldout_at_stop": float(at_stop["heldout_accuracy"]),
            "train_at_stop": float(at_stop["train_accuracy"]),
            "peak_heldout": float(peak["heldout_accuracy"]), "pairs_at_peak": int(peak["n_selected"]),
            "seconds": float(at_stop["seconds"])}


def recommend(summaries: dict[tuple[str, str], dict]) -> tuple[str, str]:
    """The configuration to use by default: among those that stopped by themselves (all, if none
    did), the highest held-out accuracy at the stop; within ``TIE`` of it, the fewest pairs."""
    pool = {k: v for k, v in summaries.items() if v["stopped"]} or summaries
    best = max(v["heldout_at_stop"] for v in pool.values())
    tied = [k for k, v in pool.items() if v["heldout_at_stop"] >= best - TIE]
    return min(tied, key=lambda k: (pool[k]["pairs_at_stop"], CONFIGS.index(k)))


def result_rows(summaries: dict, gain_at: pd.DataFrame, choice: tuple[str, str] | None) -> list[results_file.Row]:
    rows = []
    for (sign, prior), s in summaries.items():
        name = config_label(sign, prior)
        rows += [
            results_file.Row(f"stopped by itself, {name}", None, float(s["stopped"]),
                             results_file.judge(s["stopped"], "ours = 1: beta_0 beat every candidate before the cap")),
            results_file.recorded(f"pairs at the stop, {name}", s["pairs_at_stop"]),
            results_file.recorded(f"held-out accuracy at the stop, {name}", s["heldout_at_stop"]),
            results_file.recorded(f"best held-out accuracy along the path, {name}", s["peak_heldout"]),
            results_file.recorded(f"pairs at the best held-out accuracy, {name}", s["pairs_at_peak"]),
            results_file.Row(f"held-out accuracy lost by stopping there, {name}", None,
                             s["peak_heldout"] - s["heldout_at_stop"],
                             results_file.judge(s["peak_heldout"] - s["heldout_at_stop"] <= 0.001,
                                                "ours <= 0.001 (the stop is within 0.1 points of the path's best)")),
        ]
        for method in ("SGC", "IFS"):
            hit = gain_at[(gain_at.method == method) & (gain_at.n_features == s["pairs_at_stop"])]
            if len(hit):
                acc = float(hit.heldout_accuracy.iloc[0])
                rows.append(results_file.Row(
                    f"{method} held-out accuracy at the stop size of {name}", None, acc,
                    results_file.judge(s["heldout_at_stop"] >= acc - TIE,
                                       f"Bayes factor >= {method} - {TIE} at the same number of pairs")))
        if choice is not None:
            rows.append(results_file.recorded(f"recommended (page default), {name}", float((sign, prior) == choice),
                                              note="1 = recommended: stopped by itself, best held-out accuracy "
                                                   f"at the stop (ties within {TIE}: fewest pairs)"))
    return rows


def run(out_dir: Path, quick: bool, progress) -> Path:
    """Write ``rounds.csv``, ``gain_selectors.csv``, ``accuracy.html``, ``results.json`` and
    ``report.md`` (rewritten after every configuration; ``fsengine reproduce`` writes into a staging
    folder and replaces the record only when the run completes)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cfg = QUICK if quick else FULL
    progress(0.0, "loading CoNLL-2000 Base-NP")
    ds = load_conll2000_maxent(task="np", cutoff=1, n_sentences=cfg["n_sentences"])
    task = heldout_task(ds, n_heldout=cfg["n_heldout"])
    runs, summaries = {}, {}
    n = len(CONFIGS) + 1
    for i, (sign, prior) in enumerate(CONFIGS):
        cap = cfg["caps"][prior]
        runs[(sign, prior)] = run_bayes_factor(
            task, per_round=cfg["per_round"], sign=sign, model_prior=prior, max_pairs=cap,
            progress=scaled(progress, i / n, (i + 1) / n, f"{config_label(sign, prior)}: "))
        summaries[(sign, prior)] = summarise(runs[(sign, prior)])
        _write(out_dir, quick, cfg, task, runs, summaries, pd.DataFrame(columns=["method", "n_features"]))
    sizes = sorted({s["pairs_at_stop"] for s in summaries.values()} | {s["pairs_at_peak"] for s in summaries.values()})
    progress(len(CONFIGS) / n, "SGC and IFS at the same sizes")
    sgc = gain_selector_curves(task, max(sizes), methods=("SGC",), extra_sizes=sizes, n_points=6)
    ifs_budget = min(max(sizes), cfg["ifs_cap"])
    ifs = gain_selector_curves(task, ifs_budget, methods=("IFS",), extra_sizes=[s for s in sizes if s <= ifs_budget],
                               n_points=6)
    _write(out_dir, quick, cfg, task, runs, summaries, pd.concat([sgc, ifs], ignore_index=True))
    progress(1.0, "done")
    return out_dir / "report.md"


def _write(out_dir: Path, quick: bool, cfg: dict, task, runs: dict, summaries: dict, gain: pd.DataFrame) -> None:
    rounds = pd.concat([r.trace[["round", "n_selected", "train_accuracy", "heldout_accuracy", "seconds"]]
                        .assign(sign=k[0], model_prior=k[1]) for k, r in runs.items()], ignore_index=True)
    to_csv(rounds, out_dir / "rounds.csv", index=False, float_format="%.6f")
    to_csv(gain, out_dir / "gain_selectors.csv", index=False, float_format="%.6f")
    done = len(runs) == len(CONFIGS)
    choice = recommend(summaries) if done else None
    rows = result_rows(summaries, gain, choice)
    results_file.write(out_dir, "bayes-factor", quick, {
        "data": "CoNLL-2000 Base-NP (conll2000 corpus of NLTK): WSJ 15-18 train, section 20 held-out "
                "(gold previous tags, token accuracy)",
        "training_sentences": cfg["n_sentences"] or "all", "templates": "all 24, predicate cutoff 1",
        "per_round": cfg["per_round"], "prior_variance": 1.0, "caps": cfg["caps"], "ifs_cap": cfg["ifs_cap"],
        "training_tokens": int(task.X.shape[0]), "heldout_tokens": int(task.X_val.shape[0]),
        "configurations_finished": len(runs)}, rows)
    curves = [rounds[(rounds.sign == s) & (rounds.model_prior == p)]
              .assign(method=f"Bayes factor ({config_label(s, p)})")[["method", "n_selected", "train_accuracy",
                                                                      "heldout_accuracy"]]
              .rename(columns={"n_selected": "n_features"}) for s, p in runs]
    if len(gain):
        curves.append(gain[["method", "n_features", "train_accuracy", "heldout_accuracy"]])
    stop = summaries[choice]["pairs_at_stop"] if choice else next(iter(summaries.values()))["pairs_at_stop"]
    accuracy_figure(pd.concat(curves, ignore_index=True), stop, show_train=False,
                    title="Held-out accuracy vs selected pairs (CoNLL-2000 Base-NP)").write_html(
        out_dir / "accuracy.html", include_plotlyjs="cdn", full_html=True)
    (out_dir / "report.md").write_text(_report(quick, cfg, task, runs, summaries, gain, choice, rows))


def _pct(v: float) -> str:
    return f"{100 * v:.2f} %"


def _report(quick, cfg, task, runs, summaries, gain, choice, rows) -> str:
    lines = ["# Bayes-factor feature selection (Daume III 2004) on CoNLL-2000 Base-NP", "",
             f"Command: `python -m fsengine reproduce bayes-factor{' --quick' if quick else ''}`", ""]
    if choice is None:
        lines += [f"**Partial run: {len(runs)} of {len(CONFIGS)} configurations finished**; the recommendation "
                  "needs all four.", ""]
    else:
        s = summaries[choice]
        lines += [f"**Recommendation (computed, rule below): {config_label(*choice)}.** It stops by itself at "
                  f"{s['pairs_at_stop']:,} pairs with held-out accuracy {_pct(s['heldout_at_stop'])} (best along "
                  f"its path {_pct(s['peak_heldout'])} at {s['pairs_at_peak']:,} pairs). This is the default of "
                  "the Bayes-factor page. Rule: among the configurations that stop by themselves, the highest "
                  f"held-out accuracy at the stop; within {100 * TIE:.2f} points of it, the fewest pairs.", ""]
        uni = summaries.get(("laplace", "uniform"))
        if uni and choice != ("laplace", "uniform"):
            where = (f"stops by itself at {uni['pairs_at_stop']:,} pairs" if uni["stopped"] else
                     f"does not stop by itself before its cap of {uni['pairs_at_stop']:,} pairs")
            lines += [f"The paper's uniform prior (Eq. 13) with the Laplace sign {where} "
                      f"({_pct(uni['heldout_at_stop'])} held out; best along its path {_pct(uni['peak_heldout'])} "
                      f"at {uni['pairs_at_peak']:,} pairs): with log prior odds 0 every pair whose gain beats "
                      "1/2 log a_g enters, noise pairs included, so it needs many more rounds (MAP fits) and "
                      "a held-out set to know where it could have stopped.", ""]
    lines += [f"Data: {task.X.shape[0]:,} training tokens"
              + (f" (first {cfg['n_sentences']:,} sentences)" if cfg["n_sentences"] else " (all 8,936 sentences)")
              + f", {len(task.predicate_names):,} predicates (24 templates, cutoff 1), 3 classes; held-out: "
              f"{task.X_val.shape[0]:,} section-20 tokens with gold previous tags (token accuracy"
              + (", the first ones" if cfg["n_heldout"] else "") + "). S = "
              f"{cfg['per_round']} pairs per round, sigma^2 = 1, unpenalised bias; caps: "
              + ", ".join(f"{p} prior {c:,} pairs" for p, c in cfg["caps"].items()) + ".", "",
              "## Stopping points", "",
              "| configuration | stopped by itself | rounds | pairs at the stop | held-out at the stop | "
              "train at the stop | best held-out (pairs) | seconds |",
              "|---|---|---|---|---|---|---|---|"]
    for k, s in summaries.items():
        lines.append(f"| {config_label(*k)} | {'yes' if s['stopped'] else 'no: ' + s['stop_reason']} | "
                     f"{s['rounds']} | {s['pairs_at_stop']:,} | {_pct(s['heldout_at_stop'])} | "
                     f"{_pct(s['train_at_stop'])} | {_pct(s['peak_heldout'])} ({s['pairs_at_peak']:,}) | "
                     f"{s['seconds']:.0f} |")
    if len(gain):
        lines += ["", "## IFS and SGC at the same sizes", "",
                  "The first k pairs of each gain selector (candidates seen at least once), re-fitted with the "
                  f"same MAP (prior, bias) as the Bayes-factor rounds; IFS up to {cfg['ifs_cap']:,} pairs.", "",
                  "| method | pairs | train | held-out |", "|---|---|---|---|"]
        lines += [f"| {r.method} | {int(r.n_features):,} | {_pct(r.train_accuracy)} | {_pct(r.heldout_accuracy)} |"
                  for r in gain.itertuples()]
    lines += ["", "## Held-out accuracy per round", "",
              "Every round of every configuration is in `rounds.csv`; sampled here (about 12 rounds each, "
              "plus the stop and the best):", ""]
    for k, r in runs.items():
        tr = r.trace
        pick = set(np.unique(np.linspace(0, len(tr) - 1, 12).round().astype(int)).tolist())
        pick |= {int(tr["heldout_accuracy"].idxmax()), int(tr.index[tr["n_selected"] == r.n_at_stop][0])}
        lines += [f"{config_label(*k)}:", "", "| round | pairs | train | held-out |", "|---|---|---|---|"]
        lines += [f"| {int(tr.at[i, 'round'])} | {int(tr.at[i, 'n_selected']):,} | "
                  f"{_pct(tr.at[i, 'train_accuracy'])} | {_pct(tr.at[i, 'heldout_accuracy'])} |" for i in sorted(pick)]
        lines.append("")
    lines += ["Figure: [accuracy.html](accuracy.html) (held-out accuracy per round of each configuration, "
              "IFS and SGC).", "", "## Headline numbers (`results.json`)", "", *results_file.markdown(rows), ""]
    return "\n".join(lines)
