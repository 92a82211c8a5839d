"""The mathematics of each source paper, one module per method (selectors wrap these)."""
