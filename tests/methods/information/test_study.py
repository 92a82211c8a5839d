"""The unified-criterion study (what the page, lesson 7 and the lecture pack show) against a greedy
selection written out from Brown et al.'s definition with the independent entropies of
:mod:`tests.methods.information.reference`; its named positions against the scikit-learn selectors;
the XOR summary against hand-made orders; the replicates' intervals and the facts they rest on."""

import math

import numpy as np
import pytest

from fsengine.data.synthetic.xor import make_xor_redundant
from fsengine.methods.information import study
from fsengine.methods.information.discretise import discretise
from fsengine.selectors import CIFESelector, JMISelector, MRMRSelector, UnifiedInformationSelector
from tests.methods.information import reference as ref

#: a small draw of the planted task: 2 XOR members, 3 copies, 5 noise features
SMALL = {"n": 240, "n_redundant": 3, "n_noise": 5, "copy_noise": 0.1, "seed": 3}
#: positions checked on the study's 21 x 21 grid, both normalisations: the named members and others
POSITIONS = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.35, 0.6), (0.65, 0.15), (0.05, 0.95), (0.5, 0.5)]


class Definition:
    """The greedy selection by J(X_k) = I(X_k; Y) - b sum_j I(X_j; X_k) + g sum_j I(X_j; X_k | Y)
    with b, g = beta, gamma divided by |S| ("mean") or not ("sum"), every J recomputed at every step
    from mutual informations counted over row tuples (:mod:`reference`); ties to the lower index."""

    def __init__(self, ds):
        self.F = discretise(ds.X).dense()
        self.y = ds.y
        p = len(self.F)
        self.relevance = [ref.mi(f, self.y) for f in self.F]
        self.mi = [[ref.mi(self.F[j], self.F[k]) for k in range(p)] for j in range(p)]
        self.cmi = [[ref.cmi(self.F[j], self.F[k], self.y) for k in range(p)] for j in range(p)]

    def path(self, beta, gamma, normalise):
        """(order, relevance, penalty, bonus, J) of the full greedy selection."""
        p = len(self.F)
        S, rows = [], []
        for _ in range(p):
            scale = max(len(S), 1) if normalise == "mean" else 1
            best, best_k, best_terms = -math.inf, -1, None
            for k in range(p):
                if k in S:
                    continue
                penalty = -beta / scale * sum(self.mi[j][k] for j in S)
                bonus = gamma / scale * sum(self.cmi[j][k] for j in S)
                J = self.relevance[k] + penalty + bonus
                if J > best:
                    best, best_k, best_terms = J, k, (self.relevance[k], penalty, bonus, J)
            S.append(best_k)
            rows.append(best_terms)
        return S, np.array(rows)


@pytest.fixture(scope="module")
def small():
    ds = make_xor_redundant(**SMALL)
    return ds, study.unified_grid(ds), Definition(ds)


def test_every_grid_position_checked_selects_and_scores_as_the_definition(small):
    ds, grid, definition = small
    assert grid.orders.shape == (2, 21, 21, ds.n_features)
    relevance, penalty, bonus = grid.terms()
    checked = 0
    for normalise in ("mean", "sum"):
        for beta, gamma in POSITIONS:
            n, a, b = grid.index(beta, gamma, normalise)
            assert (grid.betas[a], grid.gammas[b]) == pytest.approx((beta, gamma))
            order, terms = definition.path(beta, gamma, normalise)
            assert grid.orders[n, a, b].tolist() == order, (beta, gamma, normalise)
            ours = np.stack([relevance[n, a, b], penalty[n, a, b], bonus[n, a, b], grid.criterion[n, a, b]], axis=1)
            np.testing.assert_allclose(ours, terms, rtol=1e-9, atol=1e-12)
            checked += 1
    assert checked == 2 * len(POSITIONS)
    assert len({tuple(o) for o in grid.orders.reshape(-1, ds.n_features)}) > 3  # the weights matter here


def test_every_position_of_a_coarse_grid_follows_the_definition(small):
    ds, _, definition = small
    grid = study.unified_grid(ds, betas=[0.0, 0.4, 1.0, 2.0], gammas=[0.0, 0.7, 1.0])
    for n, normalise in enumerate(grid.normalisations):
        for a, beta in enumerate(grid.betas):
            for b, gamma in enumerate(grid.gammas):
                assert grid.orders[n, a, b].tolist() == definition.path(beta, gamma, normalise)[0]


def test_terms_add_up_to_the_criterion_exactly():
    grid = study.unified_grid(make_xor_redundant(**study.LESSON_TASK))
    relevance, penalty, bonus = grid.terms()
    np.testing.assert_array_equal(relevance + penalty + bonus, grid.criterion)
    assert np.all(penalty[:, :, :, 0] == 0) and np.all(bonus[:, :, :, 0] == 0)  # the first step: relevance alone


def test_named_positions_select_what_the_selectors_select(small):
    ds, grid, _ = small
    p = ds.n_features
    fitted = {"MIM": UnifiedInformationSelector(beta=0.0, gamma=0.0, max_features=p),
              "mRMR": MRMRSelector(max_features=p), "JMI": JMISelector(max_features=p),
              "CIFE": CIFESelector(max_features=p),
              "MIFS": UnifiedInformationSelector(beta=1.0, gamma=0.0, normalise="sum", max_features=p)}
    positions = grid.members()
    assert sorted({name for name, *_ in positions}) == sorted(fitted)
    assert ("MIM", 0, 0, 0) in positions and ("MIM", 1, 0, 0) in positions
    for name, n, a, b in positions:
        np.testing.assert_array_equal(grid.orders[n, a, b], fitted[name].fit(ds.X, ds.y).order_[:p], err_msg=name)
    assert study.selector_agreement(ds, grid) == dict.fromkeys(fitted, True)


def test_the_agreement_check_sees_a_grid_that_differs(small):
    ds, grid, _ = small
    swapped = grid.orders.copy()
    n, a, b = grid.index(1.0, 1.0, "mean")
    swapped[n, a, b, [0, 1]] = swapped[n, a, b, [1, 0]]
    broken = study.UnifiedGrid(grid.betas, grid.gammas, grid.normalisations, swapped, grid.relevance,
                               grid.redundancy, grid.conditional, grid.criterion, grid.feature_names, grid.roles)
    assert study.selector_agreement(ds, broken)["JMI"] is False


def test_xor_summary_of_hand_made_orders():
    roles = ["noise", "xor", "copy", "xor", "copy"]
    orders = np.array([[2, 1, 3, 4, 0],      # copy, xor, xor: the pair at step 3, at once, 1 copy before
                       [1, 4, 0, 2, 3]])     # xor, copy, noise, copy, xor: step 5, 4 steps apart, 2 copies
    summary = study.xor_summary(orders, roles)
    assert summary.pair_complete.tolist() == [3, 5]
    assert summary.partner_wait.tolist() == [1, 4]
    assert summary.copies_before.tolist() == [1, 2]
    with pytest.raises(ValueError, match="full greedy orders"):
        study.xor_summary(orders[:, :3], roles)
    with pytest.raises(ValueError, match="two 'xor'"):
        study.xor_summary(orders, ["noise"] * 5)


def test_the_lesson_grid_shows_what_the_mathematics_says():
    """On the lesson's task: with beta, gamma divided by |S| every copy is selected before the XOR pair
    is complete (a copy's redundancy with a copy never exceeds its relevance); with the sums, beta = 1
    keeps fewer; with gamma > 0 the partner follows the first XOR member at once."""
    grid = study.unified_grid(make_xor_redundant(**study.LESSON_TASK))
    summary = study.grid_summary(grid)
    copies = study.LESSON_TASK["n_redundant"]
    assert np.all(summary.copies_before[0] == copies)
    assert np.all(summary.copies_before[1, -1] < copies)
    assert np.all(summary.partner_wait[:, :, 1:] == 1)
    assert [m[0] for m in study.summary_maps(summary)] == ["XOR pair complete", "copies before the pair"]


def test_replicates_carry_intervals_and_repeat_the_facts():
    reps = study.member_replicates(study.LESSON_TASK, draws=12)
    assert reps.n_draws == 12 and len(reps.draws) == 12 * len(study.NAMED)
    assert reps.draws["seed"].min() == study.LESSON_TASK["seed"] + 1  # fresh draws, not the one shown
    for name in ("MIM", "mRMR", "JMI", "CIFE", "MIFS"):
        for estimate in (reps.at_once[name], reps.copies_before[name], reps.pair_complete[name]):
            assert estimate.low <= estimate.value <= estimate.high and estimate.level == 0.95
        mine = reps.draws[reps.draws["member"] == name]
        assert reps.at_once[name].value == pytest.approx((mine["partner_wait"] == 1).mean())
        assert reps.copies_before[name].value == pytest.approx(mine["copies_before"].mean())
    assert reps.at_once["JMI"].value == reps.at_once["CIFE"].value == 1.0
    assert reps.copies_before["mRMR"].value == study.LESSON_TASK["n_redundant"]
    assert "12 draws" in reps.at_once["JMI"].method
    table = reps.table()
    assert table["member"].tolist() == [m.name for m in study.NAMED]
    assert table.loc[table["member"] == "CIFE", "normalisation"].item() == "sums"
    with pytest.raises(ValueError, match="at least 2 draws"):
        study.member_replicates(draws=1)


def test_the_lesson_task_differs_from_the_catalogue_where_it_says():
    changes = {label: (value, default) for label, value, default in study.task_changes()}
    assert changes == {"Noise features": (10, 20), "Flip probability of a copy": (0.1, 0.2)}
    assert "0.1" in study.LESSON_TASK_WHY and "10 noise features" in study.LESSON_TASK_WHY


def test_bad_grids_are_refused_with_a_reason(small):
    ds, grid, _ = small
    with pytest.raises(ValueError, match="betas"):
        study.unified_grid(ds, betas=[-1.0])
    with pytest.raises(ValueError, match="normalise"):
        study.unified_grid(ds, normalisations=["median"])
    with pytest.raises(ValueError, match="this grid has"):
        study.UnifiedGrid(grid.betas, grid.gammas, ("mean",), grid.orders[:1], grid.relevance[:1],
                          grid.redundancy[:1], grid.conditional[:1], grid.criterion[:1], grid.feature_names,
                          grid.roles).index(1, 1, "sum")
