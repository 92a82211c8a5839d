"""MDL forward selection (Jaakkola Eq. 10-15) against from-scratch Naive Bayes computations."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.naive_bayes import BernoulliNB

from fsengine.methods.classic.binary import binary_indicator
from fsengine.methods.classic.mdl import (
    candidate_data_lengths,
    log_star,
    mdl_forward_selection,
    model_description_length,
    naive_bayes_log_tables,
)
from fsengine.methods.classic.mutual_info import mutual_information, ones_per_class
from fsengine.progress import StopRequested
from fsengine.selectors import MDLSelector


def dl_data_from_scratch(X, y, subset) -> float:
    """Eq. (10) with Naive Bayes fitted from counts on the columns in ``subset`` (plain numpy)."""
    classes = np.unique(y)
    n = len(y)
    scores = np.zeros((n, classes.size))
    for c_idx, c in enumerate(classes):
        rows = X[y == c]
        scores[:, c_idx] = np.log(rows.shape[0] / n)
        for j in subset:
            p1 = rows[:, j].mean()
            with np.errstate(divide="ignore"):
                scores[:, c_idx] += np.where(X[:, j] == 1, np.log(p1), np.log(1 - p1))
    truth = np.searchsorted(classes, y)
    return float(np.sum(logsumexp(scores, axis=1) - scores[np.arange(n), truth]))


def data(n=300, p=12, K=2, seed=0, rare=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = (rng.random((n, p)) < 0.35).astype(float)
    for j in range(3):
        X[:, j] = np.where(rng.random(n) < 0.75 - 0.1 * j, y == 1, X[:, j])
    X[:, 4] = X[:, 0]  # a duplicate: Naive Bayes double-counts it
    if rare:  # zero counts in one class: log P = -inf in the tables
        X[:, 6] = 0.0
        X[np.flatnonzero(y == 0)[:3], 6] = 1.0
        X[:, 7] = X[:, 6]          # same counts: shares the Naive Bayes tables of feature 6
        X[:, 8] = X[:, 9] = 1.0    # on everywhere: log P(x = 0 | c) = -inf for every class
        X[y == 0, 10] = 1.0        # on in every row of class 0
        X[:, 11] = X[:, 10]
    return X, y


@pytest.mark.parametrize("K,rare", [(2, False), (2, True), (3, True)])
def test_every_step_is_the_argmin_of_from_scratch_description_lengths(K, rare):
    X, y = data(K=K, rare=rare, seed=K)
    path = mdl_forward_selection(binary_indicator(X), y, max_features=X.shape[1])
    assert np.all(np.isfinite(path.dl_data)) and np.all(np.isfinite(path.last_gain[~np.isnan(path.last_gain)]))
    chosen = []
    for step, j in enumerate(path.order):
        brute = {c: dl_data_from_scratch(X, y, chosen + [c]) for c in range(X.shape[1]) if c not in chosen}
        best = min(brute.values())
        assert brute[j] == pytest.approx(best, rel=1e-10), (step, j)
        assert path.dl_data[step + 1] == pytest.approx(brute[j], rel=1e-10)
        chosen.append(j)
    assert path.dl_data[0] == pytest.approx(dl_data_from_scratch(X, y, []), rel=1e-12)


def test_matches_sklearn_bernoulli_naive_bayes_when_no_count_is_zero():
    X, y = data(K=3, seed=5)
    path = mdl_forward_selection(sp.csr_matrix(X), y, max_features=5)
    for k in range(1, 6):
        J = path.order[:k]
        nb = BernoulliNB(alpha=1e-12, force_alpha=True, binarize=None).fit(X[:, J], y)
        dl = -nb.predict_log_proba(X[:, J])[np.arange(len(y)), y].sum()
        assert path.dl_data[k] == pytest.approx(dl, rel=1e-8)


def test_first_feature_is_the_mutual_information_winner():
    """Lecture: the first feature included is the same as in the MI ranking; with one feature
    the Naive Bayes posterior is the empirical P(y | x), so DL-data = n (H(Y) - I(X; Y))."""
    X, y = data(p=20, seed=3)
    mi = mutual_information(binary_indicator(X), y)
    path = mdl_forward_selection(binary_indicator(X), y, max_features=2)
    n = len(y)
    prior = np.bincount(y) / n
    h_y = -(prior * np.log(prior)).sum()
    assert path.order[0] == int(np.argmax(mi.mi))
    assert path.dl_data[0] == pytest.approx(n * h_y, rel=1e-12)
    assert path.dl_data[1] == pytest.approx(n * (h_y - mi.mi.max()), rel=1e-10)


def test_model_description_length_terms_by_hand():
    assert log_star(0) == 0.0 and log_star(1) == 0.0
    assert log_star(3) == pytest.approx(math.log(3) + math.log(math.log(3)))
    big = math.log(100) + math.log(math.log(100)) + math.log(math.log(math.log(100)))
    assert log_star(100) == pytest.approx(big)
    terms = model_description_length(3, 10, [8, 12])
    assert terms["log_binom"] == pytest.approx(math.log(120))
    assert terms["class_counts"] == pytest.approx(math.log(21))  # log(n + 1), Eq. (14)
    assert terms["parameters"] == pytest.approx(3 * (math.log(9) + math.log(13)))
    assert terms["dl_model"] == pytest.approx(log_star(3) + math.log(120) + math.log(21)
                                              + 3 * (math.log(9) + math.log(13)))
    # K classes: the class counts take C(n + K - 1, K - 1) values
    assert model_description_length(0, 5, [2, 3, 5])["class_counts"] == pytest.approx(math.log(66))


def test_selector_picks_the_minimiser_and_traces_each_size():
    X, y = data(n=500, p=40, seed=7)
    sel = MDLSelector(max_features=10).fit(X, y)
    trace = sel.trace_
    assert trace["size"].tolist() == list(range(11))
    np.testing.assert_allclose(trace["dl_total"], trace["dl_data"] + trace["dl_model"])
    best = int(np.argmin(trace["dl_total"]))
    assert sel.best_size_ == best and 1 <= best < 10
    sequence = sel.order_[:10]
    assert sequence.tolist() == trace["feature"].tolist()[1:]
    assert sel.get_support(indices=True).tolist() == sorted(sequence[:best].tolist())
    assert set(sequence[:best]) <= {0, 1, 2, 4}
    np.testing.assert_allclose(sel.scores_[sequence], trace["gain"].to_numpy()[1:])
    assert sel.stop_reason_ == "explored every subset size up to the largest, 10 features"
    budget = MDLSelector(n_features_to_select=12, max_features=3).fit(X, y)
    assert budget.support_.sum() == 12 and len(budget.trace_) == 13  # grown to the budget
    few = MDLSelector(max_features=60).fit(X[:, :5], y)
    assert few.stop_reason_ == "added every candidate feature (5, fewer than the largest size 60)"
    with pytest.raises(ValueError, match="binary features"):
        MDLSelector(binarize=None).fit(X + 0.5, y)
    shifted = MDLSelector(max_features=10).fit(X + 0.5, y)  # "auto": x > column median
    assert str(shifted.binarization_) == "features binarised as x > column median"


def test_forward_selection_reports_each_feature_and_a_stop_keeps_the_prefix():
    X, y = data(seed=1)
    X01 = binary_indicator(X)
    seen = []
    full = mdl_forward_selection(X01, y, max_features=6, progress=lambda f, m: seen.append((f, m)))
    assert [f for f, _ in seen] == pytest.approx([k / 6 for k in range(7)])
    assert seen[-1][1] == "6 of 6 features"

    def stop_at_half(fraction, message):
        if fraction >= 0.5:
            raise StopRequested

    part = mdl_forward_selection(X01, y, max_features=6, progress=stop_at_half)
    assert part.stop_reason == "stop requested"
    assert part.order.tolist() == full.order[:3].tolist()
    np.testing.assert_allclose(part.dl_data, full.dl_data[:4], rtol=1e-12)
    assert part.best_size == int(np.argmin(part.dl_total))


# --- the candidates' description lengths at one step (the forward step's kernel) -------------------

def _step_case(K, spread, seed=0, n=400, p=48):
    """Scores F of some current subset (``spread``: how far the classes' scores differ; 60 makes many
    rows far more likely in another class than their own, "separated" puts every row's own class
    80 nats ahead; -inf marks another class a row is impossible in) and a 0/1 CSC X with duplicated
    columns (shared count groups), a rare column and one on in every row of class 0; the Naive
    Bayes tables of X as the forward step computes them."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, K, n)
    X = (rng.random((n, p)) < rng.uniform(0.01, 0.4, p)).astype(float)
    X[:, 1] = X[:, 0]
    X[:, 2] = X[:, 0]
    X[:, 3] = 0.0
    X[:2, 3] = 1.0
    X[codes == 0, 4] = 1.0
    F = rng.normal(0.0, spread, (n, K)) if spread != "separated" else np.where(
        np.arange(K) == codes[:, None], 80.0, 0.0) + rng.normal(0.0, 1.0, (n, K))
    F[(rng.random((n, K)) < 0.02) & (np.arange(K) != codes[:, None])] = -np.inf
    X01 = sp.csc_matrix(X)
    indptr, indices = X01.indptr.astype(np.int64), X01.indices.astype(np.int64)
    class_sizes = np.bincount(codes, minlength=K).astype(np.float64)
    ones = ones_per_class(indptr, indices, codes, K)
    log_prior, log_p0, log_p1 = naive_bayes_log_tables(ones, class_sizes)
    _, group = np.unique(ones, axis=0, return_inverse=True)
    return F, codes, X, indptr, indices, log_p0, log_p1, group.astype(np.int64).ravel()


@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("spread", [1.0, 60.0, "separated"])
def test_candidate_lengths_equal_the_row_by_row_log_sum_exp(K, spread):
    """The forward step's DL-data of every candidate (logs of products of per-row factors, shared
    group terms, extreme rows and tiny totals summed one by one) against scipy's logsumexp of the
    odds against each row's class with the candidate's log-table added, row by row: to 1e-12 relative (1e-9 for the
    totals below a nat: "separated" rows are all but certain, and their products would round to
    1). Non-candidates get +inf."""
    F, codes, X, indptr, indices, log_p0, log_p1, group = _step_case(K, spread, seed=K)
    candidate = np.ones(X.shape[1], dtype=bool)
    candidate[5] = False
    got = candidate_data_lengths(F, codes, indptr, indices, log_p0, log_p1, np.exp(log_p0), np.exp(log_p1),
                                 candidate, group, int(group.max()) + 1)
    n = len(codes)
    assert got[5] == np.inf
    for j in np.flatnonzero(candidate):
        S = F + np.where(X[:, [j]] == 1, log_p1[j], log_p0[j])
        others = S - S[np.arange(n), codes][:, None]  # log-odds of every other class against the row's own
        others[np.arange(n), codes] = -np.inf
        with np.errstate(divide="ignore"):
            ref = float(np.sum(np.logaddexp(0.0, logsumexp(others, axis=1))))  # log(1 + sum of the odds)
        assert got[j] == pytest.approx(ref, rel=1e-12 if ref > 1.0 else 1e-9, abs=1e-300), (j, got[j], ref)


def test_a_tie_within_the_tolerance_goes_to_the_lowest_index(monkeypatch):
    """Candidates whose DL-data agree to TIE_RTOL are tied and the lowest index is added, whatever
    the last bits say (features with the same counts tie exactly on the first step; their sums'
    rounding differs); a gap above the tolerance is a real difference."""
    from fsengine.methods.classic import mdl

    X, y = data(seed=2)
    first, second = np.full(X.shape[1], 12.0), np.full(X.shape[1], 12.0)
    first[[1, 2]] = 10.0, 10.0 * (1 - 1e-12)  # tied: 1 before 2
    second[[1, 2, 3]] = np.inf, 9.0, 9.0 * (1 - 1e-9)  # 3 is better by more than the tolerance
    lengths = iter([first, second])
    monkeypatch.setattr(mdl, "candidate_data_lengths", lambda *args: next(lengths))
    path = mdl.mdl_forward_selection(binary_indicator(X), y, max_features=2)
    assert path.order.tolist() == [1, 3]
