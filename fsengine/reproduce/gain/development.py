"""The development splits of sgc-vs-ifs: held-out *training* sentences on which the MAP prior
variance and then the decoded model are chosen (section 20 is not read), the primary split (the
last 10%) and the seeded random ones, which may run in background processes."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from fsengine.data.maxent_tasks import load_conll2000_maxent
from fsengine.methods.gain.study import (
    ModelChoice,
    PriorChoice,
    choose_decoded_model,
    choose_prior_variance,
)
from fsengine.progress import scaled
from fsengine.reproduce.gain.plan import DEV_FRACTION, PAPER_K, SPLIT_SEEDS


@dataclass
class DevelopmentSplit:
    """One development split (the training sentences held out by ``seed``; None: the last ones)
    and the choices made on it: the prior variance, then the decoded model."""

    seed: int | None
    n_dev: int
    prior: PriorChoice
    model: ModelChoice | None

    @property
    def name(self) -> str:
        return (f"the last {DEV_FRACTION:.0%}" if self.seed is None else
                f"random {DEV_FRACTION:.0%}, seed {self.seed}")


def development_split(task: str, n_sentences: int, cfg: dict, points, seed: int | None, progress) -> DevelopmentSplit:
    """The choices of one development split: the prior variance (SGC's pairs, decoded like the
    models it is for), then, with ``points``, the decoded model (section 20 is not read)."""
    dev_ds = load_conll2000_maxent(task=task, n_sentences=n_sentences, dev_fraction=DEV_FRACTION, dev_seed=seed)
    prior = choose_prior_variance(dev_ds, n_features=min(cfg["budget"], PAPER_K), method="SGC",
                                  lookahead=cfg["lookahead"], cutoff=2, decoder="viterbi" if points else "greedy",
                                  progress=scaled(progress, 0.0, 0.4))
    chosen = None
    if points:
        chosen = choose_decoded_model(dev_ds, points, prior_variance=prior.variance, lookahead=cfg["lookahead"],
                                      cutoff=2, progress=scaled(progress, 0.4, 1.0))
    return DevelopmentSplit(seed, int(dev_ds.provenance.counts["test_sentences"]), prior, chosen)


def seeded_splits_in_background(task: str, n_sentences: int, cfg: dict, points, n_workers: int
                                ) -> tuple[ProcessPoolExecutor, dict[int, Future]]:
    """Start the seeded development splits (:data:`SPLIT_SEEDS`) on ``n_workers`` spawned processes
    while this process does the primary split and the comparison; the results are the ones
    :func:`development_split` gives in this process (each split is deterministic in its seed)."""
    pool = ProcessPoolExecutor(max_workers=n_workers, mp_context=multiprocessing.get_context("spawn"))
    return pool, {seed: pool.submit(development_split, task, n_sentences, cfg, points, seed, None)
                  for seed in SPLIT_SEEDS}
