"""One source of defaults: every registered method fitted with its defaults through the three
routes a user takes (the Python API, the app's registry route, ``fsengine select``) selects the
same features in the same order on the same data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from fsengine.cli import main
from fsengine.data import load_dataset
from fsengine.methods.adapt import adapt
from fsengine.methods.registry import METHODS, resolve
from fsengine.methods.run import fit_method

DATA = "synthetic_glm:n=120,p=8,k=3,seed=1"


@pytest.fixture(scope="module")
def ds():
    return load_dataset(DATA)


@pytest.mark.parametrize("key", list(METHODS))
def test_api_app_and_command_line_fit_the_same_model_by_default(key, ds, tmp_path):
    spec = METHODS[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny data: convergence notes are expected and the same on every route
        app = fit_method(spec, spec.defaults(), ds)  # what the Compare page runs with untouched widgets
        adapted = adapt(spec, ds)  # the data every route gives the method (binarised, two classes, ...)
        api = resolve(spec.factory)()  # the class with its own defaults, as a Python user writes it
        api.fit(adapted.ds.X, adapted.ds.y)
        assert main(["select", "--method", key, "--data", DATA, "--out", str(tmp_path / "out")]) == 0
    cli_order = pd.read_csv(tmp_path / "out" / "order.csv")["feature"].to_numpy()
    np.testing.assert_array_equal(app.selector.order_, api.order_)
    np.testing.assert_array_equal(cli_order, app.order)
    np.testing.assert_allclose(app.selector.scores_, api.scores_, equal_nan=True)
