# One command to run, one to test. Everything installs from this repository's own files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run demo test test-fast test-sqlite test-postgresql lint typecheck layers contrat bench bench-import bench-generation bench-ussd bench-sms bench-echelle bench-etats bench-moteurs bench-reprise clean fuzz fuzz-ci

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## Run the service on the embedded SQLite database (migrates and creates the super administrator first).
run: $(STAMP)
	$(BIN)/unionflow serve --host $${UNIONFLOW_HOST:-127.0.0.1} --port $${UNIONFLOW_PORT:-8000}

## Try it without a union: a demo federation on var/demo/demo.db (recreated) and the Wave simulator, then serve.
demo: $(STAMP)
	$(BIN)/unionflow demo --host $${UNIONFLOW_HOST:-127.0.0.1} --port $${UNIONFLOW_PORT:-8000}

## Lint, type-check, a short fuzz, then the whole suite on SQLite and again on PostgreSQL (throwaway database).
## The pytest summaries come last on purpose: CI reads the final pytest summary line to count the tests run.
## Each phase before them prints its time ("make test: lint 3 s"); each suite's summary gives its own, after the
## reasons of its skips (-rs, pyproject.toml).
test: $(STAMP)
	@for phase in lint typecheck layers contrat fuzz-ci; do start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$phase || exit $$?; \
	  echo "make test: $$phase $$(( $$(date +%s) - start )) s"; done
	@$(MAKE) --no-print-directory test-sqlite test-postgresql

## pytest-xdist: one process per core, each with its own database (tests/conftest.py); UNIONFLOW_TEST_WORKERS=0
## runs in one process (a debugger, -x on the first failure).
PARALLEL := -n $${UNIONFLOW_TEST_WORKERS:-auto} --dist worksteal

test-sqlite: $(STAMP)
	UNIONFLOW_TEST_DATABASE=sqlite $(BIN)/pytest $(PARALLEL)

test-postgresql: $(STAMP)
	UNIONFLOW_TEST_DATABASE=postgresql $(BIN)/pytest $(PARALLEL)

## The inner loop: SQLite, in parallel, without the slow tests (marker `lent`, list in tests/conftest.py), stops
## at the first failure. `make test` stays the whole truth.
test-fast: $(STAMP)
	UNIONFLOW_TEST_DATABASE=sqlite $(BIN)/pytest $(PARALLEL) -m "not lent" -x

lint: $(STAMP)
	$(BIN)/ruff check src tests fuzz tools $(wildcard bench)

## Architecture (docs/architecture.md, "Layers"): import-linter contracts (layers, no cycle between areas nor
## inside core), no SQL outside repositories and every package in a layer, no dead code.
layers: $(STAMP)
	$(BIN)/lint-imports --no-cache
	$(BIN)/python tools/verifier_architecture.py
	$(BIN)/python tools/verifier_noms.py
	$(BIN)/python tools/verifier_code_mort.py

typecheck: $(STAMP)
	$(BIN)/mypy

## Contract linters on the served OpenAPI (tools/contrat, versions pinned in its package-lock.json): Redocly
## (recommended-strict, 0 finding but the listed ones), Spectral (spectral:oas, fails on a warning) and
## openapi-typescript types with their defaults compiling the README's example under tsc --strict. Needs node >= 20
## and npm; without npm it says so and is skipped (as the console's browser tests without chromium).
CONTRAT := tools/contrat
$(CONTRAT)/node_modules/.installed: $(CONTRAT)/package-lock.json
	cd $(CONTRAT) && npm ci --prefer-offline --no-audit --no-fund
	touch $@

contrat: $(STAMP)
	@if ! command -v npm >/dev/null; then echo "contrat: npm absent, contract linters skipped"; exit 0; fi; \
	$(MAKE) --no-print-directory $(CONTRAT)/node_modules/.installed && mkdir -p $(CONTRAT)/build && \
	$(BIN)/python $(CONTRAT)/openapi.py $(CONTRAT)/build/openapi.json && cd $(CONTRAT) && \
	npx --no-install redocly lint build/openapi.json --config redocly-lint.yaml && \
	npx --no-install spectral lint build/openapi.json --ruleset .spectral.yaml --fail-severity warn && \
	npx --no-install openapi-typescript build/openapi.json --output build/unionflow.d.ts && \
	npx --no-install tsc --project tsconfig.json && echo "contrat: Redocly, Spectral and tsc --strict clean"

## Schemathesis against a live server on a scratch database, per role (SUPER_ADMIN, ADMIN, TRESORIER, MEMBRE),
## positive and negative data, every check. Accepted findings: fuzz/schemathesis.toml.
fuzz: $(STAMP)
	$(BIN)/python -m fuzz.run --max-examples $${FUZZ_MAX_EXAMPLES:-25}

## The CI cut of `make fuzz`: fewer examples and a time budget per role (under 5 minutes in all on 2 cores).
## Without schemathesis' coverage warnings (403 for a role's forbidden operations, 404 on generated ids: ~170 lines
## per role that two examples cannot act on); `make fuzz` shows them. Failures are printed either way.
fuzz-ci: $(STAMP)
	$(BIN)/python -m fuzz.run --max-examples 2 --max-time 45 --phases examples,fuzzing -- --warnings off

bench: $(STAMP)
	$(BIN)/python -m bench.run

## A member import of 100,000 generated lines on a fresh PostgreSQL database (bench/results/*-import.*).
bench-import: $(STAMP)
	$(BIN)/python -m bench.import_membres --lines $${BENCH_IMPORT_LINES:-100000}

## The monthly dues generation for 100,000 active members on a fresh PostgreSQL database
## (bench/results/*-generation.*).
bench-generation: $(STAMP)
	$(BIN)/python -m bench.generation_cotisations --membres $${BENCH_GENERATION_MEMBRES:-100000}

## USSD sessions (3-5 answers each) from 100 gateway connections against `unionflow serve` on a fresh PostgreSQL
## database: errors and p50/p95/p99 per answer (bench/results/*-ussd.*).
bench-ussd: $(STAMP)
	$(BIN)/python -m bench.ussd --sessions $${BENCH_USSD_SESSIONS:-1000} --connexions $${BENCH_USSD_CONNEXIONS:-100}

## The work that grows with the union on the bench's data (closing, consolidation, statements; issue 32):
## bench/results/*-echelle.*. BENCH_SCALE=national for the national data set.
bench-echelle: $(STAMP)
	$(BIN)/python -m bench.echelle --scale $${BENCH_SCALE:-default} --repetitions $${BENCH_REPETITIONS:-3}

## Restart after a crash: payments under load, the server's process group SIGKILLed, restarted, unanswered payments
## retried with their keys, every due checked paid once with its entry (bench/results/*-reprise.*; issue 32 item 7).
bench-reprise: $(STAMP)
	$(BIN)/python -m bench.reprise --scale $${BENCH_SCALE:-default} --repetitions $${BENCH_REPETITIONS:-3}

## A year of the bench's largest organisation through every statement, rendered to docs/etats/bench and tied
## to the books (issue 30): bench/results/*-etats.json.
bench-etats: $(STAMP)
	$(BIN)/python -m bench.rendu_etats

## A wave of SMS reminders queued through the outbox and drained to a loopback Africa's Talking gateway at
## UNIONFLOW_SMS_MESSAGES_PAR_SECONDE (bench/results/*-sms.*).
bench-sms: $(STAMP)
	$(BIN)/python -m bench.sms --membres $${BENCH_SMS_MEMBRES:-10000}

## The same jobs (a reminder wave, dues generation) on our task table/outbox and on Celery over RabbitMQ, undisturbed
## and with a worker SIGKILLed mid-run: jobs/s, CPU per job, effects lost and duplicated, recovery
## (bench/results/*-moteurs.*; docs/decisions.md, "Moteur de tâches: mesuré contre Celery").
bench-moteurs: $(STAMP)
	$(BIN)/python -m bench.moteurs --membres $${BENCH_MOTEURS_MEMBRES:-5000} --workers $${BENCH_MOTEURS_WORKERS:-2}

clean:
	rm -rf $(VENV) var .mypy_cache .ruff_cache
