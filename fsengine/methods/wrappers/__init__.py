"""The wrapper family: Boruta (all-relevant selection against shadow features) and sequential
forward selection, both around scikit-learn models, seeded."""
