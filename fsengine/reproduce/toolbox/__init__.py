"""``reproduce toolbox``: every registered method against the toolbox practitioners already use.

The question of issue 24: *does any of the five sources' methods beat what I already use?* Every
registered method (BIA; MI, MDL, L1 path and boosting; IFS, SGC and the count cutoff; the Bayes
factor; the RTM; the variance baseline; ANOVA F, chi², forest, permutation, RFE, stability
selection, mRMR and its information-theoretic relatives, Boruta and sequential forward selection)
runs through the comparison engine (:func:`fsengine.compare.run_comparison`) on three data sets:

* notMNIST B vs D (784 pixels in [0, 1]);
* a planted sparse logistic GLM (:func:`fsengine.data.synthetic.glm.make_sparse_glm`), several
  seeds of the generator: ROC/AUC of each method's scores against the planted truth;
* sentence polarity (word-presence tags, sparse).

Per method and data set: held-out accuracy of a logistic regression on the method's top k (95%
Wilson interval over the held-out rows; over the generator's seeds a t interval), its paired
difference from a reference fixed before any run (:data:`~fsengine.reproduce.toolbox.plan.REFERENCE`;
the exact McNemar test on the held-out rows, a seed-paired t over seeds), every difference judged as
one family by Holm's step-down procedure, Kuncheva stability of the top k over bootstrap refits
(jackknife interval; over seeds a t interval) and the CPU seconds of a fit (median and interquartile
range of the bootstrap fits). Every k, parameter, seed and skip is fixed in
:mod:`~fsengine.reproduce.toolbox.plan` before any result is seen; nothing is chosen on a held-out row.

One job per module:

``plan``        the configuration: reference, method families, run sizes, parameters, skips, choices
``data``        loading the three data sets
``running``     the run: the comparisons and the raw files they leave
``statistics``  the numbers from the raw files: summaries, the judged family (Holm), result rows
``report``      the report's prose and tables
``figures``     the record's own figures
``headline``    the record's headline on the results page (``docs/results.md``)
``render``      the record (results.json, report, summaries) from the raw files; ``rerender``

Outputs (``docs/results/toolbox/``): ``report.md``, ``results.json``, raw files from which every
number is recomputed (``*_held_out_rows.csv``: per held-out row and method whether the classifier on
the top k was right; ``*_bootstrap_top.csv``: the top features of every bootstrap fit;
``*_stability.csv``; ``*_fits.csv``: CPU and wall seconds of every fit; ``synthetic_glm_per_seed.csv``:
per seed and method the AUC, accuracy and stability; ``run.json``), the engine's accuracy and
difference tables and HTML figures.
"""

# the entry points the reproduce command and tests call (internal modules re-export this way)
from fsengine.reproduce.toolbox.render import rerender as rerender
from fsengine.reproduce.toolbox.running import run as run
