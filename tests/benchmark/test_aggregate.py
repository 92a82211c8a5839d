"""The aggregate and the run folder: every interval and statistic recomputed from the raw per-fold
table and the tops with independent code (scipy, numpy), the gap rule, and the files."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from fsengine.benchmark import aggregate, record
from fsengine.benchmark.protocol import ALPHA
from fsengine.reproduce import results as results_file
from fsengine.selection_metrics import nogueira_stability
from tests.benchmark.tiny import TINY_SETTINGS


def test_summary_intervals_are_the_corrected_t_over_the_folds(tiny_run):
    table = aggregate.summary(tiny_run)
    row = table.query("dataset == 'glm_tiny' and method == 'l1' and k_label == '5'").iloc[0]
    folds = tiny_run.folds.query("dataset == 'glm_tiny' and method == 'l1' and k_label == '5'")
    x = folds["balanced_accuracy"].to_numpy() if row.metric == "balanced accuracy" else folds["accuracy"].to_numpy()
    J = x.size
    half = st.t.ppf(0.975, J - 1) * x.std(ddof=1) * np.sqrt(1 / J + 1 / (TINY_SETTINGS.folds - 1))
    assert row.value == pytest.approx(x.mean())
    assert (row.low, row.high) == pytest.approx((max(0, x.mean() - half), min(1, x.mean() + half)))
    # Nogueira over the folds' top-5 sets, by its definition (1 - mean unbiased variance / kbar/d (1 - kbar/d))
    sets = [tiny_run.tops[("glm_tiny", "l1", s)][:5] for s in range(J)]
    Z = np.zeros((J, 12))
    for i, s in enumerate(sets):
        Z[i, s] = 1
    var = Z.var(axis=0, ddof=1)
    assert row.stability == pytest.approx(1 - var.mean() / (5 / 12 * (1 - 5 / 12)))
    assert row.stability == pytest.approx(nogueira_stability(sets, 12).value)
    assert row.fit_cpu_median == pytest.approx(np.median(folds["fit_cpu_seconds"]))
    assert (table.query("dataset == 'wine' and method == 'bia'")["value"].isna()).all()
    assert (table.query("dataset == 'wine' and method == 'bia'")["status"].str.startswith("not applicable")).all()


def test_ranking_friedman_and_pairs_from_the_table_with_scipy(tiny_record):
    r = tiny_record.ranking("5")
    assert "bia" in r.methods and "wine" not in r.datasets  # BIA is not applicable on wine: a gap
    assert r.left_out_datasets["wine"].startswith("not applicable: BIA")
    scores = aggregate.score_table(tiny_record.summary, "5").loc[list(r.datasets), list(r.methods)]
    ranks = st.rankdata(-scores.to_numpy(), axis=1)
    np.testing.assert_allclose(r.ranks.to_numpy(), ranks)
    reference = st.friedmanchisquare(*scores.to_numpy().T)
    assert r.friedman.chi2 == pytest.approx(reference.statistic)
    N, k = scores.shape
    q = st.studentized_range.ppf(1 - ALPHA, k, np.inf) / np.sqrt(2)
    assert r.cd == pytest.approx(q * np.sqrt(k * (k + 1) / (6 * N)))
    # every pair on the datasets where both have a value (BIA pairs: 2 datasets, the others 3)
    full = aggregate.score_table(tiny_record.summary, "5")
    for p in r.pairs:
        both = full[[p.a, p.b]].dropna()
        assert p.test.n == len(both)
        if np.round(both[p.a] - both[p.b], 12).ne(0).all() and p.test.method == "exact":
            assert p.test.pvalue == pytest.approx(st.wilcoxon(both[p.a], both[p.b], method="exact").pvalue)


def test_gap_rule_leaves_out_sparse_methods_then_incomplete_datasets():
    rows = []
    for d in ("a", "b", "c", "d"):
        for m, v in (("x", 0.9), ("y", 0.8), ("z", 0.7)):
            ok = not (m == "z" and d != "a") and not (m == "y" and d == "d")
            rows.append({"dataset": d, "method": m, "k_label": "5", "value": v if ok else np.nan,
                         "status": "ok" if ok else "failed: boom"})
    table = pd.DataFrame(rows)
    status = {(r.dataset, r.method): r.status for r in table.itertuples()}
    r = aggregate.ranking(table, "5", status)
    assert r.methods == ("x", "y") and r.datasets == ("a", "b", "c")
    assert "z" in r.left_out_methods and "1 of 4" in r.left_out_methods["z"]
    assert r.left_out_datasets == {"d": "failed: boom"}
    assert [(p.a, p.b, p.test.n) for p in r.pairs] == [("x", "y", 3)]  # z has one result: no pair


def test_similarity_is_the_mean_jaccard_over_folds_then_datasets(tiny_run):
    sim = aggregate.similarity(tiny_run, "2")
    n_splits = TINY_SETTINGS.folds * TINY_SETTINGS.repeats
    values = []
    for slug in ("glm_tiny", "xor_tiny"):  # BIA ran there only
        per = []
        for s in range(n_splits):
            a, b = set(tiny_run.tops[(slug, "anova", s)][:2]), set(tiny_run.tops[(slug, "bia", s)][:2])
            per.append(len(a & b) / len(a | b))
        values.append(np.mean(per))
    assert sim.loc["anova", "bia"] == pytest.approx(np.mean(values)) == pytest.approx(sim.loc["bia", "anova"])
    assert (np.diag(sim) == 1).all()


def test_tradeoff_pareto_front():
    r = aggregate.Ranking("5", ("a", "b", "c"), ("d1", "d2"), {}, {},
                          pd.DataFrame([[1, 2, 3], [1, 3, 2]], index=["d1", "d2"], columns=["a", "b", "c"]),
                          None, None, ())
    table = pd.DataFrame({"dataset": ["d1", "d2"] * 3, "method": ["a", "a", "b", "b", "c", "c"], "k_label": "5",
                          "fit_cpu_median": [4.0, 1.0, 1.0, 1.0, 8.0, 8.0]})
    t = aggregate.tradeoff(table, r).set_index("method")
    assert t.loc["a", "cpu_seconds"] == pytest.approx(2.0)  # geometric mean of 4 and 1
    assert t["pareto"].tolist() == [True, True, False]  # c: worse than a and slower


def test_run_folder_round_trip_and_friedman_from_the_ranks_table_with_scipy_alone(tiny_record, tiny_folder):
    back = record.read(tiny_folder)
    pd.testing.assert_frame_equal(back.summary, tiny_record.summary, check_dtype=False)
    for label in tiny_record.k_labels:
        assert back.ranking(label).friedman.chi2 == pytest.approx(tiny_record.ranking(label).friedman.chi2)
    ranks = pd.read_csv(tiny_folder / "ranks.csv", dtype={"k_label": str})
    friedman = pd.read_csv(tiny_folder / "friedman.csv", dtype={"k_label": str}).set_index("k_label")
    for label, part in ranks.groupby("k_label"):
        wide = part.pivot(index="dataset", columns="method", values="rank")
        chi2 = st.friedmanchisquare(*wide.to_numpy().T).statistic
        N, k = wide.shape
        assert friedman.loc[label, "chi2"] == pytest.approx(chi2)
        assert friedman.loc[label, "critical_difference"] == pytest.approx(
            st.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * N)))
    data = results_file.read(tiny_folder / "results.json")
    assert data["target"] == "benchmark" and data["inputs"]["fingerprint"] == tiny_record.fingerprint
    pairs = [r for r in data["rows"] if " − " in r["quantity"]]
    assert pairs and all(r["verdict"].startswith(("resolved", "not resolved")) and r["interval"] for r in pairs)
    assert all("Holm-adjusted Wilcoxon" in r["verdict"] for r in pairs)
    meta = json.loads((tiny_folder / "run.json").read_text())
    assert meta["settings"]["folds"] == TINY_SETTINGS.folds


def test_the_report_prints_numbers_formatted_from_the_run(tiny_record, tiny_folder):
    text = (tiny_folder / "report.md").read_text()
    for label in tiny_record.k_labels:
        f = tiny_record.ranking(label).friedman
        assert f"F = {f.f:.2f} against F({f.df1}, {f.df2}), p = {f.pvalue:.3g}" in text
        assert f"critical difference is {tiny_record.ranking(label).cd:.2f}" in text
    assert f"`{tiny_record.fingerprint}`" in text and "not applicable: BIA needs exactly two classes" in text
    page = (tiny_folder / "report.html").read_text()
    from plotly.offline import get_plotlyjs

    assert page.count(get_plotlyjs()[:200]) == 1 and "<script src=" not in page  # plotly.js inlined once
    assert 'id="benchmark-cd"' in page and page.count("Plotly.newPlot") == 4 + len(tiny_record.info)


def _exact_p(d) -> float:
    """The exact signed-rank p-value by scipy's enumeration of the sign flips (zeros split)."""
    from tests.test_stats_ranks import permutation_pvalue

    return permutation_pvalue(np.asarray(d, dtype=float))


def test_the_control_family_against_scipy_and_holm_by_hand(tiny_record):
    """Every other method against ANOVA F on the datasets where both have a result, the exact p by
    scipy's enumeration, Holm over the m - 1 comparisons by its definition; the all-pairs family is
    Holm over m (m - 1) / 2 of the same tests."""
    for label in tiny_record.k_labels:
        r = tiny_record.ranking(label)
        assert r.control == "anova" and r.why_no_control == ""
        scores = aggregate.score_table(tiny_record.summary, label)
        others = [m for m in scores.columns if m != "anova"]
        assert [(p.a, p.b) for p in r.control_pairs] == [(m, "anova") for m in others]
        raw = []
        for p in r.control_pairs:
            both = scores[[p.a, "anova"]].dropna()
            assert p.test.n == len(both)
            raw.append(_exact_p(both[p.a] - both["anova"]))
            assert p.test.pvalue == pytest.approx(raw[-1])
            nonzero = int(np.sum(np.round(both[p.a] - both["anova"], 12) != 0))
            assert p.test.floor == pytest.approx(min(1.0, 2 / 2**nonzero))
        m = len(raw)
        order = np.argsort(raw, kind="stable")
        holm = np.minimum(1, np.maximum.accumulate(np.array(raw)[order] * (m - np.arange(m))))
        np.testing.assert_allclose([r.control_pairs[i].holm_pvalue for i in order], holm)
        assert len(r.pairs) == len(scores.columns) * (len(scores.columns) - 1) // 2


def test_what_each_family_could_resolve_is_computed_from_its_tests(tiny_record):
    for label in tiny_record.k_labels:
        table = aggregate.families_table(tiny_record.ranking(label)).set_index("family")
        assert list(table.index) == ["all pairs", "against the control"]
        pairs = tiny_record.pairs(label)
        for family, row in table.iterrows():
            tests = pairs[(pairs["family"] == family) & pairs["pvalue"].notna()]
            m, most = len(tests), int(tests["datasets"].max())
            assert row.comparisons == m and row.threshold == pytest.approx(0.05 / m)
            assert (row.datasets_min, row.datasets_max) == (tests["datasets"].min(), most)
            assert row.floor == pytest.approx(2 / 2**most) and row.possible == (2 / 2**most < 0.05 / m)
            assert row.smallest_floor == pytest.approx(tests["floor"].min())
            assert row.attainable == int((tests["floor"] < 0.05 / m).sum())
            assert row.resolved == int(tests["verdict"].str.startswith("resolved").sum())
            assert row.min_datasets == next(n for n in range(1, 40) if 2 / 2**n < 0.05 / m)
            assert row.smallest_p == pytest.approx(tests["pvalue"].min())


def test_the_control_family_says_why_it_is_empty():
    rows = [{"dataset": d, "method": m, "k_label": "5", "value": v, "status": "ok"}
            for d in ("a", "b", "c") for m, v in (("x", 0.9), ("y", 0.8))]
    table = pd.DataFrame(rows)
    r = aggregate.ranking(table, "5", control="anova")
    assert r.control_pairs == () and r.why_no_control == "the control anova is not among this run's methods"
    assert [f.name for f in aggregate.families(r)] == ["all pairs"]
    r = aggregate.ranking(table, "5", control="x")
    assert [(p.a, p.b) for p in r.control_pairs] == [("y", "x")]


def test_the_report_says_what_each_family_could_resolve_from_the_run(tiny_record, tiny_folder):
    text = (tiny_folder / "report.md").read_text()
    labels = tiny_record.labels
    for label in tiny_record.k_labels:
        for f in tiny_record.families(label):
            r = f.reach
            head = "Every pair" if f.name == "all pairs" else f"Against the control {labels['anova']}"
            sentence = next(line for line in text.splitlines() if line.startswith(f"{head} ({f.comparisons} "))
            assert f"{f.resolved} resolved after Holm's correction" in sentence
            assert f"p < {r.threshold:.2g} (0.05 / {f.comparisons})" in sentence
            assert f"cannot give p below {r.floor:.2g}" in sentence
            if not r.possible:
                assert f"whatever the data: that takes at least {r.min_datasets} datasets" in sentence
    families = pd.read_csv(tiny_folder / "families.csv", dtype={"k_label": str})
    assert set(families["family"]) == {"all pairs", "against the control"}
    data = results_file.read(tiny_folder / "results.json")
    assert data["command"] == tiny_record.command  # the run's own command, as report.md says it
    assert f"Command: `{tiny_record.command}`" in text
    control_rows = [r for r in data["rows"] if r["quantity"].endswith("(against the control)")]
    assert len(control_rows) == (len(tiny_record.methods) - 1) * len(tiny_record.k_labels)
    assert all("against the control p" in r["verdict"] for r in control_rows)


def test_rerender_gives_back_a_runs_own_outputs_from_its_raw_files_byte_for_byte(tiny_folder, tmp_path):
    """``reproduce benchmark``'s rerender: the summary, the aggregate, the report and results.json
    computed again from the raw files alone equal the run's own (text columns left empty by the run,
    such as a method without parameters, stay empty)."""
    from fsengine.reproduce.benchmark import rerender
    from tests.reproduce.quick_expected import assert_rerender_gives_back

    rendered = tuple(sorted(p.name for p in tiny_folder.iterdir() if p.name not in record.RAW_FILES))
    assert {"summary.csv", "ranks.csv", "pairs.csv", "families.csv", "report.md", "results.json"} <= set(rendered)
    assert "variance" in set(record.read(tiny_folder).methods["key"])  # a method with no parameters: ""
    assert_rerender_gives_back(tiny_folder, tmp_path, rerender, rendered)


def test_a_friedman_test_with_every_dataset_ranking_alike_is_reported_not_a_crash(tmp_path):
    """Every dataset ranks the methods alike: Iman-Davenport's F is infinite (chi2_F at its largest,
    N (k - 1)); the run folder is still written, results.json records chi2_F and the p-value, and the
    report says why there is no finite F (results.json refused the infinite F after all the fits)."""
    from fsengine.benchmark.protocol import Settings
    from fsengine.benchmark.report import write
    from fsengine.benchmark.runner import run_benchmark
    from fsengine.benchmark.suite import TINY

    run = run_benchmark(TINY, [("variance", {}), ("anova", {}), ("bia", {"n_steps": 20})],
                        Settings(folds=3, repeats=1, k_grid="2,5,0.5"))
    rec = record.from_run(run, quick=True, command="concordant")
    alike = [label for label in rec.k_labels if not np.isfinite(rec.ranking(label).friedman.f)]
    assert alike, "the fixture lost its concordant k"
    write(rec, tmp_path)
    rows = {r["quantity"]: r for r in results_file.read(tmp_path / "results.json")["rows"]}
    text = (tmp_path / "report.md").read_text()
    for label in alike:
        f = rec.ranking(label).friedman
        assert f.chi2 == pytest.approx(f.n_datasets * (f.n_methods - 1))
        assert rows[f"k={label}: Friedman test, chi2_F"]["ours"] == pytest.approx(f.chi2)
        assert f"k={label}: Friedman test, Iman-Davenport F" not in rows
        assert f"chi2_F = {f.chi2:.2f}, its largest value: every dataset ranks the methods alike" in text


@pytest.mark.record_bytes
@pytest.mark.heavy  # every statistic of the 19 MB record computed again (~15 CPU s): make verify runs it
def test_the_committed_record_is_what_rerender_makes_of_its_raw_files(tmp_path):
    """The committed full run's summary, aggregate tables, reports and results.json come from its raw
    files (docs/results/benchmark), byte for byte on the versions that wrote them."""
    from fsengine.reproduce.benchmark import rerender
    from tests.conftest import PROJECT_ROOT
    from tests.reproduce.quick_expected import assert_rerender_gives_back

    folder = PROJECT_ROOT / "docs" / "results" / "benchmark"
    rendered = tuple(sorted(p.name for p in folder.iterdir() if p.name not in record.RAW_FILES
                            and not p.name.startswith(".")))
    assert {"summary.csv", "ranks.csv", "pairs.csv", "report.md", "report.html", "results.json"} <= set(rendered)
    assert_rerender_gives_back(folder, tmp_path, rerender, rendered)


def test_the_committed_runs_friedman_and_cd_recompute_from_its_ranks_table_with_scipy_alone():
    """Issue 35: docs/results/benchmark/ranks.csv (the complete datasets of each k) gives the
    record's Friedman statistic and Nemenyi's critical difference through scipy alone."""
    from tests.conftest import PROJECT_ROOT

    folder = PROJECT_ROOT / "docs" / "results" / "benchmark"
    ranks = pd.read_csv(folder / "ranks.csv", dtype={"k_label": str})
    friedman = pd.read_csv(folder / "friedman.csv", dtype={"k_label": str}).set_index("k_label")
    assert len(friedman) == 4
    for label, part in ranks.groupby("k_label"):
        wide = part.pivot(index="dataset", columns="method", values="rank").dropna()
        N, k = wide.shape
        assert (N, k) == (friedman.loc[label, "datasets"], friedman.loc[label, "methods"])
        assert friedman.loc[label, "chi2"] == pytest.approx(st.friedmanchisquare(*wide.to_numpy().T).statistic)
        assert friedman.loc[label, "critical_difference"] == pytest.approx(
            st.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * N)))
