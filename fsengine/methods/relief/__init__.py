"""The Relief family: ReliefF (Kononenko 1994) and MultiSURF (Urbanowicz et al. 2018), blocked
neighbour search in numba (:mod:`.model` the mathematics, :mod:`.kernels` the kernels,
:mod:`.selector` the scikit-learn estimators)."""
