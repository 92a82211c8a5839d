"""The math of each source paper, one module each."""
