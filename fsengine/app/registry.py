"""The pages of the app, in navigation order: one :class:`PageSpec` each.

The shell builds the navigation from this list, Home links every page with its summary, the
top-level ``pages/*.py`` files of a checkout name their spec by key, and the browser tests open
every page from it. Adding a page = a view module in :mod:`fsengine.app.views` + one entry here
(+ its one-line ``pages/KEY.py`` in a checkout).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """One page: ``key`` names its view module (``fsengine.app.views.KEY``), its checkout script
    (``pages/KEY.py``) and its URL path (``/KEY``; the default page lives at ``/``)."""

    key: str
    title: str
    icon: str
    summary: str
    default: bool = False
    #: the title the page itself shows, when it differs from the navigation's ``title`` (the shell's
    #: stand-in shows it while the page loads; a test keeps it equal to the page's own)
    heading: str | None = None

    @property
    def shown_title(self) -> str:
        return self.heading or self.title

    @property
    def url_path(self) -> str:
        return "" if self.default else self.key

    @property
    def script(self) -> str:
        """The checkout's entry script, relative to the project root."""
        return f"pages/{self.key}.py"

    @property
    def module(self) -> str:
        return f"fsengine.app.views.{self.key}"


PAGES: tuple[PageSpec, ...] = (
    PageSpec("home", "Home", ":material/home:",
             "What the explorer is for, its pages and methods, and the chosen dataset.", default=True,
             heading="Feature Selection Explorer"),
    PageSpec("data", "Data", ":material/table_chart:",
             "Samples, class balance, feature statistics and provenance of the chosen dataset, and the downloads."),
    PageSpec("bia", "BIA: Lambda paths", ":material/timeline:",
             "Posterior relevance of every feature along the prior strength (Fisher & Mehta's Bayesian "
             "Ising Approximation).", heading="BIA: Λ paths"),
    PageSpec("gain", "SGC vs IFS", ":material/speed:",
             "Greedy likelihood-gain feature selection for conditional maxent (Zhou et al. 2003)."),
    PageSpec("bayes_factor", "Bayes-factor selection", ":material/balance:",
             "Daume III's approximate Bayes factors for maxent features."),
    PageSpec("classic", "Classic criteria", ":material/leaderboard:",
             "Jaakkola's lecture: mutual information, MDL, L1 path, boosting."),
    PageSpec("rtm", "Relevance Tagging Machine", ":material/sell:",
             "Molchanov, Kondrashkin & Vetrov: Power EP, EP and EM side by side."),
    PageSpec("unified", "Unified information criterion", ":material/tune:",
             "Brown et al.'s two weights: MIM, mRMR, JMI and CIFE as one criterion, on a planted XOR task.",
             heading="The unified information criterion"),
    PageSpec("compare", "Compare methods", ":material/compare_arrows:",
             "Run several selectors on the picked dataset; accuracy, overlap, stability, ROC."),
    PageSpec("benchmark", "Benchmark", ":material/emoji_events:",
             "Every method on many datasets: average ranks, critical-difference diagram, Holm-Wilcoxon pairs.",
             heading="Benchmark across datasets"),
)


def get_page(key: str) -> PageSpec:
    for spec in PAGES:
        if spec.key == key:
            return spec
    raise KeyError(f"no page {key!r}; pages: {', '.join(p.key for p in PAGES)}")
