"""Page "Unified information criterion" (checkout entry point; the page is ``fsengine.app.views.unified``)."""

from fsengine.app.shell import show_page

show_page("unified")
