"""Page "Bayes-factor selection" (checkout entry point; the page is ``fsengine.app.views.bayes_factor``)."""

from fsengine.app.shell import show_page

show_page("bayes_factor")
