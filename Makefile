# The one entry point. Needs only python3 (3.11+); uv is bootstrapped into .uv/ when missing.
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo .uv/bin/uv)
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(shell $(PYTHON) -c 'import sys; print(sys.executable)')
RUN := $(UV) run --frozen
# The server alone: `uv run` must not add the test tools back either.
SERVE := $(UV) run --frozen --no-dev

.PHONY: install install-server run test test-deps lint format typecheck bench migration openapi clean

$(UV):
	$(PYTHON) -m venv .uv
	.uv/bin/pip install --quiet uv

# Two stamps, so `make run` and `make test` never undo each other: the server's sync is
# inexact (it leaves test tools that `make test` installed), the full one adds them.
.venv/.installed-server: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --no-dev --inexact
	@touch $@

.venv/.installed: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen
	@touch $@

install: .venv/.installed

install-server: .venv/.installed-server

run: install-server ## migrate, seed a demo workspace when empty, serve on 127.0.0.1:8000
	$(SERVE) plumbline db upgrade
	$(SERVE) plumbline demo --if-empty
	$(SERVE) plumbline serve

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

clean:
	rm -rf .venv .uv var
