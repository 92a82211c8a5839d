"""The family's count kernel and greedy selections against :mod:`tests.methods.information.reference`
(entropies counted over row tuples, every criterion recomputed from its published definition at
every step): every member on random small cases, multi-class and sparse, the planted XOR case, the
(beta, gamma) grid, and FCBF line by line after Yu & Liu."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import mutual_info_score

from fsengine.methods.information.discretise import discretise
from fsengine.methods.information.kernels import NEED_CONDITIONAL, NEED_JOINT
from fsengine.methods.information.model import (
    MEMBERS,
    CountTerms,
    fcbf,
    greedy,
    linear_criterion,
    linear_grid,
    linear_selection,
    pairwise_terms,
)
from fsengine.progress import StopRequested
from tests.methods.information import reference as ref

CLOSE = dict(rtol=1e-10, atol=1e-12)


def random_case(seed: int, *, sparse: bool = False):
    """Small data with signal, redundancy and noise: n, p and the classes vary with the seed."""
    rng = np.random.default_rng(seed)
    n, p, classes = int(rng.integers(40, 160)), int(rng.integers(4, 9)), int(rng.integers(2, 5))
    y = rng.integers(0, classes, n)
    X = rng.normal(size=(n, p))
    X[:, 0] += y
    X[:, 1] = X[:, 0] + 0.5 * rng.normal(size=n)             # redundant with feature 0
    X[:, 2] += 0.5 * (y % 2)
    if sparse:
        X[X < 0.5] = 0.0
        return sp.csr_matrix(X), y
    return X, y


def xor_case(n=400, seed=0):
    """The planted case of issue 34: three noisy copies of a binary label (columns 0-2), an XOR pair
    (columns 3 and 4: y = x3 XOR x4) and 35 noise features."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 40))
    y = X[:, 3] ^ X[:, 4]
    for j in range(3):
        X[:, j] = y ^ (rng.random(n) < 0.2)
    return X, y


# ------------------------------------------------------------------------------------ the kernel

@pytest.mark.parametrize("seed", range(4))
def test_pair_terms_equal_entropy_sums(seed):
    X, y = random_case(seed)
    states = discretise(X, bins=int(2 + seed))
    F = states.dense()
    terms = CountTerms(states, y)
    np.testing.assert_allclose(terms.relevance, [mutual_info_score(f, y) for f in F], **CLOSE)
    p = F.shape[0]
    for s in range(p):
        pair = terms.pair(s, np.arange(p), NEED_CONDITIONAL | NEED_JOINT)
        np.testing.assert_allclose(pair.mi, [ref.mi(F[k], F[s]) for k in range(p)], **CLOSE)
        np.testing.assert_allclose(pair.cmi, [ref.cmi(F[k], F[s], y) for k in range(p)], **CLOSE)
        np.testing.assert_allclose(pair.joint_mi, [ref.joint_mi(F[k], F[s], y) for k in range(p)], **CLOSE)
        np.testing.assert_allclose(pair.joint_h, [ref.entropy(F[k], F[s], y) for k in range(p)], **CLOSE)


# ------------------------------------------------------------------- every member, from its definition

MEMBER_PARAMS = {"mim": {}, "mrmr": {}, "jmi": {}, "cife": {}, "cmim": {}, "icap": {}, "disr": {}}


def _ours(member, X, y, m, **params):
    states = discretise(X)
    criterion = MEMBERS[member] if member in MEMBERS else linear_criterion(params["beta"], 0.0, "sum")
    return states.dense(), greedy(CountTerms(states, y), criterion, m)


@pytest.mark.parametrize("member", list(MEMBER_PARAMS) + ["mifs"])
@pytest.mark.parametrize("seed", range(6))
def test_every_member_follows_its_definition_on_random_small_cases(member, seed):
    X, y = random_case(seed, sparse=seed % 3 == 2)
    params = {"beta": 0.5} if member == "mifs" else {}
    F, path = _ours(member, X, y, 5, **params)
    order, values = ref.greedy(member, F, y, 5, **params)
    assert path.order.tolist() == order, (member, seed)
    np.testing.assert_allclose(path.criterion, values, **CLOSE)


@pytest.mark.parametrize("member", list(MEMBER_PARAMS))
def test_every_member_follows_its_definition_on_the_planted_xor_case(member):
    X, y = xor_case(n=200)
    F, path = _ours(member, X, y, 6)
    order, values = ref.greedy(member, F, y, 6)
    assert path.order.tolist() == order
    np.testing.assert_allclose(path.criterion, values, **CLOSE)


def test_jmi_on_the_planted_xor_case_by_its_definition():
    """JMI written out as sum_j I(X_k X_j; Y) (not the family's linear form) picks the three label
    copies first; the XOR partners carry next to no information alone or with a copy, so JMI reaches
    one only through its small sample relevance, and then the other at once (I(X_3 X_4; Y) = H(Y))."""
    X, y = xor_case()
    F, path = _ours("jmi", X, y, 10)
    order, _ = ref.greedy("jmi", F, y, 10)
    assert path.order.tolist() == order and set(order[:3]) == {0, 1, 2}
    # once one partner is in, the other's joint information with it is the whole label entropy, so
    # it follows at once
    assert ref.joint_mi(F[4], F[3], y) == pytest.approx(ref.entropy(y))
    first = next(j for j in order if j in (3, 4))
    assert order[order.index(first) + 1] == 7 - first  # here JMI reaches the pair at the fourth step


@pytest.mark.parametrize("normalise", ["mean", "sum"])
def test_linear_criterion_at_any_beta_gamma_follows_its_definition(normalise):
    X, y = random_case(11)
    states = discretise(X)
    F = states.dense()
    for beta, gamma in [(0.0, 0.0), (0.3, 0.0), (1.0, 1.0), (0.7, 0.2), (2.0, 1.5)]:
        path = greedy(CountTerms(states, y), linear_criterion(beta, gamma, normalise), 5)
        S = []
        for _ in range(min(5, len(F))):  # the definition with the |S| of "mean" folded into beta and gamma
            scale = max(len(S), 1) if normalise == "mean" else 1
            J = [ref.criterion("linear", F, y, k, S, beta=beta / scale, gamma=gamma / scale) if k not in S
                 else -np.inf for k in range(len(F))]
            S.append(int(np.argmax(J)))
        assert path.order.tolist() == S, (beta, gamma)


def test_named_members_are_points_of_the_linear_criterion():
    X, y = random_case(5)
    terms = CountTerms(discretise(X), y)
    for member, (beta, gamma, normalise) in {"mim": (0, 0, "sum"), "mrmr": (1, 0, "mean"), "jmi": (1, 1, "mean"),
                                             "cife": (1, 1, "sum")}.items():
        a = greedy(terms, MEMBERS[member], 6)
        b = greedy(terms, linear_criterion(beta, gamma, normalise), 6)
        np.testing.assert_array_equal(a.order, b.order)
        np.testing.assert_array_equal(a.criterion, b.criterion)


# ------------------------------------------------------------------------- the precomputed grid

def test_pairwise_terms_select_exactly_as_the_count_kernel_and_the_grid_moves():
    X, y = xor_case(n=300)
    states = discretise(X)
    pairs = pairwise_terms(states, y)
    counts = CountTerms(states, y)
    for member in MEMBERS.values():
        a, b = greedy(pairs, member, 8), greedy(counts, member, 8)
        np.testing.assert_array_equal(a.order, b.order)
        np.testing.assert_array_equal(a.criterion, b.criterion)
        np.testing.assert_array_equal(a.last_criterion, b.last_criterion)
    betas, gammas = np.linspace(0, 1, 5), np.linspace(0, 1, 3)
    orders, values = linear_grid(pairs, betas, gammas, 6)
    assert orders.shape == values.shape == (5, 3, 6)
    for a, beta in enumerate(betas):
        for b, gamma in enumerate(gammas):
            np.testing.assert_array_equal(orders[a, b], linear_selection(pairs, beta, gamma, 6).order)
    assert set(orders[0, 0, :3].tolist()) == {0, 1, 2}          # MIM: the three copies first
    assert len({tuple(o) for o in orders.reshape(-1, 6)}) > 1    # the choice of (beta, gamma) matters here


# -------------------------------------------------------------------------------------- the loop

def test_progress_names_each_step_and_a_stop_keeps_the_sequence_so_far():
    X, y = random_case(3)
    seen = []
    path = greedy(CountTerms(discretise(X), y), MEMBERS["jmi"], 4, progress=lambda f, m: seen.append((f, m)))
    assert [f for f, _ in seen] == [0.25, 0.5, 0.75, 1.0]
    assert seen[0][1] == f"feature {path.order[0]} selected, 1 of 4"  # the caller names the method

    calls = []

    def stop_at_second(fraction, message):
        calls.append(fraction)
        if len(calls) == 2:
            raise StopRequested

    stopped = greedy(CountTerms(discretise(X), y), MEMBERS["jmi"], 4, progress=stop_at_second)
    assert stopped.stop_reason == "stop requested" and stopped.order.tolist() == path.order[:2].tolist()


def test_selected_features_are_last_and_every_feature_can_be_selected():
    X, y = random_case(4)
    p = X.shape[1]
    path = greedy(CountTerms(discretise(X), y), MEMBERS["cmim"], 100)
    assert sorted(path.order.tolist()) == list(range(p)) and np.all(np.isneginf(path.last_criterion))
    assert path.stop_reason == f"every feature selected ({p})"


# -------------------------------------------------------------------------------------------- FCBF

@pytest.mark.parametrize("seed", range(8))
def test_fcbf_follows_yu_and_liu_line_by_line(seed):
    X, y = random_case(seed, sparse=seed % 2 == 1)
    states = discretise(X)
    F = states.dense()
    for delta in (0.0, 0.02):
        path = fcbf(states, y, delta)
        assert path.order.tolist() == ref.fcbf(F, y, delta), (seed, delta)
        np.testing.assert_allclose(path.su, [ref.su(f, y) for f in F], **CLOSE)


def test_fcbf_removes_a_noisy_copy_and_says_which_feature_removed_it():
    X, y = xor_case(n=300)
    X = np.c_[X, X[:, 0] ^ (np.random.default_rng(1).random(300) < 0.02)]  # a near copy of copy 0
    states = discretise(X)
    path = fcbf(states, y)
    assert path.order.tolist() == ref.fcbf(states.dense(), y)
    assert 40 not in path.order and path.removed_by[40] in path.order


def test_fcbf_at_equality_removes_and_ties_keep_the_lower_index():
    """A perfect copy of the label has SU(X_p, X_q) = SU(X_q, Y) exactly for every q: Yu & Liu's
    ">=" removes them all. Exact duplicates tie in SU: the lower index is listed first and stays."""
    X, y = xor_case(n=300)
    perfect = np.c_[X, y]
    path = fcbf(discretise(perfect), y)
    assert path.order.tolist() == [40] and np.all(path.removed_by[:40][path.su[:40] > 0] == 40)
    twins = np.c_[X[:, :6], X[:, 1]]          # feature 6 repeats feature 1
    states = discretise(twins)
    path = fcbf(states, y)
    assert path.su[1] == path.su[6] and 1 in path.order and path.removed_by[6] == 1
    assert path.order.tolist() == ref.fcbf(states.dense(), y)
