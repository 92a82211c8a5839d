"""Page "Data" (checkout entry point; the page is ``fsengine.app.views.data``)."""

from fsengine.app.shell import show_page

show_page("data")
