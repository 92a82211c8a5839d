"""The site's results page (docs/results.md) is generated from the committed results and shows
intervals; the README links to it."""

from pathlib import Path

from fsengine.reproduce import results, summary
from fsengine.stats import Estimate

ROOT = Path(__file__).resolve().parents[2]


def test_committed_results_page_matches_the_committed_results():
    assert (ROOT / summary.PAGE).read_text(encoding="utf-8") == summary.page(ROOT), \
        "docs/results.md is stale: run python -m fsengine.reproduce.summary"
    assert summary.main(["--root", str(ROOT), "--check"]) == 0


def test_the_readme_links_to_the_results_page():
    assert "(docs/results.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_page_shows_each_judged_row_with_its_interval_and_leaves_recorded_rows_counted(tmp_path):
    rows = [results.versus("F1, greedy", Estimate(92.87, 92.52, 93.21, 0.95, "sentence bootstrap"), 92.9993),
            results.recorded("sentences", 2012.0)]
    results.write(_folder(tmp_path, "sgc-vs-ifs"), "sgc-vs-ifs", False, {}, rows)
    page = summary.page(tmp_path)
    assert page.startswith(summary.GENERATED)
    assert "consistent 1, recorded 1" in page
    assert "92.87 [92.52, 93.21]" in page and "95%: sentence bootstrap" in page
    assert "| sentences |" not in page  # recorded rows are counted, not listed
    assert "[sgc-vs-ifs](records/sgc-vs-ifs/index.md)" in page and "records/sgc-vs-ifs/index\n" in page
    assert "## `rtm-roc`" in page and "No committed full run in `docs/results/rtm-roc` yet" in page
    assert "records/rtm-roc" not in page  # no page to link to


def test_a_record_with_point_threshold_verdicts_is_flagged_and_exact_checks_are_not(tmp_path):
    results.write(_folder(tmp_path, "sgc-vs-ifs"), "sgc-vs-ifs", False, {}, [
        results.Row("F1, greedy", 93.0, 93.01, results.judge(93.01 >= 93.0, "ours >= 93")),
        results.Row("accuracy", 0.76, 0.75, results.judge(abs(0.75 - 0.76) <= 0.02, "|ours - paper| <= 0.02")),
        results.exact("max |p - p_exact|", 6.7e-5, 1.7e-4, "tolerance = O(eps^2)")])
    page = summary.page(tmp_path)
    sgc = page.split("## `sgc-vs-ifs`")[1]
    assert "predates the interval protocol:* none of its rows carries an interval, and its 3 holds/fails" in sgc
    section = "\n".join(summary.target_section("bia-notmnist", {"rows": [
        results.exact("max |p - p_exact|", 6.7e-5, 1.7e-4, "tolerance = O(eps^2)").as_json(),
        results.versus("accuracy", Estimate(0.93, 0.92, 0.94, 0.95, "Wilson"), 0.95).as_json()]}))
    assert "predates" not in section  # an interval beside its exact check


def test_check_reports_a_stale_page(tmp_path, capsys):
    results.write(_folder(tmp_path, "sgc-vs-ifs"), "sgc-vs-ifs", False, {},
                  [results.recorded("sentences", 2012.0)])
    (tmp_path / "docs" / "results.md").write_text("# an old page\n", encoding="utf-8")
    assert summary.main(["--root", str(tmp_path), "--check"]) == 1
    assert "docs/results.md is stale" in capsys.readouterr().err
    assert summary.main(["--root", str(tmp_path)]) == 0
    assert summary.main(["--root", str(tmp_path), "--check"]) == 0


def _folder(root: Path, name: str) -> Path:
    folder = root / "docs" / "results" / name
    folder.mkdir(parents=True)
    return folder


def test_a_record_with_more_judged_rows_than_the_page_folds_lists_the_others_on_its_own_page():
    unresolved = [results.ordering(f"pair {i}", Estimate(0.0, -1.0, 1.0, 0.95, "t"), "A", "B").as_json()
                  for i in range(summary.MAX_FOLDED_ROWS)]
    resolved = results.ordering("pair X", Estimate(0.5, 0.1, 0.9, 0.95, "t"), "A", "B").as_json()
    section = "\n".join(summary.target_section("toolbox", {"rows": [*unresolved, resolved]}))
    assert f"The 1 judged rows of <code>toolbox</code> with a verdict other than not resolved (its " \
           f"{summary.MAX_FOLDED_ROWS} not-resolved rows are on the record's page)" in section
    assert "| pair X |" in section and "| pair 0 |" not in section
    # at the cap, every judged row is folded
    section = "\n".join(summary.target_section("toolbox", {"rows": unresolved}))
    assert f"The {summary.MAX_FOLDED_ROWS} judged rows of <code>toolbox</code></summary>" in section


def test_the_benchmarks_headline_agrees_with_its_aggregate_tables():
    """The headline reads results.json; friedman.csv and families.csv are the run's aggregate tables."""
    import pandas as pd

    from fsengine.reproduce.benchmark import headline

    folder = ROOT / summary.RESULTS_DIR / "benchmark"
    text = headline(folder)
    friedman = pd.read_csv(folder / "friedman.csv", dtype={"k_label": str})
    families = pd.read_csv(folder / "families.csv", dtype={"k_label": str})
    for row in friedman.itertuples():
        assert (f"k = {row.k_label}: Iman-Davenport F = {row.iman_davenport_f:.2f} (p = {row.pvalue:.2g}), "
                f"critical difference {row.critical_difference:.2f}") in text
        pairs, control = (families[(families.k_label == row.k_label) & (families.family == name)].iloc[0]
                          for name in ("all pairs", "against the control"))
        assert (f"resolved after Holm: {pairs.resolved} of {pairs.comparisons} pairs, {control.resolved} of "
                f"{control.comparisons} against the control ANOVA F") in text


def test_a_record_with_superseded_rows_says_so_above_its_rows(monkeypatch):
    from fsengine import reproduce

    assert set(reproduce.SUPERSEDED_ROWS) <= set(reproduce.recorded_target_names())
    monkeypatch.setitem(summary.SUPERSEDED_ROWS, "toolbox", "the X rows came from an older solver")
    section = "\n".join(summary.target_section("toolbox", {"rows": []}))
    assert "*Out of date since this run:* the X rows came from an older solver." in section
    monkeypatch.delitem(summary.SUPERSEDED_ROWS, "toolbox")
    assert "Out of date" not in "\n".join(summary.target_section("toolbox", {"rows": []}))
