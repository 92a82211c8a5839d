# Two commands on a fresh machine: `make app` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP_APP  := $(VENV)/.installed-app
STAMP_TEST := $(VENV)/.installed-test
STAMP_LAB  := $(VENV)/.installed-jupyter
STAMP_DOCS := $(VENV)/.installed-docs
PORT   ?= 8501
HOST   ?= 127.0.0.1
NOTEBOOK_PORT ?= 8888

# The lowest-versions run: every floor pyproject.toml declares, installed exactly (see .ci/min_constraints.py)
VENV_MIN  := .venv-min
PY_MIN    := $(VENV_MIN)/bin/python
STAMP_MIN := $(VENV_MIN)/.installed-min
# skipped there: real browsers, the wheel build, long runs (each also runs in `make test`)
MIN_SKIP  := not browser and not slow and not heavy and not record_bytes

.PHONY: app test test-fast test-min bench install notebook docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP_APP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test,notebooks]"
	touch $@ $(STAMP_APP)

$(STAMP_DOCS): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[docs]"
	touch $@ $(STAMP_APP)

$(STAMP_LAB): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[jupyter]"
	touch $@ $(STAMP_APP)

install: $(STAMP_APP)

app: $(STAMP_APP)
	$(PY) -m fsengine warmup
	$(PY) -m fsengine app --entry app.py --port $(PORT) --host $(HOST) --no-warmup

# the files that hold serial tests, listed by the parallel part's collection (tests/conftest.py, --serial-files):
# the serial part collects only those (an empty or missing list: the whole suite, as before)
SERIAL_FILES := test-artifacts/serial-files.txt

# two workers, whole files each (tests/conftest.py schedules the browser modules on the shared app server as one unit);
# `make test TEST_WORKERS=3` times a third worker filling the waits on browsers and servers (not yet measured quiet)
TEST_WORKERS ?= 2
test: $(STAMP_TEST)
	$(PY) -m ruff check .
	$(PY) -m pytest -q --durations=25 -n $(TEST_WORKERS) --dist loadfile -m "not serial and not heavy" --serial-files=$(SERIAL_FILES)
	$(PY) -m pytest -q -m "serial and not heavy" $$(cat $(SERIAL_FILES) 2>/dev/null)

# the full-size pins of the records (minutes of CPU each; CI runs them after make test)
verify: $(STAMP_TEST)
	$(PY) -m pytest -q --durations=10 -n 2 -m heavy

# the tests not marked slow or browser (a few minutes): the loop while editing
test-fast: $(STAMP_TEST)
	$(PY) -m ruff check .
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not slow and not browser and not serial and not heavy" \
		--serial-files=$(SERIAL_FILES)
	$(PY) -m pytest -q -m "serial and not slow and not browser" $$(cat $(SERIAL_FILES) 2>/dev/null)

# the documentation site, offline, warnings as errors; then every internal link and no network load,
# and tests/docs/test_site.py on the built site (every guide page real content, every record's page,
# every method's table, the lessons' live figures). Open docs/_build/html/index.html; the lessons run
# at build time and are cached in docs/_build/.jupyter_cache (a build without changes takes seconds)
docs: $(STAMP_DOCS) $(STAMP_TEST)
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	$(PY) docs/check_links.py docs/_build/html
	FSENGINE_DOCS_SITE=docs/_build/html $(PY) -m pytest -q -n 0 tests/docs/test_site.py

notebook: $(STAMP_LAB)
	$(PY) -m fsengine warmup
	$(VENV)/bin/jupyter-lab notebooks --ServerApp.ip=$(HOST) --ServerApp.port=$(NOTEBOOK_PORT) \
		$(if $(filter 0,$(shell id -u)),--allow-root)

$(STAMP_MIN): pyproject.toml .ci/min_constraints.py
	$(PYTHON) -m venv $(VENV_MIN)
	$(PY_MIN) -m pip install --quiet --upgrade pip
	$(PY_MIN) .ci/min_constraints.py > $(VENV_MIN)/constraints.txt
	$(PY_MIN) -m pip install --quiet -c $(VENV_MIN)/constraints.txt -e ".[test,notebooks]"
	touch $@

# own numba cache: kernels compiled by another numba version are not mixed with .venv's
test-min: $(STAMP_MIN)
	$(PY_MIN) -m ruff check .
	NUMBA_CACHE_DIR=$(VENV_MIN)/numba-cache $(PY_MIN) -m pytest -q -m "$(MIN_SKIP)"

bench: $(STAMP_TEST)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(VENV_MIN) datasets/cache test-artifacts .pytest_cache docs/_build
