"""Page "Home" (checkout entry point; the page is ``fsengine.app.views.home``)."""

from fsengine.app.shell import show_page

show_page("home")
