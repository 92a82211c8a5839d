"""``python -m fsengine``: see :mod:`fsengine.cli`."""

import sys

from .cli import main

sys.exit(main())
