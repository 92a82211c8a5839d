"""Page "SGC vs IFS" (checkout entry point; the page is ``fsengine.app.views.gain``)."""

from fsengine.app.shell import show_page

show_page("gain")
