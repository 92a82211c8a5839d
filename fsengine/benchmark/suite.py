"""Which datasets the benchmark runs, and why each is there (shown in the report and on the page).

Every dataset comes from the catalogue (:mod:`fsengine.data.catalogue`): the bundled scikit-learn
sets, the generators, and the shared real data (``FSENGINE_DATA``: notMNIST and the three Pang &
Lee corpora); nothing else is downloaded. :data:`SUITE` is the full run's; :data:`QUICK` a few
minutes on two cores (bundled and generated data, smaller generators under the full suite's slugs, so
that a quick run's rows are a subset of the full run's); :data:`TINY` the test-sized run the tests
compare across backends.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsengine.data import Dataset


@dataclass(frozen=True)
class Entry:
    """One dataset of a suite: ``slug`` (file names, URL), ``spec`` (a catalogue spec string,
    ``fsengine.data.load_dataset``), an optional class pair kept after loading, a title and why
    it is in the suite."""

    slug: str
    spec: str
    title: str
    why: str
    classes: tuple[str, str] | None = None

    def load(self) -> Dataset:
        from fsengine.data import load_dataset
        from fsengine.data.transforms import two_classes

        ds = load_dataset(self.spec)
        return two_classes(ds, *self.classes) if self.classes else ds

    def as_dict(self) -> dict:
        return {"slug": self.slug, "spec": self.spec, "classes": list(self.classes) if self.classes else None,
                "title": self.title, "why": self.why}


def _notmnist(pair: str, why: str, n: int = 500) -> Entry:
    return Entry(f"notmnist_{pair.lower()}", f"notmnist:letters={pair},n_per_class={n}",
                 f"notMNIST {pair[0]} vs {pair[1]}", why)


SUITE: tuple[Entry, ...] = (
    Entry("breast_cancer", "breast_cancer", "Breast cancer (Wisconsin diagnostic)",
          "Small tabular data: 569 rows, 30 strongly correlated real features (radius, perimeter and area of the "
          "same nuclei), unequal classes (balanced accuracy). Many features say the same thing: methods differ "
          "in which of the redundant ones they pick, less in accuracy."),
    Entry("wine", "wine", "Wine",
          "The smallest: 178 rows, 13 chemical features, three classes. Tests multi-class handling (two-class-only "
          "methods are not applicable) and what a k near p means (k = 20 is not evaluated here)."),
    Entry("digits_3_8", "digits", "Digits 3 vs 8", "Two confusable handwritten digits as 8 x 8 images: 64 pixels "
          "with a spatial structure, some constant, a two-class task every method applies to.", classes=("3", "8")),
    Entry("digits_10", "digits", "Digits, all ten",
          "The same pixels with all ten classes: the multi-class image task, where relevance is shared among "
          "classes and two-class-only methods are not applicable."),
    _notmnist("BD", "Fisher & Mehta's BIA task: 784 glyph pixels, 1,000 rows; B and D differ in a few strokes on "
                    "the left, so a good ranking is spatially concentrated."),
    _notmnist("IJ", "Two letters that differ in a hook and a dot: a harder pixel task with few discriminating pixels."),
    _notmnist("AH", "Two letters with shared strokes (the legs) that differ in the apex and the crossbar: a third "
                    "pixel task of its own difficulty."),
    Entry("movie_reviews", "movie_reviews", "Movie reviews (Pang & Lee)",
          "Text, wide and sparse: 2,000 reviews, 4,752 binary word-presence tags (words in 20+ reviews); more "
          "features than rows, as in Bommert et al.'s high-dimensional benchmark."),
    Entry("sentence_polarity", "sentence_polarity", "Sentence polarity (Pang & Lee)",
          "Text with many short rows: 10,662 snippets, 2,264 sparse tags, few tags per row; the RTM's kind of "
          "data."),
    Entry("subjectivity", "subjectivity", "Subjectivity (Pang & Lee)",
          "Text, 10,000 sentences, objective vs subjective: a different signal (style words) on the same kind of "
          "tags."),
    Entry("glm", "synthetic_glm:n=500,p=200,k=10", "Planted sparse GLM (logistic)",
          "Known truth: 10 of 200 correlated (AR(1), rho 0.5) Gaussian features carry the signal; recall of the true "
          "features is measured, not only accuracy."),
    Entry("xor", "xor_redundant", "XOR pair with redundant label copies",
          "Known truth: the label is the XOR of two binary features that are useless one at a time, beside five "
          "noisy copies of the label and 20 noise features. Criteria that score features alone rank the copies "
          "first and miss the pair; a linear classifier cannot use the pair (the optional k-NN can)."),
    Entry("madelon", "madelon_like", "MADELON-style hypercube clusters",
          "Known truth, made as MADELON was (Guyon 2003; sklearn make_classification: 32 clusters on a 5-d "
          "hypercube, 5 informative, 15 linear combinations of them, 480 probes, 1% label noise): a multivariate, "
          "nonlinear signal that no single feature shows well."),
)

QUICK: tuple[Entry, ...] = (
    SUITE[0], SUITE[1], SUITE[2],
    Entry("glm", "synthetic_glm:n=200,p=30,k=5", "Planted sparse GLM (logistic, small)",
          "Known truth: 5 of 30 correlated Gaussian features carry the signal (the full suite's GLM, smaller)."),
    Entry("xor", "xor_redundant:n=200,n_noise=10", "XOR pair with redundant label copies (small)",
          "Known truth: an XOR pair beside five noisy label copies and 10 noise features (the full suite's task, "
          "smaller)."),
    Entry("madelon", "madelon_like:n=300,n_features=60", "MADELON-style (small)",
          "Known truth: MADELON's design with 40 probes instead of 480 and 300 rows (the full suite's task, "
          "smaller)."),
)

TINY: tuple[Entry, ...] = (
    SUITE[1],
    Entry("glm_tiny", "synthetic_glm:n=90,p=12,k=3", "Planted sparse GLM (tiny)", "Known truth: 3 of 12 features."),
    Entry("xor_tiny", "xor_redundant:n=80,n_redundant=2,n_noise=5", "XOR pair (tiny)",
          "Known truth: an XOR pair, two label copies, five noise features."),
)

SUITES = {"full": SUITE, "quick": QUICK, "tiny": TINY}


def own_entry(text: str) -> Entry:
    """A ``--datasets`` item that is not a suite slug: a catalogue spec (``digits``,
    ``notmnist:letters=CG``) or a data file (read like ``compare --data``; tables need a
    ``FILE::TARGET`` column name), as an :class:`Entry`."""
    from pathlib import Path

    from fsengine.data.registry import data_kind

    path, _, target = text.partition("::")
    kind = data_kind(path)
    slug = "".join(ch if ch.isalnum() else "_" for ch in (Path(path).stem if kind != "catalogue" else path)).strip("_")
    if kind == "catalogue":
        from fsengine.data import parse_spec

        parse_spec(path)  # unknown names and bad parameters fail here, before any fit
        return Entry(slug or "data", path, path, "given on the command line")
    if kind == "table" and not target:
        raise ValueError(f"--datasets {text}: a table needs its target column, written FILE::COLUMN")
    return _FileEntry(slug or "data", path, Path(path).name, "given on the command line", target=target or None)


@dataclass(frozen=True)
class _FileEntry(Entry):
    """A user's data file in a benchmark (``fsengine.data.upload.load_file``)."""

    target: str | None = None

    def load(self) -> Dataset:
        from pathlib import Path

        from fsengine.data.upload import load_file

        return load_file(Path(self.spec), self.target)


def resolve(items: list[str] | None, quick: bool = False) -> tuple[Entry, ...]:
    """The datasets of ``--datasets`` (suite slugs, catalogue specs, files) or, without any, the
    suite (:data:`QUICK` with ``quick``). Slugs must be unique."""
    if not items:
        return QUICK if quick else SUITE
    known = {e.slug: e for e in TINY + QUICK + SUITE}  # a slug names the full suite's entry first
    chosen = [known[item] if item in known else own_entry(item) for item in items]
    seen: dict[str, int] = {}
    out = []
    for e in chosen:  # two specs that give the same slug get a number
        n = seen.get(e.slug, 0)
        seen[e.slug] = n + 1
        out.append(e if n == 0 else type(e)(**{**e.__dict__, "slug": f"{e.slug}_{n + 1}"}))
    return tuple(out)
