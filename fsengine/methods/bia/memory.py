"""How wide a BIA fit can be: the bytes of its arrays against a memory budget.

A fit on X in memory holds

* the p x p couplings: 4 bytes an entry as float32 (the default, :data:`DEFAULT_COUPLING_DTYPE`), 8
  as float64 (``coupling_dtype="float64"``). The couplings are computed in float64 and stored
  rounded; the sums over them run in float64, and the magnetizations agree with those of float64
  couplings to 1e-9 along the whole path in the tests (1e-6 is the bar;
  ``tests/methods/bia/test_model.py``; 1.3e-14 on the movie reviews, 2.2e-12 on notMNIST B vs D),
  while the path, bound by reading the couplings, takes about half the time (one fit on the movie
  reviews 0.73 against 1.53 CPU s; benchmarks/RESULTS.md, "BIA and MDL on the words");
* a standardised float64 copy of a dense X (8 n p bytes; a sparse X is never densified);
* for a dense X, one block of :data:`GRAM_BLOCK` columns of the Gram matrix Z'Z (8 p GRAM_BLOCK
  bytes); a sparse X's couplings are built a Gram column at a time (8 p bytes);
* the mean-field path three times over (the path, its posteriors and the DataFrame ``path_``:
  3 x 8 n_steps p bytes).

A fit from row-chunked moments (:mod:`fsengine.chunked`) holds the p x p second moments and the
float64 Gram built from them instead (16 p^2 bytes), and the Gram's float32 copy as the couplings
(4 p^2 more) unless they are float64. What the process needs besides (Python,
numpy, numba, scikit-learn: about 0.3 GB) is not counted.

The budget is the ``max_memory_mb`` parameter of :class:`~fsengine.selectors.BIASelector`,
default :data:`DEFAULT_MAX_MEMORY_MB` (2,048 MB; the app and the command line offer it as the
registry parameter ``max_memory_mb``, ``--param max_memory_mb=4096``). The largest p follows from
it and the number of rows (:func:`max_features`) and is stated when a fit is refused.

This module imports nothing heavy: the method registry and ``--help`` read it.
"""

from __future__ import annotations

import math

#: default memory budget of a BIA fit (MB)
DEFAULT_MAX_MEMORY_MB = 2048.0
#: bytes an entry of the couplings takes, by their type; the default type
COUPLING_ITEMSIZE = {"float32": 4, "float64": 8}
DEFAULT_COUPLING_DTYPE = "float32"
#: columns of the Gram matrix Z'Z computed at once while the couplings are built
GRAM_BLOCK = 512
#: float64 arrays of n_steps x p a fit keeps: the path, its posteriors, the DataFrame path_
PATH_COPIES = 3
MB = 1024.0**2


def _mb(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.3g}"


class CouplingMemoryError(ValueError):
    """The p x p couplings and the fit's other arrays would not fit in the memory budget."""


def fit_bytes(n: int, p: int, n_steps: int, itemsize: int, *, dense: bool = True) -> float:
    """Bytes of the arrays a fit holds (module docstring) with couplings of ``itemsize`` bytes
    (8: float64, 4: float32; 16: the chunked fit's second moments and Gram)."""
    return (itemsize * float(p) * p + (8.0 * n * p if dense else 0.0) + 8.0 * p * (min(GRAM_BLOCK, p) if dense else 1)
            + 8.0 * PATH_COPIES * n_steps * p)


def max_features(n: int, budget_mb: float, n_steps: int, itemsize: int = 4, *, dense: bool = True) -> int:
    """The largest p whose fit (:func:`fit_bytes`) stays within ``budget_mb``."""
    budget = budget_mb * MB
    linear = (8.0 * n if dense else 0.0) + 8.0 * PATH_COPIES * n_steps

    def root(quadratic: float, lin: float) -> int:
        return int((-lin + math.sqrt(lin * lin + 4.0 * quadratic * budget)) / (2.0 * quadratic))

    if not dense:
        p = root(itemsize, linear + 8.0)  # one Gram column at a time
    else:
        p = root(itemsize, linear + 8.0 * GRAM_BLOCK)  # p >= GRAM_BLOCK: a block of GRAM_BLOCK columns
        if p < GRAM_BLOCK:
            p = root(itemsize + 8.0, linear)  # narrower: the block is the whole p x p Gram
    while fit_bytes(n, p + 1, n_steps, itemsize, dense=dense) <= budget:
        p += 1
    while p > 0 and fit_bytes(n, p, n_steps, itemsize, dense=dense) > budget:
        p -= 1
    return p


def coupling_itemsize(n: int, p: int, budget_mb: float, n_steps: int, *, dense: bool = True,
                      dtype: str = DEFAULT_COUPLING_DTYPE) -> int:
    """The bytes of a coupling of type ``dtype`` when the fit fits the budget with them; else a
    :class:`CouplingMemoryError` stating the budget and the largest p."""
    itemsize = COUPLING_ITEMSIZE[dtype]
    if fit_bytes(n, p, n_steps, itemsize, dense=dense) <= budget_mb * MB:
        return itemsize
    need = fit_bytes(n, p, n_steps, itemsize, dense=dense) / MB
    hint = ("" if dtype == "float32" else
            f" ({max_features(n, budget_mb, n_steps, 4, dense=dense):,} with float32 couplings, the default)")
    raise CouplingMemoryError(
        f"BIA needs a {p:,} x {p:,} coupling matrix: about {_mb(need)} MB with the fit's other arrays with "
        f"{dtype} couplings, above its memory budget of {_mb(budget_mb)} MB (max_memory_mb, default "
        f"{DEFAULT_MAX_MEMORY_MB:,.0f} MB). At most {max_features(n, budget_mb, n_steps, itemsize, dense=dense):,} "
        f"features fit with {n:,} samples{hint}; pre-screen features (e.g. by variance) or raise max_memory_mb.")


def check_chunked(p: int, budget_mb: float, n_steps: int, dtype: str = DEFAULT_COUPLING_DTYPE) -> None:
    """A :class:`CouplingMemoryError` when a fit from row-chunked moments (16 p^2 bytes for the
    second moments and the Gram, module docstring, and for float32 couplings their copy: 20 p^2)
    would exceed ``budget_mb``."""
    per_pair = 16 + (COUPLING_ITEMSIZE[dtype] if dtype != "float64" else 0)
    if fit_bytes(0, p, n_steps, per_pair, dense=False) > budget_mb * MB:
        cap = max_features(0, budget_mb, n_steps, per_pair, dense=False)
        need = fit_bytes(0, p, n_steps, per_pair, dense=False) / MB
        raise CouplingMemoryError(
            f"BIA from row-chunked data needs the {p:,} x {p:,} second moments and Gram matrix in float64: about "
            f"{need:,.0f} MB, above its memory budget of {_mb(budget_mb)} MB (max_memory_mb, default "
            f"{DEFAULT_MAX_MEMORY_MB:,.0f} MB). At most {cap:,} features fit; pre-screen features or raise "
            "max_memory_mb.")
