# One-command entry points. `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
TORCH  ?= torch==2.13.0

.PHONY: setup demo test test-installed bench clean

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

# The suite against `pip install .` (not editable) in a fresh venv, run from outside the checkout
# so nothing can import from src/ or the repo root: catches data files the wheel leaves out and
# modules that only work from the checkout. TESTS narrows the selection (CI runs a smoke set).
INSTALLED ?= .venv-installed
TESTS     ?= tests
OUTSIDE   ?= $${TMPDIR:-/tmp}
test-installed:
	rm -rf $(INSTALLED) build  # a stale build/lib would ship old modules
	$(PYTHON) -m venv $(INSTALLED)
	$(INSTALLED)/bin/pip install -q --upgrade pip
	$(INSTALLED)/bin/pip install -q "$(TORCH)"
	cd $(OUTSIDE) && $(CURDIR)/$(INSTALLED)/bin/pip install -q '$(CURDIR)[dev]'
	cd $(OUTSIDE) && ! $(CURDIR)/$(INSTALLED)/bin/python -c "import corpus" 2>/dev/null
	cd $(OUTSIDE) && $(CURDIR)/$(INSTALLED)/bin/python -c \
	  "import litnav; assert '/site-packages/' in litnav.__file__, litnav.__file__; print('testing', litnav.__file__)"
	cd $(OUTSIDE) && $(CURDIR)/$(INSTALLED)/bin/python -m pytest -q -p no:cacheprovider \
	  -c $(CURDIR)/pyproject.toml --rootdir $(CURDIR) $(addprefix $(CURDIR)/,$(TESTS))

bench: setup
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) $(INSTALLED) demo-corpus demo-sessions .pytest_cache
