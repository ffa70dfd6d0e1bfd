# The one entry point. Needs only python3 (3.11+); uv is bootstrapped into .uv/ when missing.
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo .uv/bin/uv)
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(shell $(PYTHON) -c 'import sys; print(sys.executable)')
RUN := $(UV) run --frozen
# The server alone: `uv run` must not add the test tools back either.
SERVE := $(UV) run --frozen --no-dev

# `make run PORT=8731 HOST=0.0.0.0`: where the server listens (links and e-mails follow the port).
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install install-server run test test-deps lint format typecheck bench migration openapi client clean vendor messages

$(UV):
	@echo "Bootstrapping uv into .uv/..."
	@$(PYTHON) -m venv .uv
	@.uv/bin/pip install --quiet --disable-pip-version-check uv

# Two stamps, so `make run` and `make test` never undo each other: the server's sync is
# inexact (it leaves test tools that `make test` installed), the full one adds them.
# Quiet: a line each, not one per package.
.venv/.installed-server: $(UV) pyproject.toml uv.lock
	@echo "Installing the server's dependencies (uv sync)..."
	@$(UV) sync --frozen --no-dev --inexact --compile-bytecode --quiet
	@touch $@

.venv/.installed: $(UV) pyproject.toml uv.lock
	@echo "Installing the dependencies and the test tools (uv sync)..."
	@$(UV) sync --frozen --quiet
	@touch $@

install: .venv/.installed

install-server: .venv/.installed-server

# The server seeds the demo itself and prints its banner last, once it serves; SIGTERM stops it
# cleanly (make exits 0).
run: install-server ## migrate, seed a demo workspace when empty, serve on $(HOST):$(PORT)
	@$(SERVE) plumbline db upgrade
	@$(SERVE) plumbline serve --host $(HOST) --port $(PORT) --demo

# One worker per core, a database each; a worker runs whole files (module fixtures start once).
# Override for one process or one folder: make test PYTEST_ARGS="-n 0 tests/rfi".
PYTEST_ARGS ?= -n auto --dist loadfile
test: install test-deps
	$(RUN) pytest $(PYTEST_ARGS)

# What the suite needs besides Python (Chromium, redis-server): installed with apt-get when
# running as root, else one line saying what is missing and how to get it, and a failure.
test-deps:
	@scripts/test-deps

lint: install
	$(RUN) ruff format --check src tests benchmarks
	$(RUN) ruff check src tests benchmarks

format: install
	$(RUN) ruff format src tests benchmarks
	$(RUN) ruff check --fix src tests benchmarks

typecheck: install
	$(RUN) mypy

bench: install
	$(RUN) python -m benchmarks

migration: install ## make migration m="add punch items"
	$(RUN) plumbline db revision "$(m)"

openapi: install
	$(RUN) plumbline openapi > openapi.json

# A typed Python client generated from it (docs/integrations.md, "Typed clients"), into
# $(CLIENT) (default plumbline_client/, replaced when it exists).
CLIENT ?= plumbline_client
client: openapi
	$(RUN) openapi-python-client generate --path openapi.json --output-path $(CLIENT) \
		--config clients/openapi-python-client.yaml --meta none --overwrite

# The pages' vendored JS libraries, from the npm registry at the manifest's versions
# (src/plumbline/pages/static/vendor/manifest.json): change a version, run, review, commit.
vendor:
	$(PYTHON) scripts/vendor

# The pages' strings: extracted from the templates and page code, merged into each language's
# catalogue (src/plumbline/pages/locale/<lang>/LC_MESSAGES/messages.po); translate what is new.
messages: install
	$(RUN) pybabel extract -F babel.cfg -o src/plumbline/pages/locale/messages.pot --no-location --sort-output --omit-header src/plumbline/pages
	$(RUN) pybabel update -i src/plumbline/pages/locale/messages.pot -d src/plumbline/pages/locale --no-fuzzy-matching --omit-header

clean:
	rm -rf .venv .uv var
