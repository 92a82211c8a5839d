"""Page "Benchmark" (checkout entry point; the page is ``fsengine.app.views.benchmark``)."""

from fsengine.app.shell import show_page

show_page("benchmark")
