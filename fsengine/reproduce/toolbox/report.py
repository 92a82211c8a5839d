"""The toolbox record's prose: ``report.md``, every number formatted from the rendered tables and
every verdict word from an interval (:func:`~fsengine.reproduce.toolbox.statistics.verdict_word`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsengine.formatting import estimate, percent
from fsengine.methods.registry import METHODS
from fsengine.reproduce import results as results_file
from fsengine.reproduce.toolbox.plan import (
    BENCHMARK_CHANGES,
    CASES,
    CHOICES_AFTER_SEEING,
    REFERENCE,
    REFERENCE_WHY,
    SEEDED,
    SKIPS,
    Plan,
    benchmark_params,
    is_baseline,
    is_source,
    is_toolbox,
    title_of,
)
from fsengine.reproduce.toolbox.statistics import verdict_word
from fsengine.stats import Estimate


def _signed(value: float, low: float, high: float) -> str:
    """A signed difference and its interval, with the decimals its bounds need."""
    return estimate(value, low, high, signed=True, widen=True)


def verdict_groups(table: pd.DataFrame, value: str = "difference") -> dict[str, list[tuple]]:
    """Methods better / worse / not resolved against the reference (from the intervals), each with
    its key and its difference."""
    out = {"better": [], "worse": [], "not resolved": []}
    for _, r in table.iterrows():
        if not np.isfinite(r.get(value, np.nan)):
            continue
        out[verdict_word(r)].append((r["method"], r["key"], r[value], r[f"{value}_low"], r[f"{value}_high"]))
    return out


def _names(items, with_values: bool = True) -> str:
    if not items:
        return "none"
    if with_values:
        return ", ".join(f"{m} {_signed(v, lo, hi)}" for m, _, v, lo, hi in items)
    return ", ".join(m for m, *_ in items)


def _side(items, test) -> list:
    return [i for i in items if test(i[1])]


def _levels(levels: pd.Series) -> str:
    """The span of Holm's step levels of some rows: ``99.957%`` or ``99.957% to 99.96%``."""
    levels = levels.dropna()
    if not len(levels):
        return "-"
    low, high = percent(float(levels.min())), percent(float(levels.max()))
    return low if low == high else f"{low} to {high}"


def _word_of(base: dict) -> str:
    for word in ("better", "worse", "not resolved"):
        if base[word]:
            m, _, v, lo, hi = base[word][0]
            return f"{word} {_signed(v, lo, hi)}"
    return "-"


def headline_lines(summaries: dict, auc: pd.DataFrame | None, plan: Plan, family_size: int) -> list[str]:
    """The report's first section: for each data set and k, which of the five sources' methods and
    which toolbox methods the intervals resolve from the reference, and which way (computed)."""
    ref_label = METHODS[REFERENCE].label
    lines = [f"**Verdicts (computed from the intervals below; reference {ref_label}).** A method is "
             f"*better* or *worse* than {ref_label} where the interval of its paired difference excludes 0, else "
             f"*not resolved*. The {family_size} differences below (every data set, both k and the AUC) are one "
             "family, judged by Holm's step-down procedure at 95% family-wise: each interval is at the level "
             "Holm tests it at. Differences are in held-out accuracy (AUC for the planted truth), method minus "
             "reference.", ""]
    wins_source, wins_toolbox, losses_source = [], [], []
    for slug, table in summaries.items():
        title = title_of(slug)
        for k in plan.ks:
            at = table[table["k"] == k]
            groups = verdict_groups(at)
            src = {w: _side(groups[w], is_source) for w in groups}
            box = {w: _side(groups[w], is_toolbox) for w in groups}
            base = {w: _side(groups[w], is_baseline) for w in groups}
            lines.append(f"- **{title}, top {k}** ({_levels(at['difference_level'])} intervals): five sources' "
                         f"methods better: {_names(src['better'])}; worse: {_names(src['worse'])}; not resolved: "
                         f"{_names(src['not resolved'], False)}. Toolbox methods better: {_names(box['better'])}; "
                         f"worse: {_names(box['worse'])}; not resolved: {_names(box['not resolved'], False)}. "
                         f"Variance baseline: {_word_of(base)}.")
            wins_source += [f"{m} ({title}, top {k})" for m, *_ in src["better"]]
            wins_toolbox += [f"{m} ({title}, top {k})" for m, *_ in box["better"]]
            losses_source += [f"{m} ({title}, top {k})" for m, *_ in src["worse"]]
    if auc is not None:
        groups = verdict_groups(auc)
        src = {w: _side(groups[w], is_source) for w in groups}
        box = {w: _side(groups[w], is_toolbox) for w in groups}
        title = title_of(SEEDED)
        lines.append(f"- **{title}, AUC against the planted truth** ({_levels(auc['difference_level'])} intervals "
                     f"over {len(plan.glm_seeds)} seeds): five sources' methods better: {_names(src['better'])}; "
                     f"worse: {_names(src['worse'])}; not resolved: {_names(src['not resolved'], False)}. Toolbox "
                     f"methods better: {_names(box['better'])}; worse: {_names(box['worse'])}; not resolved: "
                     f"{_names(box['not resolved'], False)}.")
        wins_source += [f"{m} ({title}, AUC)" for m, *_ in src["better"]]
        wins_toolbox += [f"{m} ({title}, AUC)" for m, *_ in box["better"]]
        losses_source += [f"{m} ({title}, AUC)" for m, *_ in src["worse"]]
    lines += ["", "In short:", "",
              f"- **Where the five sources' methods win** (resolved better than {ref_label}): "
              + ("; ".join(wins_source) if wins_source else "nowhere") + ".",
              f"- **Where a toolbox method wins** (resolved better than {ref_label}): "
              + ("; ".join(wins_toolbox) if wins_toolbox else "nowhere") + ".",
              f"- **Where {ref_label} beats a source's method** (the source's method resolved worse): "
              + ("; ".join(losses_source) if losses_source else "nowhere") + ".",
              "- Everything else is not resolved at these sample sizes: the data cannot tell those methods "
              f"apart from {ref_label}.", ""]
    return lines


def multiplicity_lines(family_size: int, summaries: dict, auc: pd.DataFrame | None) -> list[str]:
    """Which families the record holds, which one is judged and how, and what is left at 95% each."""
    parts = [f"{title_of(slug)} {int(table['difference'].notna().sum())}" for slug, table in summaries.items()]
    if auc is not None:
        parts.append(f"AUC {int(auc['difference'].notna().sum())}")
    n_acc = sum(len(t) for t in summaries.values())
    return [f"**Multiplicity.** One family is judged: the {family_size} differences from "
            f"{METHODS[REFERENCE].label} ({', '.join(parts)}), by Holm's step-down procedure at 95% family-wise "
            "(before issue 31: Bonferroni within each data set and k, seven families, which did not say so). "
            f"Recorded without a verdict, each interval at 95% on its own: the {n_acc} held-out accuracies, the "
            "stabilities and the AUCs; the CPU seconds carry their interquartile range (a 50% range). The "
            "engine's difference curves at every k (`*_differences.csv`, `*_differences.html`) are Bonferroni "
            "over the methods at each k and are not judged here.", ""]


def method_table(table: pd.DataFrame, runtimes: dict[str, Estimate], plan: Plan) -> list[str]:
    """Markdown: per method, accuracy and difference at both k, stability at both k, CPU seconds."""
    small, large = plan.ks
    head = (f"| method | family | accuracy, top {small} | vs reference | accuracy, top {large} | vs reference | "
            f"stability, top {small} | stability, top {large} | CPU s per fit, median [IQR] |")
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for label in dict.fromkeys(table["method"]):
        a = table[(table["method"] == label) & (table["k"] == small)].iloc[0]
        b = table[(table["method"] == label) & (table["k"] == large)].iloc[0]

        def diff(r):
            word = verdict_word(r)
            if word == "reference":
                return word
            return f"{_signed(r['difference'], r['difference_low'], r['difference_high'])} {word}"

        rt = runtimes.get(label)
        lines.append(f"| {label} | {a['family']} | {_fixed(a, 'accuracy')} | {diff(a)} | {_fixed(b, 'accuracy')} | "
                     f"{diff(b)} | {_fixed(a, 'kuncheva', 2)} | {_fixed(b, 'kuncheva', 2)} | "
                     + (f"{rt.value:.3g} [{rt.low:.3g}, {rt.high:.3g}]" if rt else "-") + " |")
    return lines


def _fixed(r, prefix: str, digits: int = 3) -> str:
    return estimate(float(r[prefix]), float(r[f"{prefix}_low"]), float(r[f"{prefix}_high"]), digits, widen=False)


def auc_table(auc: pd.DataFrame) -> list[str]:
    lines = ["| method | family | AUC [95% t over seeds] | AUC − reference [t, Holm's level] | verdict |",
             "|---|---|---|---|---|"]
    for _, r in auc.iterrows():
        word = verdict_word(r)
        d = "-" if word == "reference" else _signed(r["difference"], r["difference_low"], r["difference_high"])
        lines.append(f"| {r['method']} | {r['family']} | {_fixed(r, 'auc')} | {d} | {word} |")
    return lines


def report(facts: dict, plan: Plan, summaries: dict, auc: pd.DataFrame | None, runtimes: dict,
           all_features: dict, rows: list, family_size: int, n_test: dict[str, int], note: str = "") -> str:
    """The whole ``report.md`` (``note``: a paragraph under the verdicts, e.g. what a re-rendering changed)."""
    quick, seconds, inputs = facts["quick"], facts["seconds"], facts["inputs"]
    shapes, failures = inputs["shapes"], inputs["failures"]
    ref_label = METHODS[REFERENCE].label
    ran = {key for keys in inputs["methods"].values() for key in keys}  # the record's methods, not today's registry
    lines = [
        "# toolbox: the five sources' methods against the toolbox practitioners already use",
        "",
        f"Command: `python -m fsengine reproduce toolbox{' --quick' if quick else ''}`"
        + (" (quick: CI-sized, not the benchmark)" if quick else "")
        + f". This run took {seconds['wall'] / 60:.1f} minutes of wall-clock time "
          f"({seconds['cpu_main_process'] / 60:.1f} CPU minutes in the main process).",
        "",
        *headline_lines(summaries, auc, plan, family_size),
        *multiplicity_lines(family_size, summaries, auc),
        *([note, ""] if note else []),
        "## Set-up (fixed before any run)",
        "",
        f"- **Reference.** {REFERENCE_WHY}",
        f"- **k.** Every number is reported at k = {plan.ks[0]} and at k = {plan.ks[1]}, the largest k of the "
        f"engine's accuracy grid (max_k); the full curves are in the figures and "
        "`*_accuracy.csv`. No k and no method is picked on held-out rows.",
        f"- **Split and classifier** (the comparison runner, `fsengine/compare/runner.py`): a stratified "
        f"{1 - plan.test_size:.0%}/{plan.test_size:.0%} train/held-out split (seed {plan.split_seed}); every "
        "method is fitted on the training part only; a standardised logistic regression is trained on each "
        "method's top k and scored on the held-out rows.",
        f"- **Intervals.** Accuracy: 95% Wilson intervals over the held-out rows ({n_test['notmnist_bd']:,} "
        f"on notMNIST, {n_test['sentence_polarity']:,} on sentence polarity; the training split is fixed). "
        f"Paired difference from {ref_label} on the held-out rows: the exact McNemar test on the rows where only "
        "one of the two classifiers is right, with its interval (Clopper-Pearson on those rows, mapped to the "
        "difference of accuracies; exact at any level, no resampling). Planted GLM: "
        f"{len(plan.glm_seeds)} seeds of the generator, each with its own comparison; the accuracy, AUC and "
        "stability are means over the seeds with t intervals, the differences seed-paired t tests and intervals "
        "(the seeds are independent data sets). Every difference's interval is at the level Holm's step-down "
        f"procedure tests it at within the family of all {family_size} (**Multiplicity** above). Stability: "
        f"Kuncheva's index of the top-k sets over {plan.n_bootstrap} stratified bootstrap refits of the training "
        "part, with a 95% jackknife interval over the resamples. Runtime: CPU seconds (`time.process_time`, BLAS "
        f"on one thread) of each bootstrap fit, median and interquartile range ({plan.n_bootstrap} fits per data "
        f"set; {plan.n_bootstrap * len(plan.glm_seeds)} pooled over the GLM's seeds).",
        f"- **notMNIST B vs D**: {plan.notmnist_per_class} images per letter (seed 0), "
        f"{shapes['notmnist_bd'][1]} pixels in [0, 1].",
        f"- **Planted GLM**: logistic, n = {plan.glm['n']}, p = {plan.glm['p']}, {plan.glm['k']} relevant "
        f"features (coefficients ±U(0.5, 1) x signal {plan.glm['signal']:g}), AR(1) correlation "
        f"rho = {plan.glm['rho']:g} between neighbouring features; seeds "
        + ", ".join(map(str, plan.glm_seeds)) + ". AUC: each method's scores (on the training part) against "
        "the planted relevant features.",
        "- **Sentence polarity**: "
        + (f"{shapes['sentence_polarity'][0]:,} snippets (stratified, seed 0)" if plan.polarity_docs else
           f"all {shapes['sentence_polarity'][0]:,} snippets")
        + f", binary word presence of the {shapes['sentence_polarity'][1]:,} words in at least "
          f"{plan.polarity_min_df} snippets (the catalogue's `sentence_polarity`; the vocabulary is counted on all "
          "snippets, without labels).",
        "- **Method parameters** are the registry's defaults, except (benchmark settings, with the reason):",
        *[f"  - `{key}`: {BENCHMARK_CHANGES[key]} (here: "
          + ", ".join(f"{n}={v}" for n, v in benchmark_params(key, plan).items()) + ")"
          for key in BENCHMARK_CHANGES if key in ran],
        *(["  - quick run only, to keep it CI-sized: "
           + "; ".join(f"`{key}` " + ", ".join(f"{n}={v}" for n, v in values.items())
                       for key, values in plan.overrides.items())] if plan.overrides else []),
        "- **Methods that need other data** are adapted by `fsengine/methods/adapt.py` as everywhere in "
        "fsengine, with a note: MI, MDL, the count cutoff and the RTM binarise features (pixels at 0.5, "
        "the GLM's Gaussian features at their median); chi² rescales features with negative values to "
        "[0, 1]; BIA leaves out constant pixels. IFS, SGC and the Bayes factor run on the real values as "
        "maxent predicates f(x, y) = x_j [y = c], as their selectors accept.",
        "- **Skipped** (not run, reason fixed before the run): "
        + ("; ".join(f"{METHODS[key].label} on {title_of(slug)}: {reason}"
                     for (key, slug), reason in SKIPS.items()) or "none") + ".",
        "- **Failed in the engine** (the error as the engine reports it): "
        + ("; ".join(f"{label} on {title_of(slug)}: {msg}"
                     for slug, fails in failures.items() for label, msg in fails.items()) or "none") + ".",
        "",
        "Choices made after seeing results of this benchmark:",
        "",
        *[f"- {c}" for c in CHOICES_AFTER_SEEING],
        "",
    ]
    for slug, table in summaries.items():
        e = all_features[slug]
        lines += [f"## {title_of(slug)}", "",
                  f"Held-out accuracy of all {shapes[slug][1]:,} features: "
                  f"{estimate(e.value, e.low, e.high, widen=False)} ({e.method}).", ""]
        if slug == SEEDED:
            lines += ["Means over the seeds with 95% t intervals; differences from the reference seed-paired t "
                      f"intervals at Holm's levels ({_levels(table['difference_level'])}).", ""]
        else:
            m = int(table["difference"].notna().sum() // len(plan.ks))
            lines += [f"{facts['interval_notes'][slug]} Differences: exact paired intervals (McNemar) at Holm's "
                      f"levels ({_levels(table['difference_level'])}; {m} methods against the reference at each "
                      "k).", ""]
        lines += method_table(table, runtimes[slug], plan) + [""]
        if slug == SEEDED and auc is not None:
            lines += ["AUC of each method's scores against the planted relevant features:", "", *auc_table(auc), ""]
        notes = facts["convergence_notes"].get(slug, [])
        if notes:
            lines += ["Convergence warnings during the fits (first of "
                      f"{len(notes)} distinct):", "", *[f"- {n[:300]}" for n in notes[:6]], ""]
    lines += [
        "## Files",
        "",
        "- [differences.html](differences.html): every method's paired difference from the reference at both k "
        "on every data set.",
        *[f"- {c.title}: [{c.slug}_accuracy.html]({c.slug}_accuracy.html) (held-out accuracy "
          "against k with its intervals; numbers in `_accuracy.csv`), "
          + (f"[{c.slug}_auc.html]({c.slug}_auc.html) (AUC per seed)" if c.slug == SEEDED else
             f"[{c.slug}_differences.html]({c.slug}_differences.html) (paired differences from the reference at "
             f"every k; `_differences.csv`), [{c.slug}_stability.html]({c.slug}_stability.html) (stability at "
             "the small k)") for c in CASES if c.slug in summaries],
        "- Raw counts: `<data>_held_out_rows.csv` (per held-out row, 1 where the classifier on the method's top "
        "k was right: the Wilson intervals and the exact paired differences are recomputed from it), "
        "`<data>_bootstrap_top.csv` (the ranked top features of every bootstrap fit: Kuncheva and its "
        "jackknife), `<data>_stability.csv` (the engine's stability at both k), `<data>_fits.csv` (CPU and wall "
        "seconds of every fit), `synthetic_glm_per_seed.csv` (per seed and method: AUC, correct held-out rows, "
        "stability), `run.json` (the run's durations, shapes, notes and the all-features accuracy); the report, "
        "`results.json` and `<data>_summary.csv` (the tables above) are rendered from these "
        "(`fsengine.reproduce.toolbox.rerender`).",
        "",
        "## Headline numbers (`results.json`)",
        "",
        *results_file.markdown(rows),
    ]
    return "\n".join(lines) + "\n"
