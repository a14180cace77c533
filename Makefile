# One-command entry points. `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
TORCH  ?= torch==2.13.0

.PHONY: setup demo test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# CPU build of torch first, so nothing later pulls a CUDA build.
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e '.[dev]'
	# Chromium from the OS packages for the HTML report's browser test (skipped, with a note, without apt or root)
	@command -v chromium >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] \
	  && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	  || echo "note: chromium not installed; the report's browser test will be skipped"
	touch $@

demo: setup
	$(BIN)/litnav demo

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) demo-corpus demo-sessions .pytest_cache
