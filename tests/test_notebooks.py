"""Every teaching notebook (notebooks/*.ipynb) runs top to bottom in a kernel of this Python and
draws plotly figures with plain ``fig.show()``; its sliders are explorables (figures that carry
their own slider, :mod:`fsengine.plots.explorable`), stored in the outputs in agreement with the
figure they move.

The notebooks are stored without outputs. Execution happens with nbclient in a kernel whose
kernelspec (written to a temporary JUPYTER_PATH) starts ``sys.executable``, so the project's venv
is what runs, whatever kernels the machine has registered. Cells added by the test count the plotly
``FigureWidget``s the lesson makes: none may be (a widget carries plotly's whole bundle and loses
its state on a reload).
"""

import json
import sys
from pathlib import Path

import pytest

from fsengine.plots.explorable import _get_attr

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

pytestmark = pytest.mark.slow   # about three minutes; make test runs them, make test-min does not

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
PLOTLY_MIME = "application/vnd.plotly.v1+json"
KERNEL = "fsengine-test"
#: an executed lesson stays below this size (the old FigureWidget lessons grew by about 5 MB a figure)
MAX_EXECUTED_BYTES = 2_000_000

#: run in the kernel before the notebook: count the FigureWidgets made
COUNTER = """
import plotly.graph_objects as _go
_made = []
_init = _go.FigureWidget.__init__
_go.FigureWidget.__init__ = lambda self, *args, **kwargs: (_made.append(1), _init(self, *args, **kwargs))[1]
"""
#: run in the kernel after the notebook: were FigureWidgets made?
PROBE = """
import json as _json
print("PROBE" + _json.dumps({"figure_widgets": len(_made)}))
"""


def _at_path(node, path: str):
    """``node[a][b][0][c]`` for the relayout path ``"a.b[0].c"`` (None where missing)."""
    for part in path.replace("]", "").replace("[", ".").split("."):
        if isinstance(node, list):
            node = node[int(part)] if int(part) < len(node) else None
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


def disagreements(figure: dict) -> list[str]:
    """What the figure draws that its slider's active step would change (empty: slider and figure
    agree): every attribute the step sets must already hold the step's value."""
    slider = figure["layout"]["sliders"][0]
    data, layout, traces = slider["steps"][slider.get("active", 0)]["args"]
    wrong = [f"trace {t}: {attr}" for attr, values in data.items() for t, value in zip(traces, values)
             if value is not None and _get_attr(figure["data"][t], attr) != value]
    wrong += [f"layout {path}" for path, value in layout.items() if _at_path(figure["layout"], path) != value]
    return wrong


def test_there_are_six_lessons():
    names = [p.stem for p in NOTEBOOKS]
    assert len(names) >= 6, names
    for topic in ("bia", "sgc", "bayes", "classic", "rtm", "tour", "unified"):
        assert any(topic in n for n in names), f"no notebook about {topic}: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{path.name}: a cell is stored with outputs; clear them before committing"
            assert "FigureWidget" not in cell.source, \
                f"{path.name}: a lesson's sliders are explorables shown with fig.show(), not widgets"


def test_disagreement_is_found():
    """The agreement check sees a figure drawn at another position than its slider's."""
    from fsengine.plots.explorable import Step, explorable

    spec = {"data": [{"type": "bar", "y": [0, 0]}], "layout": {"images": [{"x": 0}]}}
    steps = [Step(str(i), str(i), {0: {"y": [i, i]}}, {"images[0].x": i}) for i in range(3)]
    figure = json.loads(explorable(spec, steps, active=1, prefix="").to_json())
    assert disagreements(figure) == []
    figure["layout"]["sliders"][0]["active"] = 2
    assert disagreements(figure) == ["trace 0: y", "layout images[0].x"]


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
def test_notebook_runs_and_its_explorables_agree_with_their_sliders(path, kernel_path, monkeypatch, tmp_path):
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_path))
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(COUNTER))
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=300,
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError with the cell and traceback on any error

    outputs = [o for cell in nb.cells[1:-1] if cell.cell_type == "code" for o in cell.outputs]
    figures = [o["data"][PLOTLY_MIME] for o in outputs if PLOTLY_MIME in o.get("data", {})]
    assert figures, f"{path.name}: no plotly figure in the outputs"
    for figure in figures:
        assert figure["data"], f"{path.name}: a figure without traces"
    explorables = [f for f in figures if f["layout"].get("sliders")]
    assert explorables, f"{path.name}: no explorable (a figure with its own slider)"
    for figure in explorables:
        steps = figure["layout"]["sliders"][0]["steps"]
        assert len(steps) >= 2, f"{path.name}: a slider with {len(steps)} step"
        assert steps[0]["args"] != steps[-1]["args"], f"{path.name}: the slider's ends draw the same"
        assert disagreements(figure) == [], f"{path.name}: the figure is not drawn at its slider's position"

    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    probe = json.loads(printed.split("PROBE", 1)[1])
    assert probe["figure_widgets"] == 0, f"{path.name}: {probe}"
    nb.cells = nb.cells[1:-1]
    saved = tmp_path / path.name
    nbformat.write(nb, saved)
    largest = max(len(json.dumps(f, separators=(",", ":"))) for f in explorables)
    print(f"{path.stem}: executed notebook {saved.stat().st_size / 1e6:.2f} MB; {len(figures)} figures, "
          f"{len(explorables)} explorables, the largest {largest / 1e3:.0f} kB of JSON")
    assert saved.stat().st_size < MAX_EXECUTED_BYTES, f"{path.name}: {saved.stat().st_size:,} bytes executed"
