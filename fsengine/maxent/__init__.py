"""The shared sparse conditional-maxent core (Zhou et al. 2003; Daume III 2004; Goodman 2002).

Building blocks, each usable on its own:

``MaxentData(X, y)``          instance-by-predicate matrix (CSR + CSC) and class indices 0..Y-1;
                              ``feature_sums()`` (empirical counts), ``cooccurrences()``,
                              ``candidate_pairs(cutoff)``.
``MaxentState``               Goodman's un-normalised ``sum[i, y]`` / ``z[i]``: ``uniform(data)``,
                              ``from_weights(data, pred, cls, w)``, ``gains(pred, cls,
                              prior_precision=, alpha0=)`` -> ``GainResult(alpha, gain, curvature,
                              passes)``, ``gain_at(...)``, ``evaluate_at(...)`` (h and a_g at given
                              alphas), ``add(pred, cls, alpha)``, ``proba()``,
                              ``predict()``, ``log_likelihood()``, ``model()``.
``fit_map(data, pred, cls, prior_variance=, w0=)``  MAP weights by L-BFGS (Eq. 2 of ``train``) ->
                              ``MapFit(model, objective, log_likelihood, ...)``.
``MaxentModel``               arbitrary (predicate, class) features and weights: ``scores``,
                              ``predict_proba``, ``predict``, ``log_likelihood`` on new X.
``stage0_gains(data, pred, cls)``  closed-form gains on the uniform model (Zhou et al. Section 3).
``chunk_scores``, ``chunk_spans``, ``accuracy``  evaluation (conlleval semantics);
                              ``sentence_counts``: per-sentence TP / FP / FN (the bootstrap's units).

Gains are on the *total* log-likelihood scale; Zhou et al.'s per-instance G(alpha) is gain / N.
"""

from fsengine.maxent.data import MaxentData as MaxentData
from fsengine.maxent.gains import stage0_gains as stage0_gains
from fsengine.maxent.kernels import ALPHA_CAP as ALPHA_CAP
from fsengine.maxent.metrics import ChunkScores as ChunkScores
from fsengine.maxent.metrics import accuracy as accuracy
from fsengine.maxent.metrics import chunk_scores as chunk_scores
from fsengine.maxent.metrics import chunk_spans as chunk_spans
from fsengine.maxent.metrics import sentence_counts as sentence_counts
from fsengine.maxent.model import MaxentModel as MaxentModel
from fsengine.maxent.state import GainResult as GainResult
from fsengine.maxent.state import MaxentState as MaxentState
from fsengine.maxent.train import MapFit as MapFit
from fsengine.maxent.train import MapObjective as MapObjective
from fsengine.maxent.train import fit_map as fit_map
