"""Wide uploads: ``load_upload`` (read + validate) on tables of many constant columns, 10 rows
(issue 12: 100k columns took 591 s when the constant-column check rebuilt a set per column; target
under 10 s).

    PYTHONPATH=. python benchmarks/bench_upload.py          # 10k, 40k and 100k columns
    PYTHONPATH=. python benchmarks/bench_upload.py --quick  # 10k and 40k

Each table has five informative columns, the rest constant, and a two-class target; the CSV is
comma-separated (the separator is sniffed like any upload). Reading (``read_table``) and checking
(``dataset_from_table``) are timed apart; times are the median of 3 runs.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import timed

from fsengine.data.upload import UploadError, dataset_from_table, load_upload, read_table


def wide_csv(n_columns: int, n_rows: int = 10, informative: int = 5) -> bytes:
    """``informative`` random columns, the rest constant (1.0), and a two-class target."""
    rng = np.random.default_rng(0)
    values = np.ones((n_rows, n_columns))
    values[:, :informative] = rng.normal(size=(n_rows, informative)).round(3)
    df = pd.DataFrame(values, columns=[f"c{j}" for j in range(n_columns)])
    df["label"] = ["a", "b"] * (n_rows // 2)
    return df.to_csv(index=False).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k and 40k columns only")
    args = parser.parse_args()
    sizes = [10_000, 40_000] if args.quick else [10_000, 40_000, 100_000]
    print("Results for RESULTS.md section 'Uploads'")
    print("| columns | file [MB] | read_table [s] | dataset_from_table [s] | load_upload [s] | features kept |")
    print("|---|---|---|---|---|---|")
    for p in sizes:
        data = wide_csv(p)
        t_read, table = timed(lambda: read_table(data, "wide.csv", max_bytes=len(data)))
        t_check, ds = timed(lambda: dataset_from_table(table, "label", name="wide.csv"))
        print(f"| {p:,} | {len(data) / 2**20:.1f} | {t_read:.2f} | {t_check:.2f} | {t_read + t_check:.2f} "
              f"| {ds.n_features} of {p:,} ({len(ds.extras['excluded_columns']):,} constant excluded) |")
    if not args.quick:  # the file: every column constant, so the upload is refused
        data = wide_csv(100_000, informative=0)

        def refused():
            try:
                load_upload(data, "constant.csv", "label")
            except UploadError as exc:
                return str(exc)[:60]
            raise AssertionError("a table of constant columns was accepted")

        seconds, message = timed(refused)
        print(f"\n100,000 constant columns x 10 rows ({len(data) / 2**20:.1f} MB), load_upload until its "
              f"error: {seconds:.2f} s ({message} ...)")


if __name__ == "__main__":
    main()
