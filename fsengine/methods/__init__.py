"""The mathematics of each source paper, one module or subpackage per method."""
