"""Arrays larger than memory from chunked storage, as row-chunked ``dask.array`` s that
:class:`~fsengine.methods.classic.selector.MutualInfoSelector` and
:class:`~fsengine.methods.bia.selector.BIASelector` reduce block by block (:mod:`fsengine.chunked`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fsengine.chunked import block_rows


def open_chunked(path, chunk_rows: int | None = None):
    """Open ``path`` lazily as a dask array chunked by rows (all columns in each block).

    * ``.npy``: memory-mapped read-only (``np.load(mmap_mode="r")``); nothing is read until a
      block is computed, and the operating system may drop the pages again afterwards.
    * a Zarr store (a folder, e.g. ``X.zarr``): ``dask.array.from_zarr``.

    ``chunk_rows``: rows per block (default: about 64 MB of float64 per block; for Zarr the
    store's own row chunks unless given). Needs ``pip install 'fsengine[dask]'``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from fsengine.data import open_chunked
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.save(Path(folder) / "X.npy", np.ones((1000, 4)))
    ...     X = open_chunked(Path(folder) / "X.npy", chunk_rows=250)
    ...     print(X.shape, X.numblocks, float(X.sum().compute()))
    (1000, 4) (4, 1) 4000.0
    """
    try:
        import dask.array as da
    except ImportError as exc:
        raise ValueError("Opening chunked data needs dask: pip install 'fsengine[dask]'.") from exc
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder (an .npy file or a Zarr store is expected).")
    if chunk_rows is not None and chunk_rows < 1:
        raise ValueError(f"chunk_rows={chunk_rows}: give a positive number of rows per block.")
    if path.is_file() and path.suffix == ".npy":
        array = np.load(path, mmap_mode="r")
        if array.ndim != 2:
            raise ValueError(f"{path} holds an array of shape {array.shape}; a 2-d rows x features array is needed.")
        rows = chunk_rows or block_rows(array.shape[1])
        return da.from_array(array, chunks=(rows, -1), asarray=False)
    if path.is_dir():
        try:
            array = da.from_zarr(str(path))
        except Exception as exc:
            raise ValueError(f"{path} could not be opened as a Zarr store ({type(exc).__name__}: {exc}).") from exc
        if array.ndim != 2:
            raise ValueError(f"{path} holds an array of shape {array.shape}; a 2-d rows x features array is needed.")
        return array.rechunk((chunk_rows or array.chunks[0][0], -1))
    raise ValueError(f"{path}: open_chunked reads .npy files and Zarr stores (folders); save the array with "
                     "np.save('X.npy', X) or zarr.save('X.zarr', X).")
