"""One module per page, each with a ``render()`` that draws the page (see :mod:`fsengine.app.registry`)."""
