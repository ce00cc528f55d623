# Two entry points for a fresh machine: `make demo` (the main job, offline, embedded
# defaults) and `make test` (the whole suite). Both create .venv and install on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast bench vectors schemas clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,anthropic,dask]'
	touch $(STAMP)

REQUEST ?= make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above

demo: $(STAMP)
	$(BIN)/gcv run "$(REQUEST)" --yes

test: $(STAMP)
	$(BIN)/pytest

# day-to-day subset: no slow and no toolchain tests
test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow and not toolchain"

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_sim.py

vectors: $(STAMP)
	$(BIN)/python -m gcv.simio.golden_files --write artifacts/vectors

schemas: $(STAMP)
	$(BIN)/gcv schema export

clean:
	rm -rf $(VENV) .gcv .pytest_cache .hypothesis
