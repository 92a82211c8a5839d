"""The offline lecture pack: every method's explorables for one dataset, as plain HTML files.

:func:`lecture_pages` fits each method that applies to the dataset (the same study functions the
app's pages run) and builds its explorables (:mod:`fsengine.plots`: figures that carry their own
slider); :func:`write_pack` writes them into a folder:

- ``index.html``: the dataset, what each page shows, the notes (class pair, skipped methods);
- one ``<method>.html`` per method: its question, its equations, its explorables with captions
  computed from the run;
- ``plotly.min.js``: plotly.js once, beside the pages (each page loads it by a relative path).

The pages need no Python, no server and no network: they open from ``file://``. The equations
are MathML, converted from LaTeX here by ``latex2mathml`` (a pure-Python package): browsers draw
MathML themselves, while MathJax or KaTeX would be scripts and fonts to ship (plotly.js typesets
LaTeX only when MathJax is on the page). ``fsengine lecture`` writes the folder under the
output-folder rules (:mod:`fsengine.commands.output`); the app offers :func:`pack_zip` of the same
pages as a download.
"""

from __future__ import annotations

import html
import io
import re
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fsengine import __version__
from fsengine.data import Dataset
from fsengine.progress import Progress, report_to, scaled

#: plotly.js, written once beside the pages
PLOTLY_JS = "plotly.min.js"
#: the pages in the order of the index, by file stem
METHOD_PAGES = ("bia", "gain", "bayes_factor", "l1", "rtm", "unified", "compare")
#: the k, stage, C or threshold each explorable starts at is the one the app's page starts at
STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1260px; margin: 0 auto;
       padding: 12px 20px 40px; color: #222; line-height: 1.45; }
nav { font-size: 0.95em; border-bottom: 1px solid #ddd; padding-bottom: 6px; margin-bottom: 10px; }
nav a { margin-right: 1.2em; }
h1 { font-size: 1.6em; margin: 0.4em 0; }
.source { color: #555; margin-top: -0.4em; }
math[display="block"] { margin: 0.8em 0; font-size: 1.12em; }
.figure { margin: 1.2em 0 0.3em; }
.caption { color: #444; font-size: 0.95em; margin-bottom: 1.6em; }
.notes { color: #555; font-size: 0.95em; }
table.pages td { padding: 4px 12px 4px 0; vertical-align: top; }
"""


@dataclass(frozen=True)
class Figure:
    """One figure of a page and what to read in it (a caption computed from the run)."""

    figure: object  # a plotly Figure
    caption: str = ""


@dataclass(frozen=True)
class Page:
    """One method's page: ``text`` paragraphs (``$...$`` is inline LaTeX), ``equations`` (display
    LaTeX), its figures, and notes on how the data were adapted."""

    key: str
    title: str
    source: str
    text: tuple[str, ...]
    equations: tuple[str, ...]
    figures: tuple[Figure, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: the page's own data, when they are not the pack's dataset (a planted task that teaches)
    data: str | None = None

    @property
    def file_name(self) -> str:
        return f"{self.key}.html"


@dataclass(frozen=True)
class Pack:
    """The pages of one dataset and what the index says about it."""

    dataset: str
    description: str
    pages: tuple[Page, ...]
    notes: tuple[str, ...]
    skipped: dict[str, str]


# --- equations ------------------------------------------------------------------------------------

_INLINE = re.compile(r"\$([^$]+)\$")


def mathml(latex: str, *, display: bool = True) -> str:
    """``latex`` as MathML (a ``<math>`` element) that a browser draws without any script.

    >>> mathml("x^2", display=False).removeprefix('<math xmlns="http://www.w3.org/1998/Math/MathML" ')
    'display="inline"><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math>'
    """
    from latex2mathml.converter import convert

    return convert(latex, display="block" if display else "inline")


def paragraph(text: str) -> str:
    """``text`` as HTML: escaped, with ``$...$`` as inline MathML and ``**bold**`` as ``<b>``."""
    out, last = [], 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[last:match.start()]))
        out.append(mathml(match.group(1), display=False))
        last = match.end()
    out.append(html.escape(text[last:]))
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", "".join(out))


# --- the pages ----------------------------------------------------------------------------------

def _two_classes(ds: Dataset, classes: tuple[str, str] | None) -> tuple[Dataset, tuple[str, ...]]:
    """The dataset reduced to two classes (the given pair, else the first two), with a note."""
    from fsengine.methods.adapt import restrict_classes
    from fsengine.methods.registry import METHODS

    return restrict_classes(ds, [METHODS["bia"]], classes)


def _bia_page(ds: Dataset, progress: Progress) -> Page:
    from fsengine.methods.bia import study
    from fsengine.plots.bia import bia_explorable

    family = "logistic" if ds.task == "classification" else "linear"
    result = study.run_bia_path(ds, family, exclude_constant=True, progress=progress)
    top_k = min(20, max(3, ds.n_features // 10))
    image = ds.image_shape is not None
    classes = study.two_class_names(ds)
    fig = bia_explorable(result, result.position(1.0), top_k=top_k, image_shape=ds.image_shape,
                         feature_names=ds.feature_names, truth=ds.truth,
                         samples=study.sample_images(ds, per_class=3, seed=0) if image else None,
                         discriminative=study.discriminative_features(ds) if image and classes else None,
                         class_names=classes, max_lines=200)
    notes = (f"{result.excluded.size} constant features left out of the fit.",) if result.excluded.size else ()
    return Page(
        "bia", "Bayesian Ising Approximation: Λ paths",
        "Fisher & Mehta, Bayesian feature selection with strongly-regularizing priors maps to the Ising model (2015)",
        ("Which features belong in a generalised linear model? The BIA gives every feature a posterior "
         "probability of inclusion, averaged over all $2^p$ subsets, without enumerating one. A strong Gaussian "
         "prior $\\theta_j \\sim N(0, 1/\\Lambda)$ on standardised features turns the log-evidence of a subset "
         "into the energy of an Ising model whose spins $s_j = \\pm 1$ say in or out:",),
        ("\\log p(s \\mid y) = \\sum_i h_i s_i + \\sum_{i<j} J_{ij} s_i s_j + \\text{const},\\qquad "
         "h_i = \\epsilon\\,\\frac{H_{ii} + b_i^2}{4} + \\epsilon^2 \\sum_j C_{ij},\\quad J_{ij} = \\epsilon^2 C_{ij},"
         "\\quad \\epsilon = 1/\\Lambda",
         "m_i = \\tanh\\Big(h_i + \\sum_{j \\ne i} J_{ij} m_j\\Big),\\qquad p(s_i = 1 \\mid y) = \\frac{1 + m_i}{2},"
         "\\qquad \\Lambda^* = n\\,(1 + p\\,r)"),
        (Figure(fig, "Move the slider: Λ/Λ* moves the line on the path (left), the posterior of every feature "
                     "(right) and the top features. " + study.paths_caption(result, "posterior", family)),),
        notes)


def _gain_page(ds: Dataset, progress: Progress) -> Page:
    from fsengine.methods.gain.study import run_comparison
    from fsengine.plots.gain import stage_explorable

    comp = run_comparison(ds, budget=60, lookahead=50, methods=("IFS", "SGC", "SGC-LA"), n_checkpoints=0,
                          with_all_features=False, progress=progress)
    ratios = comp.work_ratios()
    caption = "Move the slider over the stages: the gain of the pair each method added (left), the gains computed " \
              "so far (right) and the pair each method added there (below)."
    if ratios is not None:
        caption += (f" Over these {ratios.stages} stages IFS computed {ratios.computations:,.0f} times as many gains "
                    f"as SGC and took {ratios.time:,.1f} times as long ({comp.n_candidates:,} candidate pairs).")
    return Page(
        "gain", "SGC vs IFS: greedy likelihood-gain selection",
        "Zhou, Wu, Weng & Schmidt, A fast algorithm for feature selection in conditional maximum entropy "
        "modeling (2003)",
        ("A conditional maxent model scores each class with weighted (predicate, class) features. **IFS** adds, "
         "at every stage, the candidate whose single new weight $\\alpha$ raises the training log-likelihood most, "
         "and re-scores every candidate at every stage. **SGC** keeps earlier gains as approximate upper bounds in "
         "a priority queue and recomputes only the top; **SGC-LA** also recomputes the next $L$ candidates.",),
        ("G_{S\\cup f}(\\alpha) = \\alpha\\,E_{\\tilde p}[f] - \\sum_x \\tilde p(x)\\,"
         "\\log\\frac{Z_{S\\cup f,\\alpha}(x)}{Z_S(x)},\\qquad \\Delta L(S, f) = \\max_\\alpha G_{S\\cup f}(\\alpha)",),
        (Figure(stage_explorable(comp, 1), caption),))


def _bayes_factor_page(ds: Dataset, progress: Progress) -> Page:
    from fsengine.methods.bayes_factor.study import (
        accuracy_curves,
        heldout_task,
        page_default,
        run_bayes_factor,
        selected_pixels,
        starts_on_subset,
    )
    from fsengine.plots.bayes_factor import pairs_explorable

    large = starts_on_subset(ds)
    task = heldout_task(ds, n_train=10000 if large else 0, n_heldout=5000 if large else 0)
    sign, model_prior, _ = page_default()  # the page's default: the recorded development-split choice
    run = run_bayes_factor(task, per_round=20 if large else 10, sign=sign, model_prior=model_prior,
                           max_pairs=200 if large else 300, rounds_past_stop=3, progress=progress)
    stopped = run.stop_round is not None
    fig = pairs_explorable(run, accuracy_curves(run), k=run.n_at_stop, predicate_names=task.predicate_names,
                           class_names=task.class_names, pixels=selected_pixels(task, run), stopped=stopped)
    where = (f"stopped by itself after {run.n_at_stop} pairs (round {run.stop_round})" if stopped else
             f"never stopped by itself ({run.stop_reason})")
    return Page(
        "bayes_factor", "Bayes-factor selection: when to stop",
        "Daumé III, Carefully approximated Bayes factors for feature selection in MaxEnt models (2004)",
        ("Greedy selection ranks features but never says how many to keep. APPROXBFFS scores every candidate "
         "(predicate, class) pair $g$ by a Laplace-approximated log Bayes factor of the model with $g$ against the "
         "current model, and stops when the current model wins: no held-out data decide the stop.",),
        ("p(D \\mid M) \\approx q(\\lambda^0)\\,\\sqrt{(2\\pi)^K / \\det A}",
         "\\beta_g - \\beta_0 = \\log\\frac{\\pi(M_g)}{\\pi(M_0)} + \\log p(D \\mid \\lambda^0, \\mu_g)"
         " - \\log p(D \\mid \\lambda^0) - \\frac{\\mu_g^2}{2\\sigma^2}"
         " - \\frac{1}{2} \\log\\left(\\sigma^2 a_g\\right)"),
        (Figure(fig, f"Move the slider over k, the first k selected pairs. The run {where}; {task.description}. "
                     "The held-out rows only show how good each stopping point is."),))


def _l1_page(ds: Dataset, progress: Progress) -> Page:
    from fsengine.methods.classic.study import l1_held_out, l1_summary, mean_image
    from fsengine.methods.registry import method_defaults
    from fsengine.plots.classic import l1_explorable
    from fsengine.position import Position

    fit = l1_held_out(ds, n_Cs=method_defaults("l1")["n_Cs"], C_span=1e3, cv=None, test_size=0.25,
                      progress=progress)
    Cs = fit.selector.Cs_
    fig = l1_explorable(fit.selector, Position.at(Cs, len(Cs) // 2), list(ds.feature_names),
                        image_shape=ds.image_shape, background=None if ds.image_shape is None else mean_image(ds.X),
                        held_out=fit.held_out)
    summary = l1_summary(fit)
    return Page(
        "l1", "The L1 path",
        "Jaakkola, MIT 6.867 lecture 12: model selection criteria (Eqs. 18-19)",
        ("Which coefficients of a logistic regression survive a one-norm penalty? Relaxing the penalty "
         "($C = 1/\\lambda$ grows) lets the features enter one at a time: a feature enters when the slope of the "
         "log-likelihood along it reaches $\\lambda$.",),
        ("J(\\theta) = \\sum_t \\log P(y_t \\mid x_t, \\theta) - \\lambda \\sum_i \\lvert\\theta_i\\rvert",),
        (Figure(fig, f"Move the slider over C: the line marks C on the path and on the accuracies, and the text "
                     f"names the largest coefficients there. Fitted on {fit.n_train:,} rows, scored on {fit.n_test:,} "
                     "held-out rows. No C is chosen here, so no accuracy is reported: the best one along the path "
                     f"would be picked on the rows that report it. The largest C keeps {summary.n_selected} "
                     "coefficients non-zero."),))


def _rtm_page(ds: Dataset, progress: Progress) -> Page:
    from fsengine.data.transforms import binarize_features
    from fsengine.methods.rtm import study as rtm_study
    from fsengine.methods.rtm import suggested_settings
    from fsengine.plots.rtm import threshold_explorable

    binary = binarize_features(ds)
    _, per_object = rtm_study.tag_counts(binary)
    classes = tuple(ds.target_names)
    train, test = rtm_study.page_split(ds, classes)
    fit = rtm_study.page_fit(train, test, suggested_settings(per_object), "power_ep", progress=progress)
    image = binary.image_shape is not None
    fig = threshold_explorable(fit.relevance, 0.0, truth=binary.truth, theta=fit.theta if image else None,
                               image_shape=binary.image_shape, class_names=classes)
    notes = (f"The RTM needs binary tags: {binary.provenance.notes[-1]}.",) if binary is not ds else ()
    return Page(
        "rtm", "Relevance Tagging Machine",
        "Molchanov, Kondrashkin & Vetrov, Power Expectation Propagation for the Relevance Tagging Machine (2015)",
        ("Objects described by binary tags fall into two classes. Every tag $j$ carries one number "
         "$\\theta_j = P(\\text{class } 1 \\mid \\text{tag } j)$, and the tags of an object vote independently. "
         "Power EP approximates the posterior by a product of Betas; a tag's relevance is the log Bayes factor of "
         "$\\theta_j$ against $\\theta_j = 1/2$.",),
        ("P(c = 1 \\mid x, \\theta) = \\frac{\\prod_j \\theta_j^{x_j}}{\\prod_j \\theta_j^{x_j} + "
         "\\prod_j (1 - \\theta_j)^{x_j}},\\qquad \\theta_j \\sim \\mathrm{Beta}(\\alpha_j, \\alpha_j)",),
        (Figure(fig, f"Move the slider over the relevance threshold (log Bayes factor; 0 = even odds). Power EP "
                     f"{'converged' if fit.converged else 'did not converge: ' + fit.message}; held-out accuracy "
                     f"{fit.accuracy:.3f} on {test.n_samples:,} rows."),),
        notes)


def _unified_page(ds: Dataset, progress: Progress) -> Page:
    """Brown et al.'s unified criterion on lesson 7's planted XOR task (whatever the pack's dataset:
    the task is where the choice between the members shows)."""
    from fsengine.data.synthetic.xor import make_xor_redundant
    from fsengine.methods.information import study
    from fsengine.plots.information import unified_explorable

    task = make_xor_redundant(**study.LESSON_TASK)
    grid = study.unified_grid(task, progress=scaled(progress, 0.0, 0.8, "grid: "))
    summary = study.grid_summary(grid)
    replicates = study.member_replicates(progress=scaled(progress, 0.8, 1.0, "fresh draws: "))
    fig = unified_explorable(grid, maps=study.summary_maps(summary))
    members = ", ".join(f"{row['member']} (β = γ = 0)" if row["β"] == row["γ"] == 0 else
                        f"{row['member']} (β = {row['β']:g}, γ = {row['γ']:g}, {row['normalisation']})"
                        for row in study.members_table().to_dict("records"))
    return Page(
        "unified", "The unified information criterion",
        "Brown, Pocock, Zhao & Luján, Conditional likelihood maximisation: a unifying framework for information "
        "theoretic feature selection (JMLR 13, 2012)",
        ("Greedy information-theoretic filters add one feature at a time, the one whose criterion $J$ is largest "
         "given the features $S$ already selected. MIM, MIFS, mRMR, JMI and CIFE are one criterion with two "
         "weights: $\\beta$ on the candidate's redundancy with the selected features, and $\\gamma$ on its "
         "class-conditional redundancy, which counts as a bonus. mRMR and JMI divide both weights by $|S|$; MIFS "
         f"and CIFE do not. The named members: {members}.",
         "The data make the choice matter: a planted **XOR pair** (each alone carries no information about the "
         "label, together they determine it), **noisy copies of the label** (informative, and redundant with each "
         "other) and **noise**. Move β with γ = 0, then switch to sums: the penalty grows with every copy taken. "
         "Raise γ: once one XOR member is selected, its partner follows at once, carried by "
         "$I(x_a; x_b \\mid Y) = H(Y)$."),
        (study.EQUATION,),
        (Figure(fig, "Move β, γ and the normalisation: top right, the kind of feature each greedy step selects; "
                     "bottom right, J's three terms for that feature (the member's name shows when the sliders "
                     "stand on it); left, every (β, γ) of the grid, the named members circled. "
                     + study.agreement_sentence(study.selector_agreement(task, grid)) + " "
                     + study.members_sentence(grid, summary) + " " + replicates.sentence()),),
        (study.LESSON_TASK_WHY,),
        data=f"lesson 7's planted task, not the pack's dataset: {task.n_samples:,} rows, {task.n_features} features "
             f"({task.provenance.source})")


def _compare_page(ds: Dataset, progress: Progress) -> Page:
    from fsengine.compare import CompareSettings, comparison_figures, run_comparison
    from fsengine.plots.compare import top_k_explorable

    settings = CompareSettings(test_size=0.25, n_bootstrap=5, max_k=min(50, ds.n_features - 1), seed=0)
    result = run_comparison(ds, ["bia", "mi", "l1", "boosting"], settings, progress=progress)
    k = min(10, result.k_range()[1])
    figures = comparison_figures(result, k)
    return Page(
        "compare", "The methods side by side",
        "fsengine's comparison: the same training rows, held-out accuracy with intervals, overlap and stability",
        ("Every method ranks the features on the same training rows; a logistic regression on the first $k$ "
         "features of each ranking is scored on held-out rows. Two top-$k$ sets overlap by Jaccard's index; a "
         "method's stability is Kuncheva's index of its top-$k$ sets over bootstrap refits, 0 for chance and 1 "
         "for the same set every time.",),
        ("J(A, B) = \\frac{\\lvert A \\cap B\\rvert}{\\lvert A \\cup B\\rvert},\\qquad "
         "I_C(A, B) = \\frac{r\\,n - k^2}{k\\,(n - k)}",),
        (Figure(figures["accuracy"], f"{result.interval_note()} {result.resolved_sentence(k)}"),
         Figure(top_k_explorable(result, k), "Move the slider over k: the overlap of the methods' top-k sets (left) "
                                             "and the stability of each method's top-k set (right)."),),
        tuple(result.notes) + tuple(f"{label} could not run: {why}" for label, why in result.failures.items()))


#: page key -> (what it needs, its builder)
BUILDERS: dict[str, tuple[str, Callable[[Dataset, Progress], Page]]] = {
    "bia": ("any", _bia_page),
    "gain": ("classification", _gain_page),
    "bayes_factor": ("classification", _bayes_factor_page),
    "l1": ("classification", _l1_page),
    "rtm": ("classification", _rtm_page),
    "unified": ("any", _unified_page),
    "compare": ("classification", _compare_page),
}


def lecture_pages(ds: Dataset, *, classes: tuple[str, str] | None = None, methods: Sequence[str] | None = None,
                  progress: Progress | None = None) -> Pack:
    """Fit every method of ``methods`` (default: all of :data:`METHOD_PAGES`) that applies to ``ds``
    and build its page. Classification data are reduced to two classes (``classes``, else the
    first two); a method that does not apply or fails is listed in ``skipped`` with the reason."""
    wanted = list(METHOD_PAGES if methods is None else methods)
    unknown = [m for m in wanted if m not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown lecture page(s) {', '.join(unknown)}; choose from {', '.join(METHOD_PAGES)}")
    progress = report_to(progress)
    ds, notes = _two_classes(ds, classes)
    pages, skipped = [], {}
    for i, key in enumerate(wanted):
        task, build = BUILDERS[key]
        if task != "any" and ds.task != task:
            skipped[key] = f"needs a {task} target; {ds.name} has a {ds.task} target"
            continue
        part = scaled(progress, i / len(wanted), (i + 1) / len(wanted), f"{key}: ")
        try:
            pages.append(build(ds, part))
        except (ValueError, ArithmeticError, MemoryError) as exc:
            skipped[key] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    progress(1.0, "pages built")
    if not pages:
        raise ValueError(f"no method applies to {ds.name}: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    classes_text = f", classes {', '.join(map(str, ds.target_names))}" if ds.task == "classification" else ""
    description = f"{ds.n_samples:,} rows, {ds.n_features:,} features{classes_text}; source: {ds.provenance.source}"
    return Pack(ds.name, description, tuple(pages), tuple(notes), skipped)


# --- HTML -----------------------------------------------------------------------------------------

def _head(title: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n"
            f'<script src="{PLOTLY_JS}" charset="utf-8"></script>\n</head>\n<body>\n')


def _nav(pack: Pack, current: str | None) -> str:
    links = [("index.html", "Contents")] + [(p.file_name, p.title) for p in pack.pages]
    items = [f"<b>{html.escape(label)}</b>" if href == current else
             f'<a href="{href}">{html.escape(label)}</a>' for href, label in links]
    return "<nav>" + " ".join(items) + "</nav>\n"


def figure_html(fig, div_id: str) -> str:
    """A ``<div>`` and the script that draws ``fig`` into it with the page's plotly.js."""
    import plotly.io as pio

    from fsengine.plots.style import disarm_links

    return pio.to_html(disarm_links(fig), include_plotlyjs=False, full_html=False, div_id=div_id,
                       config={"displaylogo": False, "responsive": True})


def page_html(pack: Pack, page: Page) -> str:
    """One method's page."""
    parts = [_head(f"{page.title} · {pack.dataset}"), _nav(pack, page.file_name),
             f"<h1>{html.escape(page.title)}</h1>\n", f'<p class="source">{html.escape(page.source)}</p>\n',
             (f"<p>Data: {html.escape(page.data)}.</p>\n" if page.data else
              f"<p>Data: <b>{html.escape(pack.dataset)}</b> ({html.escape(pack.description)}).</p>\n")]
    parts += [f"<p>{paragraph(text)}</p>\n" for text in page.text]
    parts += [mathml(eq) + "\n" for eq in page.equations]
    for i, item in enumerate(page.figures):
        parts.append(f'<div class="figure">{figure_html(item.figure, f"{page.key}-{i}")}</div>\n')
        if item.caption:
            parts.append(f'<p class="caption">{paragraph(item.caption)}</p>\n')
    if page.notes:
        parts.append('<p class="notes">' + "<br>".join(html.escape(n) for n in page.notes) + "</p>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def index_html(pack: Pack) -> str:
    """The contents page."""
    rows = "".join(f'<tr><td><a href="{p.file_name}">{html.escape(p.title)}</a></td>'
                   f"<td>{html.escape(p.source)}</td></tr>\n" for p in pack.pages)
    notes = list(pack.notes) + [f"Not in this pack: {key}: {why}." for key, why in pack.skipped.items()]
    return "".join([
        _head(f"Lecture pack · {pack.dataset}"), _nav(pack, "index.html"),
        f"<h1>Feature selection on {html.escape(pack.dataset)}</h1>\n",
        f"<p>{html.escape(pack.description)}.</p>\n",
        "<p>Every figure carries its own slider: it moves in the browser, from these files, with no Python, "
        "no server and no network.</p>\n",
        f'<table class="pages">{rows}</table>\n',
        ('<p class="notes">' + "<br>".join(html.escape(n) for n in notes) + "</p>\n") if notes else "",
        f'<p class="notes">Written by fsengine {html.escape(__version__)}.</p>\n</body>\n</html>\n'])


def write_pack(pack: Pack, folder: Path) -> list[Path]:
    """Write the pack's files into ``folder`` (an existing folder, e.g. a staging folder of
    :func:`fsengine.commands.output.output_folder`); returns the files written."""
    from plotly.offline import get_plotlyjs

    folder = Path(folder)
    files = {"index.html": index_html(pack)} | {p.file_name: page_html(pack, p) for p in pack.pages}
    written = []
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    (folder / PLOTLY_JS).write_text(get_plotlyjs(), encoding="utf-8")
    written.append(folder / PLOTLY_JS)
    return written


def pack_zip(pack: Pack, name: str = "lecture") -> bytes:
    """The pack's files in a zip archive, inside one folder ``name`` (what the app offers)."""
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        files = write_pack(pack, Path(tmp))
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, f"{name}/{path.name}")
    return buffer.getvalue()


def pack_size(folder: Path) -> int:
    """Bytes of every file in ``folder`` (what a pack weighs on disk)."""
    return int(np.sum([p.stat().st_size for p in Path(folder).iterdir() if p.is_file()]))
