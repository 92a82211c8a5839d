"""``results.json``: the schema, computed verdicts, and quick runs agreeing with the recorded full runs.

For every reproduce target the committed full ``docs/results/TARGET/results.json`` and a fresh
quick run (the shared session run of ``quick_reproduction``) must agree on everything that does
not depend on the run's size: the row keys, the quantities (with numbers in their names, such as
feature counts, masked), the paper's values and the verdict rules. The quick run may have fewer
rows (fewer corpora or tasks), never others. Reports never print a path of the machine they ran on.
"""

import json
import math
import re

import pytest

from fsengine.reproduce import AWAITING_FULL_RUN, recorded_target_names, results
from fsengine.stats import Estimate
from tests.conftest import PROJECT_ROOT
from tests.reproduce import quick_run_params

RECORDED = PROJECT_ROOT / "docs" / "results"


def _mask(text: str) -> str:
    """A quantity with its sizes masked (a quick run has fewer rows, folds, seeds), but not the
    benchmark's k labels (``k=5``, ``k=5%``): the quick run keeps the full run's k grid, and masking
    them would merge the rows of different k."""
    return re.sub(r"(k=[\d.]+%?)|\d[\d,.]*", lambda m: m.group(1) or "#", text)


def _by_quantity(data: dict) -> dict:
    return {_mask(r["quantity"]): r for r in data["rows"]}


_ORDERING_RULE = re.compile(r"^(.+?) (?:>|vs) (.+?) \((.+) (?:excludes|holds) 0\)$")
#: a pair judged by a Holm-corrected test (``reproduce benchmark``): "A > B (Holm-adjusted ... p < 0.05)"
_HOLM_RULE = re.compile(r"^(.+?) (?:>|vs) (.+?) \((Holm-adjusted .+) p (?:<|>=) ([\d.]+)\)$")


def _rule_key(verdict: str):
    """What must agree between a quick and a full run: the rule, except that an ordering's rule
    names the sign its interval resolved (or the pair it did not), which a smaller run may
    change; for those the pair and the interval's description must agree. An interval's level is
    masked: within a family judged by Holm's step-down procedure it is the step's, which depends on
    the run's p-values."""
    rule = re.sub(r"\d[\d.]*% interval", "#% interval", results.rule(verdict))
    if results.outcome(verdict) not in ("resolved", "not resolved"):
        return rule
    holm = _HOLM_RULE.match(rule)
    if holm:
        return ("holm", frozenset(holm.group(1, 2)), holm.group(3), holm.group(4))
    match = _ORDERING_RULE.match(rule)
    return ("ordering", frozenset(match.group(1, 2)), match.group(3)) if match else rule


@pytest.mark.realdata
@pytest.mark.parametrize("name", quick_run_params(recorded_target_names()))
def test_quick_results_agree_with_the_recorded_full_run(name, quick_reproduction):
    full = results.read(RECORDED / name / results.FILENAME)
    report, _ = quick_reproduction(name)
    quick = results.read(report.parent / results.FILENAME)
    assert (full["target"], quick["target"]) == (name, name)
    assert not full["quick"] and quick["quick"] and full["command"] + " --quick" == quick["command"]
    assert set(full["inputs"]) >= set(quick["inputs"])
    full_rows, quick_rows = _by_quantity(full), _by_quantity(quick)
    assert len(quick_rows) == len(quick["rows"])  # masking does not merge rows
    missing = set(quick_rows) - set(full_rows)
    assert not missing, f"quick rows absent from the recorded full run: {sorted(missing)}"
    for q, row in quick_rows.items():
        rec = full_rows[q]
        assert _rule_key(row["verdict"]) == _rule_key(rec["verdict"]), q
        if "#" not in q:  # a size in the name may change the paper value it is compared with
            assert row["paper"] == rec["paper"], q


@pytest.mark.parametrize("name", recorded_target_names())
def test_recorded_reports_name_no_machine_paths(name):
    folder = RECORDED / name
    if not (folder / "report.md").is_file():
        pytest.fail(f"{name}: no recorded report in docs/results/{name}")
    for path in [folder / "report.md", *folder.glob("*.json")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.])/(work|home|tmp|root|Users)/", text), f"{path.name} prints a machine path"


@pytest.mark.parametrize("name", sorted(AWAITING_FULL_RUN))
def test_a_target_awaiting_its_full_run_has_none_and_the_results_page_says_why(name):
    """A committed record must come off ``AWAITING_FULL_RUN`` (then every test above covers it)."""
    assert not (RECORDED / name / results.FILENAME).exists(), f"remove {name!r} from AWAITING_FULL_RUN"
    page = (PROJECT_ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert AWAITING_FULL_RUN[name] in page


def test_verdicts_are_computed_by_their_rule():
    assert results.exact("max |p - q|", 1e-4, 1.7e-4, "O(eps^2)").verdict == "holds: |ours - 0| <= 0.00017 (O(eps^2))"
    assert results.exact("max |p - q|", 2e-4, 1.7e-4, "O(eps^2)").verdict == "fails: |ours - 0| <= 0.00017 (O(eps^2))"
    assert results.exact("n", 999, 0, "a count", reference=1000).verdict.startswith("fails: |ours - 1000| <= 0 ")
    row = results.recorded("x", 1.5)
    assert results.outcome(row.verdict) == "recorded" and results.rule(row.verdict) == "no rule"
    assert results.markdown([results.recorded("a|b", 1.0)])[2] == "| a\\|b | - | 1 | exact | recorded: no rule |"
    # a number is never rounded across its exact check's tolerance
    near = results.exact("max |p - q|", 1.70004e-4, 1.7e-4, "O(eps^2)")
    assert results.markdown([near])[2] == ("| max \\|p - q\\| | - | 0.000170004 | exact | "
                                           "fails: \\|ours - 0\\| <= 0.00017 (O(eps^2)) |")
    assert results.shown(near.ours, near.verdict) == "0.000170004"
    inside = results.exact("max |p - q|", 1.69996e-4, 1.7e-4, "O(eps^2)")
    assert results.shown(inside.ours, inside.verdict) == "0.00017"  # 0.00017 <= 0.00017 holds too
    assert results.shown(92.998, "recorded: no rule", 2, "f") == "93.00"
    assert results.shown(92.998, "holds: 0 < ours < 100 (interior)", 2, "f") == "93.00"  # not an exact rule


def test_an_ordering_compares_by_its_pair_whichever_way_it_resolved():
    d = Estimate(0.02, 0.01, 0.03, 0.95, "paired t")
    resolved = results.ordering("q", d, "EM", "EP").verdict
    reversed_ = results.ordering("q", Estimate(-0.02, -0.03, -0.01, 0.95, "paired t"), "EM", "EP").verdict
    open_ = results.ordering("q", Estimate(0.0, -0.01, 0.01, 0.95, "paired t"), "EM", "EP").verdict
    assert _rule_key(resolved) == _rule_key(reversed_) == _rule_key(open_)
    assert _rule_key(open_) != _rule_key(results.ordering("q", d, "EM", "Power EP").verdict)
    assert _rule_key("recorded: no rule") == "no rule"
    holm = "resolved: A > B (Holm-adjusted Wilcoxon signed-rank p < 0.05)"
    assert _rule_key(holm) == _rule_key("not resolved: B vs A (Holm-adjusted Wilcoxon signed-rank p >= 0.05)")
    assert _rule_key(holm) != _rule_key("not resolved: A vs C (Holm-adjusted Wilcoxon signed-rank p >= 0.05)")


def test_interval_verdicts_come_from_the_interval():
    f1 = Estimate(93.01, 92.68, 93.33, 0.95, "sentence-level bootstrap")
    assert results.versus("F1", f1, 92.9993).verdict.startswith("consistent: the paper's value 92.9993")
    assert results.versus("F1", f1, 93.5).verdict.startswith("below:")
    assert results.versus("F1", f1, 92.0, what="the target").verdict.startswith("above: the target 92")
    row = results.ordering("EM - EP", Estimate(0.02, 0.01, 0.03, 0.95, "paired t"), "EM", "EP")
    assert row.verdict.startswith("resolved: EM > EP") and row.interval == [0.01, 0.03]
    assert results.ordering("d", Estimate(-0.02, -0.03, -0.01, 0.95, "t"), "A", "B").verdict.startswith(
        "resolved: B > A")
    assert results.ordering("d", Estimate(0.0, -0.01, 0.01, 0.95, "t"), "A", "B").verdict.startswith("not resolved")
    assert results.exact("error at Lambda*", 6.3e-3, 1e-2, "O(eps^2)").verdict.startswith("holds: |ours - 0| <= 0.01")
    line = results.markdown([results.versus("F1", f1, 92.9993)])[2]
    assert "| 93.01 [92.68, 93.33] | 95%: sentence-level bootstrap | consistent" in line
    assert results.with_interval(results.recorded("n", 12422)) == "12,422"


def _row(**change) -> dict:
    row = {"quantity": "q", "paper": None, "ours": 1.0, "interval": None, "level": None, "method": None,
           "verdict": "recorded: x"}
    row.update(change)
    return row


@pytest.mark.parametrize(("row", "message"), [
    (_row(ours=math.nan), "finite number"),
    (_row(paper="93"), "number or null"),
    (_row(verdict="matches the paper"), "must read"),
    ({"quantity": "q", "ours": 1.0, "paper": None, "verdict": "recorded: x"}, "keys"),
    (_row(verdict="consistent: x"), "judged from an interval"),
    (_row(interval=[2.0, 1.0], level=0.95, method="m"), "low <= high"),
    (_row(interval=[0.0, 2.0], level=95, method="m"), "level"),
    (_row(interval=[0.0, 2.0], level=0.95, method=""), "names its method"),
    (_row(level=0.95), "go with an interval"),
])
def test_schema_rejects_bad_rows(tmp_path, row, message):
    data = {"target": "t", "command": "c", "quick": False, "inputs": {}, "rows": [row]}
    (tmp_path / "results.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message):
        results.read(tmp_path / "results.json")


def test_write_round_trips_and_rejects_duplicate_quantities(tmp_path):
    rows = [results.exact("F1", 93.2, 0.5, "a tolerance", paper=93.0, reference=93.0), results.recorded("n", 3)]
    data = results.read(results.write(tmp_path, "sgc-vs-ifs", True, {"k": 1}, rows))
    assert data["command"] == "python -m fsengine reproduce sgc-vs-ifs --quick"
    assert [r["verdict"] for r in data["rows"]] == ["holds: |ours - 93| <= 0.5 (a tolerance)", "recorded: no rule"]
    with pytest.raises(ValueError, match="appears twice"):
        results.write(tmp_path, "t", True, {}, rows + rows[:1])


def test_a_records_figure_is_written_the_same_way_twice(tmp_path):
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    (tmp_path / "a").mkdir()
    results.write_figure(fig, tmp_path / "fig.html")
    results.write_figure(fig, tmp_path / "a" / "fig.html")
    first = (tmp_path / "fig.html").read_bytes()
    assert first == (tmp_path / "a" / "fig.html").read_bytes() and b'id="fig"' in first
