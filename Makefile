# The README's commands. Each target bootstraps .venv by itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo goldens bench clean diff-soundness

NODE_CLIENT := tests/external/node_modules/.package-lock.json

# mcpstub and the runtime it depends on (runtime/, distribution mcpstub-runtime), in one command.
$(STAMP): pyproject.toml runtime/pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ./runtime -e '.[test]'
	touch $(STAMP)

# What the external tests drive generated servers with: the TypeScript MCP SDK, the official
# conformance suite and, where the machine's Node is older than the suite needs, a Node 22.
$(NODE_CLIENT): tests/external/package.json tests/external/package-lock.json
	cd tests/external && npm ci --no-audit --no-fund --loglevel=error

# Python writes bytecode in the tests as it does on users' machines, whatever the shell says.
test: export PYTHONDONTWRITEBYTECODE :=
test: $(STAMP) $(NODE_CLIENT)
	$(BIN)/ruff check generator runtime tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 3 --dist worksteal -q

demo: $(STAMP)
	$(BIN)/python examples/demo.py

# diff's differential soundness test with a long budget (the README's figure): pairs tried, pairs
# called compatible, breaking findings checked, counterexamples found.
diff-soundness: $(STAMP)
	MCPSTUB_SOUNDNESS_EXAMPLES=$${MCPSTUB_SOUNDNESS_EXAMPLES:-600} $(BIN)/python -m pytest tests/unit/test_diff_soundness.py -q -s -p no:xdist

goldens: $(STAMP)
	$(BIN)/python -m tests.regen_goldens

# Figures for docs/performance.md: printed and written to benchmarks/results.md.
# fastmcp (pinned in benchmarks/requirements-fastmcp.txt) goes into benchmarks/.venv-fastmcp.
bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build dist
