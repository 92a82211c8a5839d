"""The README's results block is generated from the committed results and shows intervals."""

from pathlib import Path

import pytest

from fsengine.reproduce import results, summary
from fsengine.stats import Estimate

ROOT = Path(__file__).resolve().parents[2]


def test_committed_readme_block_matches_the_committed_results():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert summary.replace_block(text, summary.readme_block(ROOT)) == text, \
        "README.md is stale: run python -m fsengine.reproduce.summary"


def test_block_shows_each_judged_row_with_its_interval_and_leaves_recorded_rows_counted(tmp_path):
    rows = [results.versus("F1, greedy", Estimate(92.87, 92.52, 93.21, 0.95, "sentence bootstrap"), 92.9993),
            results.recorded("sentences", 2012.0)]
    results.write(_folder(tmp_path, "sgc-vs-ifs"), "sgc-vs-ifs", False, {}, rows)
    block = summary.readme_block(tmp_path)
    assert "consistent 1, recorded 1" in block
    assert "92.87 [92.52, 93.21]" in block and "95%: sentence bootstrap" in block
    assert "| sentences |" not in block  # recorded rows are counted, not listed
    assert "**`rtm-roc`**: no committed full run" in block


def test_a_record_with_point_threshold_verdicts_is_flagged_and_exact_checks_are_not(tmp_path):
    results.write(_folder(tmp_path, "sgc-vs-ifs"), "sgc-vs-ifs", False, {}, [
        results.Row("F1, greedy", 93.0, 93.01, results.judge(93.01 >= 93.0, "ours >= 93")),
        results.Row("accuracy", 0.76, 0.75, results.judge(abs(0.75 - 0.76) <= 0.02, "|ours - paper| <= 0.02")),
        results.exact("max |p - p_exact|", 6.7e-5, 1.7e-4, "tolerance = O(eps^2)")])
    results.write(_folder(tmp_path, "bia-notmnist"), "bia-notmnist", False, {}, [
        results.exact("max |p - p_exact|", 6.7e-5, 1.7e-4, "tolerance = O(eps^2)"),
        results.versus("accuracy", Estimate(0.93, 0.92, 0.94, 0.95, "Wilson"), 0.95)])
    block = summary.readme_block(tmp_path)
    sgc, bia = block.split("**`sgc-vs-ifs`**")[1], block.split("**`bia-notmnist`**")[1].split("**`")[0]
    assert "predates the interval protocol:* none of its rows carries an interval, and its 3 holds/fails" in sgc
    assert "predates" not in bia  # an interval beside its exact check


def test_replace_block_names_the_missing_markers():
    with pytest.raises(ValueError, match="no results block"):
        summary.replace_block("# a README without the block\n", summary.readme_block(ROOT))


def _folder(root: Path, name: str) -> Path:
    folder = root / "docs" / "results" / name
    folder.mkdir(parents=True)
    return folder
