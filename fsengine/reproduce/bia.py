"""Reproduce Fisher & Mehta Fig. 2: BIA feature selection for logistic regression, notMNIST B vs D.

Writes ``fig2a_path.html``, ``fig2b_posterior.html``, ``fig2c_top_pixels.html``,
``posteriors_lambda_star.csv`` (every pixel's posterior at Lambda = Lambda*), ``bia_baselines.html``
and ``baselines_along_path.csv`` (the BIA's top 20 against correlation screening, the L1 entry
order and logistic |coef| along the path), ``results.json`` and ``report.md``. The report adds
what the paper does not print: Lambda*, the posterior range, where the top pixels sit (judged by
a stated rule), how well they classify next to the baselines, where the BIA departs from
screening, and an exact check of the BIA on small subproblems.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

from fsengine import ranking
from fsengine.csv_export import to_csv
from fsengine.data import load_dataset
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.methods.bia import baselines as bl
from fsengine.methods.bia.study import run_bia_path, sample_images
from fsengine.methods.bia.validation import check_subproblem, pick_features
from fsengine.plots.bia import agreement_figure, path_figure, posterior_heatmap, samples_with_top_pixels
from fsengine.position import Position, nearest_index
from fsengine.progress import scaled
from fsengine.reproduce import results as results_file

SPEC = "notmnist:letters=BD,n_per_class=500,seed=0"
TOP_K = 20
#: Lambda/Lambda* values of the baseline comparison along the path
AGREEMENT_RATIOS = (20, 10, 5, 3, 2, 1.5, 1, 0.7, 0.5, 0.3, 0.2, 0.15, 0.1)
#: the paper's claim that the top pixels "agree with intuition" is judged by this rule: at least
#: SHARE_RULE of the top 20 lie among the DISCRIMINATIVE_FRACTION of pixels with the largest
#: |mean(B) - mean(D)| (the pixels whose ink differs most between the letters)
DISCRIMINATIVE_FRACTION, SHARE_RULE = 0.10, 0.9
#: the exact check: |p_BIA - p_exact| at Lambda/Lambda* = 10 must be below this
EXACT_TOL = 1e-3


def _write(fig, path: Path) -> None:
    fig.write_html(path, include_plotlyjs="cdn", full_html=True)


def _cv_accuracy(X, y) -> float:
    clf = LogisticRegression(max_iter=2000)
    return float(cross_val_score(clf, X, y, cv=5).mean())


def run(out_dir: Path, quick: bool, progress) -> Path:
    """Fig. 2 panels, the posterior CSV and the report (``quick``: smaller exact checks)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress(0.02, "loading notMNIST B vs D")
    ds = load_dataset(SPEC)
    progress(0.1, "BIA path")
    run_bia_path(make_sparse_glm("logistic", n=50, p=5), "logistic", n_steps=5)  # numba warm-up
    t0 = time.perf_counter()
    result = run_bia_path(ds, "logistic", progress=scaled(progress, 0.1, 0.3))
    seconds = time.perf_counter() - t0
    star = result.position(1.0)
    post = result.full_scores(star)
    top = ranking.top_k(post, TOP_K)
    rows, cols = np.divmod(np.arange(ds.n_features), ds.image_shape[1])

    progress(0.3, "figures")
    thin = result.path.iloc[sorted(pos.index for pos in result.slider_positions(50))]
    _write(path_figure(thin, position=Position.nearest(thin.index, 1.0), top_k=TOP_K, image_shape=ds.image_shape,
                       title="Fig. 2A: BIA path, notMNIST B vs D (logistic)"), out_dir / "fig2a_path.html")
    _write(posterior_heatmap(post, ds.image_shape, title="Fig. 2B: posterior at Λ/Λ* = 1"),
           out_dir / "fig2b_posterior.html")
    images, labels, names = sample_images(ds, per_class=3, seed=0)
    _write(samples_with_top_pixels(images, labels, names, top, ds.image_shape,
                                   title=f"Fig. 2C: top {TOP_K} pixels at Λ = Λ*"),
           out_dir / "fig2c_top_pixels.html")
    rank = ranking.ranks_from_order(ranking.order_from(post))
    to_csv(pd.DataFrame({"pixel": ds.feature_names, "row": rows, "col": cols, "posterior": post,
                         "magnetization": 2 * post - 1, "rank": rank}),
           out_dir / "posteriors_lambda_star.csv", index=False, float_format="%.6f")

    progress(0.4, "classification check")
    rng = np.random.default_rng(0)
    acc_top = _cv_accuracy(ds.X[:, top], ds.y)
    acc_rand = [_cv_accuracy(ds.X[:, rng.choice(ds.n_features, TOP_K, replace=False)], ds.y)
                for _ in range(2 if quick else 10)]
    acc_all = None if quick else _cv_accuracy(ds.X, ds.y)

    diff = np.abs(ds.X[ds.y == 0].mean(axis=0) - ds.X[ds.y == 1].mean(axis=0))
    discriminative = set(ranking.top_k(diff, int(round(DISCRIMINATIVE_FRACTION * ds.n_features))).tolist())
    share = float(np.mean([j in discriminative for j in top]))

    progress(0.45, "baselines: correlation screening, L1 entry order, logistic |coef|")
    baselines = bl.baseline_orders(ds.X, ds.y)
    agreement = bl.path_agreement(result.full_path(), baselines, TOP_K, AGREEMENT_RATIOS)
    to_csv(agreement, out_dir / "baselines_along_path.csv", index=False, float_format="%.4f")
    departure = bl.departure_ratio(agreement)
    _write(agreement_figure(agreement, TOP_K, departure, title=f"BIA top {TOP_K} vs simpler rankings along the path"),
           out_dir / "bia_baselines.html")
    rankings = {"BIA at Λ*": result.full_scores(star),
                "BIA at the path's end": result.full_scores(result.position(min(AGREEMENT_RATIOS)))}
    rankings.update(baselines)
    acc_rank = bl.top_k_accuracy(ds.X, ds.y, rankings, TOP_K)
    at_star = agreement.iloc[nearest_index(agreement.lambda_ratio, 1.0)]
    at_deep = agreement.iloc[-1]

    checks = []
    n_check = 5 if quick else 8
    for i, (pool_name, pool) in enumerate((("all pixels", None),
                                           ("40 highest posteriors", ranking.top_k(post, 40)))):
        progress(0.5 + 0.25 * i, f"exact check on {n_check} pixels drawn from {pool_name}")
        feats = pick_features(ds.X, n_check, seed=1, candidates=pool)
        checks.append((pool_name, check_subproblem(ds.X, ds.y, "logistic", feats, ds.feature_names)))

    progress(0.95, "report")
    overlap_col = f"overlap with {bl.SCREENING}"
    plain = (f"Plainly: at Λ = Λ* the BIA's top {TOP_K} shares {at_star[overlap_col]:.0%} of its pixels with "
             f"correlation screening (Spearman {at_star['Spearman with screening']:.4f} with b²): there the BIA "
             "*is* correlation screening. "
             + (f"Its top {TOP_K} first departs from screening's at Λ/Λ* = {departure:g}"
                if departure is not None else f"Its top {TOP_K} never departs from screening's on the path")
             + f"; at Λ/Λ* = {at_deep.lambda_ratio:g} the overlap is {at_deep[overlap_col]:.0%}. The couplings "
             "matter only below Λ*, i.e. lower down the path.")
    bia_star = acc_rank["BIA at Λ*"]
    best_base = max(acc_rank[name] for name in baselines)
    ising10 = [c.max_error[c.position(10.0).index] for _, c in checks]
    headline = [
        results_file.within("samples n", ds.n_samples, 1000, 0),
        results_file.within("pixels p", ds.n_features, 784, 0),
        results_file.recorded("Lambda* = n(1 + p r)", result.lambda_star, note="the paper prints no value"),
        results_file.at_least(f"share of the top {TOP_K} among the {DISCRIMINATIVE_FRACTION:.0%} most "
                              "discriminative pixels (|mean(B) - mean(D)|)", share, SHARE_RULE,
                              rule=f"ours >= {SHARE_RULE} (the paper: the pixels 'agree with intuition')"),
        results_file.recorded(f"accuracy, BIA top {TOP_K} at Lambda*", acc_top),
        results_file.Row(f"accuracy gain of the BIA top {TOP_K} over random pixels", None,
                         acc_top - float(np.mean(acc_rand)),
                         results_file.judge(acc_top > np.mean(acc_rand), "ours > 0")),
        results_file.recorded(f"top-{TOP_K} overlap with correlation screening at Lambda*", at_star[overlap_col]),
        results_file.recorded("Spearman(posteriors at Lambda*, b^2)", at_star["Spearman with screening"]),
        results_file.recorded(f"largest Lambda/Lambda* where the BIA top {TOP_K} departs from screening",
                              departure if departure is not None else 0.0, note="0 = never on the path"),
        results_file.recorded(f"top-{TOP_K} overlap with correlation screening at the path's end",
                              at_deep[overlap_col]),
        *[results_file.recorded(f"accuracy, top {TOP_K} by {name}", acc) for name, acc in acc_rank.items()],
        results_file.Row(f"accuracy, BIA top {TOP_K} at Lambda* minus the best baseline", None, bia_star - best_base,
                         results_file.judge(bia_star >= best_base,
                                            "ours >= 0 (the BIA's top pixels classify at least as well)")),
        *[results_file.Row(f"max |p_BIA - p_exact| at Lambda/Lambda* = 10, pixels from {pool}", None, float(e),
                           results_file.judge(e <= EXACT_TOL, f"ours <= {EXACT_TOL:g}"))
          for (pool, _), e in zip(checks, ising10)],
    ]
    results_file.write(out_dir, "bia-notmnist", quick, {
        "data": SPEC, "source": "notMNIST (Bulatov 2011), 10k IDX sample (notmnist/t10k-*-idx*-ubyte.gz)",
        "family": "logistic", "top_k": TOP_K, "exact_check_pixels": n_check, "random_draws": len(acc_rand)}, headline)
    failed = [r.quantity for r in headline if results_file.outcome(r.verdict) == "fails"]
    verdict_lines = [
        f"**Verdict (computed; rules in the table at the end).** {len(headline) - len(failed)} of {len(headline)} rows "
        "hold or are recorded" + (f"; fails: {'; '.join(failed)}." if failed else "; none fails."),
        "", plain]
    path = result.path
    ratios = path.index.to_numpy()
    lines = [
        "# Fisher & Mehta Fig. 2: BIA on notMNIST B vs D",
        "",
        "Command: `python -m fsengine reproduce bia-notmnist" + (" --quick`" if quick else "`"),
        "",
        *verdict_lines,
        "",
        f"Data: `{SPEC}` ({results_file.public(ds.provenance.source)}); {ds.n_samples} images "
        f"({', '.join(f'{k} {v}' for k, v in ds.class_counts().items())}), {ds.n_features} pixels scaled to [0, 1] "
        "and standardised. Model: logistic regression, intercept matched to the class balance (Eq. 17), "
        "Gaussian prior N(0, 1/Λ) per pixel.",
        "",
        "## Set-up next to the paper",
        "",
        "| quantity | paper | here |",
        "|---|---|---|",
        f"| samples n | 1000 (500 per letter) | {ds.n_samples} |",
        f"| pixels p | 784 | {ds.n_features} |",
        f"| RMS pixel correlation r | not printed | {result.rms_correlation:.4f} |",
        f"| Λ* = n(1 + p r) | not printed | {result.lambda_star:,.0f} |",
        f"| path step δε | 0.05/Λ* | 0.05/Λ* ({len(path)} steps, Λ/Λ* from {ratios.max():g} to {ratios.min():g}) |",
        f"| BIA fit (couplings + path + solve, numba warm) | not printed | {seconds:.2f} s |",
        "",
        "The mean-field update uses the fields and couplings derived in `fsengine/methods/bia/model.py` "
        "(b and H as sums over rows, Eq. 18-19): m_i = tanh(h_i + Σ_j J_ij m_j). The printed "
        "prefactor n²/(4Λ) is not used; the derivation is checked against exact enumeration in "
        "`tests/methods/bia/test_model.py` and below.",
        "",
        "## Fig. 2B: posteriors at Λ = Λ*",
        "",
        f"Posterior range {post.min():.4f} to {post.max():.4f} (median {np.median(post):.4f}); "
        f"{int((post > 0.5).sum())} of {ds.n_features} pixels have p > 0.5. At Λ = Λ* the prior is "
        "still strong, so every posterior stays close to ½; the ranking is what selects. "
        f"At Λ/Λ* = {ratios.max():g} every posterior is within {np.abs(path.iloc[0] - 0.5).max():.4f} of ½, "
        f"at Λ/Λ* = {ratios.min():g} (deep in the breakdown region) the largest is "
        f"{path.iloc[-1].max():.3f}.",
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
        f"which D does not have. Judged by a rule (at least {SHARE_RULE:.0%} of the top {TOP_K} among the "
        f"{DISCRIMINATIVE_FRACTION:.0%} of pixels with the largest |mean(B) − mean(D)|): {share:.0%} of them are, "
        f"so the description {'holds' if share >= SHARE_RULE else 'does not hold'} here.",
        "",
        "Do the pixels carry the class? 5-fold cross-validated accuracy of a logistic regression "
        "(scikit-learn defaults, C = 1) on the raw pixels:",
        "",
        "| features | accuracy |",
        "|---|---|",
        f"| BIA top {TOP_K} at Λ* | {acc_top:.3f} |",
        f"| {TOP_K} random pixels (mean of {len(acc_rand)} draws) | {np.mean(acc_rand):.3f} |",
        f"| all {ds.n_features} pixels | {'skipped (--quick)' if acc_all is None else f'{acc_all:.3f}'} |",
        "",
        "## What the BIA adds over screening",
        "",
        f"At large Λ the fields h_i ∝ b_i² dominate (b_i ∝ corr(x_i, y) on standardised pixels), so the "
        f"BIA's ranking is correlation screening; the couplings only reorder it as Λ falls. Top {TOP_K} of "
        "the BIA against three simpler rankings (share of common pixels) and the Spearman correlation of "
        "the posteriors with b² (`baselines_along_path.csv`, `bia_baselines.html`):",
        "",
        "| Λ/Λ* | " + " | ".join(c.replace("|", "\\|") for c in agreement.columns if c != "lambda_ratio") + " |",
        "|---|" + "---|" * (agreement.shape[1] - 1),
        *["| " + " | ".join([f"{r.lambda_ratio:g}"] + [f"{v:.3f}" for v in r[1:]]) + " |"
          for r in agreement.itertuples(index=False)],
        "",
        plain,
        "",
        f"5-fold accuracy (logistic regression, defaults) on the top {TOP_K} of each ranking (rankings "
        "computed on all images, as the BIA's):",
        "",
        "| ranking | accuracy |",
        "|---|---|",
        *[f"| {name.replace('|', chr(92) + '|')} | {acc:.3f} |" for name, acc in acc_rank.items()],
        "",
        "## Exact check on subproblems of the real data",
        "",
        f"For {n_check} pixels the posterior over all 2^{n_check} subsets is computed with the Laplace "
        "evidence at each subset's posterior mode (`fsengine/references/laplace_evidence.py`, "
        "scipy trust-exact) and compared with the BIA's mean field and with the exact marginals of "
        "the BIA's own Ising model (enumeration). Λ* is the subproblem's own.",
        "",
    ]
    for pool_name, check in checks:
        ising_err = np.abs(check.ising - check.exact).max(axis=1)
        lines += [
            f"Pixels drawn from {pool_name}: {', '.join(check.feature_names)} (Λ* = {check.lambda_star:,.0f})",
            "",
            "| Λ/Λ* | " + " | ".join(f"{r:g}" for r in check.ratios) + " |",
            "|---|" + "---|" * len(check.ratios),
            "| max \\|p_BIA − p_exact\\| | " + " | ".join(f"{e:.2e}" for e in check.max_error) + " |",
            "| max \\|p_Ising-exact − p_exact\\| | " + " | ".join(f"{e:.2e}" for e in ising_err) + " |",
            "| max \\|p_exact − ½\\| | " + " | ".join(f"{e:.3f}" for e in np.abs(check.exact - 0.5).max(axis=1)) + " |",
            "",
        ]
    lines += [
        "Files: `fig2a_path.html` (the path thinned to about 50 log-spaced steps for size), "
        "`fig2b_posterior.html`, `fig2c_top_pixels.html`, `posteriors_lambda_star.csv`.",
        "",
    ]
    lines += ["## Headline numbers (`results.json`)", "", *results_file.markdown(headline), ""]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines))
    progress(1.0, "done")
    return report

