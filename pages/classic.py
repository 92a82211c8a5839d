"""Page "Classic criteria" (checkout entry point; the page is ``fsengine.app.views.classic``)."""

from fsengine.app.shell import show_page

show_page("classic")
