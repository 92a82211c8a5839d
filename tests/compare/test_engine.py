"""The comparison engine: its numbers recomputed independently, cancellation, failures, export,
and the intervals and verdicts on data with a planted advantage and with identical twins."""

import dataclasses
import html
import io
import re
import zipfile

import numpy as np
import pandas as pd
import pytest
from scipy import stats as stats_
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

from fsengine import stats
from fsengine.compare.analyses import DIFFERENCE_COLUMNS, RANDOM, finite_scores
from fsengine.compare.report import html_report, tables_zip, write_tables
from fsengine.compare.runner import CompareSettings, ComparisonCancelled, k_grid, run_comparison, stratified_bootstrap
from fsengine.data import Dataset, load_dataset
from fsengine.data.dataset import Provenance
from fsengine.data.transforms import split
from fsengine.methods import registry
from fsengine.plots.compare import normalised
from fsengine.selection_metrics import kuncheva_index

SETTINGS = CompareSettings(n_bootstrap=5, max_k=12, seed=0)


@pytest.fixture(scope="module")
def glm():
    return load_dataset("synthetic_glm", n=300, p=20, k=4, seed=3)


@pytest.fixture(scope="module")
def result(glm):
    messages = []
    res = run_comparison(glm, ["mi", ("l1", {"n_Cs": 8}), "variance"], SETTINGS,
                         progress=lambda f, m: messages.append((f, m)))
    res.messages = messages
    return res


def test_progress_is_monotone_and_finishes(result):
    fractions = [f for f, _ in result.messages]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and 0 <= fractions[0] < 0.1
    assert any(m.startswith("L1: bootstrap fit 2 of 5, path: C ") for _, m in result.messages)  # its own progress
    assert any(m.startswith("Variance: bootstrap fit 5 of 5") for _, m in result.messages)


def test_held_out_accuracy_is_logistic_regression_on_the_top_k(glm, result):
    train, test = split(glm, test_size=SETTINGS.test_size, seed=SETTINGS.seed)
    assert (result.n_train, result.n_test) == (train.n_samples, test.n_samples)
    grid = result.accuracy["k"].unique()
    assert grid.tolist() == k_grid(12, 20).tolist() and grid[0] == 1 and grid[-1] == 12 and np.all(np.diff(grid) > 0)
    for label in ("MI", "L1"):
        top = result.run(label).order[:5]
        scaler = StandardScaler().fit(train.X[:, top])
        clf = LogisticRegression(max_iter=5000).fit(scaler.transform(train.X[:, top]), train.y)
        expected = np.mean(clf.predict(scaler.transform(test.X[:, top])) == test.y)
        got = result.accuracy.query("curve == @label and k == 5")["accuracy"].item()
        assert got == pytest.approx(expected)
    assert set(result.accuracy["curve"]) == {"MI", "L1", "Variance", RANDOM}
    labels, counts = np.unique(train.y, return_counts=True)
    assert result.majority_accuracy == pytest.approx(np.mean(test.y == labels[np.argmax(counts)]))


def test_top_k_views_recomputed_by_hand(result):
    k = 4
    sets = {r.label: set(r.order[:k].tolist()) for r in result.runs}
    jac = result.jaccard(k)
    for a in sets:
        for b in sets:
            assert jac.loc[a, b] == pytest.approx(len(sets[a] & sets[b]) / len(sets[a] | sets[b]))
    stab = result.stability(k).set_index("method")
    n = result.n_features
    for r in result.runs:
        boot = [set(row[:k].tolist()) for row in r.boot_top]
        pairs = [(len(a & b) * n - k * k) / (k * (n - k)) for i, a in enumerate(boot) for b in boot[i + 1:]]
        assert stab.loc[r.label, "kuncheva"] == pytest.approx(np.mean(pairs))
        assert stab.loc[r.label, "pairs"] == 10
    with pytest.raises(ValueError, match="between 1 and 12"):
        result.jaccard(13)


def test_bootstrap_rankings_are_refits_on_resamples(glm, result):
    train, _ = split(glm, test_size=SETTINGS.test_size, seed=SETTINGS.seed)
    resamples = stratified_bootstrap(train.y, 5, SETTINGS.seed)
    for rows in resamples:
        assert np.array_equal(np.bincount(train.y[rows]), np.bincount(train.y))
    variance = result.run("Variance")
    X = train.X[resamples[1]]
    assert variance.boot_top[1].tolist() == np.argsort(-X.var(axis=0), kind="stable")[:13].tolist()


def test_roc_and_auc_against_the_truth(glm, result):
    auc = result.auc()
    for r in result.runs:
        assert auc[r.label] == pytest.approx(roc_auc_score(glm.truth, finite_scores(r.scores)))
    assert auc["MI"] > 0.9 > auc["Variance"]
    fpr, tpr = result.roc()["L1"]
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1


def test_missing_scores_rank_last_and_normalise_to_blank():
    s = np.array([0.2, np.nan, -np.inf, 0.9, np.inf])
    np.testing.assert_array_equal(finite_scores(s), [0.2, -0.8, -0.8, 0.9, 1.9])
    np.testing.assert_allclose(normalised(np.array([1.0, 3.0, np.nan])), [0.0, 1.0, np.nan])


def test_cancel_stops_before_the_next_fit(glm):
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(ComparisonCancelled):
        run_comparison(glm, ["mi", "variance"], SETTINGS, cancel=cancel)
    assert len(calls) == 4


def test_a_failing_method_is_reported_and_the_rest_go_on():
    wide = load_dataset("synthetic_glm", n=40, p=5001, k=3)
    bia = ("bia", {"max_memory_mb": 16.0})  # the cap follows from the budget (fsengine.methods.bia.memory)
    res = run_comparison(wide, [bia, "variance"], CompareSettings(n_bootstrap=0, max_k=5))
    assert res.labels == ["Variance"] and res.stability(3)["kuncheva"].isna().all()
    assert list(res.failures) == ["BIA"]
    assert res.failures["BIA"].startswith("BIA needs a 5,001 x 5,001 coupling matrix")
    assert "memory budget of 16 MB" in res.failures["BIA"] and "features fit with 30 samples" in res.failures["BIA"]
    assert res.tables(3)["failures"]["method"].tolist() == ["BIA"]
    with pytest.raises(ValueError, match="No method could run on this data: BIA: BIA needs a 5,001 x 5,001"):
        run_comparison(wide, [bia], CompareSettings(n_bootstrap=0, max_k=5))


def test_class_pair_and_bad_requests():
    digits = load_dataset("digits")
    res = run_comparison(digits, ["variance"], CompareSettings(n_bootstrap=2, max_k=5, classes=("3", "8")))
    assert res.classes == ("3", "8") and res.n_train + res.n_test == int(np.isin(digits.y, [3, 8]).sum())
    with pytest.raises(ValueError, match="needs class labels"):
        run_comparison(load_dataset("synthetic_glm", family="linear", n=100, p=5), ["variance"])
    with pytest.raises(ValueError, match="at least one method"):
        run_comparison(digits, [])
    with pytest.raises(ValueError, match="once per comparison"):
        run_comparison(digits, ["mi", "mi"])
    with pytest.raises(ValueError, match="0 \\(off\\) or at least 2"):
        CompareSettings(n_bootstrap=1)


def test_exports_parse(result, tmp_path):
    paths = write_tables(result, 4, tmp_path)
    names = sorted(p.name for p in paths)
    assert names == ["accuracy.csv", "differences.csv", "jaccard.csv", "roc.csv", "runtime.csv", "scores.csv",
                     "stability.csv", "summary.csv"]
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert summary["method"].tolist() == ["MI", "L1", "Variance"] and (summary["k"] == 4).all()
    scores = pd.read_csv(tmp_path / "scores.csv")
    assert len(scores) == 20 and scores["relevant"].sum() == 4
    assert sorted(scores["rank_mi"]) == list(range(1, 21))
    with zipfile.ZipFile(io.BytesIO(tables_zip(result, 4))) as archive:
        assert sorted(archive.namelist()) == names
    accuracy = pd.read_csv(tmp_path / "accuracy.csv")
    assert list(accuracy.columns) == ["curve", "k", "accuracy", "low", "high", "method"]
    differences = pd.read_csv(tmp_path / "differences.csv")
    assert list(differences.columns)[:7] == ["method", "reference", "k", "difference", "low", "high", "verdict"]
    assert set(differences["verdict"]) <= {"better", "worse", "not resolved"}
    stability = pd.read_csv(tmp_path / "stability.csv")
    assert {"kuncheva", "low", "high", "interval", "nogueira", "nogueira_low", "nogueira_high", "reference",
            "stability_difference", "stability_p", "stability_p_holm", "stability_verdict"} <= set(stability.columns)
    pd.testing.assert_frame_equal(stability, pd.read_csv(io.StringIO(result.stability(4).to_csv(index=False))))
    assert {"bootstrap_median_seconds", "bootstrap_q1_seconds", "bootstrap_q3_seconds"} <= set(
        pd.read_csv(tmp_path / "runtime.csv").columns)
    assert {"accuracy_low", "accuracy_high", "difference", "verdict", "kuncheva_low"} <= set(summary.columns)
    write_tables(result, 4, tmp_path / "l1", reference="l1")
    assert set(pd.read_csv(tmp_path / "l1" / "differences.csv")["reference"]) == {"L1"}
    page = html_report(result, 4)
    # plotly.js embedded once (offline), six figures: accuracy, differences, Jaccard, stability, the stability test,
    # ROC (a figure's call names its div; plotly.js 2.x also carries the text "Plotly.newPlot(gd, ..." in a help
    # message)
    figures = re.findall(r"Plotly\.newPlot\(\s*\"", page)
    assert "src=\"https://cdn.plot.ly" not in page and len(figures) == 6 and len(page) > 3_000_000
    assert "Stability against MI (Nogueira et al.&#x27;s paired test)" in page and "2 tests, Holm-adjusted" in page
    assert page.count("window.PlotlyConfig") == 1
    assert html.escape(result.resolved_sentence(4)) in page and "Verdicts at every k" in page
    assert "Paired differences from MI" in page and "Paired differences from L1" in html_report(result, 4, "L1")


def test_accuracy_intervals_are_wilson_on_the_held_out_rows(result):
    held = result.held_out
    assert held.rows.shape == (4, len(held.grid), result.n_test) and held.repeats.shape == (1, 4, len(held.grid))
    acc = result.accuracy
    assert list(acc.columns) == ["curve", "k", "accuracy", "low", "high", "method"]
    for c, curve in enumerate(held.curves[:-1]):
        part = acc[acc["curve"] == curve]
        for (_, row), right in zip(part.iterrows(), held.rows[c]):
            e = stats.wilson_interval(int(right.sum()), result.n_test)
            assert (row["accuracy"], row["low"], row["high"]) == pytest.approx((e.value, e.low, e.high))
            assert row["method"] == f"95% Wilson score interval ({result.n_test} rows)"
    random = acc[acc["curve"] == RANDOM]
    boot = stats.bootstrap_means(held.rows[-1].T, seed=0)
    assert random["low"].tolist() == pytest.approx([e.low for e in boot])
    assert random["method"].iloc[0].startswith("95% percentile bootstrap over 75 held-out rows (2,000 resamples")
    assert (acc["low"] <= acc["accuracy"]).all() and (acc["accuracy"] <= acc["high"]).all()
    assert result.all_features_interval.low < result.all_features_accuracy < result.all_features_interval.high


def test_differences_are_paired_bootstrap_intervals_of_the_same_rows_with_bonferroni(result):
    diff = result.differences()  # reference: the first method, MI
    assert list(diff.columns) == list(DIFFERENCE_COLUMNS)
    assert diff["reference"].unique().tolist() == ["MI"] and diff["method"].unique().tolist() == ["L1", "Variance"]
    assert (diff["level"] == stats.bonferroni_level(0.95, 2)).all() and len(diff) == 2 * len(result.held_out.grid)
    held = result.held_out
    l1, mi = held.rows[1], held.rows[0]
    for g, row in enumerate(diff[diff["method"] == "L1"].itertuples()):
        # the exact conditional interval: Clopper-Pearson (scipy) on the discordant rows
        b10, b01 = int(np.sum((l1[g] == 1) & (mi[g] == 0))), int(np.sum((l1[g] == 0) & (mi[g] == 1)))
        m = b10 + b01
        if m:
            ci = stats_.binomtest(b10, m, 0.5).proportion_ci(confidence_level=0.975, method="exact")
            bounds = ((b10 - b01) / result.n_test, (2 * ci.low - 1) * m / result.n_test,
                      (2 * ci.high - 1) * m / result.n_test)
        else:
            bounds = (0.0, 0.0, 0.0)
        assert (row.difference, row.low, row.high) == pytest.approx(bounds, abs=1e-12)
        assert row.verdict == stats.difference_verdict(stats.Estimate(row.difference, row.low, row.high, 0.975, ""))
    assert "exact conditional interval over 75 paired held-out rows" in diff["interval_method"].iloc[0]
    assert diff["interval_method"].iloc[0].endswith("Bonferroni over 2 comparisons")
    by_key = result.differences("l1")
    assert by_key["reference"].unique().tolist() == ["L1"] and set(by_key["method"]) == {"MI", "Variance"}
    flipped = by_key[by_key["method"] == "MI"]["difference"].to_numpy()
    assert flipped == pytest.approx(-diff[diff["method"] == "L1"]["difference"].to_numpy())
    with pytest.raises(ValueError, match="not among the compared methods"):
        result.differences("bia")


def test_summary_reports_intervals_and_verdicts_and_picks_no_best_k(result):
    table = result.summary(4, reference="Variance")
    assert not [c for c in table.columns if "best" in c]
    assert table.set_index("method").loc["Variance", "verdict"] == "reference"
    row = table.set_index("method").loc["MI"]
    acc = result.accuracy.query("curve == 'MI' and k == 4").iloc[0]
    assert (row["accuracy_low"], row["accuracy_high"]) == (acc["low"], acc["high"])
    diff = result.differences("Variance").query("method == 'MI' and k == 4").iloc[0]
    assert (row["difference"], row["difference_low"], row["verdict"]) == (diff["difference"], diff["low"],
                                                                         diff["verdict"])
    sentence = result.resolved_sentence(4, "Variance")
    assert sentence.startswith("At k = 4, ") and "resolved from Variance" in sentence
    assert "at 97.5%: Bonferroni over the 2 comparisons" in sentence
    assert result.resolved_sentence(9).startswith("At k = 8 (the accuracy grid point nearest k = 9), ")


def test_stability_interval_is_the_jackknife_over_resamples_and_runtimes_are_median_iqr(result):
    k, n = 4, result.n_features
    stab = result.stability(k).set_index("method")
    for r in result.runs:
        boot = [row[:k] for row in r.boot_top]
        B = len(boot)

        def mean_pairs(sets):
            return np.mean([kuncheva_index(a, b, n) for i, a in enumerate(sets) for b in sets[i + 1:]])

        loo = np.array([mean_pairs(boot[:i] + boot[i + 1:]) for i in range(B)])
        se = np.sqrt((B - 1) / B * np.sum((loo - loo.mean()) ** 2))
        half = 2.7764451051977987 * se  # t_{0.975, 4}
        value = mean_pairs(boot)
        assert stab.loc[r.label, "low"] == pytest.approx(max(-1.0, value - half))
        assert stab.loc[r.label, "high"] == pytest.approx(min(1.0, value + half))
        assert stab.loc[r.label, "interval"] == ("95% jackknife t interval over 5 bootstrap resamples "
                                                 "(leave one resample out)")
    runtime = result.runtime().set_index("method")
    for r in result.runs:
        q1, med, q3 = np.quantile(r.boot_seconds, [0.25, 0.5, 0.75])
        assert runtime.loc[r.label, ["bootstrap_q1_seconds", "bootstrap_median_seconds", "bootstrap_q3_seconds"]
                           ].tolist() == pytest.approx([q1, med, q3])
        assert runtime.loc[r.label, "bootstrap_fits"] == 5
        # CPU seconds of the same fits (process_time), kept beside the wall-clock ones
        assert r.boot_cpu_seconds.shape == (5,) and np.all(r.boot_cpu_seconds >= 0) and r.cpu_seconds >= 0
        q1, med, q3 = np.quantile(r.boot_cpu_seconds, [0.25, 0.5, 0.75])
        assert runtime.loc[r.label, ["bootstrap_q1_cpu_seconds", "bootstrap_median_cpu_seconds",
                                     "bootstrap_q3_cpu_seconds"]].tolist() == pytest.approx([q1, med, q3])
        # what the method cost the comparison: its fit and every bootstrap fit
        assert runtime.loc[r.label, "total_seconds"] == pytest.approx(r.seconds + r.boot_seconds.sum())
        assert runtime.loc[r.label, "total_cpu_seconds"] == pytest.approx(r.cpu_seconds + r.boot_cpu_seconds.sum())


def _phi_by_definition(sets, n):
    """Nogueira et al. (2018) Definition 4 written out: 1 - mean_f s_f^2 / (kbar/n (1 - kbar/n)) with
    s_f^2 the unbiased variance of feature f's selection indicator over the M runs."""
    Z = np.zeros((len(sets), n))
    for i, s in enumerate(sets):
        Z[i, s] = 1
    kbar = Z.sum(axis=1).mean()
    return 1 - np.mean(Z.var(axis=0, ddof=1)) / (kbar / n * (1 - kbar / n))


@pytest.mark.parametrize("reference", [None, "Variance"])
def test_nogueira_stability_and_its_paired_holm_adjusted_test_against_the_reference(result, reference):
    from fsengine.selection_metrics import nogueira_difference, nogueira_stability

    k, n = 4, result.n_features
    stab = result.stability(k, reference).set_index("method")
    ref = result.reference(reference)
    sets = {r.label: [row[:k] for row in r.boot_top] for r in result.runs}
    for label, boot in sets.items():
        phi = nogueira_stability(boot, n)
        assert stab.loc[label, "nogueira"] == pytest.approx(_phi_by_definition(boot, n), abs=1e-12)
        assert stab.loc[label, "nogueira"] == pytest.approx(stab.loc[label, "kuncheva"], abs=1e-12)  # equal sizes
        assert [stab.loc[label, "nogueira_low"], stab.loc[label, "nogueira_high"]] == pytest.approx(
            [phi.low, min(1.0, phi.high)])
        assert stab.loc[label, "reference"] == ref
    others = [label for label in result.labels if label != ref]
    level = result.comparison_level()
    tests = {m: nogueira_difference(sets[ref], sets[m], n, paired=True, level=level) for m in others}
    p = np.array([tests[m].pvalue for m in others])
    order = np.argsort(p)  # Holm written out: the i-th smallest times (m - i), running maximum, capped at 1
    holm = np.empty_like(p)
    holm[order] = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    for m, p_holm in zip(others, holm):
        row, t = stab.loc[m], tests[m]
        assert [row["stability_difference"], row["stability_difference_low"], row["stability_difference_high"]] == \
            pytest.approx([t.difference.value, t.difference.low, t.difference.high])
        assert row["stability_p"] == pytest.approx(t.pvalue) and row["stability_p_holm"] == pytest.approx(p_holm)
        expected = "not resolved" if p_holm > 0.05 else ("more stable" if t.difference.value > 0 else "less stable")
        assert row["stability_verdict"] == expected
        assert f"Holm-adjusted over the {len(others)} tests" in row["stability_test"]
        # paired: run i of both methods is resample i; the same runs unpaired give another test
        assert row["stability_z"] != pytest.approx(nogueira_difference(sets[ref], sets[m], n, level=level).statistic)
    assert stab.loc[ref, "stability_verdict"] == "reference" and np.isnan(stab.loc[ref, "stability_p"])
    assert (stab["stability_verdict"] != "not resolved").any()  # Variance is resolved from MI and L1
    summary = result.summary(k, reference).set_index("method")
    assert summary["nogueira_at_k"].tolist() == stab["nogueira"].tolist()
    assert summary["stability_verdict"].tolist() == stab["stability_verdict"].tolist()


def test_stability_of_few_resamples_has_no_interval(glm):
    res = run_comparison(glm, ["variance"], CompareSettings(n_bootstrap=3, max_k=5))
    stab = res.stability(3).iloc[0]
    assert np.isfinite(stab["kuncheva"]) and np.isnan(stab["low"]) and "needs 5 or more" in stab["interval"]


def _planted(n: int = 600, p: int = 20, seed: int = 0) -> Dataset:
    """Feature 0 is the label with 10% flipped, coded 0.4 / 0.6 (variance 0.01); features 1..p-1
    are fair coins 0 / 1 (variance 0.25). MI (features binarised as x > 0.5) ranks feature 0
    first; Variance ranks it last, so its first k < p features carry no signal."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 2, (n, p)).astype(float)
    X[:, 0] = 0.4 + 0.2 * np.where(rng.random(n) < 0.1, 1 - y, y)
    return Dataset(X=X, y=y, feature_names=tuple(f"x{j}" for j in range(p)), provenance=Provenance("planted"),
                   name="planted", target_names=("a", "b"))


@pytest.fixture
def twin(monkeypatch):
    """A registered test double: Variance again under another name (the same selector)."""
    spec = dataclasses.replace(registry.METHODS["variance"], key="variance_twin", label="Variance twin")
    monkeypatch.setitem(registry.METHODS, "variance_twin", spec)
    return spec


@pytest.mark.parametrize("repeats", [1, 3])
def test_verdicts_resolve_a_planted_advantage_and_not_identical_twins(twin, repeats):
    ds = _planted()
    res = run_comparison(ds, ["variance", "mi", "variance_twin"],
                         CompareSettings(n_bootstrap=0, max_k=12, n_repeats=repeats))
    assert res.run("MI").order[0] == 0 and res.run("Variance").order[-1] == 0
    diff = res.differences()  # reference Variance
    assert (diff.query("method == 'MI'")["verdict"] == "better").all()
    twins = diff.query("method == 'Variance twin'")
    assert (twins["verdict"] == "not resolved").all()
    assert (twins[["difference", "low", "high"]].to_numpy() == 0).all()
    assert (res.differences("mi").query("method != 'MI'")["verdict"] == "worse").all()
    sentence = res.resolved_sentence(5)
    assert "1 of 2 methods is resolved from Variance (MI better); not resolved: Variance twin." in sentence
    how = "exact conditional interval of the paired difference" if repeats == 1 else \
        f"paired corrected resampled t over {repeats}"
    assert how in sentence


def test_repeated_splits_use_the_corrected_resampled_t(glm, result):
    res = run_comparison(glm, ["mi", ("l1", {"n_Cs": 8}), "variance"],
                         CompareSettings(n_bootstrap=0, max_k=12, n_repeats=3))
    held = res.held_out
    assert held.repeats.shape == (3, 4, len(held.grid))
    # the first split is the one-split comparison's; the others are new splits with their own fits
    np.testing.assert_allclose(held.repeats[0], result.held_out.repeats[0])
    assert not np.allclose(held.repeats[1], held.repeats[0])
    assert len(res.run("L1").split_orders) == 3
    ratio = res.n_test / res.n_train
    row = res.accuracy.query("curve == 'L1' and k == 4").iloc[0]
    e = stats.t_interval(held.repeats[:, 1, 3], test_train_ratio=ratio)
    assert (row["accuracy"], row["low"], row["high"]) == pytest.approx((e.value, max(0, e.low), min(1, e.high)))
    assert (res.accuracy["low"] >= 0).all() and (res.accuracy["high"] <= 1).all()
    assert row["method"] == "95% corrected resampled t (Nadeau & Bengio 2003) over 3 repeated splits"
    d = res.differences().query("method == 'L1' and k == 4").iloc[0]
    e = stats.paired_t_interval(held.repeats[:, 1, 3], held.repeats[:, 0, 3], 0.975, test_train_ratio=ratio)
    assert (d["difference"], d["low"], d["high"]) == pytest.approx((e.value, e.low, e.high))
    assert "over 3 repeated train/test splits" in res.interval_note()
    with pytest.raises(ValueError, match="n_repeats=0"):
        CompareSettings(n_repeats=0)


class _ColdRTM(registry.resolve("fsengine.selectors:RTMSelector")):
    """The RTM selector with its warm start switched off (the engine then fits every resample cold)."""

    _warm_starts = False


def test_bootstrap_and_repeat_fits_of_a_warm_starting_method_start_from_the_full_fit():
    """The RTM's bootstrap fits and its fit on the second train/test split start from its fit on the
    first training part (fsengine.warm_start): the comparison and its progress say so, and, run
    to a tight tolerance, they keep the rankings of cold fits (same top tags and scores, the same
    ranking on the second split)."""
    from functools import partial

    from fsengine.data.synthetic.rtm import make_rtm

    ds = make_rtm(n_samples=240, n_tags=40, n_relevant=6, tag_rate=0.1, seed=2)
    rtm = registry.get_method("rtm")
    tight = {"max_iter": 5000}
    settings = CompareSettings(n_bootstrap=3, max_k=8, seed=0, n_repeats=2)
    runs = {}
    for name, cls, warm_start in (("warm", registry.resolve(rtm.factory), True), ("cold", _ColdRTM, True),
                                  ("switched off", registry.resolve(rtm.factory), False)):
        spec = dataclasses.replace(rtm, factory=partial(cls, tol=1e-10))
        messages = []
        res = run_comparison(ds, [(spec, tight)], dataclasses.replace(settings, warm_start=warm_start),
                             progress=lambda f, m: messages.append(m))
        runs[name] = (res.run("RTM"), messages)
    (warm, warm_messages), cold = runs["warm"], runs["cold"][0]
    assert any("bootstrap fits and the fits on the further splits started from the fit on the training part" in n
               for n in warm.notes)
    # a method that cannot warm start, and CompareSettings(warm_start=False): every fit from scratch
    for run, messages in (runs["cold"], runs["switched off"]):
        assert not any("warm start" in n for n in run.notes)
        assert not any("earlier fit" in m for m in messages)
        np.testing.assert_array_equal(run.boot_top, cold.boot_top)
    for fit in ("bootstrap fit 3 of 3", "fit on split 2 of 2"):
        assert any(m.startswith(f"RTM: {fit} (warm start), starting Power EP from an earlier fit")
                   for m in warm_messages)
    np.testing.assert_array_equal(warm.order, cold.order)
    np.testing.assert_array_equal(warm.split_orders[1], cold.split_orders[1])
    np.testing.assert_allclose(warm.boot_top_scores, cold.boot_top_scores, rtol=0, atol=1e-6)
    for w, c, scores in zip(warm.boot_top, cold.boot_top, cold.boot_top_scores):
        assert set(w[np.abs(scores - scores[-1]) > 1e-6]) == set(c[np.abs(scores - scores[-1]) > 1e-6])
