"""The sgc-vs-ifs reproduction's configuration: the paper's numbers and claims, the sizes of a run
(:data:`QUICK`, :data:`FULL_TASKS`), the decoded models, the development splits, the bootstrap, and
the choices made after section-20 results had been seen (:data:`CHOSEN_AFTER_TEST`)."""

from __future__ import annotations

from fsengine import stats

#: the paper's numbers quoted in the report
PAPER = {
    "base_np": "Base-NP, WSJ 15-18 / 20: P/R 92.75 / 93.25 with 1,160 SGC features; "
               "Koeling (2000) 92.84 / 93.18 (cutoff 5); Zhou et al. (2003) 92.46 / 92.74 with 615 "
               "IFS features",
    "speed": "SGC 100x to thousands of times faster than IFS (time, Fig. 4); 24.1 gains computed per "
             "stage on average (191,098 candidates, grammatical-relation task)",
}

#: the paper's Base-NP result: P / R 92.75 / 93.25 with 1,160 SGC features
PAPER_P, PAPER_R, PAPER_K = 92.75, 93.25, 1160
#: its F1 = 2PR / (P + R), unrounded (92.9993...): the value the headline rows are judged against
PAPER_F1 = 2 * PAPER_P * PAPER_R / (PAPER_P + PAPER_R)
#: the paper's SGC gains computed per stage, on its grammatical-relation task (191,098 candidates)
PAPER_GAINS_PER_STAGE = 24.1
#: the lower end of the paper's speed claim: SGC "more than 100 times to thousands" faster (time)
SPEED_CLAIM = 100
#: why neither speed ratio gets a verdict (the rule text of the speed rows)
SPEED_NOTE = {
    "computations": "exact count, the same in every run; the paper's 100x-to-thousands claim is a speed-up "
                    "in time (Fig. 4), not a count of gains, so no rule compares this count with it",
    "per_stage": "exact count; the paper's 24.1 is its average on a grammatical-relation task with "
                 "191,098 candidates, not on this task",
    "time": "not judged: the ratio of CPU times depends on the implementation (what one gain "
            "costs next to each stage's fixed work), the machine and the number of stages, and the "
            "IQR is the spread of repeats on one machine, not an uncertainty of the paper's quantity",
    "lookahead": "the paper's claim is about SGC without look-ahead (look-ahead L adds L gains per stage "
                 "by design)",
}

#: the design choices of this reproduction made after section-20 results had been seen (the git
#: history of this module, formerly ``reproduce/sgc_vs_ifs.py``, and benchmarks/RESULTS.md on
#: issue 14). The report prints them in a sentence; nothing here is a measured number.
CHOSEN_AFTER_TEST = (
    "exact (Viterbi) decoding beside greedy decoding, added after greedy F1 on section 20 had fallen short "
    "of the paper's",
    "choosing the MAP prior variance on held-out training sentences (it was fixed at 1 before), after runs "
    "with variance 1 had missed the F1 target on section 20; the evaluation fits' tolerance rule changed in "
    "the same step",
    f"extending IFS from 1,000 to {PAPER_K:,} features, after the run with the tuned variance had missed "
    "the target",
    "widening the candidate models from 5 to 12 decoded models (IFS, SGC and SGC-LA at 1,000 and "
    f"{PAPER_K:,} features, both decoders)",
    "the rule that picks among them (the highest F1 on held-out training sentences; ties: fewer features, "
    "greedy before Viterbi)",
    "judging the 100x speed rule for SGC only (SGC-LA's ratios recorded), after the time ratios had been seen",
)

#: numbers that moved between two records of this target, each with the earlier record and why
#: (the report prints them; ``tests/reproduce/test_gain.py`` holds the earlier value to that record)
RECORD_HISTORY = (
    ("Base-NP: F1, greedy, IFS 1,160 features", {
        "value": 93.01389168512179, "record": "the record of ca39ca1 (2026-11-25)",
        "why": "`git log -S` over `docs/results` puts the change in 0fc4796, the run that recorded this table; no "
               "code change between the two records moves it. The code of ca39ca1 and of 0fc4796, run again on "
               "2026-11-27 as the reproduction makes this model (IFS to 1,160 pairs, prior variance 16, warm-started "
               "MAP fits at the same checkpoints), gives 93.014 both times, on one BLAS thread or two, and IFS's "
               "curve is the same whether IFS runs alone or beside SGC, SGC-LA and the count cutoff (a 1,500-sentence "
               "check). The same rerun gives SGC 1,160 greedy 92.874, the earlier record's value, where this record "
               "has 92.866: the run recorded here ended its evaluation fits elsewhere within their tolerance (a "
               "gradient norm of 1e-6 per training token) for several models at once, and greedy decoding turns "
               "that into a few of section 20's 12,422 chunks (here 4: 11,546 right of 12,413 guessed, against "
               "11,550). Its library versions were not recorded and that environment is gone, so the cause cannot "
               "be narrowed further than the run; `tests/reproduce/test_gain.py` pins the counts this code gives, "
               "11,550 / 863 / 872 (F1 93.014)."}),
)

QUICK = dict(n_sentences=300, budget=60, ifs_budget=60, lookahead=50, n_checkpoints=4)
#: (method, features) at which the quick run decodes both ways
QUICK_DECODER_POINTS = (("SGC", 60), ("IFS", 60))
FULL_TASKS = {
    # IFS up to the paper's 1,160 too, so every method is decoded both ways at both sizes
    "np": dict(n_sentences=0, budget=2000, ifs_budget=PAPER_K, lookahead=500, n_checkpoints=5,
               extra_checkpoints=(1000, 1160)),
    # 22 classes: every evaluation fit costs ~7x Base-NP's, IFS stages ~2x; smaller budgets
    "chunk": dict(n_sentences=0, budget=500, ifs_budget=100, lookahead=500, n_checkpoints=4),
}
TASK_LABEL = {"np": "Base-NP chunking", "chunk": "full chunking"}
#: share of the training sentences held out to choose the prior variance and the decoded model
DEV_FRACTION = 0.1
#: seeds of the random development splits on which the choice is repeated (beside the primary
#: split, the last 10% of the training sentences)
SPLIT_SEEDS = (1, 2, 3, 4, 5)
#: full run: (method, features) decoded both ways, per task (full chunking's 22 tags make exact
#: decoding ~50 s per model: greedy only there)
FULL_DECODER_POINTS = {"np": tuple((m, k) for m in ("SGC", "SGC-LA", "IFS") for k in (1000, PAPER_K))}
DECODER_LABEL = {"greedy": "greedy", "viterbi": "Viterbi"}
#: the bootstrap of every section-20 interval (one seed: all models share the resamples)
BOOTSTRAP = dict(n_resamples=stats.N_BOOTSTRAP, seed=0)

def model_name(method: str, n_features: int, decoder: str) -> str:
    """The name a decoded model has in the report and in the quantities of ``results.json``."""
    return f"{DECODER_LABEL[decoder]}, {method} {n_features:,} features"
