# The studio's two commands: `make up` runs it, `make test` runs every test.
# Both set up what they need first: the virtualenv (.venv, pinned requirements.txt),
# the frontend (npm ci from package-lock.json, vite build) and, for tests, Chromium and
# PostgreSQL's server binaries (the tests start their own server).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/vite.config.ts frontend/tsconfig*.json -type f 2>/dev/null)
PYTEST_ARGS ?=

.PHONY: up test setup python frontend browser postgres api-types api-client bench-engine bench-windows bench-plan bench-spark bench-events bench-async bench-debloat bench-unaligned bench-batch bench-studio bench-expressions bench-budget bench-connectors bench-boundaries bench-state bench-kafka bench-frontend bench-scale bench-latency bench-wire bench-markers bench-soak bench-test-cases bench-runs clean

up: setup
	$(PY) -m studio.processes.supervisor

test: setup browser postgres
	cd frontend && npm test
	PY=$(PY) scripts/run_tests.sh $(PYTEST_ARGS)

setup: python frontend

python: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

frontend: frontend/dist/index.html

frontend/node_modules/.installed: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

# the Docker image builds it with the same script
frontend/dist/index.html: frontend/node_modules/.installed $(FRONTEND_SOURCES)
	scripts/build_frontend.sh

# What the OpenAPI schema generates: the frontend's API types and the Python client (tests/test_api_types.py
# and tests/test_api_client.py fail when they drift); after an API change, `make api-types` renews both.
api-types: python frontend/node_modules/.installed api-client
	$(PY) manage.py spectacular --format openapi-json --file frontend/openapi.json
	cd frontend && npx --no-install openapi-typescript openapi.json -o src/api/schema.gen.ts && rm openapi.json

# The Python client package clients/python/studio_client (openapi-python-client; clients/python/README.md)
api-client: python
	$(PY) scripts/generate_api_client.py

browser:
	scripts/ensure_chromium.sh

postgres:
	scripts/ensure_postgres.sh

bench-engine: python
	$(PY) tests/bench/bench_engine.py

bench-windows: python
	$(PY) tests/bench/bench_windows.py

bench-plan: python
	$(PY) tests/bench/bench_plan.py

bench-expressions: python
	$(PY) tests/bench/bench_expressions.py

bench-budget: python
	$(PY) tests/bench/bench_budget.py

bench-test-cases: python
	$(PY) tests/bench/bench_test_cases.py

bench-spark: python
	$(PY) tests/bench/bench_spark.py

bench-events: python
	$(PY) tests/bench/bench_events.py

# Many small runs at once: in the shared session, and each in a driver of its own (issue 40)
bench-runs: python
	$(PY) tests/bench/bench_runs.py

bench-async: python
	$(PY) tests/bench/bench_async.py

bench-debloat: python
	$(PY) tests/bench/bench_debloat.py

bench-unaligned: python
	$(PY) tests/bench/bench_unaligned.py

bench-batch: python
	$(PY) tests/bench/bench_batch.py

bench-studio: python
	$(PY) tests/bench/bench_studio.py

bench-connectors: python postgres
	$(PY) tests/bench/bench_connectors.py

bench-boundaries: python
	$(PY) tests/bench/bench_boundaries.py

bench-state: python
	$(PY) tests/bench/bench_state.py

bench-kafka: python
	$(PY) tests/bench/bench_kafka.py

bench-scale: python
	$(PY) tests/bench/bench_scale.py

bench-latency: python
	$(PY) tests/bench/bench_latency.py

# Record buffers between slot processes: pickle against msgpack through a pair of TCP networks.
bench-wire: python
	$(PY) tests/bench/bench_wire.py

# What latency markers cost: pairs of runs sharing one CPU, markers off and every second (the studio's default), off and every 10 ms; also the last phase of bench-latency.
bench-markers: python
	$(PY) tests/bench/bench_markers.py

# A run checkpointing every 100 ms for 10 minutes: BENCH_SOAK_ARGS="--hours 24" for longer, "--quick" to try.
bench-soak: python
	$(PY) tests/bench/bench_soak.py $(BENCH_SOAK_ARGS)

bench-frontend: setup browser
	$(PY) tests/bench/bench_frontend.py

clean:
	rm -rf var frontend/dist test-results
