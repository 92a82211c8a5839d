"""Reproduction of Zhou, Wu, Weng & Schmidt (2003), Figs. 3-5, on CoNLL-2000.

Base-NP chunking (and, in the full run, full chunking): WSJ 15-18 train, section 20 test, the 24
templates of :data:`fsengine.data.features.templates.CHUNK_TEMPLATES`, candidate pairs seen at
least twice. IFS, SGC, SGC with look-ahead 500 and the count cutoff select features; MAP models on
the first k features are decoded left to right and scored with conlleval (Fig. 5). At the paper's
sizes (Base-NP: 1,000 and 1,160 features, for IFS, SGC and SGC-LA alike) the same models are also
decoded exactly (Viterbi over the previous-tag predicates, :mod:`fsengine.maxent.decode`).

What is judged, and how (``results.json``, :mod:`fsengine.reproduce.results`):

* The headline is the paper's configuration, SGC with 1,160 features (greedy decoding, which this
  reproduction used before any section-20 result), against the paper's F1 computed from its
  precision and recall (:data:`PAPER_F1`, unrounded): consistent / above / below from the
  sentence-level bootstrap interval of our F1 (:func:`fsengine.stats.f1_interval`).
* Second, the decoded model chosen on a development split (held-out *training* sentences: the
  prior variance by :func:`~fsengine.methods.gain.study.choose_prior_variance`, then the model by
  :func:`~fsengine.methods.gain.study.choose_decoded_model`), against the same value. The choice is
  repeated on seeded random development splits and the spread of the chosen model's section-20 F1
  is reported (median and range).
* The best of the decoded models on section 20 is recorded without a verdict: it is chosen on the
  test section.
* Differences between two models (the development choice vs the paper's configuration, IFS vs SGC
  at equal size, Viterbi vs greedy) by the paired sentence-level bootstrap (same resamples).
* Speed: the gain-computation ratio is an exact count; the CPU-time ratio is the median and IQR
  of repeated timings. Neither is judged against the paper's "100 times to thousands" (see
  :data:`SPEED_NOTE`).

The raw counts behind every interval are written beside ``results.json``: per-sentence TP / FP /
FN of every decoded model (``TASK_sentence_counts.csv``), the timings (``TASK_timings.csv``) and the
development splits (``np_development_splits.csv``). :data:`CHOSEN_AFTER_TEST` lists the design
choices that were made after section-20 results had been seen; the report prints it.

One job per module:

``plan``         the configuration: the paper's numbers, run sizes, decoded models, bootstrap, choices
``data``         the raw counts per section-20 sentence, written and read back
``development``  the development splits on which the prior variance and the decoded model are chosen
``running``      the run: per task the splits, the selections, decoding, timings and raw counts
``statistics``   the numbers: bootstrap intervals, speed ratios, the rows of ``results.json``
``report``       the report's prose and tables
``figures``      the record's figures (Figs. 3-5)
``render``       the parts of the report rendered from ``results.json`` and the raw counts; ``rerender``
"""

# the entry points the reproduce command and tests call, and the names the tests read (internal modules
# re-export this way)
from fsengine.methods.gain.study import TIMING_REPEATS as TIMING_REPEATS
from fsengine.methods.gain.study import cpu_ratios as cpu_ratios
from fsengine.reproduce.gain.data import counts_frame as counts_frame
from fsengine.reproduce.gain.data import model_key as model_key
from fsengine.reproduce.gain.data import read_counts as read_counts
from fsengine.reproduce.gain.plan import CHOSEN_AFTER_TEST as CHOSEN_AFTER_TEST
from fsengine.reproduce.gain.plan import FULL_TASKS as FULL_TASKS
from fsengine.reproduce.gain.plan import PAPER_F1 as PAPER_F1
from fsengine.reproduce.gain.plan import PAPER_K as PAPER_K
from fsengine.reproduce.gain.plan import RECORD_HISTORY as RECORD_HISTORY
from fsengine.reproduce.gain.render import rerender as rerender
from fsengine.reproduce.gain.report import chosen_after_test_sentence as chosen_after_test_sentence
from fsengine.reproduce.gain.running import run as run
