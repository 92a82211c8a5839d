"""fsengine: the engine behind the Feature Selection Explorer.

The public API
--------------
What you may import, documented and kept stable (changes are listed in CHANGELOG.md):

``fsengine.selectors``  every method as a scikit-learn compatible selector, and the progress protocol of ``fit``
``fsengine.plots``      pure plotly figure builders: ``fsengine.plots`` and its family modules
                        ``bia``, ``gain``, ``bayes_factor``, ``classic``, ``rtm``, ``information``,
                        ``compare``, ``data``, ``benchmark``
``fsengine.compare``    side-by-side comparisons, their report, and your own methods in them
``fsengine.stats``      intervals, paired differences, verdicts, agreement of selected sets
``fsengine.data``       datasets: loading, the catalogue, your own data
the command line        ``fsengine --help`` (``python -m fsengine``)

A public module says what it offers in ``__all__``, and only the public modules define
``__all__``: every other module (``fsengine.methods.*``, ``fsengine.maxent``, ``fsengine.app``,
...) and every name outside those ``__all__`` is internal and may change in any release.
``tests/test_public_api.py`` holds the surface to this list.
"""

__version__ = "0.2.0"
