"""The headline of the toolbox record on the results page (``docs/results.md``), formatted from its
``results.json``."""

from __future__ import annotations

import textwrap

from fsengine.formatting import estimate
from fsengine.methods.registry import METHODS
from fsengine.reproduce import results as results_file
from fsengine.reproduce.toolbox.plan import CASES, REFERENCE, SEEDED, title_of


def headline(data: dict, width: int = 100) -> str:
    """The record's headline, formatted from a ``results.json`` of this target: a
    lead sentence, then one bullet per data set at the small k (the reference's accuracy and every
    method resolved from it, with its difference) and one for the AUC against the planted truth.
    Lines are wrapped at ``width``; :mod:`fsengine.reproduce.summary` puts it on the results page."""
    ref = METHODS[REFERENCE].label
    rows = {r["quantity"]: r for r in data["rows"]}
    small = data["inputs"]["plan"]["ks"][0]
    judged = [r for r in data["rows"] if results_file.outcome(r["verdict"]) in ("resolved", "not resolved")]

    def shown(r, signed=False):
        return estimate(r["ours"], *r["interval"], signed=signed, widen=signed)

    def resolved(prefix: str, suffix: str) -> str:
        better, worse = [], []
        for q, r in rows.items():
            if q.startswith(prefix) and q.endswith(suffix) and results_file.outcome(r["verdict"]) == "resolved":
                method = q[len(prefix):len(q) - len(suffix)]
                (better if r["ours"] > 0 else worse).append(f"{method} {shown(r, True)}")
        return f"better: {', '.join(better) or 'none'}; worse: {', '.join(worse) or 'none'}"

    bullets = []
    for case in CASES:
        where = f"at the small k (k = {small}), "
        acc = rows.get(f"held-out accuracy of the top k {where}{ref}, {case.title}")
        if acc is None:
            continue
        bullets.append(f"{case.title}, held-out accuracy: {ref} {shown(acc)}; "
                       + resolved(f"accuracy difference from {ref} {where}", f", {case.title}") + ".")
    glm = title_of(SEEDED)
    auc = rows.get(f"AUC against the planted truth, {ref}, {glm}")
    if auc is not None:
        seeds = len(data["inputs"]["plan"]["glm_seeds"])
        bullets.append(f"{glm}, AUC against the planted truth (over {seeds} generator seeds): {ref} {shown(auc)}; "
                       + resolved(f"AUC difference from {ref}, ", f", {glm}") + ".")
    lead = (f"Committed full run, top {small} features (all numbers from `docs/results/toolbox/results.json`): "
            f"each method's paired difference from {ref}, resolved only where its interval excludes 0; the "
            f"{len(judged)} differences (every data set, both k and the AUC) are one family, judged by Holm's "
            "step-down procedure at 95% family-wise. Every other method is not resolved.")
    lines = [*textwrap.wrap(lead, width), ""]
    for b in bullets:
        lines += textwrap.wrap(b, width, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(lines)

