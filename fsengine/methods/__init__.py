<<<<<<< HEAD
"""The mathematics of each source paper, one module per method (selectors wrap these)."""
=======
"""The mathematics of each source paper, one module or subpackage per method."""
>>>>>>> classic
