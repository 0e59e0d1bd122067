# The README's commands. Each target bootstraps .venv by itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint typecheck goldens bench clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check generator tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 -q

demo: $(STAMP)
	$(BIN)/python examples/demo.py

goldens: $(STAMP)
	$(BIN)/python -m tests.regen_goldens

clean:
	rm -rf $(VENV) build dist
