"""Reproduction of Zhou, Wu, Weng & Schmidt (2003), Figs. 3-5, on CoNLL-2000.

Base-NP chunking (and, in the full run, full chunking): WSJ 15-18 train, section 20 test, the 24
templates of :data:`fsengine.data.features.templates.CHUNK_TEMPLATES`, candidate pairs seen at
least twice. IFS, SGC, SGC with look-ahead 500 and the count cutoff select features; MAP models on
the first k features are decoded left to right and scored with conlleval (Fig. 5).
"""

from __future__ import annotations

from pathlib import Path

from ..data.maxent_tasks import load_conll2000_maxent
from ..methods.gain_comparison import Comparison, run_comparison
from ..plots import maxent as plots

#: the paper's numbers quoted in the report
PAPER = {
    "base_np": "Base-NP, WSJ 15-18 / 20: P/R 92.75 / 93.25 with 1,160 SGC features; "
               "Koeling (2000) 92.84 / 93.18 (cutoff 5); Zhou et al. (2003) 92.46 / 92.74 with 615 "
               "IFS features",
    "speed": "SGC 100x to thousands of times faster than IFS; 24.1 gains computed per stage on "
             "average (191,098 candidates, grammatical-relation task)",
}

QUICK = dict(n_sentences=300, budget=60, ifs_budget=60, lookahead=50, n_checkpoints=4)
FULL_TASKS = {
    "np": dict(n_sentences=0, budget=2000, ifs_budget=1000, lookahead=500, n_checkpoints=5,
               extra_checkpoints=(1160,)),
    # 22 classes: every evaluation fit costs ~7x Base-NP's, IFS stages ~2x; smaller budgets
    "chunk": dict(n_sentences=0, budget=500, ifs_budget=100, lookahead=500, n_checkpoints=4),
}
TASK_LABEL = {"np": "Base-NP chunking", "chunk": "full chunking"}


def _write_figures(comp: Comparison, out_dir: Path, tag: str) -> list[str]:
    traces = {m: s.trace for m, s in comp.selections.items()}
    figures = {
        f"{tag}_gain_per_stage.html": plots.gain_per_stage(traces),
        f"{tag}_fig3_gain_computations.html": plots.gain_computations(traces),
        f"{tag}_fig4_time.html": plots.cumulative_time(traces),
        f"{tag}_fig5_scores.html": plots.scores_vs_features(comp.curves, comp.all_features),
        f"{tag}_overlap.html": plots.overlap_heatmap(comp.overlap()),
    }
    for name, fig in figures.items():
        fig.write_html(out_dir / name, include_plotlyjs="cdn", full_html=True)
    return list(figures)


def _speed_table(comp: Comparison) -> list[str]:
    traces = {m: s.trace for m, s in comp.selections.items() if m != "Count cutoff"}
    if "IFS" not in traces:
        return []
    ifs = traces["IFS"]
    lines = ["| method | stages | gains computed per stage (after stage 0) | IFS / method gain "
             "computations | IFS / method time | summed gain G vs IFS | overlap with IFS |",
             "|---|---|---|---|---|---|---|"]
    for m, t in traces.items():
        k = min(len(t), len(ifs))
        comp_m = t["gain_computations"].iloc[1:k].sum()
        comp_i = ifs["gain_computations"].iloc[1:k].sum()
        sec_m = t["seconds"].iloc[k - 1] - t["seconds"].iloc[0]
        sec_i = ifs["seconds"].iloc[k - 1] - ifs["seconds"].iloc[0]
        gain_ratio = t["gain"].iloc[:k].sum() / ifs["gain"].iloc[:k].sum() - 1
        overlap = len(set(t["candidate"].iloc[:k]) & set(ifs["candidate"].iloc[:k])) / k
        lines.append(f"| {m} | {k:,} | {comp_m / max(k - 1, 1):,.1f} | {comp_i / max(comp_m, 1):,.0f}x | "
                     f"{sec_i / max(sec_m, 1e-9):,.0f}x | {100 * gain_ratio:+.2f}% | {overlap:.0%} |")
    return lines


def _scores_table(comp: Comparison) -> list[str]:
    lines = ["| method | features | precision | recall | F1 |", "|---|---|---|---|---|"]
    for _, r in comp.curves.iterrows():
        lines.append(f"| {r['method']} | {int(r['n_features']):,} | {r['precision']:.2f} | "
                     f"{r['recall']:.2f} | {r['f1']:.2f} |")
    a = comp.all_features
    if a:
        lines.append(f"| all features | {a['n_features']:,} | {a['precision']:.2f} | {a['recall']:.2f} | "
                     f"{a['f1']:.2f} |")
    return lines


def run(out_dir: Path, quick: bool, progress) -> Path:
    """Write figures and ``report.md`` to ``out_dir``; quick = Base-NP on 300 sentences, 60
    features (about a minute)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = {"np": QUICK} if quick else FULL_TASKS
    lines = ["# SGC vs IFS (Zhou, Wu, Weng & Schmidt 2003), Figs. 3-5 on CoNLL-2000", "",
             f"Command: `python -m fsengine reproduce sgc-vs-ifs{' --quick' if quick else ''}`", "",
             "Paper: " + PAPER["base_np"] + ".", "", "Paper (speed): " + PAPER["speed"] + ".", "",
             "Set-up: 24 templates (words and POS in a +/-2 window, previous chunk tags, suffixes, "
             "shape, conjunctions), candidate (predicate, class) pairs seen at least twice. Fig. 5: "
             "MAP re-training (Gaussian prior, variance 1) on the first k selected features, greedy "
             "left-to-right decoding with predicted previous tags, conlleval scores on section 20.", ""]
    n_tasks = len(tasks)
    for t_index, (task, cfg) in enumerate(tasks.items()):
        cfg = dict(cfg)
        n_sentences = cfg.pop("n_sentences")

        def sub(fraction, message, t_index=t_index, task=task):
            progress((t_index + fraction) / n_tasks, f"{TASK_LABEL[task]}: {message}")

        sub(0.0, "loading and featurising")
        ds = load_conll2000_maxent(task=task, n_sentences=n_sentences)
        comp = run_comparison(ds, cutoff=2, progress=sub, **cfg)
        files = _write_figures(comp, out_dir, task)
        lines += [f"## {TASK_LABEL[task]}", "",
                  f"{comp.n_train:,} training tokens ({ds.provenance.counts['train_sentences']:,} "
                  f"sentences), {ds.n_features:,} predicates, {comp.n_candidates:,} candidate pairs; "
                  f"budgets: {cfg['budget']:,} features (IFS {cfg['ifs_budget']:,}), look-ahead "
                  f"{cfg['lookahead']}.", "", "### Speed (Figs. 3-4)", "", *_speed_table(comp), "",
                  "### Test scores (Fig. 5)", "", *_scores_table(comp), "",
                  "Figures: " + ", ".join(f"[{f}]({f})" for f in files), ""]
        report = out_dir / "report.md"
        report.write_text("\n".join(lines) + "\n")  # after every task: a long run keeps its results
    progress(1.0, "done")
    return report
