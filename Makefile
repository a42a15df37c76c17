# Two commands for a fresh machine: `make run` and `make test`. See README.md.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test lint bench chromium postgresql clean

run: $(VENV)/.run-stamp
	$(VENV)/bin/streamlit run app.py

# Lint first: a ruff error fails `make test` (and so .ci/run) before any test runs.
test: lint chromium postgresql
	$(PY) -m pytest

# One formatting rule: ruff format, enforced (a few data tables keep their rows with "# fmt: skip").
lint: $(VENV)/.dev-stamp
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(VENV)/.bench-stamp chromium
	$(PY) tests/perf/bench.py

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Stamps: reinstall only when a requirements file changed.
$(VENV)/.run-stamp: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.dev-stamp: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $(VENV)/.run-stamp $@

$(VENV)/.bench-stamp: $(VENV)/.dev-stamp tests/perf/requirements-bench.txt
	$(PY) -m pip install -q -r tests/perf/requirements-bench.txt
	touch $@

# A Chromium for the browser tests: Debian's package, installed as root when missing.
chromium:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "No Chromium at $(CHROMIUM): install it (apt-get install chromium) or set CHROMIUM=/path"; exit 1; \
	fi

# PostgreSQL server binaries for class mode's storage tests, which start a throwaway server
# themselves (tests/pg_cluster.py): Debian's package, installed as root when missing.
PG_INITDB := $(or $(wildcard $(PG_BIN)/initdb),$(lastword $(sort $(wildcard /usr/lib/postgresql/*/bin/initdb))))
postgresql:
	@if [ -n "$(PG_INITDB)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's postgresql for the class-mode tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
		echo "No PostgreSQL server (initdb): install it (apt-get install postgresql) or set PG_BIN=/path/to/bin"; exit 1; \
	fi

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache bench-results.json
