"""Explorable figures: one plotly figure that carries its own slider.

A slider-driven view (the BIA's Λ/Λ*, the L1 path's C, a stage, a threshold, a k) is built once,
with every position's data embedded, and answers its slider in the browser: in the app, in a
notebook's ``fig.show()`` and in a saved HTML file, with no kernel and no server.

The figure is built for its starting position (what a static export shows); ``layout.sliders[0]``
holds one step per position. A step is a single ``Plotly.update(gd, data, layout, traces)`` of
only what changes between positions:

- data: per changing trace, the attributes that change (a bar trace's ``x``/``y``, a colour
  bar's tick labels); numeric arrays are embedded once per step as plotly typed arrays
  (``{"dtype": "f4", "bdata": base64}``, float32 for values, the smallest integer type for
  indices), which plotly.js decodes without parsing numbers;
- layout: images, image positions and texts in relayout syntax (``"images[0].source"``).

What a step changes decides what a move costs. plotly.js recomputes and redraws the *whole*
figure when a trace's data change (``z``, ``x``, ``y``: edit type ``calc``), and so do an
annotation's or shape's position or text: about 0.4 s per move for the BIA's path, heatmap and
samples together on a loaded 2-core machine. A layout image's ``source``, ``x`` and ``y``, a
shape label's text and a colour bar's ticks redraw only themselves (20-50 ms on the same
machine). So an explorable draws what moves as layout images: a heatmap as a PNG per position
(:func:`heatmap_image`: 1-2 KB against 4 KB of float32, and drawn without the heatmap's
canvas), marks as a transparent PNG, a marker or a current-position line as a small image placed
at the position (:func:`marker_image`, :func:`line_image`); the static rest stays vector traces.

``Plotly.update`` applies an attribute's list of values to the listed traces in order; a trace
without that attribute gets ``null`` (unset, which is what it was). :func:`explorable` checks that
such a trace never had the attribute, so a step never resets what the figure draws.

A page that needs to know where the slider is (the app puts it in the URL) reads the step's
``value`` from plotly's ``plotly_sliderchange`` event; :func:`slider_values` lists them.

Several sliders (:func:`explorable_sliders`) compose when no two change the same attribute: a
step is one ``Plotly.update`` of its own slider's attributes only, so it leaves what the others
set as it is, and every combination of positions is drawn as its own. Two parameters that set
one view together (beta and gamma of a criterion) are laid out so that each moves only its own
attribute: every (beta, gamma) position is drawn on one canvas, beta's slider sets the x range
and gamma's the y range that show it (:mod:`fsengine.plots.information`).
"""

from __future__ import annotations

import base64
import functools
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotly.graph_objects as go

#: steps beyond this many draw no tick labels under the slider (they would overlap); the current
#: value is shown above the slider instead
MAX_LABELLED_STEPS = 25
#: the current value above the slider (the dark theme makes it light: :func:`fsengine.plots.style.restyle`)
CURRENT_VALUE_COLOUR = "#444444"
#: room under the plot for the slider (pixels): the current value, the rail and its ticks
SLIDER_SPACE = 80

_INTEGER_TYPES = (("i1", -(2 ** 7), 2 ** 7), ("u1", 0, 2 ** 8), ("i2", -(2 ** 15), 2 ** 15),
                  ("u2", 0, 2 ** 16), ("i4", -(2 ** 31), 2 ** 31))


def typed_array(values, dtype: str | None = None) -> dict:
    """``values`` as a plotly typed array: ``{"dtype", "bdata"}`` (+ ``"shape"`` for 2-D).

    Floats become float32 (``f4``) unless ``dtype`` says otherwise; integers the smallest type
    that holds them; booleans ``u1``.

    >>> typed_array([1.5, 2.0])
    {'dtype': 'f4', 'bdata': 'AADAPwAAAEA='}
    >>> typed_array([[0, 300], [2, 3]])["dtype"], typed_array([[0, 300], [2, 3]])["shape"]
    ('i2', '2, 2')
    """
    arr = np.asarray(values)
    if dtype is None:
        if arr.dtype.kind == "b":
            dtype = "u1"
        elif arr.dtype.kind in "iu":
            low, high = (int(arr.min()), int(arr.max())) if arr.size else (0, 0)
            dtype = next((name for name, lo, hi in _INTEGER_TYPES if lo <= low and high < hi), "f8")
        else:
            dtype = "f4"
    arr = np.ascontiguousarray(arr, dtype=np.dtype(dtype).newbyteorder("<"))
    spec = {"dtype": dtype, "bdata": base64.b64encode(arr.tobytes()).decode("ascii")}
    if arr.ndim > 1:
        spec["shape"] = ", ".join(str(n) for n in arr.shape)
    return spec


def decoded(value) -> Any:
    """A typed array (:func:`typed_array`) back as a numpy array; anything else unchanged (tests
    and readers of a figure's JSON)."""
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<"))
        shape = value.get("shape")
        if shape:
            arr = arr.reshape([int(s) for s in str(shape).split(",")])
        return arr
    return value


def encoded(value) -> Any:
    """What a step embeds for ``value``: numeric numpy arrays as typed arrays, the rest as is."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return typed_array(value)
    return value


@dataclass(frozen=True)
class Step:
    """One slider position: ``label`` shown by the slider, ``value`` reported to a page (its URL
    value), ``data`` trace index -> {attribute: value} and ``layout`` relayout path -> value."""

    label: str
    value: str
    data: dict[int, dict[str, Any]] = field(default_factory=dict)
    layout: dict[str, Any] = field(default_factory=dict)


_PART = re.compile(r"([^.\[\]]+)(?:\[(\d+)\])?")


def _set_path(target: dict, path: str, value) -> None:
    """``target[a][b][0][c] = value`` for the relayout path ``"a.b[0].c"`` (plain dicts and lists)."""
    parts = [(m.group(1), m.group(2)) for m in _PART.finditer(path)]
    node = target
    for i, (key, index) in enumerate(parts):
        last = i == len(parts) - 1
        if index is None:
            if last:
                node[key] = value
                return
            node = node.setdefault(key, {})
        else:
            items = node.setdefault(key, [])
            while len(items) <= int(index):
                items.append({})
            if last:
                items[int(index)] = value
                return
            node = items[int(index)]


def _get_attr(trace: dict, attr: str):
    node = trace
    for key in attr.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _update_args(step: Step, traces: list[int], attrs: list[str]) -> list:
    data = {a: [encoded(step.data[t].get(a)) if t in step.data else None for t in traces] for a in attrs}
    return [data, dict(step.layout), traces]


@dataclass(frozen=True)
class Slider:
    """One slider of an explorable: its ``steps``, the one it starts at (``active``), the text
    before its current value (``prefix``, ``"Λ/Λ* = "``), its ``name`` (what its values are) and
    where it sits under the plot: from ``x`` over ``length``, fractions of the figure's width."""

    steps: Sequence[Step]
    active: int
    prefix: str
    name: str = "position"
    x: float = 0.0
    length: float = 1.0


def explorable(spec: dict, steps: Sequence[Step], *, active: int, prefix: str, name: str = "position",
               space: int = SLIDER_SPACE) -> go.Figure:
    """The figure ``spec`` (a plain ``{"data", "layout"}`` dict) with a slider over ``steps``,
    drawn at ``steps[active]``.

    Every step must change the same traces and attributes. The figure's own data are set from
    the active step, so the figure is right before any move. ``prefix`` precedes the current
    value above the slider (``"Λ/Λ* = "``); ``name`` names the slider (what its values are).
    ``space`` pixels are added under the plot for the slider.
    """
    return explorable_sliders(spec, [Slider(steps, active, prefix, name)], space=space)


def _changes(steps: Sequence[Step]) -> tuple[list[int], list[str], dict[int, list[str]]]:
    """The traces, the attributes and, per trace, the attributes every step of a slider changes."""
    if not steps:
        raise ValueError("an explorable needs at least one step")
    shape = {t: sorted(d) for t, d in steps[0].data.items()}
    if any({t: sorted(d) for t, d in s.data.items()} != shape for s in steps):
        raise ValueError("every step must change the same traces and attributes")
    if any(sorted(s.layout) != sorted(steps[0].layout) for s in steps):
        raise ValueError("every step must change the same layout attributes")
    return sorted(shape), sorted({a for names in shape.values() for a in names}), shape


def _slider_spec(slider: Slider, traces: list[int], attrs: list[str], bottom: int) -> dict:
    many = len(slider.steps) > MAX_LABELLED_STEPS * slider.length
    spec = {
        "name": slider.name, "active": slider.active, "len": slider.length, "x": slider.x, "xanchor": "left",
        "y": 0.0, "yanchor": "top", "pad": {"t": bottom, "b": 0, "l": 0, "r": 0},
        "currentvalue": {"prefix": slider.prefix, "xanchor": "left", "visible": True, "offset": 8,
                         "font": {"color": CURRENT_VALUE_COLOUR}},
        "transition": {"duration": 0},
        "steps": [{"method": "update", "label": s.label, "value": s.value, "args": _update_args(s, traces, attrs)}
                  for s in slider.steps],
    }
    if many:
        spec.update(ticklen=3, minorticklen=0, font={"color": "rgba(0, 0, 0, 0)"})
    return spec


def explorable_sliders(spec: dict, sliders: Sequence[Slider], *, space: int = SLIDER_SPACE) -> go.Figure:
    """The figure ``spec`` with several sliders side by side under the plot, drawn at each
    slider's active step.

    No two sliders may change the same attribute (a trace's attribute or a layout path): a step
    then changes only what its own slider governs, so the sliders compose and every combination
    of positions shows what its steps set. Each slider as in :func:`explorable`; steps beyond
    ``MAX_LABELLED_STEPS`` times a slider's ``length`` draw no tick labels.
    """
    if not sliders:
        raise ValueError("an explorable needs at least one slider")
    data, layout = spec["data"], spec["layout"]
    bottom = int(layout.get("margin", {}).get("b", 50))  # the x axis' ticks and title sit there
    owners: dict[tuple, str] = {}
    specs = []
    for slider in sliders:
        traces, attrs, shape = _changes(slider.steps)
        if not 0 <= slider.active < len(slider.steps):
            raise ValueError(f"active step {slider.active} is not one of the {len(slider.steps)} steps")
        for key in [(t, a) for t, names in shape.items() for a in names] + list(slider.steps[0].layout):
            if key in owners:
                raise ValueError(f"sliders {owners[key]!r} and {slider.name!r} both change {key!r}: a step of "
                                 "one would undo the other's")
            owners[key] = slider.name
        for t in traces:
            for a in attrs:
                if a not in shape[t] and _get_attr(data[t], a) is not None:
                    raise ValueError(f"trace {t} has {a!r}, which a step would unset (null)")
        start = slider.steps[slider.active]
        for t, changes in start.data.items():
            for a, v in changes.items():
                _set_path(data[t], a, encoded(v))
        for path, v in start.layout.items():
            _set_path(layout, path, v)
        specs.append(_slider_spec(slider, traces, attrs, bottom))
    layout["sliders"] = specs
    layout.setdefault("margin", {})["b"] = bottom + space
    if layout.get("height"):
        layout["height"] = int(layout["height"]) + space
    from fsengine.plots.style import log_axis_labels

    return log_axis_labels(go.Figure(spec, _validate=False))  # plain numbers on log axes, also outside the app


def _slider(fig, slider: int) -> dict:
    layout = fig["layout"] if isinstance(fig, dict) else fig.layout.to_plotly_json()
    return layout["sliders"][slider]


def slider_values(fig, slider: int = 0) -> list[str]:
    """The values of a slider's steps (what a page stores for a position); the first slider by default."""
    return [s["value"] for s in _slider(fig, slider)["steps"]]


def step_data(fig, index: int, slider: int = 0) -> dict[int, dict[str, Any]]:
    """Trace index -> {attribute: decoded value} that step ``index`` of a slider (the first by
    default) sets."""
    data, _, traces = _slider(fig, slider)["steps"][index]["args"]
    return {t: {a: decoded(values[i]) for a, values in data.items() if values[i] is not None}
            for i, t in enumerate(traces)}


def step_layout(fig, index: int, slider: int = 0) -> dict[str, Any]:
    """The relayout changes of step ``index`` of a slider (the first by default)."""
    return _slider(fig, slider)["steps"][index]["args"][1]


def distinct_labels(values, digits: int = 3) -> list[str]:
    """Labels of ``values`` with ``digits`` significant digits, more where needed to keep every
    label distinct (a label read back with ``float`` is nearest to its own value).

    >>> distinct_labels([1.0, 1.0005, 20.0])
    ['1', '1.0005', '20']
    """
    values = [float(v) for v in values]
    for d in range(digits, 17):
        labels = [f"{v:.{d}g}" for v in values]
        if len(set(labels)) == len(labels):
            return labels
    return [repr(v) for v in values]


def spread_rows(n_rows: int, most: int) -> np.ndarray:
    """At most ``most`` of ``range(n_rows)`` evenly spread, first and last included.

    >>> spread_rows(5, 10).tolist(), spread_rows(10, 4).tolist()
    ([0, 1, 2, 3, 4], [0, 3, 6, 9])
    """
    if n_rows <= most:
        return np.arange(n_rows)
    return np.unique(np.linspace(0, n_rows - 1, most).round().astype(int))


# --- images: what moves cheaply -----------------------------------------------------------------

def png_bytes(pixels) -> bytes:
    """PNG of an (h, w) grey, (h, w, 3) RGB or (h, w, 4) RGBA uint8 array."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels, dtype=np.uint8)).save(out, format="PNG", compress_level=9)
    return out.getvalue()


def palette_uri(indices, colours) -> str:
    """A PNG URI of ``indices`` (h, w ints): 0 transparent, i >= 1 the RGB ``colours[i - 1]`` (a
    palette image: a few hundred bytes for sparse marks)."""
    from PIL import Image

    image = Image.fromarray(np.asarray(indices, dtype=np.uint8), mode="P")
    image.putpalette([0, 0, 0] + [int(v) for c in colours for v in c])
    out = io.BytesIO()
    image.save(out, format="PNG", transparency=0, optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def mask_uri(mask, colour: tuple[int, int, int]) -> str:
    """A PNG URI of ``mask`` (h, w bool): ``colour`` where True, transparent elsewhere."""
    return palette_uri(np.asarray(mask, dtype=np.uint8), [colour])


def ring_marks(labels, scale: int = 4) -> np.ndarray:
    """Each cell of ``labels`` (h, w ints, 0 = none) as a hollow ``scale`` x ``scale`` square of
    its label: (h * scale, w * scale), for :func:`palette_uri` (marks that leave the cell visible)."""
    labels = np.asarray(labels)
    ring = np.ones((scale, scale), dtype=bool)
    ring[1:-1, 1:-1] = False
    out = labels[:, None, :, None] * ring[None, :, None, :]
    return out.reshape(labels.shape[0] * scale, labels.shape[1] * scale)


def png_uri(pixels) -> str:
    """``data:image/png;base64,...`` of :func:`png_bytes`."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(pixels)).decode("ascii")


def pixelated_uri(pixels) -> str:
    """An image that stays sharp when stretched (one cell per pixel, as a heatmap draws it): the
    PNG of ``pixels`` inside an SVG that asks for nearest-neighbour scaling (browsers smooth a
    stretched PNG)."""
    h, w = np.asarray(pixels).shape[:2]
    inner = base64.b64encode(png_bytes(pixels)).decode("ascii")
    svg = (f"<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' "
           f"viewBox='0 0 {w} {h}' preserveAspectRatio='none'><image width='{w}' height='{h}' "
           f"preserveAspectRatio='none' image-rendering='optimizeSpeed' style='image-rendering:pixelated' "
           f"xlink:href='data:image/png;base64,{inner}'/></svg>")
    return "data:image/svg+xml," + svg.replace("%", "%25").replace("#", "%23")


def image_pixels(uri: str) -> np.ndarray:
    """The pixels (h, w[, channels]) of a PNG or :func:`pixelated_uri` image URI (tests and readers
    of a figure; a palette image gives its indices)."""
    from PIL import Image

    if uri.startswith("data:image/svg+xml,"):
        uri = re.search(r"href='(data:image/png;base64,[^']+)'", uri).group(1)
    data = base64.b64decode(uri.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(data)))


@functools.lru_cache(maxsize=32)
def _named_scale(name: str) -> tuple:
    import plotly.colors as pc

    return tuple(tuple(stop) for stop in pc.get_colorscale(name))


def colour_scale(name: str) -> list:
    """plotly.py's colour scale ``name`` as an explicit ``[[t, colour], ...]`` list. Give it to a
    figure's trace, never the name: plotly.js names some scales the other way round (its
    ``RdBu`` runs blue to red), and the images of :func:`heatmap_image` follow plotly.py's."""
    return [list(stop) for stop in _named_scale(name)]


def colour_stops(colorscale: str | list) -> tuple[np.ndarray, np.ndarray]:
    """A plotly colour scale (name or ``[[t, colour], ...]``) as stops (n,) and RGB (n, 3)."""
    import plotly.colors as pc

    scale = _named_scale(colorscale) if isinstance(colorscale, str) else colorscale
    stops = np.array([float(t) for t, _ in scale])
    rgb = np.array([pc.hex_to_rgb(c) if c.startswith("#") else pc.unlabel_rgb(c) for _, c in scale], dtype=float)
    return stops, rgb


def colour_pixels(values, low: float, high: float, colorscale: str | list = "Viridis") -> np.ndarray:
    """RGBA uint8 pixels of ``values`` (h, w) on ``colorscale`` from ``low`` to ``high`` (linear
    between the scale's stops, as plotly.js draws a heatmap); NaN is transparent."""
    values = np.asarray(values, dtype=np.float64)
    stops, rgb = colour_stops(colorscale)
    span = high - low if high > low else 1.0
    t = np.clip((np.nan_to_num(values, nan=low) - low) / span, 0.0, 1.0)
    out = np.empty(values.shape + (4,), dtype=np.uint8)
    for k in range(3):
        out[..., k] = np.interp(t, stops, rgb[:, k]).round()
    out[..., 3] = np.where(np.isnan(values), 0, 255)
    return out


def heatmap_image(values, low: float, high: float, colorscale: str | list = "Viridis") -> str:
    """A heatmap's cells (row 0 at the top) as a sharp image URI (:func:`pixelated_uri`)."""
    return pixelated_uri(colour_pixels(values, low, high, colorscale))


def marker_image(colour: str = "#d62728", edge: str = "#ffffff", size: int = 16) -> str:
    """A round marker (a disc in ``colour`` with an ``edge`` ring; hex colours) as a PNG URI, for a
    layout image placed at a point."""
    import plotly.colors as pc

    yy, xx = np.mgrid[:size, :size]
    r = np.hypot(yy - (size - 1) / 2, xx - (size - 1) / 2)
    out = np.zeros((size, size, 4), dtype=np.uint8)
    for radius, c in ((size / 2, edge), (size / 2 - 1.6, colour)):
        out[r <= radius] = (*pc.hex_to_rgb(c), 255)
    return png_uri(out)


def line_image(colour=(0, 0, 0, 255)) -> str:
    """One opaque pixel (RGBA) as a PNG URI: stretched, a line or a bar drawn as a layout image."""
    return png_uri(np.array([[colour]], dtype=np.uint8))


def layout_image(source: str, x: float, y: float, sizex: float, sizey: float, *, xref: str = "x", yref: str = "y",
                 xanchor: str = "left", yanchor: str = "top", sizing: str = "stretch") -> dict:
    """A ``layout.images`` entry drawn above the traces (on a log axis, x and sizex are log10)."""
    return {"source": source, "x": x, "y": y, "sizex": sizex, "sizey": sizey, "xref": xref, "yref": yref,
            "xanchor": xanchor, "yanchor": yanchor, "sizing": sizing, "layer": "above"}


def colourbar_ticks(low: float, high: float, n: int = 5) -> list[str]:
    """Tick labels of a colour bar drawn from 0 to 1 that stands for ``low`` to ``high``: as many
    digits as it takes for neighbours to differ (2 to 4 decimals)."""
    values = np.linspace(low, high, n)
    for digits in (2, 3, 4):
        labels = [f"{v:.{digits}f}" for v in values]
        if len(set(labels)) == n:
            break
    return labels


def text_box(x0: float, x1: float, y0: float, y1: float, *, position: str = "middle left",
             colour: str | None = None, xref: str = "paper", yref: str = "paper") -> dict:
    """An invisible box whose label a step rewrites (``"shapes[i].label.text"``): a shape's label
    redraws alone, while an annotation's text would redraw the whole figure."""
    font = {} if colour is None else {"color": colour}
    return {"type": "rect", "xref": xref, "yref": yref, "x0": x0, "x1": x1, "y0": y0, "y1": y1,
            "line": {"width": 0}, "label": {"text": "", "textposition": position, "font": font}}


def position_line(xref: str, width: float, *, colour=(128, 128, 128, 255), vertical: bool = True) -> dict:
    """A line across a subplot as a layout image (a step moves its ``x``, or its ``y`` when not
    ``vertical``): ``width`` in the axis' units (decades on a log axis). It spans the axis'
    domain, so it needs no data range."""
    if vertical:
        return layout_image(line_image(colour), 0.0, 1.0, width, 1.0, xref=xref, yref=f"y{xref[1:]} domain",
                            xanchor="center")
    return layout_image(line_image(colour), 0.0, 0.0, 1.0, width, xref=f"x{xref[1:]} domain", yref=xref,
                        yanchor="middle")
