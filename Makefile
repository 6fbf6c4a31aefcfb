# One command to run, one to test. Everything installs from this repository's own files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-sqlite test-postgresql lint typecheck bench bench-import clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## Run the service on the embedded SQLite database (migrates and creates the super administrator first).
run: $(STAMP)
	$(BIN)/unionflow serve --host $${UNIONFLOW_HOST:-127.0.0.1} --port $${UNIONFLOW_PORT:-8000}

## Lint, type-check, then the whole suite on SQLite and again on PostgreSQL (throwaway database).
test: $(STAMP) lint typecheck test-sqlite test-postgresql

test-sqlite: $(STAMP)
	UNIONFLOW_TEST_DATABASE=sqlite $(BIN)/pytest

test-postgresql: $(STAMP)
	UNIONFLOW_TEST_DATABASE=postgresql $(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests $(wildcard bench)

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m bench.run

## A member import of 100,000 generated lines on a fresh PostgreSQL database (bench/results/*-import.*).
bench-import: $(STAMP)
	$(BIN)/python -m bench.import_membres --lines $${BENCH_IMPORT_LINES:-100000}

clean:
	rm -rf $(VENV) var .mypy_cache .ruff_cache
