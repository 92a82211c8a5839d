"""Where the BIA path stops being a mean-field solution (the page marks and hides those steps).

Reference: the damped self-consistent solver (a different algorithm, iterated to 1e-10) at the
same Lambda: on steps marked converged the path sits on its solution; on the steps marked
not converged the path misses the mean-field equations (residual computed here with numpy).
"""

import warnings

import numpy as np

from fsengine.data import load_dataset
from fsengine.data.transforms import class_names, two_classes
from fsengine.methods.bia.model import solve_mean_field
from fsengine.methods.bia.selector import BIASelector
from fsengine.methods.bia.study import RESIDUAL_TOL, run_bia_path


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
