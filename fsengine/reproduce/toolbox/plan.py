"""The toolbox benchmark's configuration, all fixed before any result is seen: the reference, the
family of every method, the data sets, the sizes of a run (:data:`FULL`, :data:`QUICK`), the
method parameters that differ from the registry's and why, the skips, and the choices made after
seeing results."""

from __future__ import annotations

from dataclasses import dataclass, field

from fsengine.compare import CompareSettings
from fsengine.compare.runner import k_grid
from fsengine.methods.registry import BUILT_IN, METHODS

#: the reference every method is set against, fixed before any run
REFERENCE = "anova"
REFERENCE_WHY = ("ANOVA F is the reference, fixed before any run: it is what scikit-learn's SelectKBest "
                 "scores by default, the first supervised filter a practitioner reaches for, deterministic and "
                 "cheap; the variance baseline ignores the labels and is a floor, not the bar a method must "
                 "clear to be worth its cost.")

#: where each registered method comes from (the five sources, the toolbox, the label-free baseline):
#: one line per method; a new built-in method adds its line here
FAMILY = {
    "bia": "source: Fisher & Mehta (BIA)",
    "mi": "source: Jaakkola (classic)",
    "mdl": "source: Jaakkola (classic)",
    "l1": "source: Jaakkola (classic)",
    "boosting": "source: Jaakkola (classic)",
    "ifs": "source: Zhou et al. (maxent gain)",
    "sgc": "source: Zhou et al. (maxent gain)",
    "count": "source: Zhou et al. (maxent gain)",
    "bayes": "source: Daume III (Bayes factor)",
    "rtm": "source: Molchanov et al. (RTM)",
    "variance": "baseline (ignores labels)",
    "anova": "toolbox",
    "chi2": "toolbox",
    "forest": "toolbox",
    "permutation": "toolbox",
    "rfe": "toolbox",
    "stability": "toolbox",
    "mrmr": "toolbox",
    "jmi": "toolbox",
    "cmim": "toolbox",
    "disr": "toolbox",
    "cife": "toolbox",
    "icap": "toolbox",
    "fcbf": "toolbox",
    "unified": "toolbox",
    "boruta": "toolbox",
    "sfs": "toolbox",
    "relieff": "toolbox",
    "multisurf": "toolbox",
}


def method_keys() -> list[str]:
    """Every built-in registered method, in the registry's order (methods registered by a user at
    run time are theirs to benchmark)."""
    return [key for key in METHODS if key in BUILT_IN]


def family_of(key: str) -> str:
    return FAMILY.get(key, "user")


def is_source(key: str) -> bool:
    return FAMILY.get(key, "").startswith("source")


def is_toolbox(key: str) -> bool:
    return FAMILY.get(key) == "toolbox"


def is_baseline(key: str) -> bool:
    return FAMILY.get(key, "").startswith("baseline")


@dataclass(frozen=True)
class Plan:
    """The sizes of one run, all fixed before any result is seen.

    notmnist_per_class  images per letter (B and D); polarity_docs: snippets kept (None: all
    10,662) and polarity_min_df the words' minimum document frequency; glm: the generator's
    settings and glm_seeds its seeds; max_k the largest k of the accuracy grid (the engine's
    geometric grid from 1); ks the two k every number is reported at (both on the grid);
    n_bootstrap the resamples of the stability (5: the fewest the jackknife takes) and
    test_size the held-out share of the engine's stratified split (seed 0).
    """

    notmnist_per_class: int
    polarity_docs: int | None
    polarity_min_df: int
    glm: dict
    glm_seeds: tuple[int, ...]
    max_k: int
    ks: tuple[int, int]
    n_bootstrap: int = 5
    test_size: float = 0.25
    split_seed: int = 0
    #: method parameters of this plan beyond :func:`benchmark_params` (the quick run's cheaper ones)
    overrides: dict = field(default_factory=dict)

    def settings(self) -> CompareSettings:
        # bootstrap fits from scratch, as when the protocol was fixed and recorded: a warm-started
        # RTM (issue 32) changes the recorded RTM stability (quick run, k = 5: 0.738 -> 0.839)
        return CompareSettings(test_size=self.test_size, n_bootstrap=self.n_bootstrap, max_k=self.max_k,
                               seed=self.split_seed, warm_start=False)

    def inputs(self) -> dict:
        return {"notmnist_per_class": self.notmnist_per_class, "polarity_docs": self.polarity_docs,
                "polarity_min_df": self.polarity_min_df, "glm": dict(self.glm), "glm_seeds": list(self.glm_seeds),
                "max_k": self.max_k, "ks": list(self.ks), "n_bootstrap": self.n_bootstrap,
                "test_size": self.test_size, "split_seed": self.split_seed,
                "overrides": {key: dict(values) for key, values in self.overrides.items()}}

    @classmethod
    def from_inputs(cls, inputs: dict) -> Plan:
        """The plan back from :meth:`inputs` (what ``results.json`` records)."""
        return cls(**{**inputs, "glm_seeds": tuple(inputs["glm_seeds"]), "ks": tuple(inputs["ks"])})


FULL = Plan(notmnist_per_class=500, polarity_docs=None, polarity_min_df=10,
            glm=dict(family="logistic", n=500, p=100, k=10, rho=0.5, signal=1.0), glm_seeds=tuple(range(10)),
            max_k=40, ks=(10, 40))
QUICK = Plan(notmnist_per_class=60, polarity_docs=400, polarity_min_df=5,
             glm=dict(family="logistic", n=120, p=20, k=4, rho=0.5, signal=1.0), glm_seeds=tuple(range(5)),
             max_k=15, ks=(5, 15),
             overrides={"permutation": {"n_repeats": 1}, "stability": {"n_resamples": 10, "n_Cs": 5},
                        "forest": {"n_estimators": 20}})

#: names of the two reported k in quantities (no digits of their own, so that a quick and a full
#: run pair their rows: ``tests/reproduce/test_results_schema.py`` masks digits)
K_NAMES = ("the small k", "the large k")


def check_ks(plan: Plan) -> None:
    """Both reported k lie on the engine's accuracy grid (so no k is rounded to another)."""
    grid = k_grid(plan.max_k, 10**9)
    missing = [k for k in plan.ks if k not in grid]
    if missing:
        raise ValueError(f"k = {missing} are not on the accuracy grid {grid.tolist()} of max_k = {plan.max_k}")


#: the greedy members of the information-theoretic family: their sequence must cover every reported k
GREEDY_INFORMATION = ("mrmr", "jmi", "cmim", "disr", "cife", "icap", "unified")


def benchmark_params(key: str, plan: Plan) -> dict:
    """The parameters a method runs with here, where they differ from the registry's defaults
    (:data:`BENCHMARK_CHANGES` says why), then the plan's own overrides (the quick run's)."""
    values = {}
    if key in ("mdl", *GREEDY_INFORMATION):
        values = {"max_features": plan.max_k}
    elif key in ("ifs", "sgc", "count"):
        values = {"n_features_to_select": 2 * plan.max_k}
    return {**values, **plan.overrides.get(key, {})}


#: why each parameter differs from the registry's default (printed in the report)
BENCHMARK_CHANGES = {
    "mdl": "max_features = the largest k (the registry's 30 explored sizes would leave the last ranks of "
           "the top k to the fallback order).",
    "mrmr": "max_features = the largest k, for the same reason: the greedy sequence covers every reported k.",
    **{key: "as mRMR." for key in GREEDY_INFORMATION if key != "mrmr"},
    "ifs": "n_features_to_select = 2 x the largest k (feature, class) pairs: with two classes a predicate can "
           "be selected with both, so the selected predicates cover the largest k.",
    "sgc": "as IFS.",
    "count": "as IFS.",
}

#: (method, data set) pairs not run, with the reason (fixed before the run; a method that fails in
#: the engine is reported with its own error instead)
SKIPS = {
    ("permutation", "sentence_polarity"):
        "the registry's Needs say dense data, so adapt() densifies the sparse tags, and scikit-learn's "
        "permutation_importance then copies the dense held-out block once per word and scores it five "
        "times: one trial fit on the training snippets ran for more than ten minutes without finishing, "
        "and the benchmark fits each method six times per data set within a 45-minute budget",
}

#: choices made after seeing results of this benchmark (none on held-out accuracy): printed in the report
CHOICES_AFTER_SEEING = (
    "The skip of permutation importance on sentence polarity and the RFE step of 0.05 were chosen after "
    "timing single trial fits of the methods on the training part (runtimes only; no held-out accuracy "
    "was computed in those trials).",
    "A timing trial of one comparison on seed 0 of the full GLM plan printed that seed's AUCs; no setting was "
    "changed after it.",
    "The quick run's cheaper parameters (permutation 1 shuffle, stability 10 half-samples and 5 penalties, forest "
    "20 trees) and its smaller GLM were set after timing the first quick run; they do not enter the full run.",
    "The test of the differences from the reference changed after the first full run had been read (issue 31): "
    "the paired bootstrap at a Bonferroni level per data set and k (2,000 resamples, whose 99.7% bounds rested on "
    "about 3 resamples per tail and moved by up to 0.004 with the seed) became the exact McNemar test with its "
    "Clopper-Pearson interval for the held-out rows, and the family of every difference from the reference, "
    "which the report's first section reads as one, is judged by Holm's step-down procedure over all of it "
    "instead of Bonferroni within each data set and k. Both follow from the design (paired 0/1 outcomes; one "
    "headline over the whole family), not from which verdicts they give.",
)


@dataclass(frozen=True)
class Case:
    """One data set of the benchmark: its slug (file names), title, and how it is described."""

    slug: str
    title: str
    description: str


CASES = (
    Case("notmnist_bd", "notMNIST B vs D", "pixels in [0, 1], 28 x 28"),
    Case("synthetic_glm", "planted logistic GLM", "AR(1) Gaussian features, a few planted relevant ones"),
    Case("sentence_polarity", "sentence polarity", "binary word-presence tags"),
)
#: the data set whose comparisons are repeated over seeds of a generator
SEEDED = "synthetic_glm"


def title_of(slug: str) -> str:
    return next(c.title for c in CASES if c.slug == slug)


def methods_for(slug: str, plan: Plan) -> tuple[list[tuple[str, dict]], dict[str, str]]:
    """The (key, params) the data set runs, the reference first; and the skipped ones by label."""
    keys = [REFERENCE] + [k for k in method_keys() if k != REFERENCE]
    chosen, skipped = [], {}
    for key in keys:
        if (key, slug) in SKIPS:
            skipped[METHODS[key].label] = SKIPS[(key, slug)]
        else:
            chosen.append((key, benchmark_params(key, plan)))
    return chosen, skipped
