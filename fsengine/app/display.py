"""How the app shows figures: the sidebar's lecture-mode switch and light/dark choice,
:func:`show_figure`, through which every page draws its plotly figures in that style, and
:func:`show_explorable` for a figure that carries its own slider.

Both settings live in the URL (``?lecture=true&theme=Dark``: the radio writes its label; a link may
also say ``theme=dark``, :mod:`fsengine.app.links`), so a link carries them. The dark
choice switches the whole page, not only the figures: Streamlit reads the page theme from the
URL's ``embed_options=dark_theme`` (or ``light_theme``) when the page loads, so the sidebar's
choice sets that option and reloads once when the page shows the other theme (the config sets no
``theme.base``, which would override it). Figures are drawn with ``theme=None``
(the style is applied by :func:`fsengine.plots.style.restyle`, identical in every browser).
"""

from __future__ import annotations

import streamlit as st

from fsengine.app.links import link_choice
from fsengine.plots.style import Style, restyle

LECTURE_KEY = "lecture"
THEME_KEY = "theme"
THEMES = ("light", "dark")
#: what a table cell without a number shows (``st.dataframe(..., placeholder=NO_NUMBER)``)
NO_NUMBER = "—"

#: Reload with Streamlit's embed option for the chosen theme when the page shows the other one.
_THEME_SCRIPT = """
<script>
(() => {
  const want = "%s";
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return;
  const rgb = getComputedStyle(app).backgroundColor.match(/[0-9.]+/g) || ["255", "255", "255"];
  const isDark = (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) < 128;
  if ((want === "dark") === isDark) return;
  const url = new URL(window.location.href);
  if (url.searchParams.get("embed_options") === want + "_theme") return;  // already asked: never loop
  url.searchParams.set("embed_options", want + "_theme");
  window.location.replace(url.toString());
})();
</script>
"""


def display_controls(container) -> Style:
    """The sidebar's display settings (bound to the URL); returns the chosen :class:`Style`."""
    lecture = container.toggle(
        "Lecture mode", key=LECTURE_KEY, bind="query-params",
        help="Large fonts and thick lines in every figure, for a projector and the back row.")
    link_choice(THEME_KEY, THEMES, str.capitalize)  # ?theme=dark as well as the ?theme=Dark the app writes
    theme = container.radio("Theme", THEMES, key=THEME_KEY, bind="query-params", horizontal=True,
                            format_func=str.capitalize, help="The page and every figure follow it.")
    with container:
        st.html(_THEME_SCRIPT % theme, unsafe_allow_javascript=True)
    return Style(lecture=bool(lecture), dark=theme == "dark")


def current_style() -> Style:
    """The style chosen in the sidebar (the default style when the sidebar has not run)."""
    return Style(lecture=bool(st.session_state.get(LECTURE_KEY, False)),
                 dark=st.session_state.get(THEME_KEY) == "dark")


def figure_columns(spec, **kwargs) -> list:
    """Places for figures side by side: ``st.columns(spec, **kwargs)``, except in lecture mode,
    where the places are stacked, each the page's full width, so that the large fonts, titles and
    legends of a projector-sized figure fit (two columns leave a figure about 400 px)."""
    if current_style().lecture:
        return [st.container() for _ in range(spec if isinstance(spec, int) else len(spec))]
    return st.columns(spec, **kwargs)


def show_figure(where, fig, **kwargs) -> None:
    """Draw a plotly figure (``go.Figure``, plain dict or :class:`~fsengine.app.figures.PreparedFigure`)
    in ``where`` (``st`` or a container) in the sidebar's style; keyword arguments go to
    ``st.plotly_chart``. A prepared figure with no argument but ``key`` is sent as its prepared
    JSON (:func:`~fsengine.app.figures.draw_prepared`: no plotly work on the server)."""
    from fsengine.app.figures import PreparedFigure, draw_prepared

    if isinstance(fig, PreparedFigure):
        if set(kwargs) <= {"key"}:
            draw_prepared(where, fig, current_style(), key=kwargs.get("key"))
            return
        fig = fig.figure
    kwargs.setdefault("width", "stretch")
    where.plotly_chart(restyle(fig, current_style()), theme=None, **kwargs)


# --- explorables: the figure's own slider, its position in the URL --------------------------------

#: Finds the plotly chart ``.st-key-<chart>`` on the page (it is drawn, and redrawn on a rerun, after
#: this element mounts: polled) and listens to its slider. After a move (a click, or the last step
#: of a drag, 250 ms quiet) the step's value goes into the URL's ``param`` (left out when it is
#: ``fallback``, as Streamlit leaves out a widget's default). Nothing is sent to Python: a move
#: costs no rerun and no websocket byte. The page reads the value back from the URL
#: (:func:`url_value`) when it runs again. In the browser the last move wins: a rerun that Python
#: started from an older query string (Streamlit sends the one it last synced, which a button's
#: rerun does not refresh, and may then rewrite the URL from it) draws the figure elsewhere or
#: drops the parameter; the poll puts the remembered value back into the URL and moves the figure to
#: its step. A value the figure has no step for (another grid) gives way to the figure's. One
#: listener per chart and slider (``settings.slider``, the first by default: a figure with several
#: sliders has one bridge and one URL parameter per slider), whose settings the latest mount
#: replaces. With ``settings.report`` every value written also goes to Python as the trigger
#: ``value`` (:func:`explorable_bridge`): one rerun per release, of the fragment the bridge is
#: mounted in.
_URL_BRIDGE_JS = """
export default function (component) {
  const settings = component.data || {};
  const index = settings.slider || 0;  // which of the figure's sliders this bridge follows
  const moved = (window.__fsenginePositions = window.__fsenginePositions || {});  // param -> last move
  let stopped = false;
  let timer = null;
  const chart = () => document.querySelector(`.st-key-${settings.chart} .js-plotly-plot`);
  const write = (value) => {
    timer = null;
    moved[settings.param] = value;
    const url = new URL(window.location.href);
    if (value === settings.fallback) url.searchParams.delete(settings.param);
    else url.searchParams.set(settings.param, value);
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
    if (settings.report && typeof component.setTriggerValue === "function") component.setTriggerValue("value", value);
  };
  const onChange = (event) => {
    const slider = event && event.slider ? (event.slider._index || 0) : 0;
    if (slider !== index) return;  // another slider of the figure: its own bridge writes it
    const value = event && event.step ? event.step.value : null;
    if (value === null || value === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => write(String(value)), 250);
  };
  const follow = (gd) => {  // the figure to the URL's step (a rerun from an older URL drew it elsewhere)
    const slider = gd.layout && gd.layout.sliders && gd.layout.sliders[index];
    if (timer !== null || !slider || !slider.steps || !window.Plotly) return;
    const inUrl = new URL(window.location.href).searchParams.get(settings.param) ?? settings.fallback;
    const want = moved[settings.param] ?? inUrl;
    if (want !== inUrl) write(want);  // a rewrite from an older query string dropped the last move
    const active = slider.steps[slider.active || 0];
    if (!active || String(active.value) === want) return;
    const step = slider.steps.findIndex((candidate) => String(candidate.value) === want);
    if (step < 0) { write(String(active.value)); return; }
    const [data, layout, traces] = slider.steps[step].args;
    window.Plotly.update(gd, data, Object.assign({}, layout, {[`sliders[${index}].active`]: step}), traces);
  };
  const attach = () => {
    if (stopped) return;
    const gd = chart();
    if (!gd || typeof gd.on !== "function") return;
    const bridges = (gd.__fsengineBridges = gd.__fsengineBridges || {});
    if (!bridges[index]) {
      const bridge = { handler: onChange };
      bridges[index] = bridge;
      gd.on("plotly_sliderchange", (event) => bridge.handler(event));
    }
    bridges[index].handler = onChange;
    follow(gd);
  };
  attach();
  const poll = setInterval(attach, 250);
  return () => { stopped = true; clearInterval(poll); clearTimeout(timer); };
}
"""

_url_bridge = None


def _bridge():
    """The URL bridge component, registered once (a components v2 element with inline JS)."""
    global _url_bridge
    if _url_bridge is None:
        _url_bridge = st.components.v2.component("fsengine_slider_url", js=_URL_BRIDGE_JS)
    return _url_bridge


def url_value(param: str) -> str | None:
    """The value of ``param`` in the page's URL (an explorable's position), or None."""
    return st.query_params.get(param)


def _mount(where, chart: str, data: dict, **callbacks):
    slider = data.get("slider", 0)
    key = f"{chart}_url" if not slider else f"{chart}_url{slider}"
    if where is st:
        return _bridge()(key=key, data=data, **callbacks)
    with where:
        return _bridge()(key=key, data=data, **callbacks)


def show_explorable(where, fig, *, key: str, param: str, fallback: str, bridge: bool = True,
                    more: tuple[tuple[str, str], ...] = ()) -> None:
    """Draw an explorable (:mod:`fsengine.plots.explorable`) in ``where`` like :func:`show_figure`,
    and keep its slider's position in the URL's ``param`` (``fallback``: the value the page uses
    when the URL has none, left out of the URL). Moves never reach Python; the page reads the
    position back with :func:`url_value` when it runs. ``more``: (param, fallback) of the
    figure's second, third, ... slider, each kept in its own URL parameter. ``bridge=False``: the
    page mounts the bridge itself, with :func:`explorable_bridge` (the position also reaches Python)."""
    show_figure(where, fig, key=key)
    if bridge:
        _mount(where, key, {"chart": key, "param": param, "fallback": fallback})
    for slider, (other, other_fallback) in enumerate(more, start=1):
        _mount(where, key, {"chart": key, "param": other, "fallback": other_fallback, "slider": slider})


def _released() -> None:
    """The bridge's trigger callback: the value is read from the mount's result."""


def explorable_bridge(where, *, chart: str, param: str, fallback: str) -> str | None:
    """The URL bridge of the explorable drawn with key ``chart`` (:func:`show_explorable` with
    ``bridge=False``) that also reports each release to Python: the page reruns (only the fragment
    this is called in, when it is called in one: the figure, drawn outside, is not sent again),
    and the released value is put into ``st.query_params[param]`` (left out when ``fallback``), so
    that :func:`url_value` gives it in this run and the server's query string agrees with the
    browser's. Returns the value released for this run, or None."""
    result = _mount(where, chart, {"chart": chart, "param": param, "fallback": fallback, "report": True},
                    on_value_change=_released)
    moved = result.get("value") if result is not None else None
    if moved is None:
        return None
    moved = str(moved)
    if moved == fallback:
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != moved:
        st.query_params[param] = moved
    return moved
