"""``python -m fsengine``: see :mod:`fsengine.cli`."""

import sys

from fsengine.cli import main

sys.exit(main())
