"""Reproduce Fisher & Mehta Fig. 2: BIA feature selection for logistic regression, notMNIST B vs D.

Writes ``fig2a_path.html``, ``fig2b_posterior.html``, ``fig2c_top_pixels.html``,
``posteriors_lambda_star.csv`` (every pixel's posterior at Lambda = Lambda*), ``bia_baselines.html``
and ``baselines_along_path.csv`` (the BIA's top 20 against correlation screening, the L1 entry
order and logistic |coef| along the path), ``nested_cv_folds.csv`` (per fold and ranking: correct
test predictions of a logistic regression on the top 20, the ranking computed inside the training
fold), ``exact_check.csv`` (the exact check's errors and tolerances), ``results.json`` and
``report.md``.

Verdicts. The classification comparison is nested: every ranking (the BIA at Lambda*, correlation
screening, the L1 entry order, logistic |coef|, 20 random pixels) is computed on the training rows
of each fold of a repeated stratified 5-fold CV. The BIA against the L1 entry order and logistic
|coef| is judged by the fold-paired corrected resampled t interval (deterministic rankings whose
fold differences share training rows); against 20 random pixels by the plain paired t over the
folds (:data:`RANDOM_TEST`: the spread comes from the pixels drawn independently in each fold);
the three are one family, judged by Holm's step-down procedure. The BIA at Lambda* against
correlation screening is recorded as an observation, not judged: the two top-20 sets are nearly
the same in every fold. The exact check compares the BIA's posteriors on small subproblems with
the Laplace evidence of all 2^8 subsets at Lambda = Lambda* (where Fig. 2B is drawn) and at
10 Lambda*, against a tolerance derived from the order of the expansion (:func:`exact_tolerance`).

The run writes the raw files (the CSVs above and ``run.json``: the data's sizes, the path's facts,
the exact checks' pixels) and renders ``report.md`` and ``results.json`` from them alone
(:func:`render`, :func:`rerender`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine import ranking
from fsengine.csv_export import read_csv, to_csv
from fsengine.data import load_dataset
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.formatting import percent
from fsengine.methods.bia import baselines as bl
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.bia.study import run_bia_path, sample_images
from fsengine.methods.bia.validation import (
    SubproblemCheck,
    check_subproblem,
    expansion_orders,
    pick_features,
    third_cumulant,
)
from fsengine.plots.bia import agreement_figure, path_figure, posterior_heatmap, samples_with_top_pixels
from fsengine.position import Position, nearest_index
from fsengine.progress import scaled
from fsengine.reproduce import results as results_file
from fsengine.reproduce.results import write_figure
from fsengine.stats import Estimate, holm_family, t_interval, t_pvalue

SPEC = "notmnist:letters=BD,n_per_class=500,seed=0"
TOP_K = 20
#: Lambda/Lambda* values of the baseline comparison along the path
AGREEMENT_RATIOS = (20, 10, 5, 3, 2, 1.5, 1, 0.7, 0.5, 0.3, 0.2, 0.15, 0.1)
#: the rankings of the nested comparison (names as in the report and results.json)
BIA_STAR, BIA_END, RANDOM, ALL = "BIA at Lambda*", "BIA at Lambda/Lambda* = 0.1", f"{TOP_K} random pixels", "all pixels"
PATH_END = 0.1
#: nested CV: stratified 5-fold, repeated (quick: fewer repeats), seed 0; random pixels seeded per fold
CV_SPLITS, CV_REPEATS, CV_REPEATS_QUICK, CV_SEED = 5, 10, 2, 0
#: baselines the BIA at Lambda* is judged against (a family, Holm), and the one it is only set beside
JUDGED, OBSERVED = (bl.L1_ENTRY, bl.LOGISTIC, RANDOM), bl.SCREENING
#: the note of the row set beside the judged family (its counts are rows of their own)
OBSERVATION_NOTE = ("an observation, not judged: the two top-k sets are nearly the same in every fold (the next two "
                    "rows count the folds)")
#: the family's name in the intervals' method text
FAMILY = "comparisons of the BIA with a baseline"
#: why the random pixels get the plain paired t (printed in the report)
RANDOM_TEST = ("The BIA minus 20 random pixels is judged by the plain paired t over the folds, not the corrected "
               "resampled t: the random pixels are drawn afresh and independently in each fold, and that draw, not the "
               "training rows the folds share, is where the spread of this difference comes from (its SD over the "
               "folds is {random_sd:.3f}, against {det_sd} for the deterministic rankings' differences); the "
               "corrected resampled t assumes the correlation shared training rows give and inflates the variance "
               "{inflation:.1f}-fold (1 + J n_test/n_train), which no draw-to-draw spread has.")
#: the exact check: pixels per subproblem (2^8 subsets) and the ratios it is judged at
EXACT_PIXELS, EXACT_JUDGED = 8, (1.0, 10.0)
#: choices in this target's history that were made after seeing results (the report prints them)
CHOICES_AFTER_SEEING = (
    "The exact check's former tolerance (1e-3, judged only at Λ/Λ* = 10) was set after the first full run had "
    "printed the errors at every ratio; it is replaced by a tolerance derived from the expansion's order and "
    "judged at Λ* as well. Its formula was derived before its values were computed, but the size of the error "
    "at Λ* was known from the issue that asked for it.",
    "The former rule for the paper's 'agree with intuition' (90% of the top 20 among the 10% of pixels with the "
    "largest |mean(B) - mean(D)|) was written after the top 20 had been seen; it could not disagree with "
    "screening and is dropped.",
    "The nested comparison keeps k = 20 and the three baselines of the earlier report, whose accuracies "
    "(rankings computed on all images, not nested) had been read before the nested comparison was designed.",
    "After the record had printed 'not resolved' for the BIA minus 20 random pixels (issue 31), that difference's "
    "test changed from the corrected resampled t to the plain paired t over the folds, for the design's reason "
    "given below; the BIA minus correlation screening became an observation (the two sets are nearly equal in "
    "every fold), and the three judged comparisons became one family under Holm's step-down procedure.",
)


def _tolerance_text(kappa3: float) -> str:
    return (
        "|p_BIA − p_exact| ≤ |p_BIA − p_Ising| + |p_Ising − p_exact|. The first term, the mean field's error, is "
        "computed exactly by enumerating the BIA's own Ising model. The second is what the expansion neglects: "
        "the paper keeps the log-evidence to second order in ε = 1/Λ (Eq. 8), so the exact one is E2 + R with "
        "R3 = ε³(Tr H_S³/6 + b_S'H_S²b_S/2) its first neglected term (plus the likelihood's cubic terms, "
        f"proportional to its third cumulant at the null, κ3 = −ȳ(1 − ȳ)(1 − 2ȳ) = {kappa3:.3g} here). "
        "To first order in R a marginal moves by Cov_P(s_j, R) ≤ "
        "√(p_j(1 − p_j)) SD_P(R); the later orders shrink by x = ε‖H‖ each, so their scale is "
        "max_j √(p_j(1 − p_j)) SD_P(R3)/(1 − x) under the second-order model P. The tolerance is the sum of the "
        "two terms; it is computed from b, H and the BIA's own model, never from the reference, and is a "
        "leading-order scale, not a bound (`fsengine/methods/bia/validation.py`, `expansion_orders`).")


_NOTES = {ALL: "logistic regression on every pixel, no selection",
          RANDOM: "logistic regression on pixels drawn at random in each fold"}


def _described(name: str) -> str:
    """How a ranking of the nested comparison is named in a row: its top k, or what it is."""
    return {ALL: "all pixels (no selection)", RANDOM: RANDOM}.get(name, f"top {TOP_K} by {name}")


def _at(ratio: float) -> str:
    """``Lambda = Lambda*`` or ``Lambda = 10 Lambda*``: names that stay distinct once digits are masked."""
    return "Lambda = Lambda*" if ratio == 1 else f"Lambda = {ratio:g} Lambda*"


def _direction(difference, name: str) -> str:
    if difference.low > 0:
        return f"resolved: the BIA above {name}"
    if difference.high < 0:
        return f"resolved: {name} above the BIA"
    return "not resolved"



def fold_rankings(X, y, fold_seed: int) -> dict[str, np.ndarray | None]:
    """Every ranking of the nested comparison from one training fold: the BIA path (the same
    settings as the full fit; constant pixels of the fold rank last) at Lambda* and at its end,
    the three baselines, random scores (seeded by the fold) and no selection."""
    keep = np.ptp(X, axis=0) > 0
    sel = BIASelector().fit(X[:, keep], y)
    grid = sel.path_.index

    def at(ratio):
        out = np.full(X.shape[1], -np.inf)
        out[keep] = sel.path_.iloc[Position.nearest(grid, ratio).index].to_numpy()
        return out

    rng = np.random.default_rng([CV_SEED, fold_seed])
    return {BIA_STAR: at(1.0), BIA_END: at(PATH_END), **bl.baseline_orders(X, y),
            RANDOM: rng.random(X.shape[1]), ALL: None}


def exact_tolerance(X, y, check: SubproblemCheck) -> pd.DataFrame:
    r"""Per checked ratio: the error of the BIA against the Laplace evidence and the tolerance it is
    judged against, both from the subproblem alone.

    ``|p_BIA - p_exact| <= |p_BIA - p_Ising| + |p_Ising - p_exact|``. The first term is the mean
    field's error, computed exactly by enumerating the BIA's own Ising model. The second is what
    the expansion neglects: Fisher & Mehta keep the evidence to second order in eps = 1/Lambda
    (Eq. 8), so the exact log-evidence is ``E2 + R`` with ``R = R3 + ...`` and ``R3`` the eps^3
    term (:func:`fsengine.methods.bia.validation.expansion_orders`). To first order in ``R`` a
    marginal moves by ``Cov_P(t_j, R) <= sqrt(p_j (1 - p_j)) SD_P(R)``; the later orders shrink by
    ``x = eps ||H||`` each, so their scale is ``max_j sqrt(p_j (1 - p_j)) SD_P(R3) / (1 - x)`` with
    P the second-order model. The tolerance is the sum of the two; it uses b, H and the BIA's own
    model of the subproblem, never the reference.
    """
    features = check.features
    orders = expansion_orders(X[:, features], y, "logistic", check.ratios * check.lambda_star)
    mean_field = np.abs(check.bia - check.ising).max(axis=1)
    scale = orders.tolerance()
    return pd.DataFrame({"lambda_ratio": check.ratios, "max_error": check.max_error,
                         "ising_error": np.abs(check.ising - check.exact).max(axis=1),
                         "mean_field_gap": mean_field, "neglected_order_scale": scale, "x": orders.x,
                         "tolerance": mean_field + scale})


EXACT_RULE = ("tolerance = max |p_BIA - p_Ising| (mean field, by enumeration) + max_j sqrt(p_j(1-p_j)) "
              "SD(R3) / (1 - eps||H||), R3 the eps^3 terms Eq. 8 neglects")


def run(out_dir: Path, quick: bool, progress) -> Path:
    """Fig. 2 panels, the nested comparison, the exact check and their raw files (``quick``: fewer
    repeats of the nested CV), then the report and ``results.json`` rendered from those files."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress(0.02, "loading notMNIST B vs D")
    ds = load_dataset(SPEC)
    progress(0.05, "BIA path")
    run_bia_path(make_sparse_glm("logistic", n=50, p=5), "logistic", n_steps=5)  # numba warm-up
    t0 = time.process_time()
    result = run_bia_path(ds, "logistic", progress=scaled(progress, 0.05, 0.1))
    seconds = time.process_time() - t0
    star = result.position(1.0)
    post = result.full_scores(star)
    top = ranking.top_k(post, TOP_K)
    rows, cols = np.divmod(np.arange(ds.n_features), ds.image_shape[1])

    progress(0.1, "figures")
    thin = result.path.iloc[sorted(pos.index for pos in result.slider_positions(50))]
    write_figure(path_figure(thin, position=Position.nearest(thin.index, 1.0), top_k=TOP_K, image_shape=ds.image_shape,
                             title="Fig. 2A: BIA path, notMNIST B vs D (logistic)"), out_dir / "fig2a_path.html")
    write_figure(posterior_heatmap(post, ds.image_shape, title="Fig. 2B: posterior at Λ/Λ* = 1"),
                 out_dir / "fig2b_posterior.html")
    images, labels, names = sample_images(ds, per_class=3, seed=0)
    write_figure(samples_with_top_pixels(images, labels, names, top, ds.image_shape,
                                         title=f"Fig. 2C: top {TOP_K} pixels at Λ = Λ*"),
                 out_dir / "fig2c_top_pixels.html")
    rank = ranking.ranks_from_order(ranking.order_from(post))
    to_csv(pd.DataFrame({"pixel": ds.feature_names, "row": rows, "col": cols, "posterior": post,
                         "magnetization": 2 * post - 1, "rank": rank}),
           out_dir / "posteriors_lambda_star.csv", index=False, float_format="%.17g")

    progress(0.15, "baselines along the path: correlation screening, L1 entry order, logistic |coef|")
    baselines = bl.baseline_orders(ds.X, ds.y)
    agreement = bl.path_agreement(result.full_path(), baselines, TOP_K, AGREEMENT_RATIOS)
    to_csv(agreement, out_dir / "baselines_along_path.csv", index=False, float_format="%.17g")
    write_figure(agreement_figure(agreement, TOP_K, bl.departure_ratio(agreement),
                                  title=f"BIA top {TOP_K} vs simpler rankings along the path"),
                 out_dir / "bia_baselines.html")

    repeats = CV_REPEATS_QUICK if quick else CV_REPEATS
    progress(0.2, f"nested CV: {CV_SPLITS}-fold x {repeats}, every ranking inside each training fold")
    cv = bl.nested_top_k_cv(ds.X, ds.y, fold_rankings, TOP_K, reference=BIA_STAR, n_splits=CV_SPLITS,
                            n_repeats=repeats, seed=CV_SEED, progress=scaled(progress, 0.2, 0.75))
    to_csv(cv.folds, out_dir / "nested_cv_folds.csv", index=False, float_format="%.6f")

    checks, tolerances = [], []
    for i, (pool_name, pool) in enumerate((("all pixels", None), ("40 highest posteriors", ranking.top_k(post, 40)))):
        progress(0.75 + 0.1 * i, f"exact check on {EXACT_PIXELS} pixels drawn from {pool_name}")
        feats = pick_features(ds.X, EXACT_PIXELS, seed=1, candidates=pool)
        check = check_subproblem(ds.X, ds.y, "logistic", feats, ds.feature_names)
        checks.append({"pool": pool_name, "pixels": list(check.feature_names), "lambda_star": check.lambda_star})
        tolerances.append(exact_tolerance(ds.X, ds.y, check).assign(
            exact_margin=np.abs(check.exact - 0.5).max(axis=1), pool=pool_name))
    to_csv(pd.concat(tolerances, ignore_index=True), out_dir / "exact_check.csv", index=False, float_format="%.17g")

    path = result.path
    ratios = path.index.to_numpy()
    facts = {"quick": bool(quick), "source": results_file.public(ds.provenance.source),
             "samples_n": int(ds.n_samples), "pixels_p": int(ds.n_features), "class_counts": ds.class_counts(),
             "y_mean": float(np.mean(ds.y)), "image_shape": list(ds.image_shape),
             "rms_correlation": float(result.rms_correlation), "lambda_star": float(result.lambda_star),
             "fit_cpu_seconds": seconds,
             "path": {"steps": len(path), "ratio_max": float(ratios.max()), "ratio_min": float(ratios.min()),
                      "first_margin": float(np.abs(path.iloc[0] - 0.5).max()),
                      "last_max": float(path.iloc[-1].max())},
             "nested_cv": {"splits": CV_SPLITS, "repeats": repeats, "seed": CV_SEED},
             "exact_checks": checks}
    results_file.write_run_facts(out_dir, facts)
    progress(0.95, "report")
    report = render(out_dir)
    progress(1.0, "done")
    return report


def judged_differences(cv: bl.NestedCV) -> dict[str, Estimate]:
    """The BIA at Lambda* minus each judged baseline (:data:`JUDGED`), one family under Holm's
    step-down procedure: the fold-paired corrected resampled t for the deterministic rankings, the
    plain paired t for the random pixels (:data:`RANDOM_TEST`)."""
    tests = []
    for name in JUDGED:
        a, b = (cv.folds[cv.folds["method"] == m].set_index(["repeat", "fold"])["accuracy"] for m in (BIA_STAR, name))
        d = (a - b.loc[a.index]).to_numpy()
        if name == RANDOM:
            tests.append((t_pvalue(d), lambda level, d=d: t_interval(
                d, level, what=f"paired folds ({cv.n_splits}-fold CV repeated {cv.n_repeats} times; plain paired t)")))
        else:
            tests.append((t_pvalue(d, test_train_ratio=cv.test_train_ratio),
                          lambda level, name=name: cv.difference(BIA_STAR, name, level)))
    return dict(zip(JUDGED, holm_family(tests, family=FAMILY)))


def _fold_sd(cv: bl.NestedCV, name: str) -> float:
    a, b = (cv.folds[cv.folds["method"] == m].set_index(["repeat", "fold"])["accuracy"] for m in (BIA_STAR, name))
    return float((a - b.loc[a.index]).std(ddof=1))


def render(out_dir: Path) -> Path:
    """``report.md`` and ``results.json`` from the run's files in ``out_dir`` (module docstring)."""
    out_dir = Path(out_dir)
    facts = results_file.read_run_facts(out_dir)
    quick = facts["quick"]
    posteriors = read_csv(out_dir / "posteriors_lambda_star.csv")
    post = posteriors["posterior"].to_numpy()
    rows, cols = posteriors["row"].to_numpy(), posteriors["col"].to_numpy()
    top = posteriors.sort_values("rank")["rank"].index.to_numpy()[:TOP_K]
    agreement = read_csv(out_dir / "baselines_along_path.csv")
    departure = bl.departure_ratio(agreement)
    at_star = agreement.iloc[nearest_index(agreement.lambda_ratio, 1.0)]
    at_deep = agreement.iloc[-1]
    nested = facts["nested_cv"]
    cv = bl.NestedCV(read_csv(out_dir / "nested_cv_folds.csv"), nested["splits"], nested["repeats"], TOP_K)
    repeats = nested["repeats"]
    accuracy = {name: cv.accuracy(name) for name in cv.methods}
    differences = judged_differences(cv)
    observed = cv.difference(BIA_STAR, OBSERVED)
    screening = cv.folds[cv.folds["method"] == OBSERVED]
    same_sets = int((screening["overlap"] == 1.0).sum())
    bia_correct = cv.folds[cv.folds["method"] == BIA_STAR].set_index(["repeat", "fold"])["n_correct"]
    same_scores = int((screening.set_index(["repeat", "fold"])["n_correct"] == bia_correct).sum())
    fold_overlap = screening["overlap"]
    exact = read_csv(out_dir / "exact_check.csv")
    checks = {c["pool"]: c for c in facts["exact_checks"]}

    overlap_col = f"overlap with {bl.SCREENING}"
    plain = (f"Plainly: at Λ = Λ* the BIA's top {TOP_K} shares {at_star[overlap_col]:.0%} of its pixels with "
             f"correlation screening (Spearman {at_star['Spearman with screening']:.4f} with b²): there the BIA "
             "*is* correlation screening. "
             + (f"Its top {TOP_K} first departs from screening's at Λ/Λ* = {departure:g}"
                if departure is not None else f"Its top {TOP_K} never departs from screening's on the path")
             + f"; at Λ/Λ* = {at_deep.lambda_ratio:g} the overlap is {at_deep[overlap_col]:.0%}. The couplings "
             "matter only below Λ*, i.e. lower down the path.")
    exact_rows = []
    for pool_name in checks:
        table = exact[exact["pool"] == pool_name].reset_index(drop=True)
        for ratio in EXACT_JUDGED:
            r = table.iloc[nearest_index(table.lambda_ratio, ratio)]
            exact_rows.append(results_file.exact(
                f"max |p_BIA - p_exact| at {_at(ratio)}, {EXACT_PIXELS} pixels from {pool_name}",
                float(r.max_error), float(r.tolerance), EXACT_RULE))
    observation = (f"an observation, not judged: the two top-{TOP_K} sets are the same in {same_sets} of "
                   f"{len(screening)} folds (and share at least {fold_overlap.min():.0%} of their pixels in the "
                   f"others), and the two classifiers score the same number of test images in {same_scores}")
    headline = [
        results_file.recorded("Lambda* = n(1 + p r)", facts["lambda_star"], note="the paper prints no value"),
        *[results_file.recorded(f"nested CV accuracy, {_described(name)}", est, note=_NOTES.get(
            name, "logistic regression on the top pixels, ranked inside each training fold"))
          for name, est in accuracy.items()],
        results_file.recorded(f"nested CV accuracy, BIA top {TOP_K} at Lambda* minus {OBSERVED}", observed,
                              note=OBSERVATION_NOTE),
        results_file.recorded(f"folds where the BIA top {TOP_K} at Lambda* is {OBSERVED}'s top {TOP_K}", same_sets,
                              note="folds of the nested CV (their number is in the inputs)"),
        results_file.recorded(f"folds where the BIA at Lambda* and {OBSERVED} score the same", same_scores,
                              note="folds of the nested CV with the same number of test images right"),
        *[results_file.ordering(f"nested CV accuracy, BIA top {TOP_K} at Lambda* minus {name}", diff, BIA_STAR, name)
          for name, diff in differences.items()],
        results_file.recorded(f"top-{TOP_K} overlap with correlation screening at Lambda*", at_star[overlap_col]),
        results_file.recorded("Spearman(posteriors at Lambda*, b^2)", at_star["Spearman with screening"]),
        results_file.recorded(f"largest Lambda/Lambda* where the BIA top {TOP_K} departs from screening",
                              departure if departure is not None else 0.0, note="0 = never on the path"),
        results_file.recorded(f"top-{TOP_K} overlap with correlation screening at the path's end",
                              at_deep[overlap_col]),
        *exact_rows,
    ]
    results_file.write(out_dir, "bia-notmnist", quick, {
        "data": SPEC, "source": "notMNIST (Bulatov 2011), 10k IDX sample (notmnist/t10k-*-idx*-ubyte.gz)",
        "samples_n": facts["samples_n"], "pixels_p": facts["pixels_p"], "family": "logistic", "top_k": TOP_K,
        "nested_cv": {**nested, "classifier": "LogisticRegression(C=1, max_iter=2000) on the raw top-k pixels"},
        "exact_check_pixels": EXACT_PIXELS}, headline)
    counts = {o: sum(results_file.outcome(r.verdict) == o for r in headline)
              for o in ("resolved", "not resolved", "holds", "fails")}
    judged = [r for r in headline if results_file.outcome(r.verdict) != "recorded"]
    random_test = RANDOM_TEST.format(random_sd=_fold_sd(cv, RANDOM), det_sd=" and ".join(
        f"{_fold_sd(cv, name):.3f}" for name in JUDGED if name != RANDOM), inflation=1 + repeats * CV_SPLITS
        * cv.test_train_ratio)
    verdict_lines = [
        f"**Verdict (computed; rules in the table at the end).** {len(judged)} rows carry a verdict. "
        f"The exact check holds at {counts['holds']} of {len(exact_rows)} (pool, Λ/Λ*) pairs"
        + (f" and fails at {counts['fails']}" if counts["fails"] else "")
        + f"; of the {len(differences)} comparisons of the BIA at Λ* with a baseline, judged as one family by "
        f"Holm's step-down procedure, {counts['resolved']} resolved and {counts['not resolved']} not resolved: "
        + "; ".join(f"{name}: {differences[name].format(3)} at {percent(differences[name].level)} "
                    f"({_direction(differences[name], name)})" for name in JUDGED)
        + f". Against {OBSERVED} the difference is {observed.format(3)}, {observation}.",
        "", plain, "",
        f"**Multiplicity.** One family is judged: the BIA at Λ* against {', '.join(JUDGED)}, by Holm's step-down "
        "procedure at 95% family-wise (each interval at the level Holm tests it at). The accuracies are recorded "
        "with 95% intervals and no verdict; the comparison with correlation screening is an observation; the "
        f"exact checks are {len(exact_rows)} checks of the mathematics against derived tolerances, not estimates."]
    train_size, test_size = int(cv.folds["n_train"].iloc[0]), int(cv.folds["n_test"].iloc[0])
    path = facts["path"]
    class_counts = facts["class_counts"]
    lines = [
        "# Fisher & Mehta Fig. 2: BIA on notMNIST B vs D",
        "",
        "Command: `python -m fsengine reproduce bia-notmnist" + (" --quick`" if quick else "`"),
        "",
        *verdict_lines,
        "",
        "**Choices made after seeing results** (this target's history): " + " ".join(CHOICES_AFTER_SEEING),
        "",
        f"Data: `{SPEC}` ({facts['source']}); {facts['samples_n']} images "
        f"({', '.join(f'{k} {v}' for k, v in class_counts.items())}), {facts['pixels_p']} pixels scaled to [0, 1] "
        "and standardised. Model: logistic regression, intercept matched to the class balance (Eq. 17), "
        "Gaussian prior N(0, 1/Λ) per pixel.",
        "",
        "## Set-up next to the paper",
        "",
        "n and p are inputs (`results.json`, `inputs`), not results.",
        "",
        "| quantity | paper | here |",
        "|---|---|---|",
        f"| samples n | 1000 (500 per letter) | {facts['samples_n']} |",
        f"| pixels p | 784 | {facts['pixels_p']} |",
        f"| RMS pixel correlation r | not printed | {facts['rms_correlation']:.4f} |",
        f"| Λ* = n(1 + p r) | not printed | {facts['lambda_star']:,.0f} |",
        f"| path step δε | 0.05/Λ* | 0.05/Λ* ({path['steps']} steps, Λ/Λ* from {path['ratio_max']:g} to "
        f"{path['ratio_min']:g}) |",
        f"| BIA fit (couplings + path + solve, numba warm; CPU time of one run) | not printed | "
        f"{facts['fit_cpu_seconds']:.2f} s |",
        "",
        "The mean-field update uses the fields and couplings derived in `fsengine/methods/bia/model.py` "
        "(b and H as sums over rows, Eq. 18-19): m_i = tanh(h_i + Σ_j J_ij m_j). The printed "
        "prefactor n²/(4Λ) is not used; the derivation is checked against exact enumeration in "
        "`tests/methods/bia/test_model.py` and below.",
        "",
        "## Fig. 2B: posteriors at Λ = Λ*",
        "",
        f"Posterior range {post.min():.4f} to {post.max():.4f} (median {np.median(post):.4f}); "
        f"{int((post > 0.5).sum())} of {facts['pixels_p']} pixels have p > 0.5. At Λ = Λ* the prior is "
        "still strong, so every posterior stays close to ½; the ranking is what selects. "
        f"At Λ/Λ* = {path['ratio_max']:g} every posterior is within {path['first_margin']:.4f} of ½, "
        f"at Λ/Λ* = {path['ratio_min']:g} (deep in the breakdown region) the largest is {path['last_max']:.3f}.",
        "",
        f"## Fig. 2A/2C: the top {TOP_K} pixels",
        "",
        "| rank | pixel (row, col) | posterior |",
        "|---|---|---|",
        *[f"| {i + 1} | ({rows[j]}, {cols[j]}) | {post[j]:.4f} |" for i, j in enumerate(top)],
        "",
        "The paper reports only that the red pixels \"agree well with our basic intuition about which "
        "pixels are important for distinguishing the letters B and D\". Here they form two groups: "
        f"{int(np.sum(cols[top] >= 22))} sit at the right edge of rows "
        f"{rows[top][cols[top] >= 22].min()}-{rows[top][cols[top] >= 22].max()}, where D's bowl is "
        "round but B has the notch between its two lobes, and "
        f"{int(np.sum(cols[top] < 22))} lie on B's middle bar (rows "
        f"{rows[top][cols[top] < 22].min() if np.any(cols[top] < 22) else '-'}-"
        f"{rows[top][cols[top] < 22].max() if np.any(cols[top] < 22) else '-'}), "
        "which D does not have. That description is not judged: any ranking by how much a pixel's ink "
        "differs between the letters would pass it, and at Λ* the BIA's ranking is that one "
        "(next section). What can be judged is whether the BIA's pixels classify better than "
        "simpler rankings' (below).",
        "",
        "## What the BIA adds over screening",
        "",
        f"At large Λ the fields h_i ∝ b_i² dominate (b_i ∝ corr(x_i, y) on standardised pixels), so the "
        f"BIA's ranking is correlation screening; the couplings only reorder it as Λ falls. Top {TOP_K} of "
        "the BIA against three simpler rankings (share of common pixels) and the Spearman correlation of "
        "the posteriors with b² (`baselines_along_path.csv`, `bia_baselines.html`; all images, exact "
        "descriptions of this fit):",
        "",
        "| Λ/Λ* | " + " | ".join(c.replace("|", "\\|") for c in agreement.columns if c != "lambda_ratio") + " |",
        "|---|" + "---|" * (agreement.shape[1] - 1),
        *["| " + " | ".join([f"{r.lambda_ratio:g}"] + [f"{v:.3f}" for v in r[1:]]) + " |"
          for r in agreement.itertuples(index=False)],
        "",
        plain,
        "",
        "## Do the BIA's pixels classify better? (nested cross-validation)",
        "",
        f"Stratified {CV_SPLITS}-fold cross-validation repeated {repeats} times (seed {CV_SEED}; "
        f"{train_size} training and {test_size} test images per fold). In every fold each ranking is computed "
        f"on the training images only (the BIA path with the settings above, the three baselines, {TOP_K} "
        f"random pixels drawn per fold), a logistic regression (scikit-learn defaults, C = 1) is fitted on "
        f"its top {TOP_K} raw pixels and scored on the test images (`nested_cv_folds.csv`). Intervals: "
        "corrected resampled t (Nadeau & Bengio 2003, for repeated k-fold as Bouckaert & Frank 2004: the "
        f"variance of the mean is (1/J + n_test/n_train) s² over J = {CV_SPLITS * repeats} folds) for each "
        "mean accuracy at 95%, and the same on the fold-paired differences from the deterministic rankings; "
        f"the {len(JUDGED)} judged differences at the levels Holm's step-down procedure tests them at. "
        + random_test + f" Across the folds the BIA's top {TOP_K} at Λ* shares "
        f"{fold_overlap.min():.0%} to {fold_overlap.max():.0%} of its pixels with screening's "
        f"(mean {fold_overlap.mean():.0%}).",
        "",
        "| ranking (inside each training fold) | accuracy [95% interval] | BIA at Λ* minus it [interval] |",
        "|---|---|---|",
        *[f"| {_described(name).replace('|', chr(92) + '|')} | {est.format(3)} | "
          + (f"{differences[name].format(3)} ({percent(differences[name].level)}, Holm)" if name in differences else
             f"{observed.format(3)} (95%, an observation)" if name == OBSERVED else "-") + " |"
          for name, est in accuracy.items()],
        "",
        "## Exact check on subproblems of the real data",
        "",
        f"For {EXACT_PIXELS} pixels the posterior over all 2^{EXACT_PIXELS} subsets is computed with the Laplace "
        "evidence at each subset's posterior mode (`fsengine/references/laplace_evidence.py`, "
        "scipy trust-exact) and compared with the BIA's mean field and with the exact marginals of "
        "the BIA's own Ising model (enumeration). Λ* is the subproblem's own.",
        "",
    ]
    for pool_name, check in checks.items():
        table = exact[exact["pool"] == pool_name]
        lines += [
            f"Pixels drawn from {pool_name}: {', '.join(check['pixels'])} (Λ* = {check['lambda_star']:,.0f})",
            "",
            "| Λ/Λ* | " + " | ".join(f"{r:g}" for r in table.lambda_ratio) + " |",
            "|---|" + "---|" * len(table),
            "| max \\|p_BIA − p_exact\\| | " + " | ".join(f"{e:.2e}" for e in table.max_error) + " |",
            "| max \\|p_Ising-exact − p_exact\\| | " + " | ".join(f"{e:.2e}" for e in table.ising_error) + " |",
            "| max \\|p_exact − ½\\| | " + " | ".join(f"{e:.3f}" for e in table.exact_margin) + " |",
            "| x = ε‖H‖ | " + " | ".join(f"{v:.3f}" for v in table.x) + " |",
            "| tolerance (derived) | " + " | ".join(f"{v:.2e}" for v in table.tolerance) + " |",
            "",
        ]
    lines += [
        f"Tolerance (judged at Λ/Λ* = {' and '.join(f'{r:g}' for r in EXACT_JUDGED)}; at Λ/Λ* < 1 the expansion is "
        "outside its range and x approaches 1). " + _tolerance_text(third_cumulant("logistic", facts["y_mean"])),
        "",
        "Files: `fig2a_path.html` (the path thinned to about 50 log-spaced steps for size), "
        "`fig2b_posterior.html`, `fig2c_top_pixels.html`, `posteriors_lambda_star.csv`, "
        "`nested_cv_folds.csv` (per fold and ranking: test images, correct predictions, overlap with the "
        "BIA's top k), `exact_check.csv` (per pool and Λ/Λ*: the errors and the tolerance's two terms), "
        "`run.json` (the data's sizes, the path's facts and the exact checks' pixels); the report and "
        "`results.json` are rendered from these (`fsengine.reproduce.bia.rerender`).",
        "",
    ]
    lines += ["## Headline numbers (`results.json`)", "", *results_file.markdown(headline), ""]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines))
    return report


#: a finished run's record with this code's statistics and words, from its raw files (a run renders its own
#: record the same way, so a run's outputs come back byte for byte)
rerender = render


def headline(out_dir: Path) -> str:
    """The record's headline on the results page: the committed full run, formatted from its ``results.json``."""
    data = results_file.read(Path(out_dir) / results_file.FILENAME)
    rows = {r["quantity"]: results_file.Row(**r) for r in data["rows"]}
    cv = data["inputs"]["nested_cv"]

    def est(q):
        return rows[q].estimate.format(3)

    def difference(name):
        r = rows[f"nested CV accuracy, BIA top {TOP_K} at Lambda* minus {name}"]
        if results_file.outcome(r.verdict) == "recorded":
            same = rows[f"folds where the BIA top {TOP_K} at Lambda* is {OBSERVED}'s top {TOP_K}"]
            score = rows[f"folds where the BIA at Lambda* and {OBSERVED} score the same"]
            return (f"minus {name} {r.estimate.format(3)} (an observation, not judged: the top-{TOP_K} sets are the "
                    f"same in {same.ours:.0f} of the {cv['splits'] * cv['repeats']} folds and score the same in "
                    f"{score.ours:.0f})")
        return (f"minus {name} {r.estimate.format(3)} at {percent(r.level)} "
                f"({_direction(r.estimate, name)})")

    star = rows[f"max |p_BIA - p_exact| at {_at(1.0)}, {EXACT_PIXELS} pixels from 40 highest posteriors"]
    checks = [r for q, r in rows.items() if q.startswith("max |p_BIA - p_exact|")]
    holding = sum(results_file.outcome(r.verdict) == "holds" for r in checks)
    return (f"Committed full run, nested {cv['splits']}-fold CV repeated {cv['repeats']} times (rankings inside each "
            f"training fold, logistic regression on the top {TOP_K} pixels; accuracies with 95% corrected resampled t "
            f"intervals): accuracy of the BIA at Λ* {est(f'nested CV accuracy, top {TOP_K} by {BIA_STAR}')}, L1 entry "
            f"order {est(f'nested CV accuracy, top {TOP_K} by {bl.L1_ENTRY}')}; the BIA "
            + "; ".join(difference(name) for name in (OBSERVED, *JUDGED))
            + f" (the {len(JUDGED)} judged as one family by Holm's step-down procedure; the random pixels by the plain "
            "paired t, as they are drawn independently in each fold). Exact check at Λ* (8 pixels from the 40 highest "
            f"posteriors): max |p_BIA - p_exact| {star.ours:.3g} against a tolerance of "
            f"{results_file.rule(star.verdict).split('<= ')[1].split(' ')[0]} derived from the expansion's neglected "
            f"eps^3 terms ({results_file.outcome(star.verdict)}; the check holds at "
            f"{'all ' if holding == len(checks) else ''}{holding} checked points).")
