"""Closed-form gains on the uniform model (Zhou et al. 2003, Section 3).

With no features every p(c | x) = p0 = 1/Y. For a binary feature (j, c) firing on n_j instances,
C of them of class c, R = C / n_j (Zhou's R_e(f) = E_p~(f) / E_delta(f)):

    alpha(j, 0) = log( R / p0 * (1 - p0) / (1 - R) )
    g(j, 0)     = n_j [ R log(R / p0) + (1 - R) log((1 - R) / (1 - p0)) ]      (total scale)

alpha is infinite when R = 1 (the predicate always co-occurs with the class); like the Newton
kernel we cap |alpha| at ``cap`` and then take the gain at the cap,
h(alpha) = alpha C - n_j log(1 - p0 + p0 e^alpha), which is what IFS's Newton returns too.
"""

from __future__ import annotations

import numpy as np

from fsengine.maxent.data import MaxentData
from fsengine.maxent.kernels import ALPHA_CAP
from fsengine.maxent.state import GainResult


def stage0_gains(data: MaxentData, predicates, classes, *, cap: float = ALPHA_CAP) -> GainResult:
    """alpha(j, 0), g(j, 0) and curvature -h''(alpha) for each pair, in closed form.

    Only for binary predicates (every stored value 1); for real-valued X use
    ``MaxentState.uniform(data).gains(...)``.
    """
    if not data.binary:
        raise ValueError("stage0_gains needs binary predicates (values 0/1); use "
                         "MaxentState.uniform(data).gains(...) for real-valued X")
    pred = np.asarray(predicates, dtype=np.int64)
    cls = np.asarray(classes, dtype=np.int64)
    n_j = data.predicate_frequency()[pred].astype(np.float64)
    count = data.feature_sums()[pred, cls]
    if np.any(n_j == 0):
        raise ValueError("a candidate predicate never fires; it has no gain")
    p0 = 1.0 / data.n_classes
    R = count / n_j
    with np.errstate(divide="ignore"):
        alpha = np.log(R) - np.log1p(-R) + np.log1p(-p0) - np.log(p0)
    alpha = np.clip(alpha, -cap, cap)
    log_norm = np.logaddexp(np.log1p(-p0), np.log(p0) + alpha)  # log(1 - p0 + p0 e^alpha)
    gain = alpha * count - n_j * log_norm
    q = np.exp(np.log(p0) + alpha - log_norm)
    curvature = n_j * q * (1.0 - q)
    return GainResult(alpha, gain, curvature, 0)
