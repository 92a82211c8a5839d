
import pytest

#: targets whose quick run takes minutes of CPU (every registered method on several datasets): the
#: tests that read it are ``heavy`` (``make verify``, run by CI after ``make test``)
HEAVY_QUICK_RUNS = ("benchmark", "toolbox")


def quick_run_params(names):
    """``names`` as pytest parameters, the heavy quick runs marked ``heavy``."""
    return [pytest.param(name, marks=pytest.mark.heavy) if name in HEAVY_QUICK_RUNS else name for name in names]
