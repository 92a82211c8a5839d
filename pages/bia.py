"""Page "BIA: Lambda paths" (checkout entry point; the page is ``fsengine.app.views.bia``)."""

from fsengine.app.shell import show_page

show_page("bia")
