"""Page "Relevance Tagging Machine" (checkout entry point; the page is ``fsengine.app.views.rtm``)."""

from fsengine.app.shell import show_page

show_page("rtm")
