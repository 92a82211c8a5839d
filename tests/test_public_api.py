"""One public surface: the documented modules (``fsengine``'s docstring) say what they offer in
``__all__``, that list is held here name by name (a change is deliberate: edit it here and add a
CHANGELOG entry), every name exists and has a docstring, and no other module defines
``__all__`` (the mark of a public module)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import fsengine

#: the public API, module by module
SURFACE = {
    "fsengine.selectors": [
        "ANOVASelector", "BIASelector", "BaseFeatureSelector", "BayesFactorSelector", "BoostingSelector",
        "BorutaSelector", "CIFESelector", "CMIMSelector", "Chi2Selector", "CountCutoffSelector", "DISRSelector",
        "FCBFSelector", "ForestSelector", "ICAPSelector", "IFSSelector", "JMISelector", "L1PathSelector",
        "MDLSelector", "MRMRSelector", "MultiSURFSelector", "MutualInfoSelector", "PermutationSelector",
        "RFESelector", "RTMClassifier", "RTMSelector", "ReliefFSelector", "SGCSelector", "SequentialForwardSelector",
        "StabilitySelector", "StopRequested", "TqdmProgress", "UnifiedInformationSelector", "VarianceRankSelector",
    ],
    "fsengine.plots": ["FEATURE_COLORS", "HIGHLIGHT", "METHOD_COLORS", "Position", "apply_style"],
    "fsengine.plots.bia": [
        "agreement_figure", "bia_explorable", "mark_top_pixels", "path_figure", "posterior_bars",
        "posterior_heatmap", "samples_with_top_pixels", "validation_explorable", "validation_figure",
    ],
    "fsengine.plots.gain": [
        "cumulative_time", "gain_computations", "gain_per_stage", "overlap_heatmap", "scores_vs_features",
        "stage_explorable",
    ],
    "fsengine.plots.bayes_factor": [
        "accuracy_figure", "approximation_figure", "beta_rounds_figure", "pairs_explorable", "pixel_pairs_figure",
        "sign_figure",
    ],
    "fsengine.plots.classic": [
        "boosting_image", "boosting_rounds", "feature_image", "l1_coefficient_image", "l1_explorable", "l1_path",
        "l1_selector_path", "mdl_chosen_image", "mdl_curve", "mi_bars", "prefix_comparison",
    ],
    "fsengine.plots.rtm": [
        "accuracy_figure", "auc_figure", "convergence_figure", "relevant_tags_figure", "roc_figure",
        "theta_image_figure", "threshold_explorable",
    ],
    "fsengine.plots.compare": [
        "accuracy_curves", "difference_curves", "jaccard_heatmap", "relevance_grid", "roc_curves", "stability_bars",
        "top_k_explorable",
    ],
    "fsengine.plots.benchmark": [
        "accuracy_figure", "cd_explorable", "ranks_explorable", "similarity_explorable", "stability_bars",
        "tradeoff_explorable",
    ],
    "fsengine.plots.information": ["unified_explorable"],
    "fsengine.plots.data": [
        "class_balance", "class_mean_images", "feature_map", "image_grid", "target_histogram", "top_features",
        "word_frequencies",
    ],
    "fsengine.compare": [
        "CompareSettings", "ComparisonCancelled", "ComparisonResult", "HeldOut", "MethodRun", "MethodSpec", "Needs",
        "Param", "RANDOM", "comparison_figures", "html_report", "register_method", "run_comparison", "tables_zip",
        "write_tables",
    ],
    "fsengine.stats": [
        "Estimate", "LEVEL", "N_BOOTSTRAP", "bonferroni_level", "bootstrap_interval", "bootstrap_means",
        "difference_verdict", "f1_difference", "f1_interval", "holm_adjust", "jaccard", "jaccard_matrix",
        "jackknife_interval", "kuncheva_index", "kuncheva_stability", "median_iqr", "median_range",
        "ordering_verdict", "paired_bootstrap_interval", "paired_bootstrap_means", "paired_t_interval",
        "precision_from_counts", "ratio_from_counts", "recall_from_counts", "roc_auc", "roc_curve", "t_interval",
        "versus_value", "wilson_interval",
        "FriedmanTest", "PairwiseTest", "SignedRankTest", "friedman_test", "nemenyi_cd", "nemenyi_q",
        "nogueira_difference", "nogueira_stability", "pairwise_signed_rank", "rank_rows", "signed_rank_interval",
        "signed_rank_test", "SignedRankReach", "signed_rank_reach",
    ],
    "fsengine.data": [
        "DataNotFoundError", "Dataset", "DatasetSpec", "Provenance", "dataset_specs", "get_spec", "load_dataset",
        "open_chunked", "parse_spec", "register_dataset",
    ],
}

PACKAGE = Path(fsengine.__file__).parent


@pytest.mark.parametrize("module", list(SURFACE))
def test_each_public_module_offers_exactly_the_documented_names(module):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == sorted(SURFACE[module]), (
        f"{module}.__all__ changed: update SURFACE in tests/test_public_api.py and add a CHANGELOG.md entry")
    assert len(set(mod.__all__)) == len(mod.__all__)
    for name in mod.__all__:
        value = getattr(mod, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{module}.{name} has no docstring (the API reference shows it)"


def test_the_package_docstring_documents_every_public_module():
    top = {m.split(".")[1] for m in SURFACE}
    assert all(f"``fsengine.{name}``" in fsengine.__doc__ for name in top)
    families = {m.rsplit(".", 1)[1] for m in SURFACE if m.startswith("fsengine.plots.")}
    assert all(f"``{name}``" in fsengine.__doc__ for name in families)


def _defines_all(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
               and any(isinstance(t, ast.Name) and t.id == "__all__"
                       for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
               for node in tree.body)


def test_only_the_public_modules_define_all():
    """``__all__`` marks a public module; an internal package re-exports with ``import x as x``."""
    defining = set()
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if _defines_all(path):
            defining.add(module)
    assert defining == set(SURFACE), (
        f"__all__ outside the public surface: {sorted(defining - set(SURFACE))} (internal modules re-export with "
        f"'from a import b as b'); public modules without it: {sorted(set(SURFACE) - defining)}")
