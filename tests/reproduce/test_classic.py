"""Reproduce target mdl-curve: registered, writes a report whose numbers match the selectors."""

import re

import numpy as np

from fsengine.data import load_dataset
from fsengine.reproduce import TARGETS, get_target
from fsengine.reproduce import classic as classic_target


def test_mdl_curve_target_writes_report_and_small_figures(tmp_path, monkeypatch):
    assert "mdl-curve" in TARGETS and get_target("mdl-curve") is classic_target.run
    case = classic_target.Case("Digits (test)", "digits", lambda: load_dataset("digits"), 8)
    monkeypatch.setattr(classic_target, "cases", lambda quick: [case])
    messages = []
    report = classic_target.run(tmp_path, True, lambda f, m: messages.append((f, m)))
    text = report.read_text()
    assert messages[-1][0] == 1.0
    result = classic_target.run_case(case, tmp_path)
    best = result["mdl"].best_size_
    assert best == int(np.argmin(result["mdl"].trace_["dl_total"]))
    assert f"|J| = **{best}**" in text
    assert "**Claim 1** (first MDL feature = first MI feature): holds" in text
    dl1, expected = map(float, re.search(r"DL-data with it = (\d+\.\d+) nats vs n \(H\(Y\) - max I\) = (\d+\.\d+)",
                                         text).groups())
    assert dl1 == expected
    for name in ("digits_mdl_curve.html", "digits_mdl_vs_mi.html"):
        html = (tmp_path / name).read_text()
        assert "cdn.plot.ly" in html and len(html) < 60_000
