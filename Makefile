# Two entry points for a fresh machine: `make demo` (the main job, offline, embedded
# defaults) and `make test` (the whole suite). Both create .venv and install on first use,
# from the lock files in requirements/ (pip-compile output of pyproject.toml): a fresh machine
# gets exactly the tested set. `make lock` regenerates them after a dependency change.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --no-emit-index-url \
	--no-emit-find-links --no-emit-trusted-host --strip-extras --allow-unsafe

.PHONY: demo test test-fast bench vectors schemas catalogs lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# the demo's light set: the core dependencies only (no pandas/pyarrow, no test tools)
$(DEMO_STAMP): requirements/demo.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements/demo.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

# everything the tests need: the core plus the dev, anthropic, dask and tables extras
$(TEST_STAMP): requirements/test.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements/test.txt
	$(BIN)/pip install --quiet --no-deps -e '.[dev,anthropic,dask,tables]'
	touch $@

REQUEST ?= make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above

# exit 7 (awaiting_choice) is a right answer: no repair inside the request passes, and the
# designer picks one of the printed trade-offs (`gcv answer WF --choose N`)
demo: $(DEMO_STAMP)
	@$(BIN)/gcv run "$(REQUEST)" --yes; rc=$$?; \
	if [ $$rc -eq 7 ]; then echo "demo: the designer chooses next (a 'choose N' line above)"; exit 0; fi; exit $$rc

# mypy first: its settings are [tool.mypy] in pyproject.toml (strict on the lower floors);
# it needs no network, and its cache (.mypy_cache) makes a second run quick
test: $(TEST_STAMP)
	$(BIN)/mypy
	$(BIN)/pytest

# day-to-day subset: the type check, then no slow and no toolchain tests, on every core
# (pytest-xdist; the whole suite stays serial: its browser and server tests are timed)
test-fast: $(TEST_STAMP)
	$(BIN)/mypy
	$(BIN)/pytest -m "not slow and not toolchain" -n auto

bench: $(DEMO_STAMP)
	$(BIN)/python benchmarks/bench_sim.py

vectors: $(DEMO_STAMP)
	$(BIN)/python -m gcv.simio.golden_files --write artifacts/vectors

schemas: $(DEMO_STAMP)
	$(BIN)/gcv schema export

# the console's message catalogs (docs/console.md "Languages"): Babel extracts the messages of
# babel.cfg's files into gcv/console/locale/messages.pot and updates each locale's messages.po
catalogs: $(DEMO_STAMP)
	$(BIN)/python -m gcv.console.catalogs --write

# after editing the dependencies in pyproject.toml (pins kept where still valid; add
# PIP_COMPILE_ARGS=--upgrade to move every pin to the newest allowed release)
lock: $(TEST_STAMP)
	$(PIP_COMPILE) $(PIP_COMPILE_ARGS) -o requirements/demo.txt pyproject.toml
	$(PIP_COMPILE) $(PIP_COMPILE_ARGS) --extra dev --extra anthropic --extra dask --extra tables \
		-o requirements/test.txt pyproject.toml

clean:
	rm -rf $(VENV) .gcv .pytest_cache .hypothesis .mypy_cache
