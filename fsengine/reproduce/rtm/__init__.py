"""``reproduce rtm-roc``: the Relevance Tagging Machine slides' experiments (Molchanov,
Kondrashkin & Vetrov): the synthetic ROC of tag relevance and the sentiment accuracy table.

Full run: 10 seeds of the RTM generative model (800 objects, 400 tags, 30 relevant) and 5-fold
CV on sentence polarity, subjectivity and movie reviews: six RTM variants and four baselines on
the same folds, a grid of prior strength x damping on sentence polarity, and a refit with a
higher sweep cap of every protocol fit that stopped at the cap. ``--quick``: 5 smaller synthetic
seeds and 3-fold CV on 1,500 sentence-polarity snippets with a 2 x 2 grid (CI-sized).

Every estimate carries an interval (:mod:`fsengine.stats`): t over seeds for the synthetic AUC
(each seed draws its own data), the corrected resampled t of Nadeau & Bengio over folds for CV
accuracies (folds share training rows), and the paired versions of both for differences between
methods. The raw numbers behind them are written beside ``results.json``: ``synthetic_auc.csv``
(AUC per seed), ``accuracy_folds.csv`` (correct answers per fold and method), ``cap_reruns.csv``
and ``sensitivity_folds.csv``.

One job per module:

``plan``        the configuration: sizes, corpora, the sensitivity grid, the slides' ordering, choices
``data``        the raw files a run writes, and reading them back
``running``     the run: the synthetic study and the corpora's cross-validation as tasks
``statistics``  the numbers from the raw files: the rows of ``results.json``, the judged families (Holm)
``verdicts``    the report's verdict lines and the words a row is written in
``report``      the report's prose and tables
``figures``     the record's figures
``headline``    the record's headline on the results page (``docs/results.md``)
``render``      the record (results.json, report, accuracy figure) from the raw files; ``rerender``
"""

# the entry points the reproduce command, the results page and tests call, and the configuration the
# tests read (internal modules re-export this way)
from fsengine.reproduce.rtm.headline import headline as headline
from fsengine.reproduce.rtm.plan import ALPHA0_WORDS as ALPHA0_WORDS
from fsengine.reproduce.rtm.plan import DAMPING_WORDS as DAMPING_WORDS
from fsengine.reproduce.rtm.plan import GRID_FULL as GRID_FULL
from fsengine.reproduce.rtm.plan import GRID_QUICK as GRID_QUICK
from fsengine.reproduce.rtm.plan import REFIT as REFIT
from fsengine.reproduce.rtm.plan import SENSITIVITY_CORPUS as SENSITIVITY_CORPUS
from fsengine.reproduce.rtm.plan import test_set_choices as test_set_choices
from fsengine.reproduce.rtm.render import rerender as rerender
from fsengine.reproduce.rtm.running import run as run
from fsengine.reproduce.rtm.verdicts import CIRCULAR as CIRCULAR
