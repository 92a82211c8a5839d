"""Every teaching notebook (notebooks/*.ipynb) runs top to bottom in a kernel of this Python,
draws plotly figures, and its slider redraws its figures to what the builders draw at the new value.

The notebooks are stored without outputs. Execution happens with nbclient in a kernel whose
kernelspec (written to a temporary JUPYTER_PATH) starts ``sys.executable``, so the project's venv
is what runs, whatever kernels the machine has registered. After the last cell the test moves the
notebook's slider (``view``, a :class:`fsengine.notebook.SliderFigures`) from inside the kernel,
as the widget front end would, and reads back the figures.
"""

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

pytestmark = pytest.mark.slow   # about two minutes; make test runs them, make test-min does not

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
KERNEL = "fsengine-test"

#: run in the kernel after the notebook: move the slider, compare with freshly drawn figures
PROBE = """
import json as _json
from fsengine.notebook import SliderFigures as _SliderFigures, figure_state as _state
assert isinstance(view, _SliderFigures), type(view)
_options = [value for _, value in view.slider.options]
_before = [_state(f) for f in view.figures]
_new = _options[0] if view.slider.value != _options[0] else _options[-1]
view.slider.value = _new
_after = [_state(f) for f in view.figures]
_expected = [_state(draw(_new)) for draw in view.draws]
print("PROBE" + _json.dumps({"options": len(_options), "value": repr(_new),
                             "changed": [a != b for a, b in zip(_after, _before)],
                             "as_drawn": [a == e for a, e in zip(_after, _expected)]}))
"""


def test_there_are_six_lessons():
    names = [p.stem for p in NOTEBOOKS]
    assert len(names) >= 6, names
    for topic in ("bia", "sgc", "bayes", "classic", "rtm", "tour"):
        assert any(topic in n for n in names), f"no notebook about {topic}: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{path.name}: a cell is stored with outputs; clear them before committing"


@pytest.fixture(scope="module")
def kernel_path(tmp_path_factory):
    """A JUPYTER_PATH holding one kernelspec that runs this interpreter."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fsengine (test)", "language": "python"}))
    return root


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_draws_figures_and_its_slider_redraws_them(path, kernel_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_path))
    nb = nbformat.read(path, as_version=4)
    n_cells = len(nb.cells)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=300,
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError with the cell and traceback on any error

    outputs = [o for cell in nb.cells[:n_cells] if cell.cell_type == "code" for o in cell.outputs]
    figures = [o for o in outputs if PLOTLY_MIME in o.get("data", {})]
    widgets = [o for o in outputs if WIDGET_MIME in o.get("data", {})]
    assert figures, f"{path.name}: no plotly figure in the outputs"
    assert widgets, f"{path.name}: no widget (the slider view) in the outputs"
    for figure in figures:
        assert figure["data"][PLOTLY_MIME]["data"], f"{path.name}: a figure without traces"

    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    probe = json.loads(printed.split("PROBE", 1)[1])
    assert probe["options"] >= 2, probe
    assert all(probe["changed"]), f"{path.name}: moving the slider left a figure unchanged: {probe}"
    assert all(probe["as_drawn"]), f"{path.name}: a figure differs from its builder's drawing: {probe}"
