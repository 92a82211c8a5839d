"""Exact references for tests and the pages' validation panels (enumeration, closed forms,
Laplace evidence). Each is independent code: it never calls the method it checks."""
