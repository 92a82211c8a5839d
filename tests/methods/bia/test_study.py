"""The BIA study (fsengine.methods.bia.study): the path of a dataset, its positions, and what the
page and the reproduction say about it.

Convergence reference: the damped self-consistent solver (a different algorithm, iterated to
1e-10) at the same Lambda: on steps marked converged the path sits on its solution; on the steps
marked not converged the path misses the mean-field equations (residual computed here with numpy).
Positions, top sets, shares and overlaps are recomputed here by hand (loops, sorting, np.corrcoef).
"""

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from fsengine.data import load_dataset
from fsengine.data.synthetic.glm import make_sparse_glm
from fsengine.data.transforms import class_names, two_classes
from fsengine.methods.bia import study
from fsengine.methods.bia.model import solve_mean_field
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.bia.study import RESIDUAL_TOL, run_bia_path
from fsengine.position import Position


def _digits_01():
    ds = load_dataset("digits")
    names = class_names(ds)
    return two_classes(ds, names[0], names[1])


def test_converged_steps_match_the_damped_solution_and_the_rest_miss_the_equations():
    ds = _digits_01()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_bia_path(ds, "logistic", exclude_constant=True)
        sel = BIASelector(family="logistic").fit(ds.X[:, result.features], ds.y)
    ok = result.converged
    ratios = result.path.index.to_numpy()
    assert 20 < ok.sum() < ok.size  # digits 0 vs 1: converged at large Lambda, oscillating below
    assert (ratios[ok].min() > ratios[~ok].max())  # one boundary: everything below it is marked
    M = 2 * result.path.to_numpy() - 1
    model = sel.model_
    for k in np.flatnonzero(ok)[::10]:
        sol = solve_mean_field(model.fields(ratios[k]), model.couplings, m0=M[k],
                               scale=model.coupling_scale(ratios[k]), damping=0.05, tol=1e-10,
                               max_iter=50_000)
        assert sol.converged and np.abs(sol.m - M[k]).max() < 0.1, (ratios[k], np.abs(sol.m - M[k]).max())
    bad = np.flatnonzero(~ok)
    for k in bad[::10]:
        h = model.fields(ratios[k])
        residual = np.abs(M[k] - np.tanh(h + model.coupling_scale(ratios[k]) * model.couplings @ M[k])).max()
        assert residual > RESIDUAL_TOL or k > bad[0]  # the first marked step misses; later ones follow it


def test_a_path_above_lambda_star_is_all_converged():
    result = run_bia_path(_digits_01(), "logistic", n_steps=20, exclude_constant=True)  # Lambda/Lambda* 20 to 1
    assert result.converged.all()
    assert result.trace["fixed_point_residual"].max() < RESIDUAL_TOL


# --- positions on the path ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def digits():
    """Digits 0 vs 1 (8 x 8 pixels, 12 constant ones excluded), a 200-step path."""
    ds = _digits_01()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ds, run_bia_path(ds, "logistic", exclude_constant=True)


def _nearest_by_hand(grid, value):
    distances = [abs(math.log(g / value)) for g in grid]
    return distances.index(min(distances))


def test_a_position_is_the_nearest_row_on_a_log_scale_and_must_belong_to_the_path(digits):
    _, result = digits
    grid = result.path.index.to_numpy()
    for value in (20.0, 3.3, 1.0, 0.77, 0.1, 1e-3, 1e3):
        pos = result.position(value)
        assert pos.index == _nearest_by_hand(grid, value) and pos.value == grid[pos.index]
    pos = result.position(1.0)
    np.testing.assert_array_equal(result.scores_at(pos), result.path.iloc[pos.index].to_numpy())
    with pytest.raises(ValueError, match="not a position on this grid"):
        result.scores_at(Position(pos.index, 1.5))  # an index with another path's value
    with pytest.raises(ValueError, match="not a position on this grid"):
        result.scores_at(Position(len(grid), 0.05))


def test_slider_positions_are_log_spaced_path_rows_with_lambda_star(digits):
    _, result = digits
    grid = result.path.index.to_numpy()
    positions = result.slider_positions()
    values = [p.value for p in positions]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert all(grid[p.index] == p.value for p in positions)
    assert result.position(1.0) in positions and 40 <= len(positions) <= 61  # large ratios: steps are coarse
    assert values[0] == grid.min() and values[-1] == grid.max()
    gaps = np.diff(np.log10(values))
    even = np.log10(grid.max() / grid.min()) / 59
    assert gaps[np.asarray(values[1:]) < 1].max() < 1.5 * even  # even on the log axis where the path is fine
    assert result.slider_ratios(25) == [p.value for p in result.slider_positions(25)]


def test_full_scores_path_and_top_features_map_back_to_dataset_columns(digits):
    ds, result = digits
    assert result.excluded.size == 12 and np.isin(result.excluded, result.features).sum() == 0
    pos = result.position(2.0)
    full = result.full_scores(pos)
    assert np.isnan(full[result.excluded]).all() and np.isfinite(np.delete(full, result.excluded)).all()
    np.testing.assert_array_equal(full[result.features], result.scores_at(pos))
    whole = result.full_path()
    assert whole.shape == (200, 64) and list(whole.columns) == list(range(64))
    np.testing.assert_array_equal(whole.iloc[pos.index].to_numpy(), full)
    by_hand = sorted(range(64), key=lambda j: (-full[j] if np.isfinite(full[j]) else np.inf, j))[:7]
    assert result.top_features(pos, 7).tolist() == by_hand


def test_convergence_limit_is_the_largest_unconverged_ratio(digits):
    _, result = digits
    ok = result.converged
    assert result.convergence_limit == result.path.index[~ok].max() and result.convergence_limit < 1.0
    short = run_bia_path(_digits_01(), "logistic", n_steps=20, exclude_constant=True)
    assert short.convergence_limit is None


# --- what the page says ------------------------------------------------------------------------

def test_ratio_labels_are_short_and_distinct_and_spreads_show_the_difference():
    assert study.ratio_labels([0.1, 0.10050251256281408, 20.0]) == {0.1: "0.1", 0.10050251256281408: "0.101",
                                                                     20.0: "20"}
    assert study.ratio_labels([0.1, 0.1001, 20.0]) == {0.1: "0.1", 0.1001: "0.1001", 20.0: "20"}  # 4 digits
    assert study.value_spread(0.49812, 0.50321) == "0.498 to 0.503"
    assert study.value_spread(0.49991, 0.49996) == "0.4999 to 0.5000"
    assert study.value_spread(0.49991, 0.49992) == "0.4999 to 0.4999"  # at most 4 decimals
    assert study.value_spread(0.1, 0.9) == "0.10 to 0.90"


def test_paths_caption_states_the_spread_at_the_largest_lambda_and_where_convergence_ends(digits):
    _, result = digits
    first = result.path.loc[result.path.index.max()].to_numpy()
    text = study.paths_caption(result, "posterior", "logistic")
    assert f"{first.min():.2f}" != f"{first.max():.2f}"  # two decimals tell the ends apart here
    spread = f"{first.min():.2f} to {first.max():.2f}"
    assert f"at the largest Λ/Λ* = 20 the prior dominates and every posterior lies within {spread}" in text
    assert "(the prior alone gives ½)" in text
    assert f"Below Λ/Λ* = {result.convergence_limit:.3g} the mean-field recursion itself does not converge" in text
    mag = study.paths_caption(result, "magnetization", "poisson")
    assert f"every magnetization lies within {2 * first.min() - 1:.2f} to" in mag and "gives 0)" in mag
    assert mag.endswith("the breakdown begins near mean(y)·Λ* when mean(y) > 1.")


def test_pixels_caption_measures_the_share_among_the_most_different_pixels(digits):
    ds, result = digits
    pos = result.position(1.0)
    top = result.top_features(pos, 6)
    X = ds.dense_X()
    diff = np.abs(X[ds.y == ds.y.min()].mean(0) - X[ds.y == ds.y.max()].mean(0))
    strong = {j for j in range(64) if diff[j] >= np.percentile(diff, 75)}  # the quarter that differs most
    assert len(strong) == 16
    share = sum(j in strong for j in top) / 6
    assert study.discriminative_share(ds, top) == pytest.approx(share)
    names = ds.target_names
    assert study.pixels_caption(ds, top, pos) == (
        f"Red squares mark the top 6 pixels at Λ/Λ* = {pos.value:.3g}: {share:.0%} of them lie in the quarter of "
        f"pixels where the mean images of {names[0]} and {names[1]} differ most (chance: 25%).")
    three = load_dataset("digits")
    assert study.pixels_caption(three, top, pos) is None  # ten classes: no two means to compare


def test_sample_images_constant_features_and_check_features(digits):
    ds, result = digits
    images, labels, names = study.sample_images(ds, per_class=3, seed=0)
    assert images.shape == (6, 64) and sorted(labels.tolist()) == [0, 0, 0, 1, 1, 1]
    assert list(names) == list(ds.target_names)
    np.testing.assert_array_equal(images, ds.X[study.sample_rows(ds.y, 3, 0)])
    n, text = study.constant_features(ds, shown=3)
    assert n == 12 and text == ", ".join(ds.feature_names[j] for j in result.excluded[:3]) + " ..."
    everywhere = study.check_features(ds, result, 5, seed=1, from_top=False)
    from_top = study.check_features(ds, result, 5, seed=1, from_top=True)
    top40 = set(result.top_features(result.position(1.0), study.CHECK_POOL).tolist())
    assert len(from_top) == 5 and set(from_top) <= top40 and list(from_top) == sorted(from_top)
    assert set(everywhere) <= set(result.features.tolist()) and everywhere != from_top
    assert study.check_features(ds, result, 5, seed=1, from_top=False) == everywhere  # reproducible


def test_screening_comparison_matches_a_hand_count(digits):
    ds, result = digits
    comparison = study.screening_comparison(ds, result, top_k=6)
    X = ds.dense_X()[:, result.features]
    corr = np.array([abs(np.corrcoef(X[:, j], ds.y)[0, 1]) for j in range(X.shape[1])])
    star = result.position(1.0)
    bia_top = set(np.argsort(-result.scores_at(star), kind="stable")[:6])
    screening_top = set(np.argsort(-corr, kind="stable")[:6])
    assert comparison.overlap_at_star == len(bia_top & screening_top) / 6
    rows = comparison.agreement
    assert rows.lambda_ratio.tolist() == sorted(result.slider_ratios(25), reverse=True)
    assert comparison.departure == (rows.lambda_ratio[rows["overlap with correlation screening"] < 1].max()
                                    if (rows["overlap with correlation screening"] < 1).any() else None)
    text = comparison.caption()
    assert f"shares **{comparison.overlap_at_star:.0%}** of its features with the top 6 by |corr(x, y)|" in text
    assert f"(Spearman {comparison.spearman_at_star:.4f} between posteriors and b²)" in text
    assert study.screening_skipped(result) is None


def test_screening_is_skipped_above_the_cell_budget(monkeypatch, digits):
    _, result = digits
    monkeypatch.setattr(study, "MAX_SCREENING_CELLS", 1000)
    assert study.screening_skipped(result) == f"Skipped for {result.n_samples:,} x 52 features (more than 1,000 cells)."


def test_sparse_data_gives_the_dense_path():
    ds = make_sparse_glm("logistic", n=150, p=8, k=2, seed=4)
    dense = run_bia_path(ds, "logistic", n_steps=30)
    sparse = run_bia_path(replace(ds, X=sp.csr_matrix(ds.X)), "logistic", n_steps=30)
    assert list(sparse.path.columns) == list(ds.feature_names)
    np.testing.assert_allclose(sparse.path.to_numpy(), dense.path.to_numpy(), atol=1e-10)
