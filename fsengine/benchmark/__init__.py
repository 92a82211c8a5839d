"""The benchmark across datasets (``fsengine benchmark``, ``fsengine reproduce benchmark``).

``suite``     which datasets and why (catalogue specs only: nothing to download beyond the catalogue)
``protocol``  the frozen protocol: folds, classifier, metric rule, intervals, gap rule; its fingerprint
``runner``    the tasks (dataset x repeat x fold x method) through :mod:`fsengine.parallel`, and the
              per-fold table they give
``aggregate`` per dataset, method and k: accuracy, stability, time, recall with intervals; over
              datasets: ranks, Friedman / Iman-Davenport, Nemenyi CD, Holm-Wilcoxon, similarity
``report``    results.json, report.md, report.html and the CSV tables of a run; reading a run folder back
"""
