"""The method registry: every selector the Compare page and the ``select`` / ``compare`` commands
can run, its main parameters and what data it needs.

Adding a method is one :class:`MethodSpec` in ``_ENTRIES`` (fsengine's own) or one call of
:func:`register_method` (yours, before the app starts; the app never imports a path a visitor types). The parameters are
:class:`fsengine.params.Param` objects, the same type the dataset picker uses: the page
builds its widgets from them and the command line parses ``--param name=value`` with them.
How a Dataset is adapted to a method's :class:`Needs` lives in :mod:`fsengine.methods.adapt`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from fsengine.methods.bia.memory import DEFAULT_MAX_MEMORY_MB
from fsengine.params import HasParams, Param


def resolve(ref: str):
    """The object a ``"package.module:attribute"`` reference names, imported on demand (the
    registry names selectors and figure builders this way, so that listing the methods, as
    ``--help`` does, imports neither scikit-learn nor numba)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)

CLASSIFICATION = ("classification",)
ANY_TASK = ("classification", "regression")


@dataclass(frozen=True)
class Needs:
    """What data a method accepts; :func:`fsengine.methods.adapt.adapt` makes a Dataset fit it and
    says what it changed.

    ===============  ================================================================================
    two_classes      exactly two classes (multi-class data: a class pair is kept)
    binary_features  0/1 features (others are binarised by ``binarize_features``)
    non_negative     features >= 0, e.g. counts (dense data with negative values are rescaled to
                     [0, 1] by ``min_max_features``; sparse data with negative values are refused)
    non_constant     no constant columns (they are left out; their scores are NaN)
    sparse_ok        accepts scipy-sparse X (else sparse data is converted to dense)
    max_features     the largest number of features it handles (None: no limit)
    tasks            the targets it models
    ===============  ================================================================================

    Examples
    --------
    >>> from fsengine.compare import Needs
    >>> needs = Needs(two_classes=True, binary_features=True)
    >>> needs.two_classes, needs.sparse_ok, needs.tasks
    (True, True, ('classification',))
    """

    two_classes: bool = False
    binary_features: bool = False
    non_negative: bool = False
    non_constant: bool = False
    sparse_ok: bool = True
    max_features: int | None = None
    tasks: tuple[str, ...] = CLASSIFICATION

    def describe(self) -> str:
        """One line for help texts, e.g. ``two classes, binary features, class labels``."""
        parts = [text for flag, text in ((self.two_classes, "two classes"),
                                         (self.binary_features, "binary features"),
                                         (self.non_negative, "non-negative features"),
                                         (self.non_constant, "no constant features"),
                                         (not self.sparse_ok, "dense data")) if flag]
        if self.max_features is not None:
            parts.append(f"at most {self.max_features:,} features")
        parts.append("classification or regression" if "regression" in self.tasks else "class labels")
        return ", ".join(parts)


@dataclass(frozen=True)
class MethodSpec(HasParams):
    """One method: how to build its selector and what it needs.

    ========  ========================================================================================
    key       command-line name (``--method bia``)
    label     display name (also the key of ``plots.style.METHOD_COLORS``)
    summary   one line: what the score means
    factory   ``"module:name"`` of the selector factory, called with the main parameters (a
              scikit-learn selector or model that is no fsengine selector is wrapped by
              :class:`fsengine.methods.custom.EstimatorSelector` when it is fitted)
    params    the main parameters (defaults, ranges, help)
    needs     what data it accepts
    figures   ``"module:name"`` of the method's own figures for ``fsengine select``
              (see :mod:`fsengine.plots.select`), or None
    ========  ========================================================================================

    Examples
    --------
    A method of your own (any importable selector class), with the parameter the app and the command
    line offer and what data it needs:

    >>> from fsengine.compare import MethodSpec, Needs, Param
    >>> spec = MethodSpec("kbest", "SelectKBest", "ANOVA F of scikit-learn's SelectKBest",
    ...                   "sklearn.feature_selection:SelectKBest",
    ...                   params=(Param("k", "Features kept", 20, min=1, max=1000),),
    ...                   needs=Needs(tasks=("classification", "regression")))
    >>> spec.defaults()
    {'k': 20}
    """

    key: str
    label: str
    summary: str
    factory: str
    params: tuple[Param, ...] = ()
    needs: Needs = field(default_factory=Needs)
    figures: str | None = None

    _kind = "Method"

    def resolve(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Defaults overridden by ``params``; every value checked against its range."""
        values = self.defaults()
        for name, value in (params or {}).items():
            self.param(name).check(value)
            values[name] = value
        return values

    def parse(self, items) -> dict[str, Any]:
        """``["name=value", ...]`` (command line) -> checked parameters with defaults filled in."""
        values = self.defaults()
        for item in items:
            name, eq, text = str(item).partition("=")
            if not eq or not name.strip():
                raise ValueError(f"Parameter {item!r} of method '{self.key}' must look like name=value")
            values[name.strip()] = self.param(name.strip()).parse(text.strip())
        return values

    def make(self, **values):
        """A new selector with these (already resolved) parameters (the factory may also be a class or
        function itself, e.g. in a spec given to :func:`register_method`)."""
        return (self.factory if callable(self.factory) else resolve(self.factory))(**values)

    def build(self, params: dict[str, Any] | None = None):
        return self.make(**self.resolve(params))

    def method_figures(self, selector, names, image_shape) -> dict:
        """The method's own figures of a fitted ``selector`` ({} when it has none)."""
        return resolve(self.figures)(selector, names, image_shape) if self.figures else {}


#: parameters shared by the maxent gain selectors (IFS, SGC, count cutoff); the selector classes
#: read these defaults (their own 100 pairs gave way to the registry's 50, what app and CLI used)
_PAIRS = Param("n_features_to_select", "(feature, class) pairs to select", 50, min=1, special=(None,),
               help="maxent features are (feature, class) pairs; a feature may be chosen with several classes; "
                    "none: until no candidate is left (IFS, SGC: or none gains more than min_gain)")
_CUTOFF = Param("cutoff", "Count cutoff", 1, min=1, max=1000,
                help="candidate pairs must occur together at least this often")
#: parameters shared by the toolbox methods (fsengine.methods.toolbox)
_LEVEL = Param("alpha", "Test level (Bonferroni)", 0.01, kind="float", min=1e-6, max=0.5,
               help="features whose test rejects at this level (corrected for the number of features) are 'selected'")
_TASK = Param("task", "Task", "auto", kind="choice", choices=("auto", "classification", "regression"),
              help="auto: the dataset's own task (class labels or a real target)")
_TREES = Param("n_estimators", "Trees", 100, min=1, max=2000)
_SEED = Param("random_state", "Seed", 0, min=0, max=2**32 - 1,
              help="every random choice of the method (resamples, trees, shuffles) follows it")
#: parameters shared by the information-theoretic family (fsengine.methods.information)
_GREEDY = Param("max_features", "Features selected greedily", 30, min=1,
                help="the greedy selection stops earlier when every feature is in")
_BINS = Param("bins", "Bins", "mean_sd", min=2, max=20, special=("mean_sd",),
              help="mean_sd: three states at the mean ± one standard deviation (the family's default, Peng et al.'s); "
                   "k: k equal-frequency bins")
#: parameters shared by the Relief family (fsengine.methods.relief)
_DISCRETE = Param("discrete_threshold", "Discrete: at most this many values", 10, min=0, max=1000,
                  help="such features count equal / different in the distances; the others |a - b| / range "
                       "(0: every feature continuous)")
_INSTANCES = Param("n_instances", "Instances scored", None, min=1, max=10_000_000, special=(None,),
                   help="none: every instance (as skrebate); m: a seeded sample of m instances, each still compared "
                        "with all rows (m/n of the time, a noisier estimate)")




_ENTRIES = (
    MethodSpec(
        "bia", "BIA", "posterior inclusion probability by the Bayesian Ising Approximation (Fisher & Mehta)",
        "fsengine.selectors:BIASelector",
        params=(Param("family", "GLM family", "logistic", kind="choice", choices=("logistic", "linear", "poisson"),
                      help="logistic for two classes, linear for real targets, poisson for counts"),
                Param("lambda_ratio", "Λ/Λ* of the reported posteriors", 1.0, kind="float", min=0.05, max=100.0,
                      help="below 1 the expansion behind the Ising model breaks down"),
                Param("n_steps", "Path steps", 200, min=1, max=1000,
                      help="step k is at Λ/Λ* = 20/k (the class's step 0.05): 20 steps reach Λ*, 400 the "
                           "lowest reported Λ/Λ*"),
                Param("max_memory_mb", "Memory budget (MB)", DEFAULT_MAX_MEMORY_MB, kind="float", min=1.0,
                      help="the p x p couplings and the fit's other arrays must fit; the largest number of features "
                           "follows (float32 couplings, 4 bytes an entry)")),
        needs=Needs(two_classes=True, non_constant=True, tasks=ANY_TASK),
        figures="fsengine.plots.select:bia_figures"),
    MethodSpec(
        "mi", "MI", "Naive Bayes mutual information I(X_i; Y) of each binary feature (Jaakkola Eq. 2)",
        "fsengine.selectors:MutualInfoSelector",
        params=(Param("alpha", "Test level (Bonferroni)", 0.01, kind="float", min=1e-6, max=0.5,
                      help="features whose independence test rejects at this level are 'selected'"),),
        needs=Needs(binary_features=True), figures="fsengine.plots.select:mi_figures"),
    MethodSpec(
        "mdl", "MDL", "Naive Bayes forward selection minimising the description length (Jaakkola Eq. 10-15)",
        "fsengine.selectors:MDLSelector",
        params=(Param("max_features", "Largest subset explored", 30, min=1,
                      help="the forward selection stops earlier when every feature is in"),),
        needs=Needs(binary_features=True), figures="fsengine.plots.select:mdl_figures"),
    MethodSpec(
        "l1", "L1", "entry order along the L1-logistic regularisation path (Jaakkola Eq. 18-19)",
        "fsengine.selectors:L1PathSelector",
        params=(Param("n_Cs", "Values of C", 20, min=2, max=100),
                Param("C_span", "C range (max / min)", 1000.0, kind="float", min=2.0, max=1e6),
                Param("cv", "Cross-validation folds", None, min=2, max=10, special=(None,),
                      help="none: the method's own selection is the model at the largest C; k >= 2: the C "
                           "with the best k-fold accuracy (k+1 times the work)")),
        figures="fsengine.plots.select:l1_figures"),
    MethodSpec(
        "boosting", "Boosting",
        "total vote (alpha) of the AdaBoost decision stumps on each feature (Jaakkola Eq. 21-34)",
        "fsengine.selectors:BoostingSelector",
        params=(Param("n_estimators", "Boosting rounds", 50, min=1, max=1000),),
        figures="fsengine.plots.select:boosting_figures"),
    MethodSpec(
        "ifs", "IFS", "log-likelihood gain of the best (feature, class) pair of a conditional maxent model, "
        "every gain recomputed each stage (Berger et al.; Zhou et al. Fig. 1)",
        "fsengine.selectors:IFSSelector", params=(_PAIRS, _CUTOFF),
        figures="fsengine.plots.select:gain_figures"),
    MethodSpec(
        "sgc", "SGC", "the same gains as IFS, recomputed selectively from a heap of stale gains "
        "(Zhou et al. Fig. 2)",
        "fsengine.selectors:SGCSelector",
        params=(_PAIRS, _CUTOFF,
                Param("lookahead", "Look-ahead L", 0, min=0, max=5000,
                      help="also recompute the next L candidates each stage (SGC-LA; the paper uses 500)")),
        figures="fsengine.plots.select:gain_figures"),
    MethodSpec(
        "count", "Count cutoff", "how often the feature fires together with a class, for its most frequent "
        "(feature, class) pair (the count-cutoff baseline of Zhou et al. Fig. 5; binary predicates)",
        "fsengine.selectors:CountCutoffSelector", params=(_PAIRS, _CUTOFF), needs=Needs(binary_features=True)),
    MethodSpec(
        "bayes", "Bayes factor", "Laplace-approximated log Bayes factor of adding the feature's best "
        "(feature, class) pair to a maxent model; stops when no candidate beats the model (Daume III)",
        "fsengine.selectors:BayesFactorSelector",
        params=(Param("features_per_round", "Pairs added per round (S)", 10, min=1, max=1000,
                      help="one MAP fit per round; up to S pairs added with Eq. (14) re-scoring"),
                Param("prior_variance", "Prior variance σ²", 1.0, kind="float", min=1e-4, max=1e4),
                Param("sign", "Occam term", "laplace", kind="choice", choices=("laplace", "printed"),
                      help="laplace: -1/2 log(σ² a_g) as Eq. (7) gives; printed: +1/2 log a_g as Eq. (12) is printed"),
                Param("log_prior_odds", "Log prior odds per pair", 0.0, kind="float", min=-50.0, max=50.0,
                      special=("multiplicity",),
                      help="0: uniform model prior (Eq. 13); -2 asks for e² times more evidence per pair; "
                           "multiplicity: -log(F - G), the current model keeps half the prior mass")),
        figures="fsengine.plots.select:bayes_factor_figures"),
    MethodSpec(
        "rtm", "RTM", "log Bayes factor of theta_j = P(class 1 | tag j) against 0.5 under the Relevance "
        "Tagging Machine's approximate posterior (Molchanov, Kondrashkin & Vetrov)",
        "fsengine.selectors:RTMSelector",
        params=(Param("method", "Training method", "power_ep", kind="choice", choices=("power_ep", "ep", "em"),
                      help="power_ep: the slides' Power EP (eta = -1); ep: standard EP, about 10x slower; "
                           "em: variational lower bound"),
                Param("alpha0", "Prior strength alpha0", "auto", kind="float", min=1.0, max=1000.0,
                      special=("auto",),
                      help="Beta(alpha0, alpha0) prior on every theta_j; auto picks it from the tags per object "
                           "(5 up to 50 tags, else tags / 6, with stronger inner damping)"),
                Param("ard", "ARD (evidence-tuned alpha_j)", False, kind="bool",
                      help="selected tags: those the ARD does not pin at 0.5 (about 10x slower); "
                           "off: log Bayes factor > 0 under the fixed prior"),
                Param("max_iter", "Max sweeps", 300, min=1, max=5000)),
        needs=Needs(two_classes=True, binary_features=True),
        figures="fsengine.plots.select:rtm_figures"),
    MethodSpec(
        "variance", "Variance", "variance of each feature, ignoring the labels (an unsupervised baseline)",
        "fsengine.methods.toolbox.selector:VarianceRankSelector", needs=Needs(tasks=ANY_TASK)),
    # the toolbox practitioners already use (fsengine.methods.toolbox)
    MethodSpec(
        "anova", "ANOVA F", "F statistic of a one-way analysis of variance of the feature across the classes "
        "(sklearn f_classif), or of its linear regression on a real target (f_regression)",
        "fsengine.selectors:ANOVASelector", params=(_LEVEL, _TASK), needs=Needs(tasks=ANY_TASK)),
    MethodSpec(
        "chi2", "Chi²", "chi-squared statistic of the feature's class totals against independence of the class "
        "(sklearn chi2; non-negative features such as counts)",
        "fsengine.selectors:Chi2Selector", params=(_LEVEL,), needs=Needs(non_negative=True)),
    MethodSpec(
        "forest", "Forest", "mean decrease in impurity of the feature over a seeded random forest "
        "(Breiman 2001; sklearn feature_importances_)",
        "fsengine.selectors:ForestSelector", params=(_TREES, _SEED, _TASK), needs=Needs(tasks=ANY_TASK)),
    MethodSpec(
        "permutation", "Permutation", "drop of a fitted model's held-out score when the feature's values are "
        "shuffled (Breiman 2001; sklearn.inspection.permutation_importance)",
        "fsengine.selectors:PermutationSelector",
        params=(Param("model", "Model", "linear", kind="choice", choices=("linear", "forest"),
                      help="linear: standardised L2 logistic or ridge regression; forest: a seeded random forest"),
                Param("n_repeats", "Shuffles per feature", 5, min=1, max=100),
                Param("test_size", "Held-out share", 0.25, kind="float", min=0.1, max=0.5,
                      help="the model is fitted on the rest; the importances are measured on this part"),
                _TREES, _SEED, _TASK),
        needs=Needs(sparse_ok=False, tasks=ANY_TASK)),
    MethodSpec(
        "rfe", "RFE", "round in which recursive feature elimination over L2 logistic (or ridge) regression on "
        "standardised features drops the feature (Guyon et al. 2002; sklearn RFE)",
        "fsengine.selectors:RFESelector",
        params=(Param("C", "Inverse penalty C", 1.0, kind="float", min=1e-4, max=1e4,
                      help="L2 logistic regression's C; ridge regression uses alpha = 1 / C"),
                Param("step", "Features removed per round", 0.05, kind="float", min=0.001, max=1e6,
                      help="a fraction in (0, 1): that share of the features per round (0.05: 20 rounds); k >= 1: "
                           "k features per round. One fit per round: step 1, the thorough elimination, costs p - 1 "
                           "fits (minutes on 784 pixels). The features removed in one round are ordered by their "
                           "squared coefficient in that round"),
                _TASK),
        needs=Needs(tasks=ANY_TASK)),
    MethodSpec(
        "stability", "Stability", "largest selection probability of the feature over L1 logistic / lasso fits on "
        "random half-samples along a penalty grid (Meinshausen & Bühlmann 2010)",
        "fsengine.selectors:StabilitySelector",
        params=(Param("n_resamples", "Half-samples", 50, min=1, max=1000,
                      help="random subsamples of half the rows; the paper uses 100"),
                Param("n_Cs", "Values of C", 10, min=1, max=100),
                Param("C_span", "C range (max / min)", 10.0, kind="float", min=1.0, max=1e4,
                      help="the grid starts where the L1 fit selects nothing; wider spans reach weaker penalties, "
                           "more selections and a larger error bound"),
                Param("pi_threshold", "Selection threshold", 0.75, kind="float", min=0.6, max=1.0,
                      help="stable features: selection probability >= this; E[V] <= q^2 / ((2 pi - 1) p); "
                           "the paper finds 0.6-0.9 give much the same"),
                _SEED, _TASK),
        needs=Needs(tasks=ANY_TASK)),
    MethodSpec(
        "mrmr", "mRMR", "relevance minus mean redundancy (mutual information of features discretised at the mean "
        "± one standard deviation) when the feature joined the greedy selection (Peng, Long & Ding 2005, MID)",
        "fsengine.selectors:MRMRSelector", params=(_GREEDY, _BINS)),
    # the information-theoretic family beyond mRMR (fsengine.methods.information; Brown et al. 2012)
    MethodSpec(
        "jmi", "JMI", "joint mutual information with the features already selected, (1/|S|) sum_j I(X_k X_j; Y), "
        "when the feature joined the greedy selection (Yang & Moody 1999; Brown et al. 2012)",
        "fsengine.selectors:JMISelector", params=(_GREEDY, _BINS)),
    MethodSpec(
        "cmim", "CMIM", "the smallest information about the class the feature adds to any one selected feature, "
        "min_j I(X_k; Y | X_j), when it joined the greedy selection (Fleuret 2004)",
        "fsengine.selectors:CMIMSelector", params=(_GREEDY, _BINS)),
    MethodSpec(
        "disr", "DISR", "sum over the selected features of the symmetric relevance I(X_k X_j; Y) / H(X_k X_j Y), "
        "when the feature joined the greedy selection (Meyer & Bontempi 2006)",
        "fsengine.selectors:DISRSelector", params=(_GREEDY, _BINS)),
    MethodSpec(
        "cife", "CIFE", "relevance minus summed redundancy plus summed class-conditional redundancy with the "
        "selected features, when the feature joined the greedy selection (Lin & Tang 2006)",
        "fsengine.selectors:CIFESelector", params=(_GREEDY, _BINS)),
    MethodSpec(
        "icap", "ICAP", "relevance minus the summed positive interaction max(0, I(X_j; X_k) - I(X_j; X_k | Y)) "
        "with the selected features, when the feature joined the greedy selection (Jakulin 2005)",
        "fsengine.selectors:ICAPSelector", params=(_GREEDY, _BINS)),
    MethodSpec(
        "fcbf", "FCBF", "symmetrical uncertainty of the feature with the class; selected: the predominant "
        "features, none redundant with a stronger one (Yu & Liu 2003)",
        "fsengine.selectors:FCBFSelector",
        params=(Param("delta", "SU threshold delta", 0.0, kind="float", min=0.0, max=0.99,
                      help="features with SU(X, Y) at or below delta are left out before the redundancy analysis"),
                _BINS)),
    MethodSpec(
        "unified", "Unified criterion", "I(X_k; Y) - beta sum_j I(X_j; X_k) + gamma sum_j I(X_j; X_k | Y) over the "
        "selected features (divided by |S| with mean), when the feature joined the greedy selection: MIM (0, 0), "
        "MIFS (beta, 0, sum), mRMR (1, 0, mean), JMI (1, 1, mean), CIFE (1, 1, sum) (Brown et al. 2012)",
        "fsengine.selectors:UnifiedInformationSelector",
        # at its defaults the criterion is MIM, relevance alone: the family's first member, and no
        # duplicate of a named member in a comparison or the benchmark (JMI is jmi, mRMR is mrmr)
        params=(Param("beta", "Redundancy weight β", 0.0, kind="float", min=0.0, max=10.0),
                Param("gamma", "Conditional redundancy weight γ", 0.0, kind="float", min=0.0, max=10.0),
                Param("normalise", "Normalisation", "mean", kind="choice", choices=("mean", "sum"),
                      help="mean: beta and gamma divided by |S| (mRMR, JMI); sum: as they are (MIFS, CIFE)"),
                _GREEDY, _BINS)),
    # the wrappers (fsengine.methods.wrappers)
    MethodSpec(
        "boruta", "Boruta", "median importance of the feature relative to the best of the permuted shadow features "
        "in a seeded random forest, iterated; confirmed / tentative / rejected by a binomial test of its hits "
        "(Kursa & Rudnicki 2010, BorutaPy's two-step correction)",
        "fsengine.selectors:BorutaSelector",
        params=(Param("n_estimators", "Trees per iteration", 30, min=1, max=2000),
                Param("max_depth", "Tree depth", 5, min=1, max=50, special=(None,),
                      help="BorutaPy recommends 3 to 7; none: grown fully (slower)"),
                Param("max_iter", "Most iterations", 20, min=1, max=500,
                      help="no decision before iteration 8 at alpha 0.05; more iterations, fewer tentative "
                           "features (the R package uses 100)"),
                Param("alpha", "Test level", 0.05, kind="float", min=1e-6, max=0.5),
                Param("two_step", "Two-step correction", True, kind="bool",
                      help="on: Benjamini-Hochberg over the features and Bonferroni over the iterations "
                           "(BorutaPy); off: Bonferroni over all features (the R package)"),
                _SEED)),
    MethodSpec(
        "sfs", "SFS", "gain in cross-validated log-loss of L2 logistic regression on standardised features when "
        "the feature was added by sequential forward selection (sklearn SequentialFeatureSelector) over the "
        "ANOVA F pre-screened candidates",
        "fsengine.selectors:SequentialForwardSelector",
        params=(Param("n_features_to_select", "Features added", 10, min=1, max=500),
                Param("n_candidates", "Candidates (ANOVA F pre-screen)", 40, min=1, max=100_000, special=(None,),
                      help="each step fits cv models per candidate; none: every feature (scikit-learn's selector "
                           "exactly, slow on many features)"),
                Param("cv", "Cross-validation folds", 3, min=2, max=10),
                Param("C", "Inverse penalty C", 1.0, kind="float", min=1e-4, max=1e4),
                Param("scoring", "Score of a step", "neg_log_loss", kind="choice",
                      choices=("neg_log_loss", "accuracy", "roc_auc", "balanced_accuracy"),
                      help="log-loss: continuous, few ties; accuracy ties many candidates on a few hundred rows"),
                _SEED)),
    # the Relief family (fsengine.methods.relief)
    MethodSpec(
        "relieff", "ReliefF", "how much more the feature differs between an instance and its k nearest instances of "
        "other classes than its k nearest of its own class, averaged over the instances (Kononenko 1994)",
        "fsengine.selectors:ReliefFSelector",
        params=(Param("n_neighbors", "Neighbours k", 10, min=1, max=1000,
                      help="the k nearest hits and the k nearest misses of every other class of each instance"),
                _DISCRETE, _INSTANCES, _SEED, _TASK),
        needs=Needs(tasks=ANY_TASK)),
    MethodSpec(
        "multisurf", "MultiSURF", "ReliefF's difference with the neighbours of each instance closer than its mean "
        "distance minus half a standard deviation, instead of k (Urbanowicz et al. 2018)",
        "fsengine.selectors:MultiSURFSelector", params=(_DISCRETE, _INSTANCES, _SEED, _TASK),
        needs=Needs(tasks=ANY_TASK)),
)

METHODS: dict[str, MethodSpec] = {spec.key: spec for spec in _ENTRIES}


def method_defaults(key: str) -> dict[str, Any]:
    """The defaults of method ``key``'s registry parameters: the one source the selector class
    (its ``__init__`` signature), the app's widgets and ``--param`` all read, so the three routes
    fit the same model.

    >>> method_defaults("mdl")
    {'max_features': 30}
    """
    return get_method(key).defaults()


def method_constraints(key: str, own: dict[str, list] | None = None, *, arrays: tuple[str, ...] = ()
                       ) -> dict[str, list]:
    """The ``_parameter_constraints`` of method ``key``'s selector class: scikit-learn's
    validation of the registry's parameters, translated from their :class:`~fsengine.params.Param`
    (kind, range, choices, special values: written once, in this module) by
    :func:`fsengine.validation.param_constraints`, followed by ``own``, the constraints of the
    parameters the class has and the registry does not offer (the class is their one source).
    So the Python API, the command line (``--param``) and the app's widgets accept the same values.

    ``arrays`` names registry parameters that the Python API also takes as an array (one value per
    candidate), a form no widget or command line can spell; the scalar values stay the registry's.
    A name both in the registry and in ``own`` is an error: a range is written once.

    >>> constraints = method_constraints("mdl", {"binarize": [None, str]})
    >>> [str(c) for c in constraints["max_features"]], list(constraints)
    (['an int in the range [1, inf)'], ['max_features', 'binarize'])
    """
    from fsengine.validation import param_constraints  # scikit-learn: not for listing the methods

    spec = get_method(key)
    names = {p.name for p in spec.params}
    twice = sorted(names & set(own or {}))
    if twice:
        raise ValueError(f"Method '{key}': {', '.join(twice)} come(s) from the registry; remove them from the "
                         "class's own constraints (a range is written once, in fsengine/methods/registry.py)")
    if not set(arrays) <= names:
        raise ValueError(f"Method '{key}': arrays= names no registry parameter: {sorted(set(arrays) - names)}")
    derived = {p.name: param_constraints(p) + (["array-like"] if p.name in arrays else []) for p in spec.params}
    return {**derived, **(own or {})}


#: the methods fsengine itself defines (register_method cannot replace them)
BUILT_IN = frozenset(METHODS)


def register_method(spec: MethodSpec, *, replace: bool = False) -> MethodSpec:
    """Add ``spec`` to the registry: the Compare page, ``fsengine select|compare`` and
    :func:`fsengine.compare.run_comparison` then offer it by its key. The app never imports a path a
    visitor types; a method reaches its pages only this way, registered by the person who starts it
    (e.g. in an entry script served with ``fsengine app --entry my_app.py``, see the README section
    "Compare with your own methods").

    Registering an equal spec again does nothing (Streamlit reruns its entry script); another spec
    under a key in use needs ``replace=True``; the built-in methods cannot be replaced. Keys may not
    hold ``:``, ``,``, ``.`` or spaces (they are written in ``--methods a,b`` and
    ``--param key.name=value``).

    Examples
    --------
    >>> spec = MethodSpec("kbest", "SelectKBest", "ANOVA F of SelectKBest",
    ...                   "sklearn.feature_selection:SelectKBest",
    ...                   params=(Param("k", "Features kept", 10, min=1, max=10_000),))
    >>> register_method(spec) is spec and "kbest" in method_keys()
    True
    >>> _ = METHODS.pop("kbest")  # (tidy up after the example)
    """
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method takes a MethodSpec, not {type(spec).__name__}")
    if not spec.key or any(ch in spec.key for ch in ":,. \t") or spec.key != spec.key.strip():
        raise ValueError(f"Method key {spec.key!r}: use letters, digits, - or _ (no ':', ',', '.' or spaces)")
    current = METHODS.get(spec.key)
    if current is not None and current != spec:
        if spec.key in BUILT_IN:
            raise ValueError(f"{spec.key!r} is a built-in method; register yours under another key")
        if not replace:
            raise ValueError(f"A method {spec.key!r} is registered already ({current.label}); choose another key "
                             "or pass replace=True")
    METHODS[spec.key] = spec
    return spec


def method_keys() -> list[str]:
    return list(METHODS)


def get_method(key: str) -> MethodSpec:
    """The spec of ``key`` (a command-line name such as ``bia``), or a ValueError listing them."""
    if key not in METHODS:
        raise ValueError(f"Unknown method {key!r}. Known methods: {', '.join(METHODS)}")
    return METHODS[key]

