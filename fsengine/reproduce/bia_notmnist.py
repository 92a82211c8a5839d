"""Reproduce Fisher & Mehta Fig. 2: BIA feature selection for logistic regression, notMNIST B vs D.

Writes ``fig2a_path.html``, ``fig2b_posterior.html``, ``fig2c_top_pixels.html``,
``posteriors_lambda_star.csv`` (every pixel's posterior at Lambda = Lambda*) and ``report.md``.
The report adds what the paper does not print: Lambda*, the posterior range, where the top
pixels sit, how well they classify, and an exact check of the BIA on small subproblems.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

from ..csv_export import to_csv
from ..data import load_dataset
from ..data.synthetic.glm import make_sparse_glm
from ..methods.bia_dataset import run_bia_path, sample_rows
from ..methods.bia_validation import check_subproblem, pick_features
from ..plots.bia import path_figure, posterior_heatmap, samples_with_top_pixels, top_features

SPEC = "notmnist:letters=BD,n_per_class=500,seed=0"
TOP_K = 20


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
    result = run_bia_path(ds, "logistic")
    seconds = time.perf_counter() - t0
    star = result.nearest_position(1.0)
    post = result.full_scores(star)
    top = top_features(post, TOP_K)
    rows, cols = np.divmod(np.arange(ds.n_features), ds.image_shape[1])

    progress(0.3, "figures")
    thin = result.path.iloc[sorted({result.nearest_position(r) for r in result.slider_ratios(50)})]
    _write(path_figure(thin, top_k=TOP_K, current_ratio=1.0, image_shape=ds.image_shape,
                       title="Fig. 2A: BIA path, notMNIST B vs D (logistic)"), out_dir / "fig2a_path.html")
    _write(posterior_heatmap(post, ds.image_shape, title="Fig. 2B: posterior at Λ/Λ* = 1"),
           out_dir / "fig2b_posterior.html")
    samples = sample_rows(ds.y, per_class=3, seed=0)
    _write(samples_with_top_pixels(ds.X[samples], ds.y[samples], ds.target_names, top, ds.image_shape,
                                   title=f"Fig. 2C: top {TOP_K} pixels at Λ = Λ*"),
           out_dir / "fig2c_top_pixels.html")
    order = np.argsort(-post, kind="stable")
    rank = np.empty(ds.n_features, dtype=int)
    rank[order] = np.arange(1, ds.n_features + 1)
    to_csv(pd.DataFrame({"pixel": ds.feature_names, "row": rows, "col": cols, "posterior": post,
                         "magnetization": 2 * post - 1, "rank": rank}),
           out_dir / "posteriors_lambda_star.csv", index=False, float_format="%.6f")

    progress(0.4, "classification check")
    rng = np.random.default_rng(0)
    acc_top = _cv_accuracy(ds.X[:, top], ds.y)
    acc_rand = [_cv_accuracy(ds.X[:, rng.choice(ds.n_features, TOP_K, replace=False)], ds.y)
                for _ in range(2 if quick else 10)]
    acc_all = None if quick else _cv_accuracy(ds.X, ds.y)

    checks = []
    n_check = 5 if quick else 8
    for i, (pool_name, pool) in enumerate((("all pixels", None),
                                           ("40 highest posteriors", top_features(post, 40)))):
        progress(0.5 + 0.25 * i, f"exact check on {n_check} pixels drawn from {pool_name}")
        feats = pick_features(ds.X, n_check, seed=1, candidates=pool)
        checks.append((pool_name, check_subproblem(ds.X, ds.y, "logistic", feats, ds.feature_names)))

    progress(0.95, "report")
    path = result.path
    ratios = path.index.to_numpy()
    lines = [
        "# Fisher & Mehta Fig. 2: BIA on notMNIST B vs D",
        "",
        "Command: `python -m fsengine reproduce bia-notmnist" + (" --quick`" if quick else "`"),
        "",
        f"Data: `{SPEC}` ({ds.provenance.source}); {ds.n_samples} images "
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
        "The mean-field update uses the fields and couplings derived in `fsengine/methods/bia.py` "
        "(b and H as sums over rows, Eq. 18-19): m_i = tanh(h_i + Σ_j J_ij m_j). The printed "
        "prefactor n²/(4Λ) is not used; the derivation is checked against exact enumeration in "
        "`tests/test_bia_exact.py` and below.",
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
        "which D does not have. This matches the paper's description.",
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
    report = out_dir / "report.md"
    report.write_text("\n".join(lines))
    progress(1.0, "done")
    return report
