"""Helpers of the browser tests of pages with explorables (the lecture pack, a lesson in JupyterLab or
exported): a Chromium context that may load ``file://`` URLs only, and what a figure with its own
slider shows.
"""

from __future__ import annotations

#: every plotly figure of a page drawn (its full layout computed)
ALL_DRAWN = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  return plots.length > 0 && plots.every(gd => gd._fullLayout && gd.querySelector('.main-svg'));
}"""

#: per figure of the page: its slider's active step and value, whether every layout change of the
#: active step is what the figure shows (slider and figure in agreement), and what the steps change
FIGURES_STATE = """() => {
  const at = (node, path) => {
    for (const part of path.replace(/\\]/g, '').split(/[.\\[]/)) {
      if (node === undefined || node === null) return undefined;
      node = node[part];
    }
    return node;
  };
  return [...document.querySelectorAll('.js-plotly-plot')].map((gd, index) => {
    const sliders = gd.layout.sliders || [];
    if (!sliders.length) return {slider: false, index: index};
    const slider = sliders[0], step = slider.steps[slider.active || 0];
    const changes = step.args[1] || {};
    const disagree = Object.keys(changes).filter(
      path => JSON.stringify(at(gd.layout, path)) !== JSON.stringify(changes[path]));
    const data = step.args[0] || {}, traces = step.args[2] || [];
    const restyled = Object.keys(data).map(a => traces.map(t => at(gd.data[t], a)));
    return {slider: true, index: index, active: slider.active || 0, value: step.value, steps: slider.steps.length,
            disagree: disagree, shown: JSON.stringify([Object.keys(changes).map(p => at(gd.layout, p)), restyled])};
  });
}"""


def offline_context(browser, blocked: list[str], viewport=(1280, 800)):
    """A browser context that aborts every request that is not ``file://`` (recorded in
    ``blocked``): a page that needed the network would show it."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    return context


def console_errors(page) -> list[str]:
    """Collects the page's console errors and uncaught exceptions (a list that fills as it runs)."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def click_rail(page, index: int, fraction: float) -> None:
    """Click the slider rail of the page's ``index``-th plotly figure at ``fraction`` of its length."""
    rail = page.locator(".js-plotly-plot").nth(index).locator(".slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    box, previous = rail.bounding_box(), None
    for _ in range(20):  # the page may still be scrolling or laying out (JupyterLab's windowed cells)
        if box == previous:
            break
        page.wait_for_timeout(100)
        box, previous = rail.bounding_box(), box
    page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)
