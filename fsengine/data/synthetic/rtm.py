"""The Relevance Tagging Machine's own generative model, with a known set of relevant tags.

For tags j = 1..d: a presence rate p_j, log-uniform between ``tag_rate / spread`` and
``tag_rate * spread``; theta_j = 0.5 for irrelevant tags and, for the ``n_relevant`` relevant
ones, theta_j = 0.5 +- U(min_effect, max_effect) with a random sign. For each object: tags
x_ij ~ Bernoulli(p_j) independently, then the class from the RTM likelihood (Molchanov et al.,
slide "Relevance Tagging Machine")

    P(c = 1 | x, theta) = prod theta_j^x_j / (prod theta_j^x_j + prod (1 - theta_j)^x_j).

Objects that receive no tag get a fair coin as class, as the model says.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.limits import check_declared


def make_rtm(n_samples: int = 800, n_tags: int = 400, n_relevant: int = 30, *,
             tag_rate: float = 0.05, spread: float = 3.0, min_effect: float = 0.1,
             max_effect: float = 0.4, seed: int = 0) -> Dataset:
    """Sample a tagging dataset from the RTM; ``truth`` marks the tags with theta_j != 0.5."""
    if not 0 <= n_relevant <= n_tags:
        raise ValueError(f"n_relevant={n_relevant} must lie between 0 and n_tags={n_tags}")
    if n_samples < 2 or n_tags < 1:
        raise ValueError("need at least 2 objects and 1 tag")
    if not 0.0 < tag_rate * spread <= 1.0 or spread < 1.0:
        raise ValueError(f"tag_rate={tag_rate} times spread={spread} must lie in (0, 1] (spread >= 1)")
    if not 0.0 <= min_effect <= max_effect < 0.5:
        raise ValueError("need 0 <= min_effect <= max_effect < 0.5")
    check_declared(17 * n_samples * n_tags, f"An RTM sample of {n_samples:,} objects x {n_tags:,} tags (and its draws)",
                   remedy="choose fewer objects or tags")
    rng = np.random.default_rng(seed)
    rates = np.exp(rng.uniform(np.log(tag_rate / spread), np.log(tag_rate * spread), n_tags))
    relevant = np.zeros(n_tags, dtype=bool)
    relevant[rng.choice(n_tags, size=n_relevant, replace=False)] = True
    theta = np.full(n_tags, 0.5)
    signs = rng.choice((-1.0, 1.0), size=n_relevant)
    theta[relevant] = 0.5 + signs * rng.uniform(min_effect, max_effect, n_relevant)
    X = (rng.random((n_samples, n_tags)) < rates).astype(np.float64)
    log_odds = X @ (np.log(theta) - np.log1p(-theta))
    y = (rng.random(n_samples) < 1.0 / (1.0 + np.exp(-log_odds))).astype(np.int64)
    Xs = sp.csr_matrix(X)
    return Dataset(
        X=Xs, y=y, feature_names=tuple(f"tag{j:03d}" if n_tags <= 1000 else f"tag{j}" for j in range(n_tags)),
        target_names=("c=0", "c=1"), name=f"synthetic_rtm(seed={seed})", truth=relevant,
        provenance=Provenance(
            source="RTM generative model (Molchanov, Kondrashkin & Vetrov), seeded",
            licence="generated",
            counts={"rows": n_samples, "features": n_tags, "relevant": n_relevant,
                    "tags per object (mean)": int(round(Xs.nnz / n_samples))},
            notes=(f"theta_j = 0.5 +- U({min_effect:g}, {max_effect:g}) on relevant tags, 0.5 elsewhere; "
                   f"tag rates log-uniform in [{tag_rate / spread:.3g}, {tag_rate * spread:.3g}]",),
        ),
        extras={"theta": theta, "rates": rates},
    )
