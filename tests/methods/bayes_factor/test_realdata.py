"""Bayes-factor selection on real CoNLL-2000 Base-NP (a small training subset)."""

import numpy as np
import pytest

from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.methods.bayes_factor.study import heldout_task, run_bayes_factor, selected_table
from tests.conftest import require_real


@pytest.mark.realdata
def test_conll2000_base_np_subset_selects_tag_predicates_and_generalises():
    ds = require_real(load_conll2000_maxent, task="np", n_sentences=150)
    task = heldout_task(ds, n_heldout=5000)
    assert task.class_names == ("B-NP", "I-NP", "O")
    run = run_bayes_factor(task, per_round=25, max_features=150)
    tr = run.trace
    at_stop = tr.loc[tr["n_selected"] == run.n_at_stop].iloc[0]
    # the bias-only model predicts the majority tag; a few dozen pairs already chunk well
    assert tr["heldout_accuracy"].iloc[0] < 0.5 < 0.9 < at_stop["heldout_accuracy"]
    table = selected_table(task, run)
    # the strongest evidence in round 0 comes from POS tags and previous chunk tags
    first = table[table["round"] == 0]["predicate"]
    assert first.str.contains(r"P0=|T-1=").mean() > 0.5
    assert np.all(np.diff(table["beta_g"]) > 0)
