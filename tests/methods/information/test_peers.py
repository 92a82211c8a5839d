"""The family against skfeature-chappers (the maintained fork of scikit-feature, a test-only
dependency), fed the same discretised states.

Where the definitions agree, the selections are equal: CMIM, CIFE and the linear criterion at any
fixed (beta, gamma) (their ``lcsi``). Where they differ, the test shows the difference and pins
down what the peer computes instead; the selectors' Notes say which is right:

* ``lcsi`` ignores ``function_name``: scikit-feature's original switched beta (and gamma) to 1/|S|
  for "MRMR" and "JMI"; the fork always uses its defaults beta = 0.8, gamma = 0.5 (mRMR passes
  gamma = 0). Its ``mrmr`` is therefore MIFS at beta = 0.8 and its ``jmi`` the linear criterion at
  (0.8, 0.5) summed: neither is the published criterion. Ours follow the definitions
  (``test_model.py``, brute force from each definition).
* ``jmi``, ``mrmr``, ``cife``, ``mifs`` and ``mim`` call ``lcsi`` in its default "rank" mode and
  take the ranks it returns for feature indices: even ``mode="index"`` returns
  ``rankdata(-F) - 1`` of the selection F, and the default mode transforms that again (padding the
  unselected features in a random order). That is the "known case" of issue 34: their output,
  read as a selection, starts with noise features while the selection itself starts with the
  copies of the label.
* ``disr`` divides its running sum by sum_j (1 + I(X_j; X_k)), which no DISR paper (nor
  scikit-feature's original) has.
* ``icap`` takes the largest interaction (it is CMIM), not the sum of the positive ones.
* ``fcbf`` casts its (index, SU) list to int, so every SU below 1 is 0 and it walks the features in
  index order instead of by decreasing SU: FCBF run in index order, which equals Yu & Liu's only
  where the index order is the SU order.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata
from skfeature.function.information_theoretical_based import (
    CIFE,
    CMIM,
    DISR,
    FCBF,
    ICAP,
    JMI,
    LCSI,
    MIFS,
    MIM,
    MRMR,
)

from fsengine.methods.information.discretise import discretise
from fsengine.methods.information.model import MEMBERS, CountTerms, fcbf, greedy, linear_criterion
from tests.methods.information import reference as ref
from tests.methods.information.test_model import random_case, xor_case

SEEDS = range(6)


def _case(seed):
    """Our states, the same states as the (n, p) int matrix the peer takes, the labels and terms."""
    X, y = random_case(seed)
    states = discretise(X)
    return states, states.dense().T.astype(np.int64), y, CountTerms(states, y)


def _ours(terms, criterion, m):
    return greedy(terms, criterion, m).order.tolist()


# ------------------------------------------------------------------------------ where they agree

@pytest.mark.parametrize("seed", SEEDS)
def test_cmim_cife_and_the_linear_criterion_give_the_peers_selections(seed):
    _, Xd, y, terms = _case(seed)
    m = min(6, Xd.shape[1])
    assert _ours(terms, MEMBERS["cmim"], m) == CMIM.cmim(Xd, y, mode="index", n_selected_features=m).tolist()
    assert _ours(terms, MEMBERS["cife"], m) == LCSI.lcsi(Xd, y, beta=1, gamma=1, mode="index",
                                                         n_selected_features=m).tolist()
    for beta, gamma in ((0.0, 0.0), (0.5, 0.0), (0.3, 0.7), (0.8, 0.5)):  # MIM, MIFS, any (beta, gamma)
        theirs = LCSI.lcsi(Xd, y, beta=beta, gamma=gamma, mode="index", n_selected_features=m).tolist()
        assert _ours(terms, linear_criterion(beta, gamma, "sum"), m) == theirs, (beta, gamma)


def test_cmim_and_cife_agree_on_the_planted_xor_case():
    X, y = xor_case()
    states = discretise(X)
    Xd, terms = states.dense().T.astype(np.int64), CountTerms(states, y)
    assert _ours(terms, MEMBERS["cmim"], 8) == CMIM.cmim(Xd, y, mode="index", n_selected_features=8).tolist()
    assert _ours(terms, MEMBERS["cife"], 8) == LCSI.lcsi(Xd, y, beta=1, gamma=1, mode="index",
                                                         n_selected_features=8).tolist()


@pytest.mark.slow
def test_cmim_agrees_on_ten_digit_classes():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    states = discretise(X)
    Xd = states.dense().T.astype(np.int64)
    assert _ours(CountTerms(states, y), MEMBERS["cmim"], 10) == CMIM.cmim(Xd, y, mode="index",
                                                                          n_selected_features=10).tolist()


# -------------------------------------------------------------------------------- where they differ

@pytest.mark.parametrize("seed", SEEDS)
def test_peer_mrmr_and_jmi_are_the_linear_criterion_at_fixed_beta_gamma_not_the_published_ones(seed):
    _, Xd, y, terms = _case(seed)
    m = min(6, Xd.shape[1])
    # what the peer's mrmr and jmi compute: lcsi with the name ignored
    their_mrmr = LCSI.lcsi(Xd, y, gamma=0, function_name="MRMR", mode="index", n_selected_features=m).tolist()
    their_jmi = LCSI.lcsi(Xd, y, function_name="JMI", mode="index", n_selected_features=m).tolist()
    assert their_mrmr == _ours(terms, linear_criterion(0.8, 0.0, "sum"), m)
    assert their_jmi == _ours(terms, linear_criterion(0.8, 0.5, "sum"), m)


def test_peer_mrmr_and_jmi_select_differently_from_the_definitions():
    differ = {"mrmr": 0, "jmi": 0}
    for seed in SEEDS:
        _, Xd, y, terms = _case(seed)
        m = min(6, Xd.shape[1])
        F = Xd.T
        for key, kwargs in (("mrmr", {"gamma": 0}), ("jmi", {})):
            ours = _ours(terms, MEMBERS[key], m)
            assert ours == ref.greedy(key, F, y, m)[0]                      # ours: the definition
            theirs = LCSI.lcsi(Xd, y, mode="index", n_selected_features=m, **kwargs).tolist()
            differ[key] += ours != theirs
    assert differ["mrmr"] >= 3 and differ["jmi"] >= 3, differ


WRAPPERS = [(JMI.jmi, {}), (MRMR.mrmr, {"gamma": 0}), (CIFE.cife, {"beta": 1, "gamma": 1}),
            (MIFS.mifs, {"beta": 0.5, "gamma": 0}), (MIM.mim, {"beta": 0, "gamma": 0})]


@pytest.mark.parametrize("wrapper, kwargs", WRAPPERS)
def test_peer_wrappers_return_ranks_of_the_selected_indices_not_the_selection(wrapper, kwargs):
    X, y = xor_case()
    Xd = discretise(X).dense().T.astype(np.int64)
    selection = LCSI.lcsi(Xd, y, mode="index", n_selected_features=6, **kwargs)
    returned = np.asarray(wrapper(Xd, y, mode="index", n_selected_features=6))
    np.testing.assert_array_equal(returned, rankdata(-selection) - 1)
    assert returned.tolist() != selection.tolist()


def test_the_known_case_of_issue_34_is_the_rank_output_read_as_a_selection():
    """Binary task, a planted XOR pair (y = x3 XOR x4) and three noisy copies of y (columns 0-2),
    35 noise features. The peer's ``mrmr`` returns 40 numbers starting with five noise features;
    they are 39 minus the ranks of its selected indices (padded at random), while its selection
    starts with the copies. Its ``cmim`` returns ranks too (``rankdata(-F) - 1`` of its selection,
    which, with no number of features given, runs past the last feature and lists it twice)."""
    X, y = xor_case()
    Xd = discretise(X).dense().T.astype(np.int64)
    shown = np.asarray(MRMR.mrmr(Xd, y))
    selection = LCSI.lcsi(Xd, y, gamma=0, mode="index")                  # the same run, stopping alike
    assert shown.size == 40 and not set(shown[:5].tolist()) & {0, 1, 2, 3, 4}
    np.testing.assert_array_equal(shown[:selection.size], 39 - (rankdata(-selection) - 1))
    assert set(selection[:3].tolist()) == {0, 1, 2}
    shown = np.asarray(CMIM.cmim(Xd, y))
    selection = CMIM.cmim(Xd, y, mode="index")
    assert selection.size == 41 and selection[-1] == selection[-2]     # runs past the end: one feature twice
    np.testing.assert_array_equal(shown, rankdata(-selection[:-1]) - 1)
    # JMI itself, written out from its definition, on this case: test_model.py
    # (test_jmi_on_the_planted_xor_case_by_its_definition)


def _their_disr(F, y, m):
    """The peer's DISR written out: sum_j SR(k, j) / sum_j (1 + I(X_j; X_k)), SR = I(X_k X_j; Y) / H(X_k X_j Y)."""
    S = [int(np.argmax([ref.mi(f, y) for f in F]))]
    while len(S) < m:
        J = [sum(ref.joint_mi(F[k], F[j], y) / ref.entropy(F[k], F[j], y) for j in S)
             / sum(1 + ref.mi(F[j], F[k]) for j in S) if k not in S else -np.inf for k in range(len(F))]
        S.append(int(np.argmax(J)))
    return S


def test_peer_disr_divides_by_one_plus_redundancy_and_selects_differently():
    differ = 0
    for seed in SEEDS:
        _, Xd, y, terms = _case(seed)
        m = min(6, Xd.shape[1])
        theirs = DISR.disr(Xd, y, mode="index", n_selected_features=m).tolist()
        assert theirs == _their_disr(Xd.T, y, m)
        ours = _ours(terms, MEMBERS["disr"], m)
        assert ours == ref.greedy("disr", Xd.T, y, m)[0]
        differ += ours != theirs
    assert differ >= 3


def test_peer_icap_is_cmim():
    differ = 0
    for seed in SEEDS:
        _, Xd, y, terms = _case(seed)
        m = min(6, Xd.shape[1])
        theirs = ICAP.icap(Xd, y, mode="index", n_selected_features=m).tolist()
        assert theirs == _ours(terms, MEMBERS["cmim"], m)
        differ += theirs != _ours(terms, MEMBERS["icap"], m)
    assert differ >= 3


def test_peer_fcbf_walks_the_features_in_index_order():
    differ = 0
    for seed in SEEDS:
        states, Xd, y, _ = _case(seed)
        theirs = FCBF.fcbf(Xd, y, mode="index").tolist()
        by_index = fcbf(states, y, sequence=np.arange(Xd.shape[1])).order.tolist()
        assert theirs == by_index == ref.fcbf(Xd.T, y, sequence=range(Xd.shape[1]))
        differ += theirs != fcbf(states, y).order.tolist()
        # with the columns put in decreasing SU order, index order is SU order and the two agree
        by_su = np.argsort(-fcbf(states, y).su, kind="stable")
        ours = [int(by_su[j]) for j in FCBF.fcbf(Xd[:, by_su], y, mode="index")]
        assert ours == fcbf(states, y).order.tolist()
    assert differ >= 3
