"""``reproduce bayes-factor --quick`` (first 150 CoNLL-2000 Base-NP sentences, S = 10, caps of 100
pairs): our computed stops and accuracies, and the page's default = the recorded recommendation.

Bounds from the quick run's recorded values (2026-11-25): both multiplicity-prior runs stop by
themselves at 32 pairs (held-out 95.16 % Laplace sign, 95.24 % printed sign); both uniform-prior
runs reach the 100-pair cap without stopping (96.77 % / 96.70 %).
"""

import pandas as pd
import pytest

from fsengine.methods.bayes_factor.study import DEFAULT_MODEL_PRIOR, DEFAULT_SIGN
from fsengine.reproduce import results
from fsengine.reproduce.bayes_factor import CONFIGS, config_label, recommend
from tests.conftest import PROJECT_ROOT


def _rows(path):
    return {r["quantity"]: r for r in results.read(path)["rows"]}


def test_bayes_factor_quick_numbers(quick_reproduction):
    report, seen = quick_reproduction("bayes-factor")
    rows = _rows(report.parent / "results.json")
    for sign, acc in (("Laplace sign", 0.9516), ("printed sign", 0.9524)):
        name = f"{sign}, multiplicity prior"
        assert rows[f"stopped by itself, {name}"]["verdict"].startswith("holds")
        assert rows[f"pairs at the stop, {name}"]["ours"] == pytest.approx(32, abs=10)
        assert rows[f"held-out accuracy at the stop, {name}"]["ours"] == pytest.approx(acc, abs=0.005)
    for sign, acc in (("Laplace sign", 0.9677), ("printed sign", 0.9670)):
        name = f"{sign}, uniform prior"
        assert rows[f"stopped by itself, {name}"]["verdict"].startswith("fails")
        assert rows[f"pairs at the stop, {name}"]["ours"] == 100  # the cap
        assert rows[f"held-out accuracy at the stop, {name}"]["ours"] == pytest.approx(acc, abs=0.005)
    assert sum(rows[f"recommended (page default), {config_label(*c)}"]["ours"] for c in CONFIGS) == 1
    rounds = pd.read_csv(report.parent / "rounds.csv")
    assert set(zip(rounds.sign, rounds.model_prior)) == set(CONFIGS)
    gain = pd.read_csv(report.parent / "gain_selectors.csv")
    assert {"SGC", "IFS"} == set(gain.method) and 32 in set(gain.n_features)
    assert "Recommendation (computed, rule below)" in report.read_text() and seen[-1] == 1.0


def test_page_default_is_the_recorded_recommendation():
    rows = _rows(PROJECT_ROOT / "docs" / "results" / "bayes-factor" / "results.json")
    chosen = [c for c in CONFIGS if rows[f"recommended (page default), {config_label(*c)}"]["ours"] == 1]
    assert chosen == [(DEFAULT_SIGN, DEFAULT_MODEL_PRIOR)]


def test_recommendation_rule():
    s = {("laplace", "multiplicity"): dict(stopped=True, heldout_at_stop=0.9500, pairs_at_stop=40),
         ("printed", "multiplicity"): dict(stopped=True, heldout_at_stop=0.9504, pairs_at_stop=30),
         ("printed", "uniform"): dict(stopped=False, heldout_at_stop=0.99, pairs_at_stop=100),
         ("laplace", "uniform"): dict(stopped=True, heldout_at_stop=0.9400, pairs_at_stop=90)}
    assert recommend(s) == ("printed", "multiplicity")  # tie within 0.05 points: fewer pairs
    s[("laplace", "uniform")]["heldout_at_stop"] = 0.9600
    assert recommend(s) == ("laplace", "uniform")  # better held-out at the stop; the cap never counts
