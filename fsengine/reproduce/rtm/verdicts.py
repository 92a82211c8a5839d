"""The rtm-roc report's verdict lines and the words they are written in: every number formatted
from a row of ``results.json``, every verdict word from an interval."""

from __future__ import annotations

import pandas as pd

from fsengine import stats
from fsengine.formatting import interval_digits, percent
from fsengine.formatting import number as format_number
from fsengine.methods.rtm import study as rtm_study
from fsengine.reproduce import results as results_file
from fsengine.reproduce.rtm.plan import REFIT, SLIDES_DATASET_2
from fsengine.reproduce.rtm.statistics import GAP_FAMILY, ORDER_FAMILY, fold_test, headline_family, holm_adjusted


def row_estimate(row: results_file.Row, digits: int = 4) -> str:
    """``ours [low, high]``, all with ``digits`` decimals or more where a bound needs them
    (:func:`fsengine.formatting.interval_digits`)."""
    digits = interval_digits(row.ours, *row.interval, digits=digits)
    return f"{format_number(row.ours, digits)} [{format_number(row.interval[0], digits)}, " \
           f"{format_number(row.interval[1], digits)}]"


def _resolve(n: int) -> str:
    return f"{n} resolve" + ("s" if n == 1 else "")


def verdict_word(row: results_file.Row) -> str:
    """The verdict in a few words: ``consistent``, ``below``, ``EM > EP`` (resolved) or ``not resolved``."""
    out = results_file.outcome(row.verdict)
    if out == "resolved":
        return results_file.rule(row.verdict).split(" (", 1)[0].replace("RTM ", "")
    return out


def rows_like(rows, prefix: str) -> list[results_file.Row]:
    return [r for r in rows if r.quantity.startswith(prefix)]

def verdict_lines(sections: dict, results: dict) -> list[str]:
    """The report's first lines, computed from the rows: the slides' values, their gaps, the
    ordering pair by pair, the baselines, the sensitivity grid, the refits and the families."""
    rows = [r for part in sections.values() for r in part]
    lines = ["**Verdict (computed from the intervals below; 95% intervals, or the level Holm's step-down procedure "
             "tests them at within a judged family: see Multiplicity).**", ""]
    versus = [r for r in rows if r.quantity.startswith("accuracy, RTM") and r.paper is not None]
    if versus:
        lines.append(f"- **The slides' accuracies** (their Dataset 2, read as {SLIDES_DATASET_2.lower()}; fixed "
                     "prior; corrected resampled t over folds): "
                     + "; ".join(f"{r.quantity.split(', ')[1].removeprefix('RTM ')} {row_estimate(r)} against "
                                 f"{r.paper:.4f}: {results_file.outcome(r.verdict)}" for r in versus) + ". "
                     + CIRCULAR)
    gaps = rows_like(rows, "gap against the slides, ")
    if gaps:
        contradicted = [r for r in gaps if results_file.outcome(r.verdict) == "below"]
        lines.append(f"- **The slides' gaps** (the same reading of their Dataset 2; fold-paired corrected resampled t, "
                     f"the {len(gaps)} judged as one family by Holm's step-down procedure): "
                     + "; ".join(f"{pair_and_where(r)[0]}: the slides {r.paper:.4f}, ours {row_estimate(r)} at "
                                 f"{percent(r.level)}, {gap_words(r)}" for r in gaps)
                     + f". The slides' ordering is contradicted in size on {len(contradicted)} of the {len(gaps)} "
                       "pairs (their gap lies above our whole interval)"
                     + (", holding the gap of " + ", ".join(pair_and_where(r)[0] for r in gaps
                                                             if r not in contradicted)
                        if len(contradicted) < len(gaps) else "") + ".")
    lines += _ordering_bullet([r for r in rows if r.quantity.startswith("ordering, accuracy, ")
                               and REFIT not in r.quantity], "accuracy", "fold-paired corrected resampled t",
                              family=headline_family(results) or None)
    lines += _ordering_bullet([r for r in rows if r.quantity.startswith("ordering, synthetic AUC, ")],
                              "synthetic AUC", "seed-paired t")
    diff = rows_like(rows, "accuracy difference, ")
    if diff:
        worse = [r for r in diff if r.interval[1] < 0]  # RTM minus baseline: the baseline is better
        better = [r for r in diff if r.interval[0] > 0]
        by_corpus = {}
        for r in worse:
            by_corpus.setdefault(r.quantity.rsplit(", ", 1)[1], []).append(r)
        lines.append(f"- **Baselines** ({', '.join(rtm_study.BASELINES)}; same folds): of {len(diff)} RTM-minus-"
                     f"baseline differences, {_resolve(len(better))} for the RTM, {len(worse)} for the baseline, "
                     f"{len(diff) - len(better) - len(worse)} are not resolved{by_chance(diff)}. "
                     + " ".join(f"On {c.lower()}, " + _baseline_summary(rs) + "." for c, rs in by_corpus.items()))
    synth = rows_like(rows, "synthetic AUC difference, ")
    if synth:
        res = [r for r in synth if results_file.outcome(r.verdict) == "resolved"]
        lines.append(f"- **Synthetic AUC, RTM vs MI and the L1 path** (seed-paired t): {len(res)} of {len(synth)} "
                     "differences resolved"
                     + (": " + "; ".join(f"{verdict_word(r)} {row_estimate(r)}" for r in res) if res else "")
                     + by_chance(synth) + ".")
    grid_rows = sections.get("sensitivity", [])
    if grid_rows:
        order_cells = rows_like(grid_rows, "sensitivity, ordering")
        words = [verdict_word(r) for r in order_cells]
        counts = {w: words.count(w) for w in dict.fromkeys(words)}
        acc = rows_like(grid_rows, "sensitivity, accuracy")
        per_method = {}
        for r in acc:
            per_method.setdefault(r.quantity.split(", ")[2].removeprefix("RTM "), []).append(
                results_file.outcome(r.verdict))
        cell_gaps = rows_like(grid_rows, "sensitivity, gap against the slides")
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
            lines.append("- **Sweep cap** (" + rtm_study.CORPORA[key].label.lower() + "): " + rerun_sentence(r)
                         + " " + refit_effect(sections[key]))
    return lines + ["", *_multiplicity_lines(sections), ""]


#: why the "consistent" verdicts on the slides' Dataset 2 cannot confirm the slides
CIRCULAR = (f"These verdicts are circular: the slides' Dataset 2 was read as {SLIDES_DATASET_2.lower()} *because* "
            "the level of its accuracies matched ours, so a match in level is what chose the corpus and cannot also "
            "confirm the slides; only the orderings and gaps below test them.")


def level_span(rows) -> str:
    """The span of the levels of some rows: ``99.72%`` or ``95% to 99.72%``."""
    low, high = percent(min(r.level for r in rows)), percent(max(r.level for r in rows))
    return low if low == high else f"{low} to {high}"


def gap_words(r: results_file.Row) -> str:
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


def by_chance(rows: list[results_file.Row]) -> str:
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
        return "; ".join(f"{verdict_word(r)} ({measure_and_where(r).removeprefix(measure + ', ')}: "
                         f"{row_estimate(r)})" for r in rs)

    if family is None:
        judged, caveat = "", by_chance(order)
    else:
        judged = (f"; the {len(order)} pairs are one family, judged by Holm's step-down procedure at 95% "
                  "family-wise")
        single = [fold_test(df, first, second)[1](stats.LEVEL) for _, df, first, second, _ in family]
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


def rerun_sentence(r) -> str:
    names = "; ".join(f"{row.method}, fold {row.fold} ({'converged' if row.converged else 'not converged'} "
                      f"in {int(row.sweeps):,} of at most {int(row.max_iter):,} sweeps; accuracy "
                      f"{_protocol_accuracy(r.folds, row):.4f} at the cap, {row.accuracy:.4f} refitted)"
                      for row in r.reruns.itertuples())
    return f"{len(r.reruns)} protocol fit(s) stopped at the cap and were refitted: {names}."


def _protocol_accuracy(folds: pd.DataFrame, row) -> float:
    return float(folds[(folds.fold == row.fold) & (folds.method == row.method)].accuracy.iloc[0])


def refit_effect(rows) -> str:
    refit = {r.quantity.removesuffix(f", {REFIT}"): r for r in rows if r.quantity.endswith(REFIT)
             and r.quantity.startswith("ordering")}
    base = {r.quantity: r for r in rows}
    changed = [q for q, r in refit.items() if q in base and verdict_word(base[q]) != verdict_word(r)]
    if not refit:
        return ""
    if not changed:
        return f"No ordering verdict changes with the refits ({len(refit)} checked)."
    return "Ordering verdicts that change with the refits: " + "; ".join(
        f"{q.removeprefix('ordering, ')}: {verdict_word(base[q])} -> {verdict_word(refit[q])}" for q in changed) + "."


def pair_and_where(r: results_file.Row) -> tuple[str, str]:
    """(``A vs B``, where: ``Sentence polarity / fixed prior``) of an ordering row."""
    parts = r.quantity.split(", ")[2:]  # after "ordering" / "sensitivity, ordering" and the measure
    pair = next(p for p in parts if " vs " in p)
    return pair, " / ".join(reversed([p for p in parts if p != pair]))


def measure_and_where(r: results_file.Row) -> str:
    pair, where = pair_and_where(r)
    measure = r.quantity.split(", ")[1]
    return f"{measure}, {where.replace(' / ', ', ')}"
