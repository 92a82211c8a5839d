"""Laplace evidence of whole maxent models (Daume III Eq. 5-7, 9; ``evidence.py``) against
independent references (``reference.py``): numerical integration of the exact posterior for one-
and two-feature models, and the mean-field margins of Eq. (12) against the full Laplace Bayes
factor."""

import numpy as np
import scipy.sparse as sp

from fsengine.maxent import MaxentData
from fsengine.methods.bayes_factor.evidence import full_laplace_margins, laplace_log_evidence
from tests.methods.bayes_factor.reference import (
    binary_task,
    hessian_2d,
    log_integral_1d,
    log_integral_2d,
    loglik,
    three_class_task,
)


def test_laplace_evidence_matches_quadrature_one_and_two_features_error_shrinks_with_n():
    var = 2.0
    errors = {}
    for n in (50, 500):
        Xd, y = binary_task(n, seed=n)
        data = MaxentData(sp.csr_matrix(Xd), y, 2)
        one = laplace_log_evidence(data, [1], [1], prior_variance=var)

        def log_q1(w):
            return loglik(Xd, y, [1], [1], [w], 2) - 0.5 * w * w / var - 0.5 * np.log(2 * np.pi * var)

        exact1 = log_integral_1d(log_q1, one.weights[0], np.exp(-0.5 * one.log_det))
        two = laplace_log_evidence(data, [0, 2], [1, 1], prior_variance=var)

        def log_q2(a, b):
            return (loglik(Xd, y, [0, 2], [1, 1], [a, b], 2) - 0.5 * (a * a + b * b) / var
                    - np.log(2 * np.pi * var))

        cov = np.linalg.inv(hessian_2d(log_q2, two.weights))
        exact2 = log_integral_2d(log_q2, two.weights, np.sqrt(np.diag(cov)))
        errors[n] = (abs(one.log_evidence - exact1), abs(two.log_evidence - exact2))
    # Laplace is exact up to O(1/n): small, and shrinking ~10x from n = 50 to 500
    assert errors[500][0] < 0.004 and errors[500][1] < 0.008
    assert errors[500][0] < errors[50][0] / 3 and errors[500][1] < errors[50][1] / 3


def test_mean_field_margins_against_the_full_laplace_bayes_factor():
    """Eq. (12)'s shortcuts (others fixed, diagonal A) against Eq. (9) with every weight re-fitted
    and the full Hessian (itself checked against quadrature above): the mean-field margin is the
    cautious one (re-fitting can only add likelihood, and off-diagonal curvature lowers the Occam
    penalty), close for an unrelated noise column, and far below for a copy of an active feature
    (which Eq. 14 is meant to push back); the printed sign overshoots the reference."""
    Xd, y, *_ = three_class_task()
    check = full_laplace_margins(Xd[:, :4], y, 3, [0], [1], [1, 2, 3], [2, 1, 0], prior_variance=1.5)
    independent, duplicate, noise = check.itertuples()
    assert (check["mean_field"] <= check["full_laplace"] + 0.05).all()
    assert abs(noise.mean_field - noise.full_laplace) < 0.3
    assert duplicate.mean_field < 0 and duplicate.full_laplace < 0.5
    assert independent.full_laplace > 3 and independent.mean_field > 3
    assert (check["mean_field_printed"] > check["full_laplace"] + 1).all()
