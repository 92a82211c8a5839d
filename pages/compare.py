"""Page "Compare methods" (checkout entry point; the page is ``fsengine.app.views.compare``)."""

from fsengine.app.shell import show_page

show_page("compare")
