"""A benchmark run as files, and back: the one form the report, the command line and the app's
Benchmark page read (a run folder, e.g. ``docs/results/benchmark/`` or ``fsengine benchmark --out DIR``).

Files of a run folder (CSV, :mod:`fsengine.csv_export`):

``folds.csv``
    the raw per-fold table: every (dataset, repeat, fold, method, k) with the held-out counts,
    accuracy, balanced accuracy, the protocol's metric, recall of the truth and the fit's seconds;
    every interval and rank is recomputed from it
``summary.csv``
    per (dataset, method, k): status, the metric with its interval, stability, recall, fit time
    (:func:`fsengine.benchmark.aggregate.summary`)
``tops.csv``
    the first ``max k`` features of every fit (stability and similarity come from it)
``status.csv``
    per (dataset, method): ok, not applicable or failed with the message, and the fits' notes
``datasets.csv``, ``methods.csv``
    what ran (shapes, metric, why; labels, parameters)
``ranks.csv``, ``friedman.csv``, ``pairs.csv``, ``families.csv``, ``similarity.csv``, ``tradeoff.csv``
    the aggregate at every k: ``pairs.csv`` holds both Holm families (all pairs, against the
    control), ``families.csv`` what each family could resolve (comparisons, threshold, floor, wins
    needed, fewest datasets)
``run.json``
    settings, protocol, fingerprint, k labels, seconds, where the tasks ran
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fsengine.benchmark import aggregate
from fsengine.benchmark.protocol import Settings, description
from fsengine.csv_export import read_csv, to_csv
from fsengine.jsonio import json_text

RUN_FILE = "run.json"


@dataclass(eq=False)
class Record:
    """Everything a run folder holds, as tables (see the module docstring)."""

    settings: Settings
    info: pd.DataFrame
    methods: pd.DataFrame
    folds: pd.DataFrame
    summary: pd.DataFrame
    status: pd.DataFrame
    tops: pd.DataFrame
    k_labels: list[str]
    fingerprint: str
    seconds: dict
    where: str
    quick: bool = False
    command: str = ""
    protocol: dict = field(default_factory=description)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # -- lookups
    @property
    def labels(self) -> dict[str, str]:
        """Method key -> display label (and ``all features``)."""
        return {**dict(zip(self.methods["key"], self.methods["label"])), "all features": "all features"}

    @property
    def titles(self) -> dict[str, str]:
        return dict(zip(self.info["dataset"], self.info["title"]))

    def status_of(self) -> dict[tuple[str, str], str]:
        return {(r.dataset, r.method): r.status for r in self.status.itertuples()}

    def ranking(self, k_label: str) -> aggregate.Ranking:
        """The aggregate at ``k_label`` (computed once per record)."""
        key = ("ranking", k_label)
        if key not in self._cache:
            self._cache[key] = aggregate.ranking(self.summary, k_label, self.status_of(), self.settings.control)
        return self._cache[key]

    def similarity(self, k_label: str) -> pd.DataFrame:
        """Methods x methods mean Jaccard of the top-k sets (same fold, then datasets; computed once)."""
        key = ("similarity", k_label)
        if key not in self._cache:
            self._cache[key] = aggregate.similarity(self._tops_view(), k_label)
        return self._cache[key]

    def _tops_view(self, only: str | None = None):
        key = ("tops", only)
        if key not in self._cache:
            self._cache[key] = _TopsView(self, only)
        return self._cache[key]

    def tradeoff(self, k_label: str) -> pd.DataFrame:
        return aggregate.tradeoff(self.summary, self.ranking(k_label))

    def pairs(self, k_label: str, family: str | None = None) -> pd.DataFrame:
        """The signed-rank tests at ``k_label`` (of one ``family`` when given, :mod:`aggregate`)."""
        table = aggregate.pairs_table(self.ranking(k_label))
        return table if family is None else table[table["family"] == family].reset_index(drop=True)

    def families(self, k_label: str) -> list[aggregate.Family]:
        """The Holm families at ``k_label`` and what each could resolve (:func:`aggregate.families`)."""
        return aggregate.families(self.ranking(k_label))

    # -- one dataset (the page's drill-down)
    def accuracy_table(self, slug: str) -> pd.DataFrame:
        """The dataset's metric against k per method (columns curve, k, accuracy, low, high): what
        :func:`fsengine.plots.compare.accuracy_curves` draws."""
        part = self.summary[(self.summary["dataset"] == slug) & (self.summary["status"] == "ok")
                            & (self.summary["method"] != "all features")]
        part = part.drop_duplicates(subset=["method", "k"])
        return pd.DataFrame({"curve": part["label"].to_numpy(), "k": part["k"].astype(int).to_numpy(),
                             "accuracy": part["value"].to_numpy(), "low": part["low"].to_numpy(),
                             "high": part["high"].to_numpy()})

    def all_features(self, slug: str):
        row = self.summary[(self.summary["dataset"] == slug) & (self.summary["method"] == "all features")]
        return None if row.empty else row.iloc[0]

    def majority(self, slug: str) -> float:
        """The metric of always predicting the largest class: 1 / classes for balanced accuracy, the
        largest class's share for accuracy."""
        row = self.info.set_index("dataset").loc[slug]
        counts = [int(part.rsplit(":", 1)[1]) for part in str(row["class_counts"]).split("; ")]
        return 1.0 / len(counts) if row["metric"] == "balanced accuracy" else max(counts) / sum(counts)

    def dataset_jaccard(self, slug: str, k_label: str) -> pd.DataFrame:
        """Methods x methods mean Jaccard of the top-k sets over the folds of one dataset."""
        one = self._tops_view(slug)
        matrix = aggregate.similarity(one, k_label)
        present = [m for m in matrix.index if (slug, m, 0) in one.tops]
        labels = self.labels
        out = matrix.loc[present, present]
        return out.rename(index=labels, columns=labels)


class _TopsView:
    """The attributes :func:`aggregate.similarity` reads, from a record's tables."""

    def __init__(self, record: Record, only: str | None = None):
        from types import SimpleNamespace

        self.methods = record.methods
        self.settings = record.settings
        self.entries = [SimpleNamespace(slug=s) for s in record.info["dataset"] if only is None or s == only]
        ks = record.summary.dropna(subset=["k"])
        ks = ks[ks["method"] != "all features"]
        self.ks = {slug: dict(zip(part["k_label"], part["k"].astype(int))) for slug, part in ks.groupby("dataset")}
        self.tops = _tops_dict(record.tops)


def _tops_dict(tops: pd.DataFrame) -> dict:
    out = {}
    for (slug, method, split), part in tops.groupby(["dataset", "method", "split"], sort=False):
        out[(slug, method, int(split))] = part.sort_values("rank")["feature"].to_numpy(dtype=np.int64)
    return out


def from_run(run, *, quick: bool = False, command: str = "") -> Record:
    """The record of a finished :class:`fsengine.benchmark.runner.Run`."""
    summary = aggregate.summary(run)
    status = pd.DataFrame([{"dataset": d, "method": m, "status": s, "notes": "; ".join(run.notes.get((d, m), ()))}
                           for (d, m), s in run.status.items()])
    tops = pd.DataFrame([{"dataset": d, "method": m, "split": s, "rank": r + 1, "feature": int(f)}
                         for (d, m, s), top in run.tops.items() for r, f in enumerate(top)],
                        columns=["dataset", "method", "split", "rank", "feature"])
    labels = list(dict.fromkeys(k.label for k in run.settings.ks))
    return Record(settings=run.settings, info=run.info, methods=run.methods, folds=run.folds, summary=summary,
                  status=status, tops=tops, k_labels=labels, fingerprint=run.fingerprint, seconds=run.seconds,
                  where=run.where, quick=quick, command=command)


def aggregate_tables(record: Record) -> dict[str, pd.DataFrame]:
    """The aggregate at every k as tables: ranks (long), friedman, pairs (both Holm families),
    families (what each could resolve), similarity (long), tradeoff."""
    ranks, friedman, pairs, families, similarity, tradeoff = [], [], [], [], [], []
    for label in record.k_labels:
        r = record.ranking(label)
        for dataset, row in r.ranks.iterrows():
            ranks += [{"k_label": label, "dataset": dataset, "method": m, "rank": float(v)} for m, v in row.items()]
        f = r.friedman
        friedman.append({"k_label": label, "datasets": len(r.datasets), "methods": len(r.methods),
                         "chi2": f.chi2 if f else np.nan, "chi2_pvalue": f.chi2_pvalue if f else np.nan,
                         "iman_davenport_f": f.f if f else np.nan, "df1": f.df1 if f else np.nan,
                         "df2": f.df2 if f else np.nan, "pvalue": f.pvalue if f else np.nan,
                         "critical_difference": r.cd if r.cd is not None else np.nan,
                         "left_out_methods": "; ".join(f"{m}: {w}" for m, w in r.left_out_methods.items()),
                         "left_out_datasets": "; ".join(f"{d}: {w}" for d, w in r.left_out_datasets.items()),
                         "why_no_test": r.why_no_test})
        pairs.append(record.pairs(label))
        families.append(aggregate.families_table(record.ranking(label)))
        sim = record.similarity(label)
        similarity += [{"k_label": label, "a": a, "b": b, "jaccard": float(sim.loc[a, b])}
                       for a in sim.index for b in sim.columns]
        tradeoff.append(record.tradeoff(label).assign(k_label=label))
    return {"ranks": pd.DataFrame(ranks), "friedman": pd.DataFrame(friedman),
            "pairs": pd.concat(pairs, ignore_index=True) if pairs else pd.DataFrame(),
            "families": pd.concat(families, ignore_index=True) if families else pd.DataFrame(),
            "similarity": pd.DataFrame(similarity),
            "tradeoff": pd.concat(tradeoff, ignore_index=True) if tradeoff else pd.DataFrame()}


def write_tables(record: Record, out_dir: Path) -> list[Path]:
    """Every table of the record (and the aggregate) as CSV, and ``run.json``; returns the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = {"folds": record.folds, "summary": record.summary, "tops": record.tops, "status": record.status,
              "datasets": record.info, "methods": record.methods, **aggregate_tables(record)}
    paths = []
    for name, table in tables.items():
        path = out_dir / f"{name}.csv"
        to_csv(table, path, index=False)
        paths.append(path)
    meta = {"settings": record.settings.as_dict(), "protocol": record.protocol, "fingerprint": record.fingerprint,
            "k_labels": record.k_labels, "seconds": record.seconds, "where": record.where, "quick": record.quick,
            "command": record.command}
    (out_dir / RUN_FILE).write_text(json_text(meta, indent=1, default=str) + "\n", encoding="utf-8")
    paths.append(out_dir / RUN_FILE)
    return paths


#: the files a run measured; every other file of the folder is computed from them (:func:`from_files`)
RAW_FILES = ("folds.csv", "tops.csv", "status.csv", "datasets.csv", "methods.csv", RUN_FILE)


def read(folder: Path, *, recompute: bool = False) -> Record:
    """The record of a run folder (a clear error when it is not one). ``recompute``: the summary is
    computed again from the raw files (:data:`RAW_FILES`) with the current code's statistics instead
    of read from ``summary.csv`` (:func:`from_files`)."""
    folder = Path(folder)
    meta_path = folder / RUN_FILE
    if not meta_path.is_file():
        raise ValueError(f"{folder} is not a benchmark run folder (no {RUN_FILE}); run `fsengine benchmark --out "
                         f"{folder}` or choose the folder such a run wrote.")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))

    def table(name, **kw):
        path = folder / f"{name}.csv"
        if not path.is_file():
            raise ValueError(f"{folder}: {path.name} is missing; the run folder is incomplete.")
        return read_csv(path, **kw)

    settings = Settings(**meta["settings"])
    # text columns may be empty (no class pair, no parameters): read as written, never as NaN
    info, methods, status = (table(name, keep_default_na=False) for name in ("datasets", "methods", "status"))
    tops = table("tops")
    folds = table("folds", dtype={"k_label": str})
    summary = _summary_of(settings, info, methods, folds, status, tops) if recompute else \
        table("summary", dtype={"k_label": str})
    return Record(settings=settings, info=info, methods=methods, folds=folds, summary=summary, status=status,
                  tops=tops, k_labels=[str(k) for k in meta["k_labels"]], fingerprint=meta["fingerprint"],
                  seconds=meta["seconds"], where=meta["where"], quick=bool(meta.get("quick")),
                  command=meta.get("command", ""), protocol=meta.get("protocol", description()))


def from_files(folder: Path) -> Record:
    """The record of a run folder from its raw files alone (:data:`RAW_FILES`): the per-dataset
    summary computed again from the per-fold table and the tops (:func:`aggregate.summary`), the
    aggregate from that; what ``reproduce benchmark``'s ``rerender`` writes."""
    return read(folder, recompute=True)


def _summary_of(settings: Settings, info: pd.DataFrame, methods: pd.DataFrame, folds: pd.DataFrame,
                status: pd.DataFrame, tops: pd.DataFrame) -> pd.DataFrame:
    """:func:`aggregate.summary` of the raw tables: the run's k per dataset resolved from its grid
    and the dataset's p, as the runner resolved them."""
    from types import SimpleNamespace

    ks = {}
    for row in info.itertuples():
        resolved = {k.label: k.resolve(int(row.features)) for k in settings.ks}
        ks[row.dataset] = {label: k for label, k in resolved.items() if k is not None}
    run = SimpleNamespace(settings=settings, info=info, methods=methods, folds=folds, ks=ks, tops=_tops_dict(tops),
                          entries=[SimpleNamespace(slug=s) for s in info["dataset"]],
                          status={(r.dataset, r.method): r.status for r in status.itertuples()})
    return aggregate.summary(run)
