"""Page "SGC vs IFS" (checkout entry point; the page is ``fsengine.app.views.sgc_ifs``)."""

from fsengine.app.shell import show_page

show_page("sgc_ifs")
