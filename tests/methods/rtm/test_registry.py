"""The RTM in the method registry: "auto" prior from the tags per object, one set of defaults for
the command line, the app and the class, sweep progress, the comparison's ROC against the known
relevant tags, and the figures of ``fsengine select``."""

import inspect
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score

from fsengine.cli import main
from fsengine.compare.runner import CompareSettings, run_comparison
from fsengine.data import load_dataset
from fsengine.methods.registry import get_method, method_defaults
from fsengine.methods.run import fit_method
from fsengine.selectors import RTMClassifier, RTMSelector
from tests.conftest import PROJECT_ROOT


def _tags(n, d, per_object, seed):
    """n objects, each carrying exactly ``per_object`` of d tags; the class follows tag 0."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    for i in range(n):
        X[i, rng.choice(d, per_object, replace=False)] = 1
    y = (rng.random(n) < np.where(X[:, 0] == 1, 0.9, 0.4)).astype(int)
    return sp.csr_matrix(X), y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("per_object, alpha0, inner", [(10, 5.0, 0.5), (120, 20.0, 0.8)])
def test_auto_prior_follows_tags_per_object(per_object, alpha0, inner):
    X, y = _tags(60, 200, per_object, seed=0)
    clf = RTMClassifier(method="em", max_iter=5).fit(X, y)
    assert (clf.alpha0_, clf.inner_damping_) == (alpha0, inner)
    assert np.all(clf.alpha_ == alpha0)  # the fixed prior factor uses the resolved strength
    fixed = RTMClassifier(method="em", alpha0=7.0, inner_damping=0.3, max_iter=5).fit(X, y)
    assert (fixed.alpha0_, fixed.inner_damping_) == (7.0, 0.3)
    with pytest.raises(ValueError, match="alpha0"):
        RTMClassifier(alpha0="big").fit(X, y)


def test_registry_entry_is_the_class_with_auto_prior_and_reports_sweeps():
    spec = get_method("rtm")
    assert spec.factory == "fsengine.selectors:RTMSelector"  # no adapter function
    assert spec.build().alpha0 == "auto" and spec.build({"alpha0": 12.0}).alpha0 == 12.0
    assert spec.parse(["alpha0=auto"])["alpha0"] == "auto" and spec.parse(["alpha0=7.5"])["alpha0"] == 7.5
    with pytest.raises(ValueError, match="alpha0=0.0: must be at least 1.0"):
        spec.parse(["alpha0=0"])  # no magic number: "auto" is spelled out
    assert spec.needs.two_classes and spec.needs.binary_features
    ds = load_dataset("synthetic_rtm", n_samples=400, n_tags=80, n_relevant=8, seed=1)
    seen = []
    fit = fit_method("rtm", {"method": "em"}, ds, progress=lambda f, m: seen.append((f, m)))
    assert seen[0] == (0.0, "fitting on 400 rows x 80 features")  # fit_method's announcement
    assert seen[1] == (0.0, "starting EM (at most 300 sweeps)")  # the fit in its own words: the caller names RTM
    assert seen[2][0] == 1 / 300 and seen[2][1].startswith("EM sweep 1 of at most 300, max change ")
    assert [f for f, _ in seen] == sorted(f for f, _ in seen) and seen[-1][0] == 1.0
    assert fit.notes == ()  # converged: no ConvergenceWarning note
    np.testing.assert_allclose(fit.scores, fit.selector.model_.relevance_)
    assert roc_auc_score(ds.truth, fit.scores) == pytest.approx(0.8264, abs=0.005)  # 8 relevant among 80, deterministic


@pytest.mark.parametrize("cls", [RTMSelector, RTMClassifier])
def test_class_defaults_are_the_registry_defaults(cls):
    signature = inspect.signature(cls)
    assert {name: signature.parameters[name].default for name in method_defaults("rtm")} == method_defaults("rtm")
    assert method_defaults("rtm") == {"method": "power_ep", "alpha0": "auto", "ard": False, "max_iter": 300}


DEFAULTS_DATA = "synthetic_rtm:n_samples=300,n_tags=40,n_relevant=5,seed=4"


def _select_in_process(out):
    assert main(["select", "--method", "rtm", "--data", DEFAULTS_DATA, "--out", str(out)]) == 0


def _select_in_a_subprocess(out):
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "fsengine", "select", "--method", "rtm", "--data", DEFAULTS_DATA,
                           "--out", str(out)], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("select", [_select_in_process,
                                    pytest.param(_select_in_a_subprocess, marks=pytest.mark.slow)],
                         ids=["main", "python -m fsengine"])
def test_command_line_app_and_class_select_the_same_by_default(tmp_path, select):
    """Issue 21's done-criterion: ``python -m fsengine select --method rtm`` (in this process, and
    as a real subprocess), the app's route (the registry's defaults through ``fit_method``, what
    the Compare page runs) and ``RTMSelector()`` give the same order_ and scores_ on one dataset."""
    select(tmp_path / "cli")
    cli_order = pd.read_csv(tmp_path / "cli" / "order.csv")["feature"].to_numpy()
    cli_scores = pd.read_csv(tmp_path / "cli" / "scores.csv")["score"].to_numpy()

    ds = load_dataset(DEFAULTS_DATA)
    api = RTMSelector().fit(ds.X, ds.y)
    app = fit_method("rtm", None, ds)
    np.testing.assert_array_equal(cli_order, api.order_)
    np.testing.assert_array_equal(app.order, api.order_)
    np.testing.assert_allclose(cli_scores, api.scores_, rtol=1e-12)
    np.testing.assert_array_equal(app.scores, api.scores_)
    # and the class does what the registry's values say, not what RTMSelector defaulted to before
    ard = RTMSelector(ard=True).fit(ds.X, ds.y)
    assert not np.array_equal(ard.scores_, api.scores_)


def test_comparison_roc_includes_the_rtm():
    ds = load_dataset("synthetic_rtm", n_samples=500, n_tags=100, n_relevant=10, seed=2)
    res = run_comparison(ds, ["mi", ("rtm", {"method": "power_ep"})], CompareSettings(n_bootstrap=0, max_k=10))
    assert res.labels == ["MI", "RTM"]
    auc = res.auc()
    train_scores = res.run("RTM").scores
    assert auc["RTM"] == pytest.approx(roc_auc_score(ds.truth, train_scores))
    assert auc["RTM"] == pytest.approx(0.8278, abs=0.005)  # deterministic
    fpr, tpr = res.roc()["RTM"]
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1


def test_select_writes_the_rtm_figures(tmp_path, capsys):
    args = ["select", "--method", "rtm", "--data", "synthetic_rtm:n_samples=300,n_tags=60,n_relevant=6",
            "--param", "method=em", "--out", str(tmp_path)]
    assert main(args) == 0
    assert "RTM on synthetic_rtm" in capsys.readouterr().out
    for name in ("rtm_convergence", "rtm_tags"):
        html = (tmp_path / f"{name}.html").read_text()
        assert "RTM EM" in html or "Most relevant tags" in html
    assert not (tmp_path / "rtm_theta_image.html").exists()  # tags, not pixels
