"""The parts of the sgc-vs-ifs report rendered from ``results.json`` and the raw counts: the verdict
line, the notes and the headline table. A run writes its report this way after every task, and
:func:`rerender` writes those parts again with this code's words (the record keeps too little to
render the selection traces and the development tables again: they are kept as the run wrote them)."""

from __future__ import annotations

import time
from pathlib import Path

from fsengine import stats
from fsengine.csv_export import read_csv
from fsengine.reproduce import results as results_file
from fsengine.reproduce.gain.data import model_key, read_counts
from fsengine.reproduce.gain.plan import DECODER_LABEL, FULL_DECODER_POINTS, QUICK_DECODER_POINTS, model_name
from fsengine.reproduce.gain.report import (
    DURATION,
    HEADLINE_MARK,
    NOTE_MARKS,
    NOTES_PLACE,
    VERDICT_PLACE,
    chosen_after_test_sentence,
    headline_lines,
    notes,
    verdict_line,
)


def write_report(out_dir: Path, quick: bool, lines: list[str], rows, inputs, names, splits, started: tuple) -> None:
    """``results.json`` and ``report.md`` from what has run so far: the run's ``lines`` with the verdict
    line and the notes in their places, then the headline table and the run's duration."""
    results_file.write(out_dir, "sgc-vs-ifs", quick, inputs, rows)
    minutes, cpu_minutes = (time.perf_counter() - started[0]) / 60, (time.process_time() - started[1]) / 60
    text = []
    for line in lines:
        text += ([verdict_line(rows, names, splits)] if line == VERDICT_PLACE else
                 notes(rows) if line == NOTES_PLACE else [line])
    text += headline_lines(rows, inputs, minutes, cpu_minutes)
    (out_dir / "report.md").write_text("\n".join(text) + "\n")


def rerender(out_dir: Path) -> Path:
    """Rewrite the parts of a run's ``report.md`` that come from its ``results.json`` and raw counts
    with this code's words: the verdict line, the multiplicity and record-history notes and the
    headline table. The sections computed from what the record does not keep (the selection traces,
    the prior-variance and development tables) are kept as the run wrote them. A run's own report
    comes back byte for byte (tested)."""
    out_dir = Path(out_dir)
    data = results_file.read(out_dir / results_file.FILENAME)
    rows, inputs = [results_file.Row(**r) for r in data["rows"]], data["inputs"]
    names, splits = {}, []
    np_task = inputs["tasks"].get("np", {})
    if "decoded_model_chosen" in np_task:
        counts = read_csv(out_dir / "np_sentence_counts.csv")
        points = QUICK_DECODER_POINTS if data["quick"] else FULL_DECODER_POINTS["np"]
        dec = {(m, k, d): read_counts(counts, model_key(m, k, d, np_task["prior_variance"]))
               for m, k in points for d in DECODER_LABEL}
        best = max(dec, key=lambda key: stats.f1_from_counts(dec[key].sum(axis=0)))
        names["Base-NP"] = {"best": f"{model_name(*best)}, the best of {len(dec)} decoded models",
                            "chosen": np_task["decoded_model_chosen"]}
        splits = read_csv(out_dir / "np_development_splits.csv").to_dict("records")
    text = (out_dir / "report.md").read_text().split("\n")
    head = text[:text.index(HEADLINE_MARK)]
    kept = [line for i, line in enumerate(head) if not line.startswith(NOTE_MARKS)
            and not (line == "" and i > 0 and head[i - 1].startswith(NOTE_MARKS))]
    out = []
    for line in kept:
        out += ([verdict_line(rows, names, splits)] if line.startswith("**Verdict (computed") else [line])
        if line == chosen_after_test_sentence():
            out += ["", *notes(rows)[:-1]]
    took = DURATION.search("\n".join(text))
    out += headline_lines(rows, inputs, float(took.group(1)), float(took.group(2)))
    (out_dir / "report.md").write_text("\n".join(out) + "\n")
    return out_dir / "report.md"
