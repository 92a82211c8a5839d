"""Seeded synthetic data with known ground truth (one module per generative model)."""
