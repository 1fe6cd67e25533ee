# Two entry points for a fresh machine (see README):
#   make example   create .venv, install, index fixtures/pilot and print its status
#   make test      create .venv, install, run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: example test test-fast lint venv clean-example

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

example: venv
	$(BIN)/ragraf init fixtures/pilot
	$(BIN)/ragraf -C fixtures/pilot index
	$(BIN)/ragraf -C fixtures/pilot status

test: venv lint
	$(BIN)/python -m pytest -n 2 --dist loadfile -q

# the inner loop: everything but the tests marked slow (markers: see pyproject.toml, AGENTS.md)
test-fast: venv
	$(BIN)/python -m pytest -n 2 --dist loadfile -q -m "not slow"

# lint, format and type checks; `make test` runs them first and fails on any finding
lint: venv
	$(BIN)/ruff check ragraf tests bench
	$(BIN)/ruff format --check ragraf tests bench
	$(BIN)/mypy

clean-example:
	rm -rf fixtures/pilot/.ragraf
